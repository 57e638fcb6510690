"""Template engine speed against transformers (5.24.0 by default, ``--release 5.23.0`` for the other
oracle): one-shot ``parse_response``, ``trace_response`` and ``ResponseParser`` fed 4-character
chunks, on the same templates, prompts and outputs, our engine behaving as that release.

    python benchmarks/bench_template.py [--release VERSION] [--repeat N] [--chunk N]

Needs the test extra: transformers 5.23.0 cannot live in the project's environment (it keeps 5.14.1
for the schema oracle), so the script re-runs itself with the python of the oracle environment that
tests/template_oracle.py builds (.oracles/transformers-5.23.0/, built on first use). Both engines are
then timed in that one process, run by run in rotating order, so a burst of load on this shared
machine falls on both alike; ratios are the median of per-round ratios (as bench_engine.py).

Outputs: ChatML (Qwen3) with reasoning, text and 10 / 1,000 JSON tool calls, with the runtime's
own Qwen3 fallback template (docs/response-template.md#fallback-templates) and a generation prompt that
pre-writes ``<think>``; GPT-OSS
channels (analysis, commentary calls, final) at ~20 KB and ~2 MB with a Harmony template written
like the gpt_oss fixture of transformers' own tests. Every result is first checked equal to the runtime's.

Targets: parse / runtime <= 1.0, trace / runtime <= 1.5, stream / runtime's stream <= 1.0. Streams are
also timed without our time limit, to show what regex's ``timeout=`` costs (the runtime has none).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import statistics
import subprocess
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
from timing import p95, paired_ratio, timed  # noqa: E402 - benchmarks/ is the script's folder
CHILD = "WORKBENCH_BENCH_TEMPLATE_CHILD"

CHATML_PROMPT = "<|im_start|>system\nYou are a careful assistant.<|im_end|>\n<|im_start|>user\nUpdate the modules.<|im_end|>\n<|im_start|>assistant\n<think>\n"
GPT_OSS_PROMPT = "<|start|>system<|message|>Reasoning: medium<|end|><|start|>user<|message|>Fetch the readings.<|end|><|start|>assistant"

GPT_OSS = {
    "version": 1,
    "defaults": {"role": "assistant"},
    "start_anchor": "<|start|>assistant",
    "fields": {
        "reasoning_content": {"open": "<|channel|>analysis<|message|>", "close": "<|end|>", "content": "text",
                              "repeats": True, "join": "\n"},
        "content": {"open": "<|channel|>final<|message|>", "close": ["<|return|>", "<|end|>"], "content": "text"},
        "tool_calls": {
            "open_pattern": r"<\|channel\|>commentary to=functions\.(?P<name>[\w.]+)[^<]*(?:<\|constrain\|>\w+)?<\|message\|>",
            "close": "<|call|>",
            "content": "json",
            "repeats": True,
            "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}},
        },
    },
}


def chatml_output(calls: int) -> str:
    parts = ["Checking each module in turn before editing it. " * 20 + "\n</think>\n\nI will update the files.\n"]
    for i in range(calls):
        args = {"path": f"src/module_{i}.py", "content": "def f(x):\n    return x * 2\n" * 70, "overwrite": True, "retries": str(i % 5)}
        parts.append(f"<tool_call>\n{json.dumps({'name': 'write_file', 'arguments': args})}\n</tool_call>\n")
    return "".join(parts) + "<|im_end|>"


def gpt_oss_output(calls: int) -> str:
    parts = []
    for i in range(calls):
        parts.append("<|channel|>analysis<|message|>" + f"Station {i} next; then compare with the last run. " * 10 + "<|end|>")
        args = {"station": f"ST-{i:04d}", "window_hours": i % 48, "metrics": ["temp", "wind"], "note": "naïve ✓ sensor " * 40}
        parts.append(f"<|start|>assistant<|channel|>commentary to=functions.fetch_readings <|constrain|>json<|message|>"
                     f"{json.dumps(args, ensure_ascii=False)}<|call|><|start|>assistant")
    parts.append("<|channel|>final<|message|>All readings fetched.<|return|>")
    return "".join(parts)


TOOLS = [{"type": "function", "function": {"name": "write_file", "parameters": {"type": "object", "properties": {
    "path": {"type": "string"}, "overwrite": {"type": "boolean"}, "retries": {"type": "integer"}}}}}]


def import_template_engine() -> types.ModuleType:
    """``workbench.engine.template`` without ``workbench/__init__`` and ``workbench/engine/__init__``:
    those import the schema engine, whose dependencies (jmespath) the oracle environment lacks.
    The template engine needs only ``regex`` and a few pure modules beside it."""
    for name, path in (("workbench", ROOT / "workbench"), ("workbench.engine", ROOT / "workbench" / "engine")):
        package = types.ModuleType(name)
        package.__path__ = [str(path)]
        sys.modules[name] = package
    return importlib.import_module("workbench.engine.template")


def streamed(parser_class, template, prefix: str, text: str, chunk: int, tools) -> tuple:
    parser = parser_class(template, prefix=prefix, tools=tools)
    events = list(parser.initial_events)
    for at in range(0, len(text), chunk):
        events += parser.feed(text[at : at + chunk])
    message, last = parser.finalize()
    return message, events + last


def bench(args: argparse.Namespace) -> int:
    import logging
    import warnings

    warnings.simplefilter("ignore")
    logging.disable(logging.WARNING)
    sys.path.insert(0, str(ROOT / "tests"))
    from fallback_templates import QWEN3  # the runtime's own Qwen3 fallback, as written in the spec
    from transformers.utils import chat_parsing as runtime

    engine = import_template_engine()
    release = ".".join(args.release.split(".")[:2])

    class ours:  # the engine behaving as the release benchmarked against
        @staticmethod
        def parse_response(*a, **k):
            return engine.parse_response(*a, runtime=release, **k)

        @staticmethod
        def trace_response(*a, **k):
            return engine.trace_response(*a, runtime=release, **k)

        @staticmethod
        def ResponseParser(*a, **k):  # noqa: N802 - the runtime's name
            return engine.ResponseParser(*a, runtime=release, **k)

    def unlimited_parser(template, prefix, tools):
        return ours.ResponseParser(template, prefix=prefix, tools=tools, time_limit=None)
    # (name, output, template, prompt, tools, the output streamed): a 2 MB output is streamed at
    # ~200 KB, the same generator with a tenth of the calls, because both engines copy their whole
    # buffer on every feed(), so 2 MB in 4-character chunks takes each of them minutes.
    cases = [
        ("chatml 10 calls", chatml_output(10), QWEN3, CHATML_PROMPT, None, chatml_output(10)),
        ("chatml 10 calls, tools=", chatml_output(10), QWEN3, CHATML_PROMPT, TOOLS, chatml_output(10)),
        ("chatml 1,000 calls", chatml_output(1000), QWEN3, CHATML_PROMPT, None, chatml_output(100)),
        ("gpt-oss 20 KB", gpt_oss_output(17), GPT_OSS, GPT_OSS_PROMPT, None, gpt_oss_output(17)),
        ("gpt-oss 2 MB", gpt_oss_output(1700), GPT_OSS, GPT_OSS_PROMPT, None, gpt_oss_output(170)),
    ]
    header = ("| case | size | runtime parse ms | parse ms | trace ms | parse/rt | trace/rt "
              f"| streamed | runtime stream ms | stream ms | stream/rt ({args.chunk}-char chunks) | same, no time limit |")
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    worst = {"parse": 0.0, "trace": 0.0, "stream": 0.0}
    for name, text, template, prefix, tools, stream_text in cases:
        expected = runtime.parse_response(text, template, prefix=prefix, tools=tools)
        assert ours.parse_response(text, template, prefix=prefix, tools=tools) == expected, name
        assert ours.trace_response(text, template, prefix=prefix, tools=tools).message == expected, name
        large = len(text) > 100_000
        repeat = args.repeat or (3 if large else 200)
        rt, parse, trace = timed([
            lambda: runtime.parse_response(text, template, prefix=prefix, tools=tools),
            lambda: ours.parse_response(text, template, prefix=prefix, tools=tools),
            lambda: ours.trace_response(text, template, prefix=prefix, tools=tools),
        ], repeat)
        their_stream = streamed(runtime.ResponseParser, template, prefix, stream_text, args.chunk, tools)
        assert streamed(ours.ResponseParser, template, prefix, stream_text, args.chunk, tools) == their_stream, name
        # Ours also without its time limit: regex's timeout= costs ~1.4 µs a search of a regex
        # delimiter (literals search without one), a cost the runtime, which has no limit, does not pay.
        rt_stream, our_stream, unlimited = timed([
            lambda: streamed(runtime.ResponseParser, template, prefix, stream_text, args.chunk, tools),
            lambda: streamed(ours.ResponseParser, template, prefix, stream_text, args.chunk, tools),
            lambda: streamed(unlimited_parser, template, prefix, stream_text, args.chunk, tools),
        ], 9 if large else repeat // 4)
        ratios = {"parse": paired_ratio(parse, rt), "trace": paired_ratio(trace, rt),
                  "stream": paired_ratio(our_stream, rt_stream)}
        no_limit = paired_ratio(unlimited, rt_stream)
        for key, value in ratios.items():
            worst[key] = max(worst[key], value)

        def ms(samples: list[float]) -> str:
            return f"{statistics.median(samples) * 1e3:.1f} / {p95(samples) * 1e3:.1f}"

        print(f"| {name} | {len(text) / 1000:.0f} KB | {ms(rt)} | {ms(parse)} | {ms(trace)} | {ratios['parse']:.2f} "
              f"| {ratios['trace']:.2f} | {len(stream_text) / 1000:.0f} KB | {ms(rt_stream)} | {ms(our_stream)} | {ratios['stream']:.2f} | {no_limit:.2f} |", flush=True)
    print("\n(ms: median / p95; ratios: median of per-round ratios)")
    print(f"worst: parse {worst['parse']:.2f} (target <= 1.0), trace {worst['trace']:.2f} (<= 1.5), "
          f"stream {worst['stream']:.2f} (<= 1.0)")
    met = worst["parse"] <= 1.0 and worst["trace"] <= 1.5 and worst["stream"] <= 1.0
    print("targets met" if met else "TARGETS MISSED")
    return 0 if met else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=0, help="runs per case (default: 200 small, 3 large)")
    parser.add_argument("--chunk", type=int, default=4, help="characters per feed() when streaming (4)")
    parser.add_argument("--release", default="5.24.0", help="the transformers release to compare with (5.24.0)")
    args = parser.parse_args()
    if os.environ.get(CHILD):
        return bench(args)
    sys.path.insert(0, str(ROOT / "tests"))
    from template_oracle import ensure_env

    python = ensure_env(args.release)
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "PYTHONHOME")}
    env.update({CHILD: "1", "TRANSFORMERS_VERBOSITY": "error"})
    return subprocess.call([str(python), str(Path(__file__).resolve()), *sys.argv[1:]], env=env)


if __name__ == "__main__":
    sys.exit(main())
