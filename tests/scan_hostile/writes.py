"""Hostile cases about what a scan writes: outputs over inputs, links, modes, signals mid-scan."""

from __future__ import annotations

from pathlib import Path

from . import Case, good_rows, parser, write_jsonl


def _good(folder: Path, url: str) -> list[str]:
    data = write_jsonl(folder / "gens.jsonl", good_rows())
    return ["scan", str(data), "--template", str(parser(folder)), "--prompt-column", "prompt", "--num-proc", "2"]


CASES = [
    # The baseline every other case departs from: two rows in eight are cut-off calls (exit 1).
    Case("good-data", _good, frozenset({1}), outputs=("gens.parser.scan.parquet",)),
]
