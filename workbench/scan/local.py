"""A scan on all cores of one machine: the dataset's Arrow batches (memory-mapped by ``datasets``)
fed to a process pool that runs the row function, a bounded number of batches in flight, the
results written in order as they come. One process runs in this one, with no pool.

A pool of our own rather than ``Dataset.map(num_proc=…)``: map hands progress to its own bar and
writes its shards to cache files, while a scan shows rows/s as they come, stops cleanly on
Ctrl+C with the rows done so far, and keeps its results in one Parquet file.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections import deque
from typing import Any, Callable, Iterator

BATCH = 256


def _quiet() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C is the parent's to handle


_SCANNER: Any = None


def _start(scanner: Any) -> None:
    global _SCANNER
    _quiet()
    _SCANNER = scanner


def _scan_batch(job: tuple[int, dict]) -> dict:
    first, batch = job
    return _SCANNER(batch, first=first)


def batches(dataset: Any, columns: list[str], size: int) -> Iterator[tuple[int, dict]]:
    """(first row, columns) for each batch, read from the Arrow table as it is needed."""
    table = dataset.select_columns(columns) if list(dataset.column_names) != columns else dataset
    for first in range(0, len(table), size):
        yield first, table[first : first + size]


def run(dataset: Any, scanner: Any, columns: list[str], *, num_proc: int, done: Callable[[dict], None],
        size: int | None = None) -> None:
    """Every row through ``scanner``; ``done(results)`` for each batch, in row order. A
    KeyboardInterrupt stops the workers and propagates after the batches already done."""
    jobs = batches(dataset, columns, size or BATCH)
    if num_proc <= 1:
        for first, batch in jobs:
            done(scanner(batch, first=first))
        return
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    pool = context.Pool(num_proc, initializer=_start, initargs=(scanner,))
    pending: deque = deque()
    try:
        for job in jobs:
            pending.append(pool.apply_async(_scan_batch, (job,)))
            while len(pending) >= 2 * num_proc:  # bounded: memory stays flat however many rows
                done(pending.popleft().get())
        while pending:
            done(pending.popleft().get())
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()
