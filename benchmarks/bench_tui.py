"""Keystroke-to-tree latency of the TUI, measured inside the app (headless), and its first paint.

    python benchmarks/bench_tui.py [--keys N]

For each keystroke typed into the schema editor: the time from the editor's change event to the
moment the new analysis has been applied to every pane (tree, raw spans, sample bar). It includes
the 15 ms debounce and the round trip to the analysis process. Pilot's own overhead is not counted
(it would dominate). A lag probe (a 10 ms interval timer) shows whether the event loop ever
stalls, i.e. whether typing waits. Keys alternate between typing "x" and deleting it, at the end
of one regex of the qwen3 schema: in ``thinking`` (a node whose input is small) or in ``tool_calls``;
then the same for the qwen3 response template (with a prompt), at the end of that field's closer.

Targets (both formats): p95 <= 50 ms at 20 KB; at 2 MB p95 <= 150 ms for an edit in thinking and <= 300 ms in
tool_calls; first paint <= 1 s after launch, of a small sample and of a 2 MB one whose trace has 100,000+
nodes (each of PAINT_FAMILIES' ``parallel_calls`` sample repeated to ~2 MB, with its schema).
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_engine import hermes_output  # noqa: E402

from workbench.store.document import SchemaDocument  # noqa: E402
from workbench.store.samples import load  # noqa: E402
from workbench.tui.app import WorkbenchApp  # noqa: E402

SCHEMA = ROOT / "schemas" / "qwen3.json"
TEMPLATE = ROOT / "schemas" / "qwen3.template.json"
PROMPT = "<|im_start|>user\nWhat is the weather in Paris?<|im_end|>\n<|im_start|>assistant\n"
# Where the cursor goes: just before the closing quote of this property's x-regex (for the
# template: of this field's closer, so each key makes the field's regions end elsewhere).
WHERE = {"thinking": '"thinking"', "tool_calls": '"tool_calls"'}
_X_REGEX = re.compile(r'"x-regex":\s*"((?:[^"\\]|\\.)*)"')
_CLOSER = re.compile(r'"close(?:_pattern)?":\s*"((?:[^"\\]|\\.)*)"')


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]


def _app(text: str, parser: Path = SCHEMA) -> WorkbenchApp:
    folder = Path(tempfile.mkdtemp())
    (folder / "sample.txt").write_text(text, encoding="utf-8")
    (folder / "sample.prompt.txt").write_text(PROMPT, encoding="utf-8")  # prefix= for the template
    return WorkbenchApp(SchemaDocument.open(parser), [load(folder / "sample.txt")])


async def _settled(pilot, app, count: int, timeout: float = 30.0) -> None:
    deadline = time.perf_counter() + timeout
    while len(app.main.latencies) < count and time.perf_counter() < deadline:
        await pilot.pause(0.002)


async def first_paint(text: str, parser: Path = SCHEMA) -> float:
    """Seconds from launching the app to the first tree and colours on screen."""
    started = time.perf_counter()
    app = _app(text, parser)
    async with app.run_test(size=(160, 45)) as pilot:
        while app.main.analysis is None:
            await pilot.pause(0.002)
        return time.perf_counter() - started


async def measure(text: str, node: str, keys: int, parser: Path = SCHEMA) -> tuple[list[float], list[float]]:
    app = _app(text, parser)
    lags: list[float] = []
    async with app.run_test(size=(160, 45)) as pilot:
        while app.main.analysis is None:
            await pilot.pause(0.01)
        await app.workers.wait_for_complete()
        last = [time.perf_counter()]

        def probe() -> None:
            now = time.perf_counter()
            lags.append(max(0.0, now - last[0] - 0.01))
            last[0] = now

        app.set_interval(0.01, probe)
        editor = app.main.editor
        text_of_schema = editor.text
        where = _CLOSER if parser == TEMPLATE else _X_REGEX
        offset = where.search(text_of_schema, text_of_schema.index(WHERE[node])).end(1)  # its closing quote
        row = text_of_schema.count("\n", 0, offset)
        editor.move_cursor((row, offset - (text_of_schema.rfind("\n", 0, offset) + 1)))
        app.main.latencies.clear()
        for i in range(keys):
            await pilot.press("x" if i % 2 == 0 else "backspace")
            await _settled(pilot, app, i + 1)
            await app.workers.wait_for_complete()  # the verdicts too, before the next key
        latencies = list(app.main.latencies)
    return latencies, lags


PAINT_FAMILIES = ("functiongemma", "mistral_v11", "functionary_v32")


def large_first_paints(runs: int = 3) -> None:
    """First paint of a 2 MB output per family in PAINT_FAMILIES (a trace of 100,000+ nodes)."""
    for family in PAINT_FAMILIES:
        unit = (ROOT / "sample_outputs" / family / "parallel_calls.txt").read_text(encoding="utf-8")
        text = unit * (2_000_000 // len(unit) + 1)
        paints = [asyncio.run(first_paint(text, ROOT / "schemas" / f"{family}.json")) * 1000 for _ in range(runs)]
        print(f"first paint, {family} {len(text):,} characters: median {statistics.median(paints):.0f} ms, "
              f"max {max(paints):.0f} ms (target <= 1000 ms)")


def families_at_2_mb() -> list[tuple[str, float, bool]]:
    """Each shipped family's samples, joined and repeated to ~2 MB, analysed in the TUI's analysis
    process: (family, seconds, parsed within the limit). Shows the default limit is enough."""
    from workbench.store.samples import Sample
    from workbench.live.process import AnalysisClient

    from workbench.tui.screens.main import TIME_LIMIT

    client = AnalysisClient()
    rows = []
    try:
        for schema in sorted((ROOT / "schemas").glob("*.json")):
            folder = ROOT / "sample_outputs" / schema.stem
            texts = [p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.txt")) if not p.name.endswith("-error.txt")]
            if not texts:
                continue
            unit = max(texts, key=len)  # one sample repeated: a long output of that family's shape
            text = unit * (2_000_000 // len(unit) + 1)
            client.set_samples({"big": Sample(Path("big.txt"), text)})
            started = time.perf_counter()
            analysis = client.analyze(len(rows), schema.read_text(encoding="utf-8"), "big", TIME_LIMIT, lambda: False)
            seconds = time.perf_counter() - started
            timed_out = analysis.hung is not None or (analysis.trace is not None and "time limit" in str(analysis.trace.error or ""))
            rows.append((schema.stem, seconds, not timed_out))
    finally:
        client.close()
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keys", type=int, default=40)
    parser.add_argument("--families", action="store_true", help="also: every family's schema on a 2 MB output")
    args = parser.parse_args()
    small, large = hermes_output(28), hermes_output(2800)
    paints = [asyncio.run(first_paint(hermes_output(2))) * 1000 for _ in range(5)]
    print(f"first paint, {len(hermes_output(2)):,} characters: median {statistics.median(paints):.0f} ms, "
          f"max {max(paints):.0f} ms (target <= 1000 ms)")
    large_first_paints()
    cases = [("20 KB", small, "thinking", 50), ("20 KB", small, "tool_calls", 50),
             ("2 MB", large, "thinking", 150), ("2 MB", large, "tool_calls", 300)]
    cases = [(SCHEMA, *case) for case in cases] + [(TEMPLATE, *case) for case in cases]
    print(f"{'parser':<10}{'sample':<8}{'size':>12}{'edit in':>12}{'keys':>6}{'median ms':>11}{'p95 ms':>9}{'max ms':>9}"
          f"{'target p95':>12}{'loop lag p95 ms':>17}{'max lag ms':>12}")
    for parser, name, text, node, target in cases:
        latencies, lags = asyncio.run(measure(text, node, args.keys, parser))
        ms = [x * 1000 for x in latencies]
        lag = [x * 1000 for x in lags] or [0.0]
        kind = "template" if parser == TEMPLATE else "schema"
        print(
            f"{kind:<10}{name:<8}{len(text):>12,}{node:>12}{len(ms):>6}{statistics.median(ms):>11.1f}{p95(ms):>9.1f}{max(ms):>9.1f}"
            f"{target:>12}{p95(lag):>17.1f}{max(lag):>12.1f}"
        )
    if args.families:
        rows = families_at_2_mb()
        slowest = sorted(rows, key=lambda r: -r[1])[:5]
        within = sum(1 for r in rows if r[2])
        print(f"every family's schema on its longest sample repeated to ~2 MB, in the analysis process: "
              f"{within}/{len(rows)} within the limit; slowest: "
              + ", ".join(f"{name} {seconds * 1000:.0f} ms" for name, seconds, _ in slowest))
        for name, seconds, ok in rows:
            if not ok:
                print(f"  {name}: stopped at the time limit ({seconds:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
