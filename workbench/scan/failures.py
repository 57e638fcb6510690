"""Failing rows as samples: ``scan --write-samples DIR`` writes each as ``row-N.txt`` (the output)
and ``row-N.prompt.txt`` (its prompt, when the scan read one), with no golden, which
``workbench open DIR`` and ``workbench check`` read like any sample; ``workbench open --scan``
reads a results file back into the same samples, named by row and verdict."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..store.files import InputError, atomic_write_all, check_outputs
from ..store.samples import PROMPT_SUFFIX
from .verdicts import FAILING


def sample_name(row: int, verdict: str | None = None, kind: str | None = None) -> str:
    """``row-000042`` (``row-000042.raised``, ``row-000042.suspect-dropped`` with its verdict): the
    sample bar lists the rows in order, each saying what went wrong."""
    name = f"row-{row:06d}"
    if verdict:  # from a results file, which anyone may have written: only letters, digits and _ in a name
        name += f".{_word(verdict)}" + (f"-{_word(kind)}" if kind else "")
    return name


def _word(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", str(text))[:40]


def write_samples(dataset: Any, rows: list[int], columns: Any, folder: Path, force: bool,
                  verdicts: dict[int, tuple[str, str]] | None = None, inputs: Any = ()) -> list[Path]:
    """The rows of ``dataset`` as samples in ``folder`` (created); every file at once, atomically,
    none over an existing file without ``force``, none over one of ``inputs`` (the scan's data,
    parsers and other outputs), and none through a symbolic link to a file outside ``folder``
    (a row's text, which a stranger wrote, must not land elsewhere)."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise InputError(f"{folder}: not a folder; the samples go into a folder")
    files: list[tuple[Path, str]] = []
    read = [c for c in (columns.text, columns.prompt) if c is not None]
    picked = dataset.select_columns(read)
    for row in rows:
        record = picked[int(row)]
        name = sample_name(int(row), *(verdicts or {}).get(row, (None, None)))
        text = record[columns.text]
        files.append((folder / f"{name}.txt", text if isinstance(text, str) else ""))
        if columns.prompt is not None and isinstance(record.get(columns.prompt), str):
            files.append((folder / f"{name}{PROMPT_SUFFIX}", record[columns.prompt]))
    if not files:
        return []
    _refuse_links_out(folder, [p for p, _ in files])
    check_outputs([p for p, _ in files], list(inputs), force)
    folder.mkdir(parents=True, exist_ok=True)
    atomic_write_all([(p, t) for p, t in files])
    return [p for p, _ in files if not p.name.endswith(PROMPT_SUFFIX)]


def _refuse_links_out(folder: Path, paths: list[Path]) -> None:
    inside = folder.resolve() if folder.exists() else None
    for path in paths:
        if path.is_symlink():
            real = Path(os.path.realpath(path))
            if inside is None or inside not in real.parents:
                raise InputError(f"{path}: a symbolic link to {real}, outside {folder}; refusing to write a row through it "
                                 "(nothing written)")


def failing_rows(results_path: Path, limit: int) -> list[tuple[int, str, str, str, str]]:
    """The first ``limit`` failing rows of a results file: (row, verdict, kind, where, detail)."""
    import pyarrow.parquet as pq

    found = []
    for batch in pq.ParquetFile(str(results_path)).iter_batches(batch_size=8192, columns=["row", "verdict", "kind", "where", "detail"]):
        d = batch.to_pydict()
        for i, verdict in enumerate(d["verdict"]):
            if verdict in FAILING:
                # kind, where and detail as text whatever the file holds (they are shown and named)
                found.append((d["row"][i], verdict, *(str(d[key][i] or "") for key in ("kind", "where", "detail"))))
                if len(found) >= limit:
                    return found
    return found


@dataclass
class ScanSamples:
    """A scan's failing rows read back as samples (``workbench open --scan``)."""

    results: Path
    meta: dict
    parser: Path | None  # the parser the scan ran (or the one given instead); None when nothing failed
    samples: list[Path] = field(default_factory=list)  # in row order, each named by row and verdict
    more: bool = False  # more rows failed than were read back
    notes: dict[Path, str] = field(default_factory=dict)  # each sample's verdict as the scan gave it


def read_back(results_path: Path, folder: Path, limit: int = 200, parser: Path | None = None) -> ScanSamples:
    """The first ``limit`` failing rows of the scan whose results are ``results_path``, written as
    samples into ``folder`` (which the caller removes), each with its prompt when the scan read a
    prompt column; the data and the parser are where the results' metadata says (``parser``: run
    another). ``InputError`` in one sentence when the file is not a scan's results, or the data or
    the parser is gone or changed; no samples (and nothing opened) when no row failed."""
    from . import source
    from .results import read_meta
    from .row import Columns

    results_path = Path(results_path)
    if not results_path.is_file():
        raise InputError(f"{results_path}: no such results file" if not results_path.exists()
                         else f"{results_path}: not a file; give the Parquet file workbench scan wrote")
    try:
        meta = read_meta(results_path)
        data, split, rows, columns = _checked_meta(meta, results_path, Columns)
        failing = failing_rows(results_path, limit + 1)
    except ImportError as exc:
        raise source.missing_extra(exc) from None
    except ValueError as exc:
        raise InputError(str(exc) if "workbench scan" in str(exc) else
                         f"{results_path}: not the results of workbench scan ({_one_line(exc)})") from None
    except Exception as exc:  # noqa: BLE001 - pyarrow's many errors for a file it cannot read, said in one line
        raise InputError(f"{results_path}: not the results of workbench scan ({_one_line(exc)})") from None
    found = ScanSamples(results_path, meta, None, more=len(failing) > limit)
    if not failing:
        return found
    for row, *_ in failing:
        if not isinstance(row, int) or not 0 <= row < rows:
            raise InputError(f"{results_path}: a failing row numbered {row!r}, and the scan read rows 0 to {rows - 1}: "
                             "not the results of workbench scan as it writes them")
    once: dict[int, tuple] = {}
    for failure in failing[:limit]:  # in row order, each row once (as the scan writes them)
        once.setdefault(failure[0], failure)
    failing = [once[row] for row in sorted(once)]
    found.parser = Path(parser) if parser is not None else Path(meta["parser"])
    if not found.parser.is_file():
        raise InputError(f"{found.parser}: no such parser file" if parser is not None else
                         f"{found.parser}: the parser is no longer there (where {results_path.name} says the scan "
                         "read it); give one with --schema FILE")
    if Path(data).is_absolute() and not Path(data).exists():
        raise InputError(f"{data}: the data is no longer there (where {results_path.name} says the scan read it)")
    dataset = source.open_dataset(data, split)
    source.check_columns(dataset, columns, data)
    if len(dataset) != rows:
        raise InputError(f"{data}: has {len(dataset)} rows, the scan read {rows}: the data changed since the scan; "
                         "scan it again")
    # Same number of rows is not the same rows: the digest of the bytes the scan read, when the
    # results have one (results written before it was kept are checked by their row count only).
    if meta.get("data_digest") is not None and source.data_digest(data, dataset) != meta["data_digest"]:
        raise InputError(f"{data}: not the data {results_path.name} was scanned from (its bytes changed since the "
                         "scan); scan it again")
    verdicts = {row: (verdict, kind) for row, verdict, kind, _where, _detail in failing}
    found.samples = write_samples(dataset, [row for row, *_ in failing], columns, folder, False, verdicts=verdicts)
    if columns.expected is not None:
        _write_goldens(dataset, failing, columns.expected, folder, verdicts)
    found.notes = {path: _note(*failure) for path, failure in zip(found.samples, failing)}
    return found


# A split as datasets names them (``train``, ``test.clean``): never a path.
_SPLIT = re.compile(r"\w+(?:\.\w+)*", re.ASCII)
_OPTIONAL_COLUMNS = ("prompt", "tools", "expected", "id")


def _checked_meta(meta: Any, results_path: Path, columns_type: Any) -> tuple[str, str | None, int, Any]:
    """(data, split, rows, columns) from a results file's metadata, which anyone may have written:
    each of the right type and shape, or a ``ValueError`` naming the key (said as "not the results
    of workbench scan")."""
    def bad(key: str, what: str) -> ValueError:
        return ValueError(f"{results_path}: not the results of workbench scan as it writes them: its metadata's "
                          f"{key} is {what}")

    if not isinstance(meta, dict):
        raise bad("top level", "not an object")
    for key in ("data", "parser"):
        if not isinstance(meta.get(key), str) or not meta[key] or "\0" in meta[key]:
            raise bad(key, "not a path or dataset name")
    split = meta.get("split")
    if split is not None and not (isinstance(split, str) and _SPLIT.fullmatch(split)):
        raise bad("split", "not a split name (letters, digits, '_', '.')")
    rows = meta.get("rows")
    if type(rows) is not int or rows < 0:
        raise bad("rows", "not a number of rows")
    if meta.get("partial") and (type(meta.get("rows_written", rows)) is not int or not 0 <= meta.get("rows_written", rows) <= rows):
        raise bad("rows_written", "not a number of rows up to rows")
    given = meta.get("columns")
    if not isinstance(given, dict) or not isinstance(given.get("text"), str):
        raise bad("columns", "not the columns the scan read")
    for key in _OPTIONAL_COLUMNS:
        if given.get(key) is not None and not isinstance(given[key], str):
            raise bad(f"columns.{key}", "not a column name")
    options = meta.get("options")
    if options is not None and not isinstance(options, dict):
        raise bad("options", "not an object")
    if isinstance(options, dict) and options.get("runtime") is not None and not isinstance(options["runtime"], str):
        raise bad("options.runtime", "not a release")
    digest = meta.get("data_digest")
    if digest is not None and not (isinstance(digest, str) and re.fullmatch(r"[0-9a-f]{64}", digest)):
        raise bad("data_digest", "not a digest")
    return meta["data"], split, rows, columns_type(given["text"], given.get("prompt"), expected=given.get("expected"))


def _note(_row: int, verdict: str, kind: str, where: str, detail: str) -> str:
    """``the scan said: suspect marker_left at /content: holds '</think>'``, one line."""
    said = " ".join(filter(None, (verdict, kind))) + (f" at {where}" if where else "") + (f": {detail}" if detail else "")
    return "the scan said: " + " ".join(said.splitlines())[:300]


def _write_goldens(dataset: Any, failing: list, column: str, folder: Path, verdicts: dict) -> None:
    """The expected column (``scan --expected-column``) as each row's golden, for either format, so
    the sample bar marks a row that ``differs`` and the status line says where; a value that is
    not JSON (the scan said so as the row's verdict) gives no golden."""
    from ..store.files import dump_json
    from ..formats import FORMATS
    from ..store.samples import EXPECTED_SUFFIX
    from .row import _json_value

    picked = dataset.select_columns([column])
    files = []
    for row, *_ in failing:
        try:
            value = _json_value(picked[int(row)][column])
        except ValueError:
            continue
        if value is not None:
            name = sample_name(int(row), *verdicts[row])
            files += [(folder / f"{name}{fmt.golden_infix}{EXPECTED_SUFFIX}", dump_json(value)) for fmt in FORMATS]
    atomic_write_all(files)


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:300]
