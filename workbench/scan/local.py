"""A scan on all cores of one machine: the dataset's Arrow batches (memory-mapped by ``datasets``)
fed to a pool of worker processes that run the row function, the results written in order as they
come. One process runs in this one, with no pool.

Batches are sized in bytes as well as rows (at most ``BATCH`` rows and ``BATCH_BYTES`` of column
data, a larger row alone), each worker holds one batch at a time and at most ``WINDOW`` batches
per worker are read ahead of the first not yet written, so memory is bounded in bytes whatever the
rows hold. A worker that dies (the OOM killer, ``kill -9``) is seen through its process sentinel:
the rows of the batch it held are written as ``raised`` ("the worker scanning rows a–b died
(signal 9)"), a new worker takes its place, and the scan goes on. Workers die with their parent
(``PR_SET_PDEATHSIG`` on Linux), so a killed scan leaves none behind.

A pool of our own rather than ``Dataset.map(num_proc=…)``: map hands progress to its own bar and
writes its shards to cache files, while a scan shows rows/s as they come, stops cleanly on
Ctrl+C with the rows done so far, and keeps its results in one Parquet file.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
from multiprocessing.connection import wait
from typing import Any, Callable, Iterator

BATCH = 256  # rows per batch at most
BATCH_BYTES = 8 << 20  # bytes of column data per batch at most (a larger row goes alone)
WINDOW = 4  # batches per worker read ahead of the first one not yet written


def batches(dataset: Any, columns: list[str], size: int, max_bytes: int = BATCH_BYTES) -> Iterator[tuple[int, dict]]:
    """(first row, columns) for each batch, read from the Arrow table as it is needed.

    A dataset that is its Arrow files as they are (what ``load_dataset`` and ``load_from_disk``
    give) is read from those files as a stream, a record batch at a time, rather than through its
    memory map: every page of a mapped file that has been read stays in the process's resident
    memory while the dataset is open, so a scan's RSS would grow with the rows (by the size of the
    data: 1.2 GB for a million rows of ~1 KB), each batch cut at ``max_bytes`` by the rows' own
    sizes. Any other (in memory, filtered, sliced, shuffled, its columns renamed, formatted, or a
    column that datasets decodes) is read through ``datasets``, its batches cut at ``max_bytes``
    by the mean size of a row of its table."""
    files = _arrow_files(dataset, columns)
    if files is not None:
        yield from _streamed(files, columns, size, max_bytes)
        return
    table = dataset.select_columns(columns) if list(dataset.column_names) != columns else dataset
    try:
        mean = dataset.data.nbytes / max(1, dataset.data.num_rows)
    except Exception:  # noqa: BLE001 - datasets' internals moved: rows alone
        mean = 0
    step = max(1, min(size, int(max_bytes // mean) if mean else size))
    for first in range(0, len(table), step):
        yield first, table[first : first + step]


_AS_STORED = {"replace_schema_metadata", "select", "drop"}  # replays that keep each column as the file has it


def _arrow_files(dataset: Any, columns: list[str]) -> list[str] | None:
    """The Arrow stream files that hold exactly ``dataset``'s rows in order, each of ``columns``
    as the dataset gives it; None when the dataset is anything else."""
    try:
        import pyarrow as pa
        from datasets.features.features import require_decoding
        from datasets.table import ConcatenationTable, MemoryMappedTable

        if (dataset._indices is not None or dataset.format.get("type") is not None
                or any(require_decoding(dataset.features[c]) for c in columns)):
            return None
        table = dataset.data
        blocks = [row for row in table.blocks] if isinstance(table, ConcatenationTable) else [[table]]
        if any(len(row) != 1 or not isinstance(row[0], MemoryMappedTable) for row in blocks):
            return None  # in memory, or columns concatenated side by side
        files = []
        for (block,) in blocks:
            if any(name not in _AS_STORED for name, _, _ in block.replays):
                return None
            with pa.OSFile(block.path) as source:
                stored = pa.ipc.open_stream(source).schema
            if any(c not in stored.names or stored.field(c).type != table.schema.field(c).type for c in columns):
                return None
            files.append(block.path)
        return files
    except Exception:  # noqa: BLE001 - datasets' internals moved, or a file went: read it through datasets
        return None


def _streamed(files: list[str], columns: list[str], size: int, max_bytes: int) -> Iterator[tuple[int, dict]]:
    import pyarrow as pa

    first = 0
    for path in files:
        with pa.OSFile(path) as source:
            for record in pa.ipc.open_stream(source):
                record = record.select(columns)
                for at, count in _pieces(_row_bytes(record), size, max_bytes):
                    yield first, record.slice(at, count).to_pydict()
                    first += count


def _row_bytes(record: Any) -> list[int]:
    """Each row's bytes: a text or binary column's own length, any other column's mean share."""
    import pyarrow as pa
    import pyarrow.compute as pc

    sizes = [0] * record.num_rows
    for column in record.columns:
        kind = column.type
        if pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_binary(kind) or pa.types.is_large_binary(kind):
            lengths = pc.fill_null(pc.binary_length(column), 0).to_pylist()
            sizes = [a + b for a, b in zip(sizes, lengths)]
        elif record.num_rows:
            share = column.nbytes // record.num_rows
            sizes = [a + share for a in sizes]
    return sizes


