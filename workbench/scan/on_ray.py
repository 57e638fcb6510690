"""A scan on a Ray cluster (``--engine ray``): Ray Data reads the files (``read_parquet``,
``read_json``, ``read_csv``; a saved or Hub dataset through ``from_huggingface``), runs the same
row function with ``map_batches`` on the cluster's workers, and streams the results back in row
order, so the driver writes the same Parquet rows a local scan writes.

In a pipeline of your own (after a ``ray.data.llm`` generation step, say), ``RowScanner`` is the
stage: ``ds.map_batches(ArrowRows(scanner), batch_format="pyarrow").write_parquet(...)``, with an
id column of yours passed through (``Columns(id=...)``): see the README.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from .local import BATCH
from .source import data_files, is_saved, missing_extra


class ArrowRows:
    """The row function as Ray Data calls it: an Arrow batch in, an Arrow batch of results out."""

    def __init__(self, scanner: Any) -> None:
        self.scanner = scanner

    def __call__(self, batch: Any) -> Any:
        import pyarrow as pa

        return pa.Table.from_pydict(self.scanner(batch))


def read(data: str, dataset: Any) -> Any:
    """DATA's files read by Ray itself (the files ``open_dataset`` read, in its order), or the
    dataset ``datasets`` opened when DATA is no set of files (a saved dataset, a Hub id)."""
    import ray.data

    if is_saved(Path(data)) or not Path(data).exists():
        return ray.data.from_huggingface(dataset)
    kind, paths = data_files(data)
    if kind == "parquet":
        return ray.data.read_parquet(paths)
    if kind == "csv":
        return ray.data.read_csv(paths)
    return ray.data.read_json(paths, lines=all(p.endswith(".jsonl") for p in paths))


def run(data: str, dataset: Any, scanner: Any, columns: list[str], *, address: str | None, num_cpus: int | None,
        done: Callable[[dict], None]) -> None:
    """Every row through ``scanner`` on Ray; ``done(results)`` per batch, in row order (the row
    numbers are counted here, as the batches come back in order)."""
    try:
        import ray
        import ray.data
    except ImportError as exc:
        raise missing_extra(exc, "ray") from None
    started = not ray.is_initialized()
    if started:
        # a local Ray of this machine's cores unless an address names a running cluster
        ray.init(address=address, include_dashboard=False, log_to_driver=False, configure_logging=False,
                 **({} if address else {"num_cpus": num_cpus}))
    try:
        context = ray.data.DataContext.get_current()
        context.execution_options.preserve_order = True
        context.enable_progress_bars = False
        rows = read(data, dataset).select_columns(columns)
        scanned = rows.map_batches(ArrowRows(scanner), batch_format="pyarrow", batch_size=BATCH)
        first = 0
        for batch in scanned.iter_batches(batch_format="pyarrow", batch_size=BATCH):
            results = batch.to_pydict()
            n = len(results["verdict"])
            done({"row": list(range(first, first + n)), **results})
            first += n
    finally:
        if started:
            ray.shutdown()
