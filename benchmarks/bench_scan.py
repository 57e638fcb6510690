"""``workbench scan`` speed and memory on generated datasets of realistic rows.

    python benchmarks/bench_scan.py [--rows N] [--repeat N] [--data DIR] [--quick] [--mem-rows N,N]

The data: ``--rows`` rows (100,000) split evenly over four families (qwen3, gpt_oss, hermes,
deepseek_v3_1), one Parquet file per family with a ``text`` and a ``prompt`` column, generated with a
seeded random from the shapes of sample_outputs/<family>/ and their prompts: plain answers,
reasoning (written by the model or pre-written by the prompt), one call or several (as each family
calls), preambles, lengths from one sentence to a few KB, arguments of every JSON type with unicode,
quotes and code; and ~3% realistic failures (a call cut off mid-JSON, reasoning cut off, Hermes
arguments as a JSON string). Every shape is first checked to parse as it was generated (calls and
their names, reasoning, content; or an error for the failures). ``--data DIR`` keeps the files
between runs; the datasets cache is always fresh, so the conversion is measured.

Per family, each contender over the same rows, run by run in rotating order (timing.timed, after
one warm-up run each), so load from other processes on this shared machine falls on all alike:

- floor: a plain loop of ``workbench.api.parse_response(text, template, prefix=prompt)`` over the
  texts in one process (failures caught), the texts already in a list;
- loaded once: the same loop with the template compiled once (``format_of(template).runner``, the
  parse the scan's row function runs, less its trap watcher): what a row costs the engine alone,
  so that scan 1 proc / loaded once is the scan's own cost per row (the trap watcher, the suspect
  checks, the failing node of a failed row, reading and writing); the floor above also pays the
  API's lookup of the template on every call;
- scan 1 proc: ``run_scan`` with ``num_proc=1`` (the row function, the suspect checks, the Parquet
  results and the summary), the dataset already converted (what datasets caches);
- scan 2 procs: the same with ``num_proc=2``.

First memory, while this process is still small: the peak RSS (``ru_maxrss`` of RUSAGE_SELF, and
of RUSAGE_CHILDREN for the pool's workers) of a 2-process scan of 100,000 and of 1,000,000 rows of
one family, each generated, converted by datasets (its time and peak printed too) and scanned in
a fresh subprocess; the 1M run takes a few minutes, ``--quick`` skips it. Then speed: rows/s and
rows/s per core, rows per CPU-second, scan 1 proc / floor (the median of per-round ratios; target
>= 0.8), 2 procs / 1 proc (target >= 1.6; needs two idle cores: the CPU-time bound is printed
beside it), per-row latency percentiles from the results' ``seconds`` column (p50, p95, p99), the
verdicts, and the one-time conversion of each file by datasets. Nothing is asserted: the figures
are read, as every benchmark of the project.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from timing import paired_ratio, timed  # noqa: E402 - benchmarks/ is the script's folder

FAMILIES = ("qwen3", "gpt_oss", "hermes", "deepseek_v3_1")
MEMORY_FAMILY = "qwen3"

# ----------------------------------------------------------------------------- the words

WORDS = ("the value is checked against the last run before anything is written so the user sees the same "
         "result twice when the request repeats and the cache keeps each answer for an hour unless the "
         "source changes first which happens when a new release lands or an editor fixes a typo in the "
         "table so we compare both figures and report the difference with its unit and a short reason").split()
UNICODE = ["Zürich", "Kyōto", "São Paulo", "Reykjavík", "Łódź", "naïve", "€1 250,00", "°C", "→", "✓", "📈", "東京",
           "Ελλάδα", "—", "…", "½", "Ångström", "œuvre", "İstanbul", "مرحبا"]
CITIES = ["Lisbon", "Oslo", "Zürich", "Kyōto", "Lyon", "Reykjavík", "Bengaluru", "New York", "Hallstatt", "Łódź",
          "São Paulo", "Nairobi", "Montréal", "Tallinn", "Seoul"]
QUESTIONS = ["What is the capital of {c}?", "How long does it take to double money at {n}% interest?",
             "Find a flight from {c} to {d} on {date}.", "What's the weather in {c} tomorrow?",
             "Convert {n} miles to km.", "Summarise the last {n} refunds.", "Why does my build fail with E{n}?",
             "Translate this into Japanese: {c} is lovely in spring.", "Plan a route from {c} to {d}.",
             "Open the config file and check the pool size."]
TOOLS = {
    "get_weather": lambda r: {"city": r.choice(CITIES), "date": _date(r), "units": r.choice(["metric", "imperial"]),
                              "hourly": r.random() < 0.5},
    "search": lambda r: {"query": _sentence(r, 3, 9).rstrip("."), "max_results": r.randint(1, 20)},
    "convert_units": lambda r: {"value": round(r.uniform(0, 1000), r.randint(0, 3)), "from": "mile", "to": "km",
                                "precision": r.randint(0, 4), "options": {"round": r.random() < 0.5, "notation": None}},
    "search_flights": lambda r: {"origin": r.choice(["LIS", "KEF", "ZRH", "NRT", "JFK"]), "destination": r.choice(["OSL", "CDG"]),
                                 "date": _date(r), "passengers": {"adults": r.randint(1, 4), "children": r.randint(0, 3)},
                                 "max_stops": r.randint(0, 2), "flexible_dates": r.random() < 0.3},
    "run_python": lambda r: {"code": "\n".join(f"x{i} = {r.randint(0, 99)} * \"{r.choice(UNICODE)}\"" for i in range(r.randint(1, 30)))
                             + "\nprint(x0)", "timeout_s": r.choice([5, 10, 30.5])},
    "create_issue": lambda r: {"repo": "acme/billing", "title": _sentence(r, 4, 10), "labels": r.sample(["bug", "pdf", "ui", "p1"], r.randint(0, 3)),
                               "body": "## Steps\n" + "\n".join(f"{i}. {_sentence(r, 3, 12)}" for i in range(1, r.randint(2, 8)))},
    "plan_route": lambda r: {"waypoints": [{"name": r.choice(CITIES), "lat": round(r.uniform(-80, 80), 4),
                                            "lon": round(r.uniform(-170, 170), 4)} for _ in range(r.randint(2, 6))],
                             "profile": r.choice(["cycling", "driving", "walking"]), "avoid": ["highways"], "elevation": True},
    "convert_currency": lambda r: {"amount": r.randint(1, 100000) / 100, "from": "EUR", "to": r.choice(["JPY", "USD", "CHF"]),
                                   "rate_type": r.choice(["mid", "buy", "sell"])},
    "read_file": lambda r: {"path": f"src/module_{r.randint(0, 99)}.py", "start_line": 1, "end_line": r.randint(10, 400)},
    "translate": lambda r: {"text": f"{_sentence(r, 3, 14)} {r.choice(UNICODE)}", "source_lang": "de", "target_lang": r.choice(["ja", "pt-BR", "fr"]),
                            "formality": r.choice(["polite", None])},
}


def _date(r: random.Random) -> str:
    return f"2026-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}"


def _sentence(r: random.Random, low: int = 5, high: int = 18) -> str:
    words = [r.choice(WORDS) for _ in range(r.randint(low, high))]
    if r.random() < 0.3:
        words.insert(r.randrange(len(words)), r.choice(UNICODE))
    if r.random() < 0.2:
        words.insert(r.randrange(len(words)), f"{r.randint(0, 10**6):,}")
    return " ".join(words).capitalize() + "."


def _prose(r: random.Random, sentences: tuple[int, int] = (1, 8)) -> str:
    """A paragraph or a few: mostly short, now and then a few KB, sometimes with a code block."""
    count = r.randint(*sentences) if r.random() < 0.9 else r.randint(20, 80)
    parts = [_sentence(r) for _ in range(count)]
    if r.random() < 0.15:
        parts.insert(r.randrange(len(parts) + 1), "\n\n```python\nfor row in rows:\n    print(row[\"id\"], row.get(\"name\"))\n```\n\n")
    text = " ".join(parts)
    return text.replace(". ", ".\n\n", 1) if r.random() < 0.3 else text


def _question(r: random.Random) -> str:
    return r.choice(QUESTIONS).format(c=r.choice(CITIES), d=r.choice(CITIES), n=r.randint(2, 500), date=_date(r))


def _calls(r: random.Random, many: bool) -> list[tuple[str, dict]]:
    names = r.sample(sorted(TOOLS), r.randint(2, 4)) if many else [r.choice(sorted(TOOLS))]
    return [(name, TOOLS[name](r)) for name in names]


def _cut(r: random.Random, text: str, start: int) -> str:
    """``text`` cut off at a random point after ``start`` (max_tokens reached)."""
    return text[: r.randint(start + 1, max(start + 1, len(text) - 2))]


# ----------------------------------------------------------------------------- the families
# Each ``row(r)`` gives (text, prompt, what it should parse to): the expectation is a dict of
# reasoning (bool), content (bool), calls (names) or "error".

def qwen3_row(r: random.Random) -> tuple[str, str, dict]:
    system = "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n" if r.random() < 0.7 else ""
    prompt = f"{system}<|im_start|>user\n{_question(r)}<|im_end|>\n<|im_start|>assistant\n"
    shape = r.random()
    reasoning = _prose(r, (1, 6))
    if shape < 0.25:
        return f"{_prose(r)}<|im_end|>", prompt, {"content": True}
    if 0.43 < shape < 0.45:  # reasoning cut off (max_tokens reached)
        return _cut(r, f"<think>\n{reasoning}", len("<think>\n") + 10), prompt, {"reasoning": True}
    if shape < 0.45:
        return f"<think>\n{reasoning}\n</think>\n\n{_prose(r)}<|im_end|>", prompt, {"reasoning": True, "content": True}
    if shape < 0.55:  # the prompt pre-writes <think>
        return f"{reasoning}\n</think>\n\n{_prose(r)}<|im_end|>", prompt + "<think>\n", {"reasoning": True, "content": True}
    calls = _calls(r, shape > 0.8)
    preamble = f"{_sentence(r)}\n" if r.random() < 0.4 else ""
    blocks = "\n".join(f"<tool_call>\n{json.dumps({'name': n, 'arguments': a}, ensure_ascii=False)}\n</tool_call>" for n, a in calls)
    text = f"<think>\n{reasoning}\n</think>\n\n{preamble}{blocks}<|im_end|>"
    if shape > 0.97:  # cut off inside the last call's JSON
        at = text.rindex("<tool_call>\n") + len("<tool_call>\n{")
        return _cut(r, text[: -len("\n</tool_call><|im_end|>")], at), prompt, {"error": True}
    return text, prompt, {"reasoning": True, "content": bool(preamble), "calls": [n for n, _ in calls]}


GPT_OSS_SYSTEM = ("<|start|>system<|message|>You are ChatGPT, a large language model trained by OpenAI.\nKnowledge cutoff: "
                  "2024-06\nCurrent date: 2026-03-09\n\nReasoning: {effort}\n\n# Valid channels: analysis, commentary, final. "
                  "Channel must be included for every message.\nCalls to these tools must go to the commentary channel: "
                  "'functions'.<|end|><|start|>developer<|message|># Instructions\n\nBe brief.\n\n# Tools\n\n## functions\n\n"
                  "namespace functions {{\n\n{tools}\n}} // namespace functions<|end|>")


def gpt_oss_row(r: random.Random) -> tuple[str, str, dict]:
    tools = "".join(f"// {name}\ntype {name} = (_: any) => any;\n\n" for name in r.sample(sorted(TOOLS), 3))
    prompt = (GPT_OSS_SYSTEM.format(effort=r.choice(["low", "medium", "high"]), tools=tools)
              + f"<|start|>user<|message|>{_question(r)}<|end|><|start|>assistant")
    shape = r.random()
    analysis = f"<|channel|>analysis<|message|>{_prose(r, (1, 6))}<|end|><|start|>assistant"
    if shape < 0.2:
        return f"<|channel|>final<|message|>{_prose(r)}<|return|>", prompt, {"content": True}
    if 0.47 < shape < 0.5:  # reasoning cut off (max_tokens reached)
        return _cut(r, analysis[: analysis.index("<|end|>")], len("<|channel|>analysis<|message|>") + 10), prompt, {"reasoning": True}
    if shape < 0.5:
        return f"{analysis}<|channel|>final<|message|>{_prose(r)}<|return|>", prompt, {"reasoning": True, "content": True}
    (name, args), = _calls(r, False)
    body = json.dumps(args, ensure_ascii=False, separators=(",", ":"))
    preamble = ""
    if shape > 0.85:  # a preamble on the commentary channel first
        preamble = f"<|channel|>commentary<|message|>{_sentence(r)}<|end|><|start|>assistant"
    if r.random() < 0.3:  # the recipient before the channel
        call = f" to=functions.{name}<|channel|>commentary json<|message|>{body}<|call|>"
    else:
        call = f"<|channel|>commentary to=functions.{name} <|constrain|>json<|message|>{body}<|call|>"
    text = f"{analysis}{preamble}{call}"
    if shape > 0.975:
        return _cut(r, text[: -len("<|call|>")], text.rindex("<|message|>") + len("<|message|>{")), prompt, {"error": True}
    return text, prompt, {"reasoning": True, "content": bool(preamble), "calls": [name]}


HERMES_SYSTEM = ("<|im_start|>system\nYou are a function calling AI model. You are provided with function signatures within "
                 "<tools></tools> XML tags. You may call one or more functions to assist with the user query. Don't make "
                 "assumptions about what values to plug into functions.\n<tools>\n{tools}\n</tools>\nFor each function call "
                 "return a json object with function name and arguments within <tool_call></tool_call> XML tags as follows:\n"
                 "<tool_call>\n{{\"name\": <function-name>, \"arguments\": <args-dict>}}\n</tool_call><|im_end|>\n")


def hermes_row(r: random.Random) -> tuple[str, str, dict]:
    tools = "\n".join(json.dumps({"type": "function", "function": {"name": n, "parameters": {"type": "object"}}})
                      for n in r.sample(sorted(TOOLS), 3))
    prompt = HERMES_SYSTEM.format(tools=tools) + f"<|im_start|>user\n{_question(r)}<|im_end|>\n<|im_start|>assistant\n"
    shape = r.random()
    if shape < 0.35:
        return f"{_prose(r)}<|im_end|>", prompt, {"content": True}
    calls = _calls(r, shape > 0.75)
    preamble = f"{_sentence(r)}\n" if r.random() < 0.5 else ""

    def block(name: str, args: dict) -> str:
        call = {"name": name, "arguments": args} if r.random() < 0.8 else {"arguments": args, "name": name}
        return f"<tool_call>\n{json.dumps(call, ensure_ascii=False)}\n</tool_call>"

    text = preamble + "\n".join(block(n, a) for n, a in calls) + "<|im_end|>"
    if shape > 0.98:  # arguments written as a JSON string: the template's json parser refuses it
        name, args = calls[0]
        return (f"<tool_call>\n{json.dumps({'name': name, 'arguments': json.dumps(args)})}\n</tool_call><|im_end|>",
                prompt, {"error": True})
    if shape > 0.96:
        return _cut(r, text[: -len("\n</tool_call><|im_end|>")], text.rindex("<tool_call>\n") + len("<tool_call>\n{")), prompt, {"error": True}
    return text, prompt, {"content": bool(preamble), "calls": [n for n, _ in calls]}


def deepseek_v3_1_row(r: random.Random) -> tuple[str, str, dict]:
    head = f"<｜begin▁of▁sentence｜>You are a helpful assistant.<｜User｜>{_question(r)}<｜Assistant｜>"
    end = "<｜end▁of▁sentence｜>"
    shape = r.random()
    thinking = r.random() < 0.6
    prompt = head + ("<think>" if thinking else "</think>")
    reasoning = f"{_prose(r, (1, 6))}</think>" if thinking else ""
    if shape < 0.4:
        return f"{reasoning}{_prose(r)}{end}", prompt, {"reasoning": thinking, "content": True}
    calls = _calls(r, shape > 0.75)
    preamble = _sentence(r) if r.random() < 0.4 else ""
    blocks = "".join(f"<｜tool▁call▁begin｜>{n}<｜tool▁sep｜>{json.dumps(a, ensure_ascii=False)}<｜tool▁call▁end｜>" for n, a in calls)
    text = f"{reasoning}{preamble}<｜tool▁calls▁begin｜>{blocks}<｜tool▁calls▁end｜>{end}"
    if shape > 0.97:
        cut = text[: text.rindex("<｜tool▁call▁end｜>")]
        return _cut(r, cut, cut.rindex("<｜tool▁sep｜>") + len("<｜tool▁sep｜>{")), prompt, {"error": True}
    return text, prompt, {"reasoning": thinking, "content": bool(preamble), "calls": [n for n, _ in calls]}


ROWS = {"qwen3": qwen3_row, "gpt_oss": gpt_oss_row, "hermes": hermes_row, "deepseek_v3_1": deepseek_v3_1_row}


def template_path(family: str) -> Path:
    return ROOT / "schemas" / f"{family}.template.json"


def check_shapes(family: str, rows: int = 2000) -> None:
    """The generated rows parse as they were generated: the calls by name, reasoning, content, or
    an error for the failures (so the figures are for rows the parser reads as it should)."""
    from workbench.api import parse_response

    template = json.loads(template_path(family).read_text())
    r = random.Random(f"check:{family}")
    for i in range(rows):
        text, prompt, want = ROWS[family](r)
        if want.get("error"):  # a failure: it raises, or (a cut-off call after whole ones) the scan finds a suspect
            continue
        try:
            message = parse_response(text, template, prefix=prompt)
        except Exception as exc:  # noqa: BLE001
            raise AssertionError(f"{family} row {i} raised {exc!r}:\n{prompt!r}\n{text!r}") from None
        reasoning = message.get("reasoning_content") or message.get("thinking")
        names = [c["function"]["name"] for c in message.get("tool_calls") or []]
        got = {"reasoning": bool(reasoning), "content": bool(message.get("content")), "calls": names}
        if ({**{"reasoning": False, "content": False, "calls": []}, **want} != got
                or any(not isinstance(c["function"]["arguments"], dict) for c in message.get("tool_calls") or [])):
            raise AssertionError(f"{family} row {i}: wanted {want}, got {got}:\n{prompt!r}\n{text!r}\n{message!r}")


def write_rows(path: Path, family: str, rows: int, seed: str) -> None:
    """``rows`` rows of ``family`` into a Parquet file, written a batch at a time."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if path.exists() and pq.ParquetFile(str(path)).metadata.num_rows == rows:
        return
    r = random.Random(f"{seed}:{family}")
    schema = pa.schema([("text", pa.string()), ("prompt", pa.string())])
    tmp = path.with_suffix(".partial")
    with pq.ParquetWriter(str(tmp), schema) as writer:
        for start in range(0, rows, 50_000):
            made = [ROWS[family](r) for _ in range(min(50_000, rows - start))]
            writer.write_table(pa.table({"text": [m[0] for m in made], "prompt": [m[1] for m in made]}, schema=schema))
    os.replace(tmp, path)


