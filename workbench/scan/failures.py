"""Failing rows as samples: ``scan --write-samples DIR`` writes each as ``row-N.txt`` (the output)
and ``row-N.prompt.txt`` (its prompt, when the scan read one), with no golden, which
``workbench open DIR`` and ``workbench check`` read like any sample; ``workbench open --scan``
reads a results file back into the same samples, named by row and verdict."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..files import InputError, atomic_write_all, check_outputs
from ..samples import PROMPT_SUFFIX
from .verdicts import FAILING


def sample_name(row: int, verdict: str | None = None, kind: str | None = None) -> str:
    """``row-000042`` (``row-000042.raised``, ``row-000042.suspect-dropped`` with its verdict): the
    sample bar lists the rows in order, each saying what went wrong."""
    name = f"row-{row:06d}"
    if verdict:
        name += f".{verdict}" + (f"-{kind}" if kind else "")
    return name


def write_samples(dataset: Any, rows: list[int], columns: Any, folder: Path, force: bool,
                  verdicts: dict[int, tuple[str, str]] | None = None) -> list[Path]:
    """The rows of ``dataset`` as samples in ``folder`` (created); every file at once, atomically,
    and none over an existing file without ``force``."""
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
    check_outputs([p for p, _ in files], [], force)
    folder.mkdir(parents=True, exist_ok=True)
    atomic_write_all([(p, t) for p, t in files])
    return [p for p, _ in files if not p.name.endswith(PROMPT_SUFFIX)]


def failing_rows(results_path: Path, limit: int) -> list[tuple[int, str, str, str, str]]:
    """The first ``limit`` failing rows of a results file: (row, verdict, kind, where, detail)."""
    import pyarrow.parquet as pq

    found = []
    for batch in pq.ParquetFile(str(results_path)).iter_batches(batch_size=8192, columns=["row", "verdict", "kind", "where", "detail"]):
        d = batch.to_pydict()
        for i, verdict in enumerate(d["verdict"]):
            if verdict in FAILING:
                found.append((d["row"][i], verdict, d["kind"][i] or "", d["where"][i] or "", d["detail"][i] or ""))
                if len(found) >= limit:
                    return found
    return found
