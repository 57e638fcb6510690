"""The conformance suite's machinery (tests/conformance/README.md): load the cases transcribed from
peers' tests, run both shipped parsers of the case's family on its output, and say how each result
compares with the peer's assertion, as a consumer of the message reads it.

    python tests/conformance_check.py            # every disagreement, case by case
    python tests/conformance_check.py --table    # the family x source table (agree / decided / open)
"""

from __future__ import annotations

import json
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CASES_DIR = Path(__file__).resolve().parent / "conformance"
SCHEMAS = ROOT / "schemas"
SCHEMA, TEMPLATE = "response_schema", "response_template"
SUFFIX = {SCHEMA: ".json", TEMPLATE: ".template.json"}
MARKERS = ("decision", "open")
CASE_KEYS = {"id", "source", "family", "output", "prompt", "expected", "compare", "checks", "formats", *MARKERS}
# What a peer's test asserts: all three by default; "tool_call_names" compares only the calls' names;
# "content_contains" only that the content holds each string of the list `expected.content` (a
# peer's assertIn).
CHECKS = ("content", "reasoning", "tool_calls", "tool_call_names", "content_contains")
DEFAULT_CHECKS = ("content", "reasoning", "tool_calls")


@dataclass(frozen=True)
class Case:
    file: str  # the source file's stem: llama_cpp, vllm, ...
    data: dict

    @property
    def id(self) -> str:
        return self.data["id"]

    @property
    def family(self) -> str:
        return self.data["family"]

    @property
    def marker(self) -> tuple[str, str] | None:
        """("decision" | "open", reason), or None for a case expected to agree."""
        for key in MARKERS:
            if key in self.data:
                return key, self.data[key]
        return None

    @property
    def verdict(self) -> str:
        marker = self.marker
        return "agree" if marker is None else ("decided" if marker[0] == "decision" else "open")


