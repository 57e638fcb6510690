"""validate's regex checks on long patterns: the time for 1,000, 2,000 and 4,000 repetitions of a
unit, which should double with the length (the trim check was quadratic: 30-77 s at 4,000 x
``[a-z]*x``), then the shipped schemas and templates validated one after another.

    python benchmarks/bench_validate.py [--repeat N]

Target: linear growth (about 2x per doubling), and well under a second at 4,000 repetitions.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from workbench import validate  # noqa: E402
from workbench.formats.template import template_problems  # noqa: E402
from workbench.engine.backtracking import risks, trims  # noqa: E402

UNITS = ["[a-z]*x", "\\s*\\s*x", "(?:a|a)*b", "\\s*(?:a)?x"]  # safe, adjacent loops, exponential, a trim
DELIMITERS = ["(?:a|b)?", "(?:,\\s*)?"]


def _best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        risks.cache_clear()  # validate caches per pattern; measure the checks, not the cache
        trims.cache_clear()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    validate({"type": "string", "x-regex": "(\\s*a)"})  # re's categories, computed once
    sizes = (1000, 2000, 4000)
    print(f"{'pattern':<28}" + "".join(f"{n:>10,}x" for n in sizes) + "   growth")
    for unit in UNITS:
        row = [_best(lambda n=n: validate({"type": "string", "x-regex": f"({unit * n})"}), args.repeat) for n in sizes]
        _print(f"x-regex ({unit})", row)
    for unit in DELIMITERS:
        template = lambda n: {"fields": {"f": {"open_pattern": unit * n + "c", "close_pattern": "d"}}}  # noqa: E731
        row = [_best(lambda n=n: template_problems(template(n)), args.repeat) for n in sizes]
        _print(f"open_pattern {unit}", row)
    documents = [json.loads(p.read_text()) for p in sorted((ROOT / "schemas").glob("*.json"))]

    def shipped() -> None:
        for document in documents:
            if "fields" in document:
                template_problems(document)
            else:
                validate(document)

    print(f"{len(documents)} shipped schemas and templates: {_best(shipped, args.repeat) * 1000:.0f} ms")


def _print(name: str, row: list[float]) -> None:
    growth = statistics.mean(b / a for a, b in zip(row, row[1:]))
    print(f"{name:<28}" + "".join(f"{t * 1000:>9.0f}ms" for t in row) + f"   {growth:.1f}x")


if __name__ == "__main__":
    main()
