"""Engine speed against the oracle: parse_response, trace and transformers' recursive_parse on the
same schemas and outputs. Prints medians, p95 and the ratios to the oracle, then what trace costs
with a SubtreeCache (first run, same schema again, one property edited) on the large outputs.

The outputs are generated in the shapes of the shipped schemas' families, from a 300-character
Hermes call (where per-parse setup dominates) to 2 MB: Harmony-style and GPT-OSS channels,
Hermes/Qwen3 JSON calls, Qwen3-Coder and GLM XML-parameter calls, and 4,000 short GPT-OSS-style
calls in 500 KB (an x-regex-iterator whose items each run an x-regex and a JSON parser: the trace's
cost per node).

    python benchmarks/bench_engine.py [--repeat N] [--case NAME]

Targets: parse_response / oracle <= 1.0, trace / oracle <= 1.5.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import workbench  # noqa: E402
from timing import p95, paired_ratio, timed  # noqa: E402 - benchmarks/ is the script's folder

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from transformers.utils.chat_parsing_utils import recursive_parse  # noqa: E402

HARMONY_SCHEMA = {
    "type": "object",
    "properties": {
        "role": {"const": "assistant"},
        "thinking": {"type": "string", "x-regex": r"<\|channel\|>analysis<\|message\|>(.*?)<\|end\|>"},
        "content": {"type": "string", "x-regex": r"<\|channel\|>final<\|message\|>(.*?)(?:<\|return\|>|<\|end\|>|$)"},
        "tool_calls": {
            "type": "array",
            "x-regex-iterator": r"<\|channel\|>commentary (to=functions\..*?<\|message\|>.*?)(?:<\|call\|>|$)",
            "items": {
                "type": "object",
                "properties": {
                    "type": {"const": "function"},
                    "function": {
                        "type": "object",
                        "properties": {
                            "name": {"type": "string", "x-regex": r"^to=functions\.([\w.]+)"},
                            "arguments": {
                                "type": "object",
                                "x-regex": r"<\|message\|>(.*)",
                                "x-parser": "json",
                                "additionalProperties": {},
                            },
                        },
                    },
                },
            },
        },
    },
}


def harmony_output(calls: int) -> str:
    parts = ["<|channel|>analysis<|message|>" + "Weighing which stations to query; " * 40 + "<|end|>"]
    for i in range(calls):
        args = {"station": f"ST-{i:04d}", "window_hours": i % 48, "metrics": ["temp", "wind", "rain"], "note": "naïve " * 300}
        parts.append(
            f"<|start|>assistant<|channel|>commentary to=functions.fetch_readings <|constrain|>json<|message|>"
            f"{json.dumps(args, ensure_ascii=False)}<|call|>"
        )
    parts.append("<|start|>assistant<|channel|>final<|message|>All readings fetched.<|return|>")
    return "".join(parts)


def harmony_calls_output(calls: int) -> str:
    """GPT-OSS-style output of many short calls (4,000 make ~500 KB): the x-regex-iterator hands
    HARMONY_SCHEMA's items one call each, whose name is an x-regex and arguments x-parser json, so
    the trace's cost per node (not per byte) shows."""
    parts = ["<|channel|>analysis<|message|>Fetching every station's readings.<|end|>"]
    for i in range(calls):
        parts.append(
            "<|start|>assistant<|channel|>commentary to=functions.fetch_readings <|constrain|>json<|message|>"
            f"{json.dumps({'station': f'ST-{i:04d}'})}<|call|>"
        )
    parts.append("<|start|>assistant<|channel|>final<|message|>Done.<|return|>")
    return "".join(parts)


def hermes_output(calls: int) -> str:
    parts = ["<think>\n" + "Checking each file in turn before editing. " * 30 + "\n</think>\n\nI will update the files.\n"]
    for i in range(calls):
        args = {"path": f"src/module_{i}.py", "content": "def f(x):\n    return x * 2\n" * 20, "overwrite": True}
        parts.append(f"<tool_call>\n{json.dumps({'name': 'write_file', 'arguments': args})}\n</tool_call>\n")
    return "".join(parts) + "<|im_end|>"


