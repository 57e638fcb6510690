"""One scan from start to end, for the CLI and the TUI alike: read the data, reuse a cached scan
or run the row function over every row on the chosen engine, write the results and the summary,
and the failing rows as samples when asked."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import signal
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..store.files import InputError, WriteError, atomic_write, check_outputs, check_writable, dump_json, read_text
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
    notices: list[str] = field(default_factory=list)  # what the user may not expect: a link written through


def run_scan(job: ScanJob, progress: Callable[[int, int], None] | None = None) -> Done:
    """The scan ``job`` asks for; ``progress(rows done, rows)`` as batches finish. Ctrl+C, SIGTERM
    or SIGHUP end it with the rows done so far written, marked partial, and re-raised as
    ``Interrupted`` carrying what was done and the signal (on the main thread: elsewhere Python
    sets no handler, and only Ctrl+C stops it). Outputs that cannot be written are an
    ``InputError`` before any row is read, where they can be; a write that fails later (a full
    disk) a ``WriteError`` in one sentence, with no temporary file left."""
    with _Stopping() as stopping:
        return _scan(job, progress, stopping)


def _scan(job: ScanJob, progress, stopping: "_Stopping") -> Done:
    parser_text = read_text(job.parser, "parser")
    compare_text = read_text(job.compare, "parser") if job.compare is not None else None
    scanner = RowScanner(parser_text, job.columns, job.options, compare_text)
    try:
        scanner.load()  # a parser that cannot run is said before any row is read
    except UnusableParser as exc:
        raise InputError(f"{job.compare if exc.which else job.parser}: {exc}") from None
    out = job.output_path()
    _check_outputs(job, out)
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
    keep_failing = job.limit if job.samples is not None else 0
    summary = Summary(keep_failing=keep_failing)
    found = results.cached(key) if job.use_cache else None
    notices = results.reuse(found, out, meta, summary.add) if found is not None else None
    if notices is not None:
        done = Done(summary.as_dict(), out, total, reused=True, notices=notices)
    else:
        summary = Summary(keep_failing=keep_failing)  # a cached entry that could not be read added nothing
        try:
            done = _run(job, dataset, scanner, summary, meta, out, total, progress, stopping)
        except Interrupted as stopped:
            with stopping.finishing():
                _write_summary(job, stopped.done)
            raise
        if job.use_cache:
            with stopping.finishing():
                results.keep(out, key)
    with stopping.finishing():  # a signal now would only lose what is being written
        _write_summary(job, done)
        if job.samples is not None:
            from .failures import write_samples

            try:
                done.samples = write_samples(dataset, summary.failing_rows, job.columns, job.samples, job.force,
                                             inputs=_inputs(job) + [out] + ([job.summary_json] if job.summary_json else []))
            except (InputError, WriteError) as exc:
                raise type(exc)(f"{exc} (the results are written to {out})") from None
    return done


def _write_summary(job: ScanJob, done: Done) -> None:
    if job.summary_json is None:
        return
    try:
        done.notices += atomic_write(job.summary_json, dump_json({**done.summary, "results": str(done.output),
                                                                  "partial": done.partial}))
    except WriteError as exc:
        raise WriteError(f"{exc} (the results are written to {done.output})") from None


def _inputs(job: ScanJob) -> list[Path]:
    """Every file the scan reads: the parsers, and DATA (a file, or each file in its folder)."""
    found = [Path(job.parser)] + ([Path(job.compare)] if job.compare is not None else [])
    data = Path(job.data)
    try:
        if data.is_file():
            found.append(data)
        elif data.is_dir():
            found += [p for p in data.rglob("*") if p.is_file()]
    except OSError:
        pass
    return found


def _check_outputs(job: ScanJob, out: Path) -> None:
    """Before any row is read: no output over an input (even with --force) or over another output,
    none over an existing file without --force, and each one writable."""
    outputs = [(out, "-o")] + ([(job.summary_json, "--json")] if job.summary_json is not None else [])
    for path, option in outputs:
        check_writable(path, option)
    check_outputs([path for path, _ in outputs], _inputs(job), force=True)
    for path, option in outputs:
        if not job.force and (path.exists() or path.is_symlink()):
            elsewhere = "-o FILE to write the results elsewhere" if option == "-o" else "another --json FILE"
            raise InputError(f"{path}: already exists; pass --force to replace it, or {elsewhere} (nothing written)")
    if job.samples is not None and job.samples.exists() and not job.samples.is_dir():
        raise InputError(f"{job.samples}: not a folder; --write-samples writes into a folder (nothing written)")
    if job.samples is not None and job.samples.is_dir():
        inside = job.samples.resolve()
        for entry in job.samples.glob("row-*.txt"):  # where a row's text may go: never through a link out
            if entry.is_symlink() and inside not in Path(os.path.realpath(entry)).parents:
                raise InputError(f"{entry}: a symbolic link to {os.path.realpath(entry)}, outside {job.samples}; "
                                 "refusing to write a row through it (nothing written)")


class Interrupted(Exception):
    def __init__(self, done: Done, signum: int = signal.SIGINT) -> None:
        super().__init__("interrupted")
        self.done = done
        self.signum = signum


class Stop(KeyboardInterrupt):
    """A signal that ends a scan as Ctrl+C does (SIGTERM, SIGHUP, and SIGINT itself)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


_STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


class _Stopping:
    """While a scan runs, SIGINT, SIGTERM and SIGHUP raise ``Stop`` in the main thread, the path
    Ctrl+C takes: the rows done are written and marked partial. A signal that comes while a batch
    is being written is held until it is written; once the scan is stopping, or finishing its
    files, further signals are ignored (a second Ctrl+C must not lose the rows). A signal ignored
    when the scan starts (nohup) stays ignored. A forked pool worker that inherited the handler
    ends as the signal says. The handlers are restored afterwards."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.signum: int | None = None  # the signal that stops the scan
        self.pending: int | None = None  # one that came while a batch was written
        self.holding = 0
        self.quiet = False
        self.previous: dict = {}

    def __enter__(self) -> "_Stopping":
        if threading.current_thread() is threading.main_thread():
            try:
                for signum in _STOP_SIGNALS:
                    if signal.getsignal(signum) is not signal.SIG_IGN:
                        self.previous[signum] = signal.signal(signum, self._handle)
            except (ValueError, OSError):  # not settable here (an embedding host): Ctrl+C as Python has it
                self._restore()
        return self

    def __exit__(self, *exc) -> None:
        self._restore()

    def _restore(self) -> None:
        for signum, handler in self.previous.items():
            signal.signal(signum, handler if handler is not None else signal.SIG_DFL)
        self.previous = {}

    def _handle(self, signum: int, frame: Any) -> None:
        if os.getpid() != self.pid:  # a pool worker forked with this handler: end as the signal says
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        if self.signum is not None or self.quiet:
            return
        if self.holding:
            self.pending = self.pending or signum
            return
        self.signum = signum
        raise Stop(signum)

    @contextmanager
    def held(self):
        """A batch written whole: a signal in it stops the scan right after."""
        self.holding += 1
        try:
            yield
        finally:
            self.holding -= 1
        if not self.holding and self.pending is not None and self.signum is None:
            self.signum, self.pending = self.pending, None
            raise Stop(self.signum)

    @contextmanager
    def finishing(self):
        """Files being finished and moved into place: no signal stops that half-way."""
        quiet, self.quiet = self.quiet, True
        try:
            yield
        finally:
            self.quiet = quiet


def _run(job, dataset, scanner, summary, meta, out, total, progress, stopping) -> Done:
    id_type = dataset.features.arrow_schema.field(job.columns.id).type if job.columns.id else None
    writer = results.ResultWriter(out, results.arrow_schema(job.compare is not None, job.columns.id, id_type), meta)

    def done_batch(batch: dict) -> None:
        with stopping.held():
            try:
                writer.write(batch)
            except OSError as exc:  # a full disk, a file too large: one sentence, not pyarrow's
                raise WriteError(f"{out}: cannot write: {results._reason(exc)}") from None
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
    except KeyboardInterrupt as exc:
        stopping.signum = stopping.signum or getattr(exc, "signum", signal.SIGINT)  # no further signal stops the finish
        with stopping.finishing():
            writer.finish(partial=True)
        raise Interrupted(Done(summary.as_dict(), out, writer.rows, partial=True, notices=writer.notices),
                          stopping.signum) from None
    except WriteError as exc:  # the results cannot be written (a full disk): no temporary file left
        writer.abandon()
        raise WriteError(f"{exc}; the scan stopped after {writer.rows} of {total} rows (nothing written)") from None
    except BaseException:
        writer.abandon()
        raise
    with stopping.finishing():
        writer.finish(partial=False)
    return Done(summary.as_dict(), out, writer.rows, notices=writer.notices)


def _summarize(path: Path, summary: Summary) -> None:
    import pyarrow.parquet as pq

    for batch in pq.ParquetFile(str(path)).iter_batches(batch_size=8192):
        summary.add(batch.to_pydict())


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _where(data: str) -> str:
    return str(Path(data).resolve()) if Path(data).exists() else data


__all__ = ["Columns", "Done", "Interrupted", "Stop", "LOCAL", "Options", "RAY", "ROW", "ScanJob", "run_scan"]
