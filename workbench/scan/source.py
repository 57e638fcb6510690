"""The data a scan reads, through the Hugging Face ``datasets`` library (Arrow, memory-mapped):
a ``.jsonl``/``.json``/``.parquet``/``.csv`` file, a folder of them, a dataset saved with
``save_to_disk``, or a Hub dataset id (``load_dataset``, from its cache only: nothing is fetched).

Data is read as stored: no column is decoded as a ``datasets`` feature (an ``Image`` declared in
a Parquet file's metadata would open the paths and fetch the URLs its rows name), no JSON value is
re-encoded, and a CSV cell is the text it holds. Files are converted to Arrow in a temporary folder
that goes with the dataset, never in the ``datasets`` cache."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import sys
import tempfile
import weakref
from pathlib import Path
from typing import Any, Iterator

from ..store.files import InputError

BUILDERS = {".jsonl": "json", ".json": "json", ".parquet": "parquet", ".csv": "csv"}
_SAVED = ("dataset_info.json", "state.json", "dataset_dict.json")
# JSON nested deeper than this is refused before pyarrow reads it (pyarrow's JSON reader recurses
# per level and crashes the process at ~20,000); Python's json stops at its recursion limit.
MAX_DEPTH = 900
# The environment that keeps datasets and huggingface_hub off the network: Hub ids from the cache,
# and no download count (datasets HEADs s3.amazonaws.com for every load_dataset, a local file too).
_READ: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # dataset -> the files datasets read
_OFFLINE = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "HF_UPDATE_DOWNLOAD_COUNTS": "0"}


def missing_extra(exc: ImportError, extra: str = "scan") -> InputError:
    return InputError(f"workbench scan needs the '{extra}' extra: pip install 'response-parser-workbench[{extra}]' "
                      f"(or pip install -e '.[{extra}]' in a checkout); {exc}")


@contextlib.contextmanager
def offline() -> Iterator[Any]:
    """``datasets``, imported (or already imported) with the Hub and every fetch turned off while
    the block runs: the environment (read at import and by processes started meanwhile) and the
    settings both libraries read at each call, restored afterwards."""
    saved = {name: os.environ.get(name) for name in _OFFLINE}
    os.environ.update(_OFFLINE)
    patched: list[tuple[Any, str, Any]] = []
    try:
        try:
            import datasets
            import huggingface_hub.constants as hub_constants
        except ImportError as exc:
            raise missing_extra(exc) from None
        for module, name, value in ((datasets.config, "HF_HUB_OFFLINE", True),
                                    (datasets.config, "HF_DATASETS_OFFLINE", True),
                                    (datasets.config, "HF_UPDATE_DOWNLOAD_COUNTS", False),
                                    (hub_constants, "HF_HUB_OFFLINE", True)):
            if hasattr(module, name):
                patched.append((module, name, getattr(module, name)))
                setattr(module, name, value)
        yield datasets
    finally:
        for module, name, value in reversed(patched):
            setattr(module, name, value)
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def open_dataset(data: str, split: str | None = None) -> Any:
    """The rows of ``data`` as a ``datasets.Dataset``, every column as stored; ``InputError``
    naming the file (and the line, for JSON) when it cannot be read."""
    with offline() as datasets:
        datasets.disable_progress_bars()  # the scan shows its own
        datasets.logging.set_verbosity(datasets.logging.CRITICAL)  # the scan says what went wrong, in one line
        return _open(datasets, data, split)


def _open(datasets: Any, data: str, split: str | None) -> Any:
    path = Path(data)
    if not path.exists() and (path.suffix in BUILDERS or data.startswith((".", "/", "~")) or data.endswith("/")):
        raise InputError(f"{data}: no such file or folder")
    scratch = None
    try:
        if is_saved(path):
            _check_links(path, data)
            loaded = datasets.load_from_disk(str(path))
        elif path.exists():
            kind, files = data_files(data)
            scratch = Path(tempfile.mkdtemp(prefix="workbench-scan-"))
            loaded, read = _files(datasets, kind, files, scratch)
        else:
            try:
                loaded = datasets.load_dataset(data, split=split or "train")
            except Exception as exc:  # noqa: BLE001 - offline, datasets says "not cached" in many ways
                raise InputError(f"{data}: not a local file or folder, and not a Hub dataset in the cache (Hub ids "
                                 f"are read offline: load it once with datasets.load_dataset; {_one_line(exc)})") from None
        if isinstance(loaded, datasets.DatasetDict):
            names = list(loaded)
            chosen = split or ("train" if "train" in loaded else names[0] if len(names) == 1 else None)
            if chosen not in loaded:
                raise InputError(f"{data}: holds the splits {', '.join(names)}; choose one with --split")
            loaded = loaded[chosen]
        loaded = _as_stored(datasets, loaded)
    except InputError:
        _remove(scratch)
        raise
    except FileNotFoundError as exc:
        _remove(scratch)
        raise InputError(f"{data}: no such file, folder or dataset ({_one_line(exc)})") from None
    except Exception as exc:  # noqa: BLE001 - datasets' many errors for data it cannot read, said in one line
        _remove(scratch)
        raise InputError(f"{data}: cannot read it as a dataset: {_one_line(exc)}") from None
    except BaseException:
        _remove(scratch)
        raise
    if scratch is not None:
        _READ[loaded] = read
        # The Arrow copy lives as long as the dataset (its memory maps point into it), and no longer.
        weakref.finalize(loaded, _remove, scratch)
    return loaded


def read_as(dataset: Any) -> list[str] | None:
    """The files datasets read for ``dataset``: DATA's own, or copies (JSON whose columns mix
    types); None for a saved or Hub dataset."""
    return _READ.get(dataset)


def _remove(folder: Path | None) -> None:
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


def _as_stored(datasets: Any, loaded: Any) -> Any:
    """``loaded`` with the Arrow types it stores and nothing else: the ``huggingface`` schema
    metadata (features such as ``Image``, ``Audio`` or ``Json`` that decode on read, fetching what
    a row names) dropped, and no format. The table is the same memory-mapped one."""
    if loaded._indices is not None:
        loaded = loaded.flatten_indices(keep_in_memory=True)
    table = loaded.data.replace_schema_metadata(None)
    return datasets.Dataset(table, split=loaded.split)


def data_digest(data: str, dataset: Any) -> str:
    """A digest of the bytes a scan of ``data`` reads: the file, each file of a folder (with its
    path inside it) or of a saved dataset, or the Arrow files ``datasets`` holds for a Hub id. The
    cache and ``open --scan`` key on it, never on a fingerprint a folder can keep while its data
    changes."""
    path = Path(data)
    if path.is_file():
        files = [(path.name, path)]
    elif path.is_dir():
        files = [(str(p.relative_to(path)), p) for p in sorted(path.rglob("*")) if p.is_file()]
    else:
        files = [(Path(f["filename"]).name, Path(f["filename"])) for f in getattr(dataset, "cache_files", [])]
    digest = hashlib.sha256()
    for name, file in files:
        digest.update(name.encode("utf-8", "surrogatepass") + b"\0")
        with file.open("rb") as handle:
            digest.update(hashlib.file_digest(handle, "sha256").digest())
    return digest.hexdigest()


def is_saved(path: Path) -> bool:
    """A folder ``datasets.save_to_disk`` wrote."""
    return path.is_dir() and any((path / name).is_file() for name in _SAVED)


def data_files(data: str) -> tuple[str, list[str]]:
    """The kind (a ``datasets`` builder: json, parquet, csv) and the files of a file or a folder
    of them, in the order both engines read them. A folder's link to a file outside it is refused."""
    path = Path(data)
    if path.is_file():
        if path.suffix not in BUILDERS:
            raise InputError(f"{data}: not a .jsonl, .json, .parquet or .csv file")
        return BUILDERS[path.suffix], [str(path)]
    if not path.is_dir():
        raise InputError(f"{data}: not a file or a folder")
    _check_links(path, data)
    files = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in BUILDERS)
    kinds = {BUILDERS[p.suffix] for p in files}
    if not files:
        raise InputError(f"{data}: no .jsonl, .json, .parquet or .csv files in this folder, and no saved dataset")
    if len(kinds) > 1:
        raise InputError(f"{data}: the folder mixes {' and '.join(sorted(kinds))} files; scan one kind at a time")
    return kinds.pop(), [str(p) for p in files]