def hermes_small() -> str:
    """About 300 characters: one short call, where the fixed cost of a parse shows."""
    args = {"city": "Lisbon", "unit": "celsius", "days": 3, "hourly": False, "fields": ["temp", "wind"]}
    return (
        "I'll check the forecast for Lisbon first, then compare it with last week's readings and the "
        "station's own long-run averages.\n"
        f"<tool_call>\n{json.dumps({'name': 'get_weather', 'arguments': args})}\n</tool_call><|im_end|>"
    )


def hermes_small_reasoning() -> str:
    """About 300 characters: reasoning and two short calls (qwen3's schema), setup-bound too."""
    first = {"name": "get_weather", "arguments": {"city": "Lisbon", "days": 2}}
    second = {"name": "get_time", "arguments": {"tz": "WET"}}
    return (
        "<think>\nWeather and local time are independent: ask both at once.\n</think>\n\n"
        f"Checking both.\n<tool_call>\n{json.dumps(first)}\n</tool_call>\n"
        f"<tool_call>\n{json.dumps(second)}\n</tool_call><|im_end|>"
    )


def gpt_oss_output(channels: int) -> str:
    """GPT-OSS (Harmony) with ``channels`` channels: reasoning and tool calls taking turns."""
    parts = []
    for i in range(channels // 2):
        parts.append(
            "<|start|>assistant<|channel|>analysis<|message|>"
            + f"Step {i}: the readings for station {i} come next, then I compare them with the last run. " * 3
            + "<|end|>"
        )
        args = {"station": f"ST-{i:04d}", "window_hours": i % 48, "metrics": ["temp", "wind"], "note": "naïve ✓ sensor"}
        parts.append(
            "<|start|>assistant<|channel|>commentary to=functions.fetch_readings <|constrain|>json<|message|>"
            f"{json.dumps(args, ensure_ascii=False)}<|call|>"
        )
    parts.append("<|start|>assistant<|channel|>final<|message|>All readings fetched.<|return|>")
    return "".join(parts)[len("<|start|>assistant"):]


def qwen3_coder_output(calls: int) -> str:
    """Qwen3-Coder: XML parameters, short ones (many trace nodes per KB), code and JSON values."""
    parts = ["I'll write each module, then run its tests.\n\n"]
    for i in range(calls):
        parts.append(
            f"<tool_call>\n<function=write_file>\n<parameter=path>\nsrc/module_{i}.py\n</parameter>\n"
            f"<parameter=content>\ndef scale(x):\n    return x * {i}  # café ✓\n</parameter>\n"
            f"<parameter=overwrite>\ntrue\n</parameter>\n<parameter=retries>\n{i % 5}\n</parameter>\n"
            f"<parameter=mode>\n0644\n</parameter>\n"
            f'<parameter=options>\n{{"mode": "0644", "retries": {i % 5}, "tags": ["gen", "v2"]}}\n</parameter>\n'
            "</function>\n</tool_call>\n"
        )
    return "".join(parts) + "<|im_end|>"


def glm_output(calls: int) -> str:
    """GLM-4.5: reasoning, then <arg_key>/<arg_value> calls with the same parameters."""
    parts = ["<think>Each module needs its file written; I will issue the calls together.</think>\nWriting the files now.\n"]
    for i in range(calls):
        parts.append(
            f"<tool_call>write_file\n<arg_key>path</arg_key>\n<arg_value>src/module_{i}.py</arg_value>\n"
            f"<arg_key>content</arg_key>\n<arg_value>def scale(x):\n    return x * {i}  # café ✓\n</arg_value>\n"
            "<arg_key>overwrite</arg_key>\n<arg_value>true</arg_value>\n"
            f"<arg_key>retries</arg_key>\n<arg_value>{i % 5}</arg_value>\n<arg_key>mode</arg_key>\n<arg_value>0644</arg_value>\n"
            f'<arg_key>options</arg_key>\n<arg_value>{{"retries": {i % 5}, "tags": ["gen", "v2"]}}</arg_value>\n'
            "</tool_call>\n"
        )
    return "".join(parts) + "<|observation|>"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=0, help="runs per case (default: 400 small, 40 large)")
    parser.add_argument("--no-cache", action="store_true", help="skip the subtree cache table")
    parser.add_argument("--case", action="append", default=[], help="run only the cases whose name contains this (repeatable)")
    args = parser.parse_args()
    schema = {name: json.loads((ROOT / "schemas" / f"{name}.json").read_text()) for name in
              ("qwen3", "hermes", "gpt_oss", "qwen3_coder", "glm45")}
    cases = [
        ("hermes 300B", hermes_small(), schema["hermes"]),
        ("hermes+think 300B", hermes_small_reasoning(), schema["qwen3"]),
        ("harmony 20KB", harmony_output(10), HARMONY_SCHEMA),
        ("harmony 2MB", harmony_output(1000), HARMONY_SCHEMA),
        ("harmony 4k calls", harmony_calls_output(4000), HARMONY_SCHEMA),
        ("hermes 20KB", hermes_output(28), schema["qwen3"]),
        ("hermes 2MB", hermes_output(2800), schema["qwen3"]),
        ("gpt-oss 500KB", gpt_oss_output(2000), schema["gpt_oss"]),
        ("qwen3-coder 70KB", qwen3_coder_output(190), schema["qwen3_coder"]),
        ("glm 70KB", glm_output(165), schema["glm45"]),
    ]
    if args.case:
        cases = [case for case in cases if any(part in case[0] for part in args.case)]
    print(f"{'case':<17}{'size':>10}  {'oracle ms':>18}  {'parse ms':>18}  {'trace ms':>18}  {'parse/or':>8}  {'trace/or':>8}")
    print(f"{'':<17}{'':>10}  {'median / p95':>18}  {'median / p95':>18}  {'median / p95':>18}")
    worst_parse = worst_trace = 0.0
    for name, text, schema in cases:
        assert workbench.parse_response(text, schema) == recursive_parse(text, schema), name
        repeat = args.repeat or (400 if len(text) < 100_000 else 40)
        oracle, ours, traced = timed(
            [lambda: recursive_parse(text, schema), lambda: workbench.parse_response(text, schema),
             lambda: workbench.trace(text, schema)],
            repeat,
        )
        o, p, t = (statistics.median(s) for s in (oracle, ours, traced))
        parse_ratio, trace_ratio = paired_ratio(ours, oracle), paired_ratio(traced, oracle)
        worst_parse, worst_trace = max(worst_parse, parse_ratio), max(worst_trace, trace_ratio)
        print(
            f"{name:<17}{len(text):>10,}  {o*1e3:>8.3f} / {p95(oracle)*1e3:>7.3f}  {p*1e3:>8.3f} / {p95(ours)*1e3:>7.3f}"
            f"  {t*1e3:>8.3f} / {p95(traced)*1e3:>7.3f}  {parse_ratio:>8.2f}  {trace_ratio:>8.2f}"
        )
    verdict = "meets" if worst_parse <= 1.0 and worst_trace <= 1.5 else "MISSES"
    print(f"\nworst ratios: parse {worst_parse:.2f} (target <= 1.0), trace {worst_trace:.2f} (target <= 1.5): {verdict} the targets")
    if not args.no_cache:
        cache_table([case for case in cases if len(case[1]) > 50_000])
    return 0


