"""The Parquet file of a scan's results: one row per input row (row, verdict, kind, where,
detail, seconds; with ``--compare`` the other parser's verdict and where the two part), and in its
metadata what was scanned with what, so ``workbench open --scan`` can open a row again. Written
batch by batch to a file beside the target and moved into place at the end (atomic: an
interrupted scan leaves the results it has, marked partial, never a half-written file).

The cache: a finished scan's file is kept under the key of (a digest of the data's bytes, the
parsers' text, the runtime, the options), so the same scan again reuses it and a scan after an
edit of the parser reuses nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

META_KEY = b"workbench.scan"
ROW_GROUP = 65_536


def arrow_schema(compare: bool, id_column: str | None, id_type: Any = None) -> Any:
    import pyarrow as pa

    fields = [("row", pa.int64()), ("verdict", pa.string()), ("kind", pa.string()), ("where", pa.string()),
              ("detail", pa.string()), ("seconds", pa.float64())]
    if compare:
        fields += [("compare_verdict", pa.string()), ("compare_where", pa.string())]
    if id_column is not None:
        fields.append((id_column, id_type if id_type is not None else pa.string()))
    return pa.schema(fields)


class ResultWriter:
    """Batches of results into ``path`` (through a temporary file in its folder)."""

    def __init__(self, path: Path, schema: Any, meta: dict) -> None:
        import pyarrow.parquet as pq

        self.path = Path(path)
        self.meta = meta
        self.schema = schema.with_metadata({META_KEY: json.dumps(meta).encode()})
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".partial", dir=self.path.parent)
        os.close(fd)
        self.tmp = Path(tmp)
        self._writer = pq.ParquetWriter(str(self.tmp), self.schema)
        self._held: list = []  # batches not written yet: one row group per ROW_GROUP rows, not per batch
        self._held_rows = 0
        self.rows = 0

    def write(self, batch: dict[str, list]) -> None:
        import pyarrow as pa

        self._held.append(pa.Table.from_pydict({f.name: batch[f.name] for f in self.schema}, schema=self.schema))
        self._held_rows += len(batch["row"])
        self.rows += len(batch["row"])
        if self._held_rows >= ROW_GROUP:
            self._flush()

    def _flush(self) -> None:
        import pyarrow as pa

        if self._held:
            self._writer.write_table(pa.concat_tables(self._held))
        self._held, self._held_rows = [], 0

    def finish(self, partial: bool) -> None:
        """Close the file and move it into place; a partial scan says so in its metadata."""
        self._flush()
        self._writer.close()
        if partial:
            self._mark_partial()
        os.replace(self.tmp, self.path)

    def abandon(self) -> None:
        try:
            self._writer.close()
        finally:
            self.tmp.unlink(missing_ok=True)

    def _mark_partial(self) -> None:
        import pyarrow.parquet as pq

        table = pq.read_table(str(self.tmp))
        meta = {**self.meta, "partial": True, "rows_written": table.num_rows}
        pq.write_table(table.replace_schema_metadata({META_KEY: json.dumps(meta).encode()}), str(self.tmp))


def read_meta(path: Path) -> dict:
    import pyarrow.parquet as pq

    raw = pq.read_schema(str(path)).metadata or {}
    if META_KEY not in raw:
        raise ValueError(f"{path}: not the results of workbench scan (no scan metadata)")
    return json.loads(raw[META_KEY])


def cache_key(*parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:32]


def cache_dir() -> Path:
    return Path(os.environ.get("WORKBENCH_CACHE") or Path.home() / ".cache" / "workbench") / "scan"


def cached(key: str) -> Path | None:
    found = cache_dir() / f"{key}.parquet"
    return found if found.is_file() else None


def keep(path: Path, key: str) -> None:
    """Copy a finished scan into the cache (atomically; a cache that cannot be written is skipped)."""
    target = cache_dir() / f"{key}.parquet"
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".", suffix=".parquet", dir=target.parent)
        os.close(fd)
        shutil.copyfile(path, tmp)
        os.replace(tmp, target)
    except OSError:
        pass


def reuse(found: Path, path: Path) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
    os.close(fd)
    shutil.copyfile(found, tmp)
    os.replace(tmp, path)
