"""The Parquet file of a scan's results: one row per input row (row, verdict, kind, where,
detail, seconds; with ``--compare`` the other parser's verdict and where the two part), and in its
metadata what was scanned with what, so ``workbench open --scan`` can open a row again. Written
batch by batch to a file beside the target and moved into place at the end (atomic: an
interrupted scan leaves the results it has, marked partial, never a half-written file).

The cache: a finished scan's file is kept under the key of (a digest of the data's bytes, the
parsers' text, the runtime, the options), so the same scan again reuses it and a scan after an
edit of the parser reuses nothing. Reused, a file gets this scan's metadata (its paths); an entry
that cannot be read is dropped and the scan runs again; the cache keeps the newest CACHE_ENTRIES
entries, at most CACHE_BYTES.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from ..store.files import StagedFile, WriteError

META_KEY = b"workbench.scan"
PARTIAL_KEY = b"workbench.scan.partial"  # added as a stopped scan's file closes
ROW_GROUP = 65_536
# The cache's bound (README): the newest entries, least recently used dropped first.
CACHE_ENTRIES = 64
CACHE_BYTES = 1024**3


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
    """Batches of results into ``path``, through a temporary file beside it that ``finish`` moves
    into place by the project's write rules (files.StagedFile: a link written through, the mode,
    owner and group of the file replaced kept, a read-only file refused)."""

    def __init__(self, path: Path, schema: Any, meta: dict) -> None:
        import pyarrow.parquet as pq

        self.path = Path(path)
        self.meta = meta
        self.schema = schema.with_metadata({META_KEY: json.dumps(meta).encode()})
        self.staged = StagedFile(self.path)
        self.tmp = self.staged.tmp
        try:
            self._writer = pq.ParquetWriter(str(self.tmp), self.schema)
        except BaseException:
            self.staged.discard()
            raise
        self._held: list = []  # batches not written yet: one row group per ROW_GROUP rows, not per batch
        self._held_rows = 0
        self.rows = 0
        self.notices: list[str] = []

    def write(self, batch: dict[str, list]) -> None:
        import pyarrow as pa

        table = pa.Table.from_pydict({f.name: batch[f.name] for f in self.schema}, schema=self.schema)
        self._held.append(table)
        self._held_rows += table.num_rows
        self.rows += table.num_rows
        if self._held_rows >= ROW_GROUP:
            self._flush()

    def _flush(self) -> None:
        import pyarrow as pa

        if self._held:
            table = pa.concat_tables(self._held)
            self._held, self._held_rows = [], 0
            self._writer.write_table(table)

    def finish(self, partial: bool) -> None:
        """Close the file and move it into place; a partial scan says so in the file's metadata
        (a key of its own, added as the file is closed: nothing is read back or rewritten).
        ``WriteError`` (the temporary file removed) when it cannot be written."""
        try:
            self._flush()
            if partial:
                self._writer.add_key_value_metadata({PARTIAL_KEY: json.dumps({"partial": True, "rows_written": self.rows})})
            self._writer.close()
        except OSError as exc:  # a full disk, a file too large: pyarrow says which of its temporary files
            self.abandon()
            raise WriteError(f"{self.path}: cannot write: {_reason(exc)}") from None
        except BaseException:
            self.abandon()
            raise
        self.notices = self.staged.commit()

    def abandon(self) -> None:
        try:
            self._writer.close()
        except Exception:  # noqa: BLE001 - a writer that failed may fail again as it closes; the file goes anyway
            pass
        finally:
            self.staged.discard()


def _reason(exc: OSError) -> str:
    if exc.errno is not None:
        return os.strerror(exc.errno)
    text = str(exc)  # pyarrow's OSError: "… error: No space left on device", naming its temporary file first
    return text.rsplit(": ", 1)[-1].strip() or type(exc).__name__


def read_meta(path: Path) -> dict:
    import pyarrow.parquet as pq

    raw = pq.read_metadata(str(path)).metadata or {}
    schema = pq.read_schema(str(path)).metadata or {}
    found = schema.get(META_KEY, raw.get(META_KEY))
    if found is None:
        raise ValueError(f"{path}: not the results of workbench scan (no scan metadata)")
    meta = json.loads(found)
    if PARTIAL_KEY in raw and isinstance(meta, dict):
        meta.update(json.loads(raw[PARTIAL_KEY]))  # a scan stopped early: how many rows it wrote
    return meta


def cache_key(*parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:32]


def cache_dir() -> Path:
    return Path(os.environ.get("WORKBENCH_CACHE") or Path.home() / ".cache" / "workbench") / "scan"


def cached(key: str) -> Path | None:
    found = cache_dir() / f"{key}.parquet"
    return found if found.is_file() else None


def keep(path: Path, key: str) -> None:
    """Copy a finished scan into the cache (atomically; a cache that cannot be written is skipped),
    then drop the entries past the cache's bound, least recently used first."""
    target = cache_dir() / f"{key}.parquet"
    tmp = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".", suffix=".parquet.tmp", dir=target.parent)
        os.close(fd)
        shutil.copyfile(path, tmp)
        os.replace(tmp, target)
        tmp = None
    except OSError:
        pass
    finally:
        if tmp is not None:
            _drop(Path(tmp))
    prune()