def _check_links(folder: Path, data: str) -> None:
    """Every file under ``folder`` is inside it: a symbolic link to a file elsewhere (a key, a
    device, another user's data) is refused, naming the link. Links to folders are not followed."""
    root = folder.resolve()
    for entry in sorted(folder.rglob("*")):
        if entry.is_symlink() and not entry.is_dir():
            target = entry.resolve()
            if not target.is_relative_to(root):
                raise InputError(f"{entry}: a link to {target}, outside {data}; the scan reads only the folder's own "
                                 f"files (copy it in)")


def _files(datasets: Any, kind: str, files: list[str], scratch: Path) -> tuple[Any, list[str]]:
    """Several files as one dataset, converted into ``scratch``. datasets takes the first file's
    column types for all, so a column that is all null in one file (no expected message there)
    and text in the next stops it: then each file is read alone, a column null in one takes the
    type it has in another, and the files are joined in order. Returns it and the files read."""
    options: dict[str, Any] = {"cache_dir": str(scratch / "cache")}
    if kind == "json":
        files = json_files(files, scratch)
        options["parse_agent_traces"] = False  # datasets would remodel rows that look like agent traces
    elif kind == "csv":
        options["na_filter"] = False  # "NA", "null", "nan" and "" are the text they are, as Ray reads them

    def load(some: list[str]) -> Any:
        extra = {"features": _parquet_features(datasets, some[0])} if kind == "parquet" else {}
        return datasets.load_dataset(kind, data_files=some, split="train", **options, **extra)

    try:
        return load(files), files
    except Exception:  # noqa: BLE001 - read them one by one below; a real error shows there
        if len(files) == 1:
            raise
    parts = [load([f]) for f in files]
    types: dict[str, Any] = {}
    for part in parts:
        for name, feature in part.features.items():
            if getattr(feature, "dtype", None) != "null":
                types.setdefault(name, feature)
    for i, part in enumerate(parts):
        for name, feature in part.features.items():
            if getattr(feature, "dtype", None) == "null" and name in types:
                part = part.cast_column(name, types[name])
        parts[i] = part
    return datasets.concatenate_datasets(parts), files