def _pieces(sizes: list[int], size: int, max_bytes: int) -> Iterator[tuple[int, int]]:
    """(start, count) of consecutive rows, at most ``size`` rows and ``max_bytes`` each (a row
    larger than that alone)."""
    at, n = 0, len(sizes)
    while at < n:
        end, total = at + 1, sizes[at]
        while end < n and end - at < size and total + sizes[end] <= max_bytes:
            total += sizes[end]
            end += 1
        yield at, end - at
        at = end


def run(dataset: Any, scanner: Any, columns: list[str], *, num_proc: int, done: Callable[[dict], None],
        size: int | None = None, max_bytes: int | None = None) -> None:
    """Every row through ``scanner``; ``done(results)`` for each batch, in row order. A
    KeyboardInterrupt (or any exception) stops the workers and propagates after the batches
    already done."""
    jobs = batches(dataset, columns, size or BATCH, max_bytes or BATCH_BYTES)
    if num_proc <= 1:
        for first, batch in jobs:
            done(scanner(batch, first=first))
        return
    _Pool(scanner, num_proc, columns).run(jobs, done)


def _die_with_parent(parent: int) -> None:
    """Linux: the kernel kills this worker when the scan's process dies, however it dies."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except Exception:  # noqa: BLE001 - no libc prctl: the parent's own cleanup is what is left
            pass
    if os.getppid() != parent:  # it died before the line above
        os._exit(1)


def _work(scanner: Any, conn: Any, parent: int) -> None:
    """A worker: batches in, results out, over ``conn``, until it is closed or sent None."""
    _die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C is the parent's to handle
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        first, batch = job
        try:
            reply = ("ok", scanner(batch, first=first))
        except Exception as exc:  # noqa: BLE001 - said in the parent, which stops the scan
            reply = ("error", f"{type(exc).__name__}: {exc}")
        del batch, job
        conn.send(reply)


class _Worker:
    def __init__(self, context: Any, scanner: Any) -> None:
        self.conn, theirs = context.Pipe()
        self.process = context.Process(target=_work, args=(scanner, theirs, os.getpid()), daemon=True)
        self.process.start()
        theirs.close()
        self.job: tuple[int, int, int, list | None] | None = None  # (index, first row, rows, ids)


class _Pool:
    """Workers that each hold one batch at a time (a worker never blocks sending its results while
    the parent blocks sending it the next batch), watched through their sentinels."""

    def __init__(self, scanner: Any, num_proc: int, columns: list[str]) -> None:
        self.scanner = scanner
        self.num_proc = num_proc
        self.id_column = getattr(getattr(scanner, "columns", None), "id", None)
        self.context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
        self.workers: list[_Worker] = []

    def run(self, jobs: Iterator[tuple[int, dict]], done: Callable[[dict], None]) -> None:
        try:
            self.workers = [_Worker(self.context, self.scanner) for _ in range(self.num_proc)]
            self._loop(jobs, done)
            for worker in self.workers:
                try:
                    worker.conn.send(None)
                except OSError:
                    pass
            for worker in self.workers:
                worker.process.join(5)
        finally:
            for worker in self.workers:
                if worker.process.is_alive():
                    worker.process.kill()
                worker.process.join()
                worker.conn.close()

    def _loop(self, jobs: Iterator[tuple[int, dict]], done: Callable[[dict], None]) -> None:
        results: dict[int, dict] = {}
        sent = written = 0
        more = True
        while True:
            idle = [w for w in self.workers if w.job is None]
            while more and idle and sent - written < WINDOW * self.num_proc:
                job = next(jobs, None)
                if job is None:
                    more = False
                    break
                first, batch = job
                count = len(next(iter(batch.values()))) if batch else 0
                ids = list(batch[self.id_column]) if self.id_column in batch else None
                worker = idle.pop()
                worker.job = (sent, first, count, ids)
                sent += 1
                try:
                    worker.conn.send(job)
                except OSError:
                    pass  # it died: its sentinel says so below
                del job, batch
            busy = [w for w in self.workers if w.job is not None]
            if not busy:
                break
            ready = wait([w.conn for w in busy] + [w.process.sentinel for w in busy])
            for worker in busy:
                if worker.conn not in ready and worker.process.sentinel not in ready:
                    continue
                index = worker.job[0]
                reply = None
                try:
                    if worker.conn.poll():
                        reply = worker.conn.recv()
                except (EOFError, OSError):
                    reply = None
                if reply is None:
                    if worker.process.is_alive() and worker.process.sentinel not in ready:
                        continue
                    results[index] = self._died(worker)
                    continue
                status, value = reply
                if status != "ok":
                    raise RuntimeError(f"a scan worker failed on rows {worker.job[1]}–{worker.job[1] + worker.job[2] - 1}: {value}")
                results[index] = value
                worker.job = None
            while written in results:
                done(results.pop(written))
                written += 1

    def _died(self, worker: _Worker) -> dict:
        """The batch a dead worker held, each row ``raised``; a new worker in its place."""
        worker.process.join()
        code = worker.process.exitcode
        how = f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
        _, first, count, ids = worker.job
        worker.conn.close()
        self.workers[self.workers.index(worker)] = _Worker(self.context, self.scanner)
        return self.scanner.failed(list(range(first, first + count)), ids,
                                   f"the worker scanning rows {first}–{first + count - 1} died ({how})")