def prune(entries: int | None = None, size: int | None = None) -> None:
    """Keep the newest ``CACHE_ENTRIES`` entries and at most ``CACHE_BYTES`` of them (the newest
    always stays); a temporary file an interrupted copy left is removed after a day."""
    import time

    entries = CACHE_ENTRIES if entries is None else entries
    size = CACHE_BYTES if size is None else size
    try:
        found = []
        for entry in cache_dir().iterdir():
            info = entry.lstat()
            if entry.name.startswith("."):
                if time.time() - info.st_mtime > 86_400:
                    _drop(entry)
            elif entry.suffix == ".parquet":
                found.append((info.st_mtime, info.st_size, entry))
    except OSError:
        return
    found.sort(key=lambda e: e[0], reverse=True)
    total = 0
    for kept, (_, bytes_, entry) in enumerate(found):
        total += bytes_
        if kept and (kept >= entries or total > size):
            _drop(entry)


def _drop(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


def reuse(found: Path, path: Path, meta: dict, add: Any) -> list[str] | None:
    """The cached results ``found`` copied to ``path`` (by the write rules of StagedFile), their
    metadata this scan's (its data, parser and compare paths, not the first scan's: open --scan
    edits the parser the metadata names); ``add(batch)`` for each batch, for the summary. None,
    and the entry dropped, when it cannot be read whole or is not this scan's (a truncated file):
    the scan runs again. ``WriteError`` when ``path`` cannot be written."""
    import pyarrow.parquet as pq

    try:
        cached_file = pq.ParquetFile(str(found))
        old = read_meta(found)
        if old.get("key") != meta.get("key") or old.get("partial") or cached_file.metadata.num_rows != meta.get("rows"):
            raise ValueError("not this scan's results")
        schema = cached_file.schema_arrow.with_metadata({META_KEY: json.dumps(meta).encode()})
        batches = cached_file.iter_batches(batch_size=ROW_GROUP)
    except Exception:  # noqa: BLE001 - pyarrow's many errors for a file it cannot read: scan again
        _drop(found)
        return None
    staged = StagedFile(path)
    try:
        writer = pq.ParquetWriter(str(staged.tmp), schema)
        rows = 0
        while True:
            try:
                batch = next(batches)
            except StopIteration:
                break
            except Exception:  # noqa: BLE001 - cut short or damaged inside: scan again
                writer.close()
                staged.discard()
                _drop(found)
                return None
            writer.write_batch(batch)
            add(batch.to_pydict())
            rows += batch.num_rows
        writer.close()
    except OSError as exc:
        staged.discard()
        raise WriteError(f"{path}: cannot write: {_reason(exc)}") from None
    except BaseException:
        staged.discard()
        raise
    if rows != meta.get("rows"):
        staged.discard()
        _drop(found)
        return None
    notices = staged.commit()
    try:
        os.utime(found)  # recently used: the last to go when the cache is pruned
    except OSError:
        pass
    return notices
