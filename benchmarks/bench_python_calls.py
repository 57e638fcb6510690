"""The ``python-call-list`` parser's speed against transformers 5.24.0's own, and its growth with size.

    python benchmarks/bench_python_calls.py [--repeat N] [--size N]

transformers 5.24.0 cannot live in the project's environment, so the script re-runs itself with the
python of the 5.24.0 oracle environment (tests/python_calls_oracle.py says where it is looked for)
and times both parsers there, run by run in rotating order (benchmarks/timing.py). Our parser is
loaded from its file (it needs only the standard library). Every result is first checked equal to
the runtime's (value or error message).

For each input shape, at a base size (``--size`` characters, default 100,000) and ten times that:
our median latency, the runtime's, the median per-round ratio ours / runtime, and the growth of our
latency from 1x to 10x (linear is about 10). The shapes are the ordinary ones (many calls, long
strings, many arguments, long lists, nesting to the limit) and the ones a careless reader would
make slow: a string full of escapes, escaped quotes, backslashes or surrogate pairs, an unterminated string full of escapes (the
string pattern must fail in linear time), a name made of many ``-`` parts, and a big list followed by
garbage (the error message quotes the whole text once).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import paired_ratio, timed  # noqa: E402 - benchmarks/ is the script's folder

CHILD = "WORKBENCH_BENCH_PYTHON_CALLS_CHILD"


def shapes(size: int) -> dict[str, str]:
    """Inputs of about ``size`` characters."""
    call = "get_weather(city='Paris', days=3, units=\"metric\", hourly=True)"
    arguments = ", ".join(f"k{i}={i}" for i in range(size // 9))
    return {
        "many calls": "[" + ", ".join([call] * (size // (len(call) + 2))) + "]",
        "long string": "[f(a='" + "x" * size + "')]",
        "escapes": "[f(a='" + "\\n\\t\\\"" * (size // 6) + "')]",
        "escaped quotes": "[f(a='" + "\\'" * (size // 2) + "')]",
        "backslash run": "[f(a='" + "\\\\" * (size // 2) + "')]",
        "surrogate pairs": "[f(a='" + "\\ud83d\\ude00" * (size // 12) + "')]",
        "many arguments": f"[f({arguments})]",
        "long list": "[f(a=[" + ", ".join(["1.5e3"] * (size // 7)) + "])]",
        "nesting x100": "[f(a=[" + ", ".join(["[" * 99 + "]" * 99] * (size // 200)) + "])]",
        "unterminated": "[f(a='" + "\\n" * (size // 2),
        "dashed name": "[" + "a-" * (size // 2) + "(",
        "garbage after": "[f(a=[" + ", ".join(["1"] * (size // 3)) + "])] x",
    }


def outcome(parse, text: str):
    try:
        return ("value", parse(text, {}))
    except Exception as exc:  # noqa: BLE001 - compared, whatever it is
        return ("error", type(exc).__name__, str(exc))


def bench(args: argparse.Namespace) -> int:
    from transformers.utils.chat_parsing.content_parsers import _python_call_list as real

    spec = importlib.util.spec_from_file_location(
        "python_calls", ROOT / "workbench" / "engine" / "template" / "python_calls.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    ours = module.parse_python_call_list

    small, large = shapes(args.size), shapes(args.size * 10)
    print(f"python-call-list: ours vs transformers 5.24.0, median of {args.repeat} runs (ms)")
    print(f"{'shape':<18}{'size':>10}{'ours':>10}{'runtime':>10}{'ratio':>8}{'growth x10':>12}")
    worst = 0.0
    for name in small:
        medians = []
        for texts in (small, large):
            text = texts[name]
            if outcome(ours, text) != outcome(real, text):
                print(f"{name}: ours differs from the runtime", file=sys.stderr)
                return 1
            mine, theirs = timed([lambda: outcome(ours, text), lambda: outcome(real, text)], args.repeat)
            ratio = paired_ratio(mine, theirs)
            worst = max(worst, ratio)
            medians.append(statistics.median(mine))
            print(
                f"{name:<18}{len(text):>10,}{statistics.median(mine) * 1e3:>10.2f}"
                f"{statistics.median(theirs) * 1e3:>10.2f}{ratio:>8.2f}"
                + (f"{medians[1] / medians[0]:>12.1f}" if len(medians) == 2 else "")
            )
    print(f"worst ratio ours / runtime: {worst:.2f}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=7, help="runs per input (7)")
    parser.add_argument("--size", type=int, default=100_000, help="base input size in characters (100,000)")
    args = parser.parse_args()
    if os.environ.get(CHILD):
        return bench(args)
    sys.path.insert(0, str(ROOT / "tests"))
    from python_calls_oracle import find_python, where_looked

    python = find_python()
    if python is None:
        print(f"no transformers 5.24.0 oracle environment (looked in: {where_looked()})", file=sys.stderr)
        return 2
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "PYTHONHOME")}
    env.update({CHILD: "1", "TRANSFORMERS_VERBOSITY": "error"})
    return subprocess.call([str(python), str(Path(__file__).resolve()), *sys.argv[1:]], env=env)


if __name__ == "__main__":
    sys.exit(main())