def load_cases() -> list[Case]:
    cases = []
    for path in sorted(CASES_DIR.glob("*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        cases.extend(Case(path.stem, case) for case in document["cases"])
    return cases


def formats_of(family: str) -> list[str]:
    """The formats the family ships (a template-only family has no schema)."""
    return [fmt for fmt in (SCHEMA, TEMPLATE) if (SCHEMAS / f"{family}{SUFFIX[fmt]}").is_file()]


@lru_cache(maxsize=None)
def _runner(family: str, fmt: str):
    from workbench.formats import format_of

    value = json.loads((SCHEMAS / f"{family}{SUFFIX[fmt]}").read_text(encoding="utf-8"))
    found = format_of(value)
    assert found == fmt, (family, fmt, found)
    return found.runner(value)


def run(case: Case, fmt: str) -> dict | str:
    """The message the shipped parser gives for the case's output, or "error: ..." when it raises."""
    try:
        return _runner(case.family, fmt)(case.data["output"], case.data.get("prompt", ""))
    except Exception as exc:  # noqa: BLE001 - a parse failure is a result to compare
        return f"error: {type(exc).__name__}: {exc}"


def _text(value: Any, stripped: bool) -> str | None:
    """A content or reasoning as a consumer reads it: None when absent or empty."""
    if value is None:
        return None
    if not isinstance(value, str):
        return value  # type: ignore[return-value] - shown as it is, and it differs
    if stripped:
        value = value.strip()
    return value or None


def _arguments(value: Any) -> Any:
    if isinstance(value, str):  # a JSON string of arguments, as the OpenAI wire format carries them
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def consumer_view(message: dict | str, stripped: bool, with_ids: list[bool]) -> dict | str:
    """What a consumer compares: reasoning (``thinking`` or ``reasoning_content``), content, and
    each call's name and arguments as an object (its id where the peer asserts one)."""
    if isinstance(message, str):
        return message
    calls = []
    for index, item in enumerate(message.get("tool_calls") or []):
        function = item.get("function", item) if isinstance(item, dict) else {}
        call = {"name": function.get("name"), "arguments": _arguments(function.get("arguments"))}
        if index < len(with_ids) and with_ids[index]:
            call["id"] = item.get("id")
        calls.append(call)
    reasoning = message.get("thinking", message.get("reasoning_content"))
    return {"content": _text(message.get("content"), stripped), "reasoning": _text(reasoning, stripped), "tool_calls": calls}


def expected_view(case: Case) -> dict:
    expected = case.data["expected"]
    stripped = case.data.get("compare") == "stripped"
    calls = [dict(c) for c in expected.get("tool_calls", [])]
    return {"content": _text(expected.get("content"), stripped), "reasoning": _text(expected.get("reasoning"), stripped), "tool_calls": calls}


def checked(view: dict | str, checks: list[str]) -> dict | str:
    """Only what the peer's test asserts."""
    if isinstance(view, str):
        return view
    kept = {key: view[key] for key in checks if key in ("content", "reasoning", "tool_calls")}
    if "tool_call_names" in checks:
        kept["tool_call_names"] = [call["name"] for call in view["tool_calls"]]
    return kept


def outcome(case: Case, fmt: str) -> tuple[bool, dict | str]:
    """(agrees with the peer on what the peer asserts, what our parser gave as the consumer sees it)."""
    want = expected_view(case)
    got = consumer_view(run(case, fmt), case.data.get("compare") == "stripped", ["id" in c for c in want["tool_calls"]])
    checks = case.data.get("checks", DEFAULT_CHECKS)
    got_checked, want_checked = checked(got, checks), checked(want, checks)
    if "content_contains" in checks:
        pieces = case.data["expected"]["content"]
        want_checked["content_contains"] = pieces
        if isinstance(got_checked, dict):
            content = got["content"]
            got_checked["content_contains"] = [p for p in pieces if isinstance(content, str) and p in content]
    return got_checked == want_checked, got


def differing_formats(case: Case) -> list[str]:
    return [fmt for fmt in formats_of(case.family) if not outcome(case, fmt)[0]]


def marked_formats(case: Case) -> list[str]:
    """The formats a marked case says differ (all the family ships, unless it names them)."""
    return case.data.get("formats") or formats_of(case.family)


def table(cases: list[Case]) -> str:
    counts: dict[tuple[str, str], Counter] = defaultdict(Counter)
    for case in cases:
        counts[(case.family, case.file)][case.verdict] += 1
    sources = sorted({case.file for case in cases})
    lines = ["| family | " + " | ".join(f"{s} (agree / decided / open)" for s in sources) + " |",
             "|---|" + "---|" * len(sources)]
    for family in sorted({case.family for case in cases}):
        cells = []
        for source in sources:
            c = counts.get((family, source))
            cells.append(f"{c['agree']} / {c['decided']} / {c['open']}" if c else "—")
        lines.append(f"| `{family}` | " + " | ".join(cells) + " |")
    total = Counter(case.verdict for case in cases)
    lines.append(f"| **all** ({len(cases)} cases) | " + " | ".join(
        "{} / {} / {}".format(*(sum(counts[(f, s)][v] for f in {c.family for c in cases}) for v in ("agree", "decided", "open")))
        for s in sources) + " |")
    lines.append("")
    lines.append(f"Total: {total['agree']} agree, {total['decided']} decided, {total['open']} open.")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    cases = load_cases()
    if "--table" in argv:
        print(table(cases))
        return 0
    for case in cases:
        if "--family" in argv and case.family != argv[argv.index("--family") + 1]:
            continue
        for fmt in formats_of(case.family):
            agrees, got = outcome(case, fmt)
            if not agrees or ("--all" in argv):
                print(f"{case.id} [{fmt}] {case.verdict}{'' if agrees else ' DIFFERS'}")
                print(f"   want {json.dumps(expected_view(case), ensure_ascii=False)}")
                print(f"   got  {json.dumps(got, ensure_ascii=False)}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main(sys.argv[1:]))