# ----------------------------------------------------------------------------- measuring

def peak_rss_mb() -> tuple[float, float]:
    """ru_maxrss of this process and of its largest waited-for child, in MB (Linux gives KB)."""
    scale = 1 / 1024 if sys.platform != "darwin" else 1 / 1024 / 1024
    return (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale,
            resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * scale)


def scan_job(data: Path, family: str, output: Path, num_proc: int):
    from workbench.scan.job import Columns, ScanJob

    return ScanJob(data=str(data), parser=template_path(family), columns=Columns("text", "prompt"), output=output,
                   num_proc=num_proc, use_cache=False, force=True)


def child(args: argparse.Namespace) -> int:
    """One measurement in a fresh process: ``convert`` (datasets reads the file into its Arrow
    cache) or ``scan`` (a scan of the converted file); prints seconds and peak RSS as JSON."""
    start = time.perf_counter()
    if args.child == "generate":
        write_rows(Path(args.file), args.family, args.rows, "memory")
        rows = args.rows
    elif args.child == "convert":
        from workbench.scan.source import open_dataset

        rows = len(open_dataset(args.file))
    else:
        from workbench.scan.job import run_scan

        rows = run_scan(scan_job(Path(args.file), args.family, Path(args.out), args.num_proc)).rows
    seconds = time.perf_counter() - start
    own, children = peak_rss_mb()
    print(json.dumps({"rows": rows, "seconds": seconds, "self_mb": own, "children_mb": children}))
    return 0


