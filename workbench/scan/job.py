"""One scan from start to end, for the CLI and the TUI alike: read the data, reuse a cached scan
or run the row function over every row on the chosen engine, write the results and the summary,
and the failing rows as samples when asked."""

from __future__ import annotations

import dataclasses
import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..files import InputError, atomic_write, check_outputs, dump_json, read_text
from . import results, source
from .row import ROW, Columns, Options, RowScanner, UnusableParser
from .summary import Summary

LOCAL, RAY = "local", "ray"


@dataclass
class ScanJob:
    data: str
    parser: Path
    columns: Columns = field(default_factory=Columns)
    options: Options = field(default_factory=Options)
    compare: Path | None = None
    split: str | None = None
    output: Path | None = None  # None: beside the working folder, named after the data and parser
    summary_json: Path | None = None
    samples: Path | None = None
    limit: int = 50
    num_proc: int = field(default_factory=lambda: os.cpu_count() or 1)
    engine: str = LOCAL
    ray_address: str | None = None
    use_cache: bool = True
    force: bool = False

    def output_path(self) -> Path:
        if self.output is not None:
            return self.output
        stem = Path(self.data.rstrip("/")).name.split(".")[0] or "data"
        return Path(f"{stem}.{self.parser.name.split('.')[0]}.scan.parquet")


@dataclass
class Done:
    summary: dict
    output: Path
    rows: int
    reused: bool = False
    partial: bool = False
    samples: list[Path] = field(default_factory=list)


def run_scan(job: ScanJob, progress: Callable[[int, int], None] | None = None) -> Done:
    """The scan ``job`` asks for; ``progress(rows done, rows)`` as batches finish. Ctrl+C
    (KeyboardInterrupt) ends it with the rows done so far written, marked partial, and re-raised
    as ``Interrupted`` carrying what was done."""
    parser_text = read_text(job.parser, "parser")
    compare_text = read_text(job.compare, "parser") if job.compare is not None else None
    scanner = RowScanner(parser_text, job.columns, job.options, compare_text)
    try:
        scanner.load()  # a parser that cannot run is said before any row is read
    except UnusableParser as exc:
        raise InputError(f"{job.compare if exc.which else job.parser}: {exc}") from None
    out = job.output_path()
    check_outputs([out] + ([job.summary_json] if job.summary_json else []), [job.parser], job.force)
    dataset = source.open_dataset(job.data, job.split)
    source.check_columns(dataset, job.columns, job.data)
    total = len(dataset)
    digest = source.data_digest(job.data, dataset)
    key = results.cache_key(digest, job.split, _sha(parser_text), _sha(compare_text or ""), dataclasses.asdict(job.columns),
                            dataclasses.asdict(job.options))
    meta = {"data": _where(job.data), "split": job.split, "parser": str(Path(job.parser).resolve()),
            "compare": str(Path(job.compare).resolve()) if job.compare else None,
            "columns": dataclasses.asdict(job.columns), "options": dataclasses.asdict(job.options),
            "rows": total, "engine": job.engine, "key": key, "data_digest": digest}
    summary = Summary(keep_failing=job.limit if job.samples is not None else 0)
    found = results.cached(key) if job.use_cache else None
    if found is not None:
        results.reuse(found, out)
        _summarize(out, summary)
        done = Done(summary.as_dict(), out, total, reused=True)
    else:
        done = _run(job, dataset, scanner, summary, meta, out, total, progress)
        if job.use_cache:
            results.keep(out, key)
    if job.summary_json is not None:
        atomic_write(job.summary_json, dump_json({**done.summary, "results": str(out), "partial": done.partial}))
    if job.samples is not None:
        from .failures import write_samples

        done.samples = write_samples(dataset, summary.failing_rows, job.columns, job.samples, job.force)
    return done


class Interrupted(Exception):
    def __init__(self, done: Done) -> None:
        super().__init__("interrupted")
        self.done = done


def _run(job, dataset, scanner, summary, meta, out, total, progress) -> Done:
    id_type = dataset.features.arrow_schema.field(job.columns.id).type if job.columns.id else None
    writer = results.ResultWriter(out, results.arrow_schema(job.compare is not None, job.columns.id, id_type), meta)

    def done_batch(batch: dict) -> None:
        writer.write(batch)
        summary.add(batch)
        if progress is not None:
            progress(writer.rows, total)

    try:
        if job.engine == RAY:
            from .on_ray import run as run_on_ray

            run_on_ray(job.data, dataset, scanner, job.columns.read(), address=job.ray_address,
                       num_cpus=job.num_proc, done=done_batch)
        else:
            from .local import run as run_here

            run_here(dataset, scanner, job.columns.read(), num_proc=job.num_proc, done=done_batch)
    except KeyboardInterrupt:
        writer.finish(partial=True)
        raise Interrupted(Done(summary.as_dict(), out, writer.rows, partial=True)) from None
    except BaseException:
        writer.abandon()
        raise
    writer.finish(partial=False)
    return Done(summary.as_dict(), out, writer.rows)


def _summarize(path: Path, summary: Summary) -> None:
    import pyarrow.parquet as pq

    for batch in pq.ParquetFile(str(path)).iter_batches(batch_size=8192):
        summary.add(batch.to_pydict())


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _where(data: str) -> str:
    return str(Path(data).resolve()) if Path(data).exists() else data


__all__ = ["Columns", "Done", "Interrupted", "LOCAL", "Options", "RAY", "ROW", "ScanJob", "run_scan"]
