"""Hostile cases about ``workbench open --scan``: results whose metadata anyone may have written
(a crafted split, data path, parser path, columns, options of the wrong type) and results of
other data with the same number of rows. Each builds a scan's results in the case's folder (the
scan itself runs here, before the command), then forges them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

from . import PROMPT, Case, good_rows, parser, write_jsonl


def _scan(folder: Path, data: Path | str, split: str | None = None) -> Path:
    from workbench.scan.job import Columns, ScanJob, run_scan

    results = folder / "gens.scan.parquet"
    run_scan(ScanJob(data=str(data), parser=parser(folder), columns=Columns("text", "prompt"), split=split,
                     output=results, num_proc=1, use_cache=False))
    return results


def _forge(results: Path, change: Callable[[dict], Any]) -> None:
    """The results with their metadata as ``change`` makes it (given the scan's, returning the new)."""
    import pyarrow.parquet as pq

    from workbench.scan.results import META_KEY

    table = pq.read_table(str(results))
    meta = change(json.loads(table.schema.metadata[META_KEY]))
    pq.write_table(table.replace_schema_metadata({META_KEY: json.dumps(meta).encode()}), str(results))


def _crafted(change: Callable[[dict], Any], saved: bool = False) -> Callable[[Path, str], list[str]]:
    """A scan of good rows (a saved DatasetDict with ``saved``, so the split is read), its metadata
    then changed."""
    def build(folder: Path, url: str) -> list[str]:
        if saved:
            import datasets

            data = folder / "saved"
            datasets.DatasetDict({"train": datasets.Dataset.from_list(good_rows())}).save_to_disk(str(data))
            results = _scan(folder, data, "train")
        else:
            results = _scan(folder, write_jsonl(folder / "gens.jsonl", good_rows()))
        _forge(results, change)
        return ["open", "--scan", str(results)]

    return build


def _same_size_other_data(folder: Path, url: str) -> list[str]:
    """The data rewritten after the scan with as many rows, other ones: the failing rows the
    results name are not these rows."""
    data = write_jsonl(folder / "gens.jsonl", good_rows())
    results = _scan(folder, data)
    write_jsonl(data, [{"id": f"o{i}", "text": f"Other {i}.<|im_end|>", "prompt": PROMPT} for i in range(8)])
    return ["open", "--scan", str(results)]


def _no_failing_rows(folder: Path, url: str) -> list[str]:
    rows = [row for row in good_rows() if row["text"].endswith("<|im_end|>")]
    return ["open", "--scan", str(_scan(folder, write_jsonl(folder / "gens.jsonl", rows)))]


def _samples_dir_taken(folder: Path, url: str) -> list[str]:
    """--samples-dir naming a folder that holds someone's files: refused, nothing written there."""
    results = _scan(folder, write_jsonl(folder / "gens.jsonl", good_rows()))
    (folder / "mine").mkdir()
    (folder / "mine" / "row-000003.raised.txt").write_text("my notes\n", encoding="utf-8")
    return ["open", "--scan", str(results), "--samples-dir", str(folder / "mine")]


def _set(**values: Any) -> Callable[[dict], dict]:
    return lambda meta: {**meta, **values}


CASES = [
    # The baseline: a scan whose rows all parse is said and nothing opens (exit 0).
    Case("open-no-failing-rows", _no_failing_rows, frozenset({0}), says="no failing rows"),
    Case("open-other-data-same-size", _same_size_other_data, frozenset({2}), says="not the data"),
    Case("open-samples-dir-taken", _samples_dir_taken, frozenset({2}), says="holds files already"),
    Case("open-split-a-path", _crafted(_set(split="../x"), saved=True), frozenset({2}), says="split"),
    Case("open-split-a-list", _crafted(_set(split=["train"]), saved=True), frozenset({2}), says="split"),
    Case("open-split-a-number", _crafted(_set(split=3)), frozenset({2}), says="split"),
    Case("open-data-a-number", _crafted(_set(data=7)), frozenset({2}), says="data"),
    Case("open-data-with-nul", _crafted(_set(data="gens\u0000.jsonl")), frozenset({2}), says="data"),
    Case("open-parser-a-list", _crafted(_set(parser=["p"])), frozenset({2}), says="parser"),
    Case("open-columns-a-string", _crafted(_set(columns="text")), frozenset({2}), says="columns"),
    Case("open-prompt-column-a-number", _crafted(lambda m: {**m, "columns": {**m["columns"], "prompt": 1}}),
         frozenset({2}), says="columns.prompt"),
    Case("open-options-a-list", _crafted(_set(options=[1])), frozenset({2}), says="options"),
    Case("open-runtime-a-number", _crafted(lambda m: {**m, "options": {**m["options"], "runtime": 5.2}}),
         frozenset({2}), says="options.runtime"),
    Case("open-rows-text", _crafted(_set(rows="8")), frozenset({2}), says="rows"),
    Case("open-rows-written-escape", _crafted(_set(partial=True, rows_written="\u001b]0;x\u0007")), frozenset({2}),
         says="rows_written"),
    Case("open-meta-a-list", _crafted(lambda m: [m]), frozenset({2}), says="metadata"),
    Case("open-digest-a-number", _crafted(_set(data_digest=1)), frozenset({2}), says="data_digest"),
]