def _parquet_features(datasets: Any, file: str) -> Any:
    """The Parquet file's own Arrow types as features, its ``huggingface`` metadata left out: that
    metadata can declare a column ``Image`` or ``Audio``, which datasets would decode on read."""
    import pyarrow.parquet as pq

    return datasets.Features.from_arrow_schema(pq.read_schema(file).remove_metadata())


def json_files(files: list[str], scratch: Path) -> list[str]:
    """JSON files checked line by line before pyarrow reads them (invalid UTF-8, a line that is
    not a JSON object, nesting past ``MAX_DEPTH``: one sentence naming the file and line). A
    column whose values are of several JSON types across the files (text in one, a number in
    another) is read as text: strings as they are, other values as their JSON text, written
    into copies in ``scratch`` (datasets would JSON-encode every value, strings too). Returns the
    files to read: the originals, or those copies."""
    kinds: dict[str, set[type]] = {}
    for file in files:
        for _, row in _json_rows(file):
            for key, value in row.items():
                kinds.setdefault(key, set()).add(type(value))
    mixed = {key for key, seen in kinds.items() if len(seen - {type(None)}) > 1 and seen - {type(None)} != {int, float}}
    if not mixed:
        return files
    copies = []
    folder = scratch / "json"
    folder.mkdir()
    for i, file in enumerate(files):
        copy = folder / f"{i:05d}.jsonl"
        with copy.open("w", encoding="utf-8") as out:
            for _, row in _json_rows(file):
                for key in mixed & row.keys():
                    value = row[key]
                    if value is not None and not isinstance(value, str):
                        row[key] = json.dumps(value, ensure_ascii=False)
                out.write(json.dumps(row) + "\n")  # ASCII: a lone surrogate's escape stays an escape
        copies.append(str(copy))
    return copies


def _json_rows(file: str) -> Iterator[tuple[int, dict]]:
    """(line, object) for each row of a JSON lines file, or of a ``.json`` file holding a list of
    objects (or one object per line)."""
    with open(file, "rb") as handle, _recursion_at_most(MAX_DEPTH):
        start = handle.read(64).lstrip(b"\xef\xbb\xbf \t\r\n")
        handle.seek(0)
        if file.endswith(".json") and start.startswith(b"["):
            rows = _loads(handle.read(), file, None)
            if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
                raise InputError(f"{file}: not a list of JSON objects")
            for number, row in enumerate(rows, 1):
                yield number, row
            return
        for number, line in enumerate(handle, 1):
            if number == 1 and line.startswith(b"\xef\xbb\xbf"):
                line = line[3:]
            if not line.strip():
                continue
            row = _loads(line, file, number)
            if not isinstance(row, dict):
                raise InputError(f"{file}:{number}: not a JSON object on this line")
            yield number, row


def _loads(raw: bytes, file: str, number: int | None) -> Any:
    where = f"{file}:{number}" if number is not None else file
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{where}: not UTF-8 text (byte {exc.start}: {exc.reason})") from None
    try:
        return json.loads(text)
    except RecursionError:
        raise InputError(f"{where}: JSON nested deeper than the scan reads ({MAX_DEPTH} levels)") from None
    except ValueError as exc:
        raise InputError(f"{where}: not a JSON object on this line ({exc})") from None


@contextlib.contextmanager
def _recursion_at_most(depth: int) -> Iterator[None]:
    """Python's json stops at the recursion limit: below ``depth`` levels here, whatever a caller
    raised the limit to, so what it accepts pyarrow can read."""
    frames, frame = 0, sys._getframe()
    while frame is not None:
        frames, frame = frames + 1, frame.f_back
    saved = sys.getrecursionlimit()
    sys.setrecursionlimit(min(saved, frames + depth))
    try:
        yield
    finally:
        sys.setrecursionlimit(saved)


def check_columns(dataset: Any, columns: Any, data: str) -> None:
    """Every column the scan reads is in ``dataset``, or an ``InputError`` that lists what it has."""
    have = list(dataset.column_names)
    for option, name in (("--text-column", columns.text), ("--prompt-column", columns.prompt),
                         ("--tools-column", columns.tools), ("--expected-column", columns.expected),
                         ("--id-column", columns.id)):
        if name is not None and name not in have:
            raise InputError(f"{data}: no column {name!r} (it has {', '.join(map(repr, have)) or 'none'}); "
                             f"name the column with {option}")
    if columns.id is not None:
        from .results import arrow_schema

        taken = arrow_schema(True, None).names
        if columns.id in taken:
            raise InputError(f"--id-column {columns.id}: the results have a column of that name already "
                             f"({', '.join(taken)}); rename the data's column")


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:300]