def cache_table(cases: list) -> None:
    """What the TUI's analysis process sees with a SubtreeCache: the first run on a sample, a run
    with the same schema, and runs after an edit to one top-level property (two edits in turn,
    as when typing). Medians of a few runs; the uncached trace for scale."""
    from workbench.engine import SubtreeCache

    print(f"\n{'subtree cache':<17}{'trace ms':>10}{'first run':>11}{'same schema':>13}{'one property':>14}")
    for name, text, schema in cases:
        prop = "content" if "content" in schema.get("properties", {}) else next(iter(schema.get("properties", {})))
        edits = []
        for note in ("a", "b"):
            edited = json.loads(json.dumps(schema))
            edited["properties"][prop]["description"] = note
            edits.append(edited)

        def median_ms(fn, runs: int = 7) -> float:
            times = []
            for i in range(runs):
                start = time.perf_counter()
                fn(i)
                times.append(time.perf_counter() - start)
            return statistics.median(times) * 1e3

        plain = median_ms(lambda i: workbench.trace(text, schema))
        first = median_ms(lambda i: workbench.trace(text, schema, cache=SubtreeCache()))
        cache = SubtreeCache()
        workbench.trace(text, schema, cache=cache)
        same = median_ms(lambda i: workbench.trace(text, schema, cache=cache))
        edited = median_ms(lambda i: workbench.trace(text, edits[i % 2], cache=cache))
        print(f"{name:<17}{plain:>10.2f}{first:>11.2f}{same:>13.3f}{edited:>14.3f}")


if __name__ == "__main__":
    sys.exit(main())
