"""The data a scan reads, through the Hugging Face ``datasets`` library (Arrow, memory-mapped):
a ``.jsonl``/``.json``/``.parquet``/``.csv`` file, a folder of them, a dataset saved with
``save_to_disk``, or a Hub dataset id (``load_dataset``, which works offline from its cache)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from ..files import InputError

BUILDERS = {".jsonl": "json", ".json": "json", ".parquet": "parquet", ".csv": "csv"}
_SAVED = ("dataset_info.json", "state.json", "dataset_dict.json")


def missing_extra(exc: ImportError, extra: str = "scan") -> InputError:
    return InputError(f"workbench scan needs the '{extra}' extra: pip install 'response-parser-workbench[{extra}]' "
                      f"(or pip install -e '.[{extra}]' in a checkout); {exc}")


def open_dataset(data: str, split: str | None = None) -> Any:
    """The rows of ``data`` as a ``datasets.Dataset``; ``InputError`` naming the file (and the line,
    for a JSON lines file) when it cannot be read."""
    try:
        import datasets
    except ImportError as exc:
        raise missing_extra(exc) from None
    datasets.disable_progress_bars()  # the scan shows its own
    datasets.logging.set_verbosity(datasets.logging.CRITICAL)  # the scan says what went wrong, in one line
    path = Path(data)
    if not path.exists() and (path.suffix in BUILDERS or data.startswith((".", "/", "~")) or data.endswith("/")):
        raise InputError(f"{data}: no such file or folder")
    try:
        if is_saved(path):
            loaded = datasets.load_from_disk(str(path))
        elif path.exists():
            kind, files = data_files(data)
            loaded = _files(datasets, kind, files)
        else:
            loaded = datasets.load_dataset(data, split=split or "train")
    except InputError:
        raise
    except FileNotFoundError as exc:
        raise InputError(f"{data}: no such file, folder or dataset ({_one_line(exc)})") from None
    except Exception as exc:  # noqa: BLE001 - datasets' many errors for data it cannot read, said in one line
        if path.is_file():
            _check_json_lines(path)
        raise InputError(f"{data}: cannot read it as a dataset: {_one_line(exc)}") from None
    if isinstance(loaded, datasets.DatasetDict):
        names = list(loaded)
        chosen = split or ("train" if "train" in loaded else names[0] if len(names) == 1 else None)
        if chosen not in loaded:
            raise InputError(f"{data}: holds the splits {', '.join(names)}; choose one with --split")
        loaded = loaded[chosen]
    return loaded


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
    of them, in the order both engines read them."""
    path = Path(data)
    if path.is_file():
        if path.suffix not in BUILDERS:
            raise InputError(f"{data}: not a .jsonl, .json, .parquet or .csv file")
        return BUILDERS[path.suffix], [str(path)]
    if not path.is_dir():
        raise InputError(f"{data}: not a file or a folder")
    files = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in BUILDERS)
    kinds = {BUILDERS[p.suffix] for p in files}
    if not files:
        raise InputError(f"{data}: no .jsonl, .json, .parquet or .csv files in this folder, and no saved dataset")
    if len(kinds) > 1:
        raise InputError(f"{data}: the folder mixes {' and '.join(sorted(kinds))} files; scan one kind at a time")
    return kinds.pop(), [str(p) for p in files]


def _files(datasets: Any, kind: str, files: list[str]) -> Any:
    """Several files as one dataset. datasets takes the first file's column types for all, so a
    column that is all null in one file (no expected message there) and text in the next stops
    it: then each file is read alone, a column null in one takes the type it has in another, and
    the files are joined in order."""
    try:
        return datasets.load_dataset(kind, data_files=files, split="train")
    except Exception:  # noqa: BLE001 - read them one by one below; a real error shows there
        if len(files) == 1:
            raise
    parts = [datasets.load_dataset(kind, data_files=f, split="train") for f in files]
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
    return datasets.concatenate_datasets(parts)


def check_columns(dataset: Any, columns: Any, data: str) -> None:
    """Every column the scan reads is in ``dataset``, or an ``InputError`` that lists what it has."""
    have = list(dataset.column_names)
    for option, name in (("--text-column", columns.text), ("--prompt-column", columns.prompt),
                         ("--tools-column", columns.tools), ("--expected-column", columns.expected),
                         ("--id-column", columns.id)):
        if name is not None and name not in have:
            raise InputError(f"{data}: no column {name!r} (it has {', '.join(map(repr, have)) or 'none'}); "
                             f"name the column with {option}")


def _check_json_lines(path: Path) -> None:
    """A JSON lines file datasets could not read: the first line that does not parse, named (its
    own error does not say which); read only after datasets failed, up to that line."""
    if path.suffix != ".jsonl":
        return
    with path.open("rb") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                json.loads(line)
            except ValueError as exc:
                raise InputError(f"{path}:{number}: not a JSON object on this line ({exc})") from None


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:300]
