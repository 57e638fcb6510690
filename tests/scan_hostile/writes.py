"""Hostile cases about what a scan writes: outputs over inputs, links, modes, signals mid-scan."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

from . import Case, good_rows, parser, write_jsonl

OUT = "gens.parser.scan.parquet"


def _scan(folder: Path, data: Path, *more: str) -> list[str]:
    return ["scan", str(data), "--template", str(parser(folder)), "--prompt-column", "prompt", "--num-proc", "2", *more]


def _good(folder: Path, url: str) -> list[str]:
    return _scan(folder, write_jsonl(folder / "gens.jsonl", good_rows()))


def _with(*more: str):
    def build(folder: Path, url: str) -> list[str]:
        return _scan(folder, write_jsonl(folder / "gens.jsonl", good_rows()), *more)
    return build


def _over_data_folder_file(folder: Path, url: str) -> list[str]:
    (folder / "data").mkdir()
    write_jsonl(folder / "data" / "a.jsonl", good_rows(4))
    write_jsonl(folder / "data" / "b.jsonl", good_rows(4))
    return _scan(folder, folder / "data", "--json", "data/b.jsonl", "--force")


def _over_compare(folder: Path, url: str) -> list[str]:
    other = parser(folder, name="other.template.json")
    return _good(folder, url) + ["--compare", str(other), "-o", "other.template.json", "--force"]


def _symlinked_output(folder: Path, url: str) -> list[str]:
    (folder / "kept").mkdir()
    real = folder / "kept" / "results.parquet"
    real.write_bytes(b"an older scan")
    os.chmod(real, 0o640)
    (folder / "out.parquet").symlink_to("kept/results.parquet")
    return _good(folder, url) + ["-o", "out.parquet", "--force"]


def _written_through(folder: Path, got) -> None:
    import pyarrow.parquet as pq

    assert os.readlink(folder / "out.parquet") == "kept/results.parquet", got.shown()
    real = folder / "kept" / "results.parquet"
    assert oct(real.stat().st_mode & 0o777) == oct(0o640), got.shown()
    assert pq.read_table(str(real)).num_rows == 8


def _read_only(name: str):
    def build(folder: Path, url: str) -> list[str]:
        target = folder / name
        target.write_text("mine")
        os.chmod(target, 0o444)
        option = "-o" if name.endswith(".parquet") else "--json"
        return _good(folder, url) + [option, name, "--force"]
    return build


def _samples_link_out(folder: Path, url: str) -> list[str]:
    (folder / "outside.txt").write_text("not a sample")
    (folder / "samples").mkdir()
    (folder / "samples" / "row-000003.txt").symlink_to(folder / "outside.txt")
    return _good(folder, url) + ["--write-samples", "samples", "--force"]


def _existing_output(folder: Path, url: str) -> list[str]:
    (folder / OUT).write_bytes(b"an earlier scan")
    return _good(folder, url)


def _big(folder: Path, url: str) -> list[str]:
    # 30,000 rows: long enough (well over 10 s on two busy cores) for the signal to land mid-scan.
    return _scan(folder, write_jsonl(folder / "gens.jsonl", good_rows(30_000)), "--json", "summary.json")


def _stopped_partial(folder: Path, got) -> None:
    import pyarrow.parquet as pq

    from workbench.scan.results import read_meta

    meta = read_meta(folder / OUT)
    rows = pq.read_table(str(folder / OUT)).num_rows
    assert meta.get("partial") is True and meta["rows_written"] == rows, got.shown()
    # The table signals half a second after the scan's file appears: often before the first batch
    # is back on a busy machine, so 0 rows is fine here (tests/test_scan.py checks rows are kept).
    assert rows < 30_000, f"{rows} rows: the signal did not land mid-scan\n{got.shown()}"
    assert json.loads((folder / "summary.json").read_text())["partial"] is True
    assert "(marked partial)" in got.stderr, got.shown()


CASES = [
    # The baseline every other case departs from: two rows in eight are cut-off calls (exit 1).
    Case("good-data", _good, frozenset({1}), outputs=(OUT,)),
    # Every input is an input, even with --force (finding 1), and one path is one output.
    Case("output-over-data-force", _with("-o", "gens.jsonl", "--force"), frozenset({2}), says="one of this command's inputs"),
    Case("json-over-a-file-in-the-data-folder", _over_data_folder_file, frozenset({2}), says="one of this command's inputs"),
    Case("output-over-compare-force", _over_compare, frozenset({2}), says="one of this command's inputs"),
    Case("output-over-parser-force", _with("-o", "parser.template.json", "--force"), frozenset({2}),
         says="one of this command's inputs"),
    Case("two-outputs-one-path", _with("-o", "same.out", "--json", "same.out"), frozenset({2}), says="named twice"),
    # The project's write rules (finding 3).
    Case("output-is-a-symlink", _symlinked_output, frozenset({1}), outputs=("kept/results.parquet",),
         check=_written_through),
    Case("output-read-only-force", _read_only("ro.parquet"), frozenset({2}), says="is read-only"),
    Case("samples-link-out-of-the-folder", _samples_link_out, frozenset({2}), says="outside samples"),
    # Output-side failures: one sentence, before the scan (finding 4).
    Case("output-is-a-folder", _with("-o", "."), frozenset({2}), says="is a folder"),
    Case("json-into-a-missing-folder", _with("--json", "no/such/summary.json"), frozenset({2}), says="no such folder"),
    Case("json-read-only-force", _read_only("ro.json"), frozenset({2}), says="is read-only"),
    Case("output-name-too-long", _with("-o", "x" * 300 + ".parquet"), frozenset({2}), says="longer than"),
    # An existing output is kept, and the sentence says how to go on (finding 5e).
    Case("output-exists-without-force", _existing_output, frozenset({2}), says="or -o FILE"),
    # A signal mid-scan ends it as Ctrl+C does (finding 2): rows written, marked partial, workers gone.
    Case("sigterm-mid-scan", _big, frozenset({128 + signal.SIGTERM}), outputs=(OUT, "summary.json"),
         signal=(signal.SIGTERM, ".*.partial"), check=_stopped_partial),
    Case("sighup-mid-scan", _big, frozenset({128 + signal.SIGHUP}), outputs=(OUT, "summary.json"),
         signal=(signal.SIGHUP, ".*.partial"), check=_stopped_partial),
]