def in_child(kind: str, file: Path, family: str, out: Path, num_proc: int = 2, rows: int = 0) -> dict:
    command = [sys.executable, str(Path(__file__).resolve()), "--child", kind, "--file", str(file), "--family", family,
               "--out", str(out), "--num-proc", str(num_proc), "--rows", str(rows)]
    done = subprocess.run(command, capture_output=True, text=True, env=os.environ.copy())
    if done.returncode != 0:
        raise RuntimeError(f"{kind} of {file} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def cpu_seconds() -> float:
    """CPU seconds of this process and of its waited-for children (a pool's workers once joined)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def counted(fn, into: list[float]):
    """``fn``, appending the CPU seconds of each run (its workers' included) to ``into``."""
    def run() -> None:
        start = cpu_seconds()
        fn()
        into.append(cpu_seconds() - start)
    return run


def percentiles(seconds: list[float]) -> tuple[float, float, float]:
    ordered = sorted(seconds)

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]

    return at(0.50), at(0.95), at(0.99)


def bench(args: argparse.Namespace, data: Path, work: Path) -> int:
    import pyarrow.parquet as pq

    from workbench.api import parse_response
    from workbench.formats import format_of
    from workbench.scan.job import run_scan
    from workbench.scan.source import open_dataset

    per_family = args.rows // len(args.families)
    print(f"{per_family:,} rows per family ({', '.join(args.families)}), {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.2f}; data in {data}", flush=True)
    files = {}
    for family in args.families:
        check_shapes(family)
        files[family] = data / f"{family}-{per_family}.parquet"
        start = time.perf_counter()
        write_rows(files[family], family, per_family, "bench")
        took = time.perf_counter() - start
        if took > 1:
            print(f"generated {family}: {took:.1f} s", flush=True)

    print("\n| family | conversion s | floor rows/s | loaded once rows/s | scan 1 proc rows/s | scan 2 procs rows/s "
          "| per core, 2 procs | rows per CPU-second: floor / 1 proc / 2 procs | scan 1 / floor | scan 1 / loaded once "
          "| 2 procs / 1 | on two idle cores | p50 / p95 / p99 µs | verdicts |")
    print("|" + "---|" * 14, flush=True)
    load = [os.getloadavg()[0]]
    worst = {"ratio": float("inf"), "speedup": float("inf"), "idle": float("inf")}
    import datasets  # noqa: F401 - imported before the conversions are timed

    for family in args.families:
        file = files[family]
        start = time.perf_counter()
        dataset = open_dataset(str(file))  # the one-time conversion into datasets' Arrow cache
        conversion = time.perf_counter() - start
        texts, prompts = list(dataset["text"]), list(dataset["prompt"])
        del dataset
        template = json.loads(template_path(family).read_text())

        def floor() -> None:
            for text, prompt in zip(texts, prompts):
                try:
                    parse_response(text, template, prefix=prompt)
                except Exception:  # noqa: BLE001, S110 - a failure is a row like any other
                    pass

        run = format_of(template).runner(template)

        def loaded_once() -> None:
            for text, prompt in zip(texts, prompts):
                try:
                    run(text, prompt)
                except Exception:  # noqa: BLE001, S110
                    pass

        outputs = {n: work / f"{family}.{n}.scan.parquet" for n in (1, 2)}
        cpu: list[list[float]] = [[], [], [], []]
        floor_s, one_s, two_s, once_s = timed([
            counted(floor, cpu[0]),
            counted(lambda: run_scan(scan_job(file, family, outputs[1], 1)), cpu[1]),
            counted(lambda: run_scan(scan_job(file, family, outputs[2], 2)), cpu[2]),
            counted(loaded_once, cpu[3]),
        ], args.repeat)
        floor_cpu, one_cpu, two_cpu, _ = (statistics.median(samples[1:]) for samples in cpu)  # [0]: the warm-up
        rows = len(texts)
        ratio, speedup = paired_ratio(floor_s, one_s), paired_ratio(one_s, two_s)
        overhead = paired_ratio(once_s, one_s)
        table = pq.read_table(str(outputs[1]), columns=["seconds", "verdict"])
        p50, p95, p99 = percentiles(table.column("seconds").to_pylist())
        counts: dict[str, int] = {}
        for verdict in table.column("verdict").to_pylist():
            counts[verdict] = counts.get(verdict, 0) + 1
        verdicts = ", ".join(f"{k} {v / rows:.1%}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1]))

        def rate(samples: list[float]) -> float:
            return rows / statistics.median(samples)

        idle = 2 * one_cpu / two_cpu  # the CPU of a 2-process scan spread on two cores, none of it waiting
        worst = {"ratio": min(worst["ratio"], ratio), "speedup": min(worst["speedup"], speedup), "idle": min(worst["idle"], idle)}
        load.append(os.getloadavg()[0])
        print(f"| {family} | {conversion:.2f} | {rate(floor_s):,.0f} | {rate(once_s):,.0f} | {rate(one_s):,.0f} "
              f"| {rate(two_s):,.0f} | {rate(two_s) / 2:,.0f} "
              f"| {rows / floor_cpu:,.0f} / {rows / one_cpu:,.0f} / {rows / two_cpu:,.0f} "
              f"| {ratio:.2f} | {overhead:.2f} | {speedup:.2f} | {idle:.2f} | {p50 * 1e6:.0f} / {p95 * 1e6:.0f} / {p99 * 1e6:.0f} "
              f"| {verdicts} |", flush=True)
    print(f"\n(rows/s: the median of {args.repeat} runs after a warm-up; ratios: the median of per-round ratios of wall "
          "time; rows per CPU-second: this process's and its workers' CPU time, which load from other processes "
          "barely changes; on two idle cores: 2 x CPU of 1 proc / CPU of 2 procs, the bound on the speedup that the "
          "scan's own overhead (the parent's reading, pickling, writing) sets; latency: the parse's own seconds per "
          "row in the 1-process scan's results)")
    busy = max(load) >= 0.5
    print(f"worst: scan 1 proc / floor {worst['ratio']:.2f} (target >= 0.8), 2 procs / 1 proc {worst['speedup']:.2f} "
          f"(target >= 1.6), on two idle cores {worst['idle']:.2f}" + (
              f" (load average {min(load):.1f}-{max(load):.1f}: other processes shared the cores, so the wall-time "
              "speedup is theirs as much as the scan's)" if busy else ""))

    return 0


def memory(args: argparse.Namespace, data: Path, work: Path) -> None:
    """Peak RSS of a scan of each of ``--mem-rows`` rows; every step in a fresh process."""
    mem_rows = [n for n in args.mem_rows if not (args.quick and n > 100_000)]
    if mem_rows:
        print(f"\nmemory: a 2-process scan of {MEMORY_FAMILY} rows, in a fresh process after the conversion "
              f"(in another){'; the 1,000,000-row run takes a few minutes' if max(mem_rows) >= 1_000_000 else ''}", flush=True)
        print(f"(each child's ru_maxrss starts at this process's peak when it is launched, {peak_rss_mb()[0]:.0f} MB: "
              "Linux carries it across fork and exec, so the measuring runs first, before this process grows)")
        print("\n| rows | conversion s | conversion peak MB | scan s | rows/s | scan peak MB (self) | workers' peak MB |")
        print("|" + "---|" * 7, flush=True)
    for n in mem_rows:
        file = data / f"{MEMORY_FAMILY}-{n}.parquet"
        in_child("generate", file, MEMORY_FAMILY, work / "unused", rows=n)
        converted = in_child("convert", file, MEMORY_FAMILY, work / "unused", 2)
        scanned = in_child("scan", file, MEMORY_FAMILY, work / f"memory-{n}.scan.parquet", 2)
        print(f"| {n:,} | {converted['seconds']:.1f} | {converted['self_mb']:.0f} | {scanned['seconds']:.1f} "
              f"| {n / scanned['seconds']:,.0f} | {scanned['self_mb']:.0f} | {scanned['children_mb']:.0f} |", flush=True)
        (work / f"memory-{n}.scan.parquet").unlink(missing_ok=True)
    if args.quick:
        print("\n(--quick: the memory runs above 100,000 rows skipped)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=100_000, help="rows in all, split evenly over the families (100,000)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of each contender per family (3)")
    parser.add_argument("--families", default=",".join(FAMILIES), help=f"comma-separated ({','.join(FAMILIES)})")
    parser.add_argument("--data", type=Path, help="keep the generated files in DIR (default: a temporary folder)")
    parser.add_argument("--mem-rows", default="100000,1000000", help="rows of the memory runs (100000,1000000)")
    parser.add_argument("--quick", action="store_true", help="skip the memory runs above 100,000 rows")
    parser.add_argument("--child", choices=("generate", "convert", "scan"), help=argparse.SUPPRESS)
    parser.add_argument("--file", help=argparse.SUPPRESS)
    parser.add_argument("--family", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--num-proc", type=int, default=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args)
    args.families = [f for f in args.families.split(",") if f]
    args.mem_rows = [int(n) for n in args.mem_rows.split(",") if n]
    with tempfile.TemporaryDirectory(prefix="bench_scan.") as work:
        work = Path(work)
        # A fresh datasets cache, so the conversion is measured; no scan is reused from the cache.
        os.environ["HF_DATASETS_CACHE"] = str(work / "datasets")
        os.environ["WORKBENCH_CACHE"] = str(work / "workbench")
        data = args.data or work / "data"
        data.mkdir(parents=True, exist_ok=True)
        memory(args, data, work)
        return bench(args, data, work)


if __name__ == "__main__":
    sys.exit(main())
