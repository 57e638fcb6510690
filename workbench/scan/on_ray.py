"""A scan on a Ray cluster (``--engine ray``): Ray Data reads the files (``read_parquet``,
``read_json``, ``read_csv``; a saved or Hub dataset, or JSON whose columns mix types, as the Arrow
table ``datasets`` opened, through ``from_arrow``), runs the same
row function with ``map_batches`` on the cluster's workers, and streams the results back in row
order, so the driver writes the same Parquet rows a local scan writes.

In a pipeline of your own (after a ``ray.data.llm`` generation step, say), ``RowScanner`` is the
stage: ``ds.map_batches(ArrowRows(scanner), batch_format="pyarrow").write_parquet(...)``, with an
id column of yours passed through (``Columns(id=...)``): see the README.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

from .local import BATCH
from ..store.files import InputError
from .source import data_files, is_saved, missing_extra, read_as

_USAGE = "RAY_USAGE_STATS_ENABLED"
_NOWHERE = "http://127.0.0.1:9"  # the discard port: nothing listens, a request fails at once
_LOCAL_RAY = {_USAGE: "0", "http_proxy": _NOWHERE, "https_proxy": _NOWHERE, "HTTP_PROXY": _NOWHERE,
              "HTTPS_PROXY": _NOWHERE, "no_proxy": "localhost,127.0.0.1,::1", "NO_PROXY": "localhost,127.0.0.1,::1"}
# A CSV cell is the text it holds, as ``source`` has datasets read it: no "NA", "null" or "" as null.
_CSV_CELLS = {"null_values": [], "strings_can_be_null": False, "quoted_strings_can_be_null": False}


class ArrowRows:
    """The row function as Ray Data calls it: an Arrow batch in, an Arrow batch of results out."""

    def __init__(self, scanner: Any) -> None:
        self.scanner = scanner

    def __call__(self, batch: Any) -> Any:
        import pyarrow as pa

        return pa.Table.from_pydict(self.scanner(batch))


def read(data: str, dataset: Any) -> Any:
    """DATA's files read by Ray itself (the files ``open_dataset`` read, in its order), or the
    Arrow table ``datasets`` opened when DATA is no set of files Ray reads as they are (a saved
    dataset, a Hub id, JSON a column of which ``source`` read as text). ``from_arrow`` rather
    than ``from_huggingface``, which asks the Hub for a dataset's Parquet export."""
    import pyarrow.csv
    import ray.data

    if is_saved(Path(data)) or not Path(data).exists():
        return ray.data.from_arrow(dataset.data.table)
    kind, paths = data_files(data)
    if read_as(dataset) not in (None, paths):
        return ray.data.from_arrow(dataset.data.table)
    if kind == "parquet":
        return ray.data.read_parquet(paths)
    if kind == "csv":
        return ray.data.read_csv(paths, convert_options=pyarrow.csv.ConvertOptions(**_CSV_CELLS))
    return ray.data.read_json(paths, lines=all(p.endswith(".jsonl") for p in paths))


def check_address(address: str) -> None:
    """A cluster address that names a host and port is reachable, or one sentence: ``ray.init``
    would retry an unknown host for minutes. ``auto`` and ``local`` are Ray's to resolve."""
    import socket

    if address in ("auto", "local"):
        return
    hostport = address.split("://", 1)[1] if "://" in address else address
    host, _, port = hostport.rstrip("/").rpartition(":")
    if not host or not port.isdigit():
        raise InputError(f"--ray-address {address}: not a cluster address (host:port, ray://host:port, auto or local)")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=5).close()
    except (OSError, ValueError) as exc:
        raise InputError(f"--ray-address {address}: cannot reach {host}:{port} ({exc}); is the cluster running?") from None


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
    # A Ray we start reports no usage while the scan runs (Ray Data asks a Prometheus for counters).
    saved = {name: os.environ.get(name) for name in _LOCAL_RAY}
    if started:
        os.environ[_USAGE] = "0"
    try:
        if started:
            if address:
                check_address(address)
            else:
                # and its processes, which take the environment they start with, ask no cloud which
                # it is (Ray's dashboard GETs 169.254.169.254 and metadata.google.internal whether
                # usage stats are on or not): their HTTP goes to a closed local port
                os.environ.update(_LOCAL_RAY)
            # a local Ray of this machine's cores unless an address names a running cluster
            try:
                ray.init(address=address, include_dashboard=False, log_to_driver=False, configure_logging=False,
                         **({} if address else {"num_cpus": num_cpus}))
            except (ConnectionError, RuntimeError, ValueError, TimeoutError) as exc:
                text = " ".join(str(exc).split())[:300]
                raise InputError(f"--ray-address {address or '(a local Ray)'}: Ray did not start: {text}") from None
            finally:
                _restore({name: value for name, value in saved.items() if name != _USAGE})
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
    finally:
        if started:
            _restore(saved)


def _restore(saved: dict[str, str | None]) -> None:
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
