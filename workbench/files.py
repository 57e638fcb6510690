"""Reading samples and schemas, and writing files, so that bad input gets a message naming the file
and line, and nothing is ever half-written."""

from __future__ import annotations

import json
import os
import stat
import tempfile
from pathlib import Path
from typing import Any

from .engine.depth import MAX_JSON_DEPTH, deep, too_deep
from .engine.visible import escape_json_text


class InputError(Exception):
    """Input the workbench cannot use; the message names the file (and line and column)."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.line, self.column = line, column  # 1-based, for JSON syntax errors


# The largest file read as input. Model outputs the project benchmarks are 2 MB; anything past
# this is not a sample or a schema (``/dev/zero``, a disk image) and would only exhaust memory.
MAX_INPUT_BYTES = 64 * 1024 * 1024
_MAX_SHOWN = "64 MiB"


class NestingError(InputError):
    """JSON nested deeper than the workbench (and transformers) read: unusable input, even for
    ``validate``, which reports JSON syntax errors as schema errors."""


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a plain file"


def _read_bytes(path: Path, what: str) -> bytes:
    """The whole file, if it is a regular file of at most MAX_INPUT_BYTES. Checked before it is
    opened, and opened without blocking (a FIFO would wait for a writer forever; /dev/zero never
    ends), then checked again on the open file, so a file swapped in between is caught too."""
    try:
        info = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        raise InputError(f"{path}: no such {what} file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or type(exc).__name__}") from None
    if stat.S_ISDIR(info.st_mode):
        raise InputError(f"{path}: is a folder, not a {what} file")
    _check_regular(path, what, info)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or type(exc).__name__}") from None
    try:
        _check_regular(path, what, os.fstat(fd))
        chunks, size = [], 0
        while size <= MAX_INPUT_BYTES:
            chunk = os.read(fd, MAX_INPUT_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or type(exc).__name__}") from None
    finally:
        os.close(fd)
    if size > MAX_INPUT_BYTES:
        raise InputError(f"{path}: larger than the {_MAX_SHOWN} the workbench reads in a {what} file")
    return b"".join(chunks)


def _check_regular(path: Path, what: str, info: os.stat_result) -> None:
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"{path}: not a regular file ({_kind(info.st_mode)}), so not read as a {what} file")
    if info.st_size > MAX_INPUT_BYTES:
        raise InputError(
            f"{path}: {info.st_size:,} bytes, larger than the {_MAX_SHOWN} the workbench reads in a {what} file"
        )


def _decode(path: Path, data: bytes) -> str:
    try:
        # Bytes, not text mode: the raw output must keep every \r\n exactly as the model wrote it.
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise InputError(
            f"{path}:{line}:{column}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        ) from None


def read_text(path: str | os.PathLike, what: str = "sample") -> str:
    """A UTF-8 file's exact text (``what`` names the kind of file in messages)."""
    path = Path(path)
    return _decode(path, _read_bytes(path, what))


def read_sample(path: str | os.PathLike) -> str:
    return read_text(path, "sample")


def parse_json_text(text: str, source: str = "<schema>") -> Any:
    """JSON from text, for every JSON the workbench reads: a syntax error becomes an InputError
    naming ``source:line:column``, JSON nested deeper than depth.MAX_JSON_DEPTH a NestingError
    (so no walk of it ever runs out of recursion)."""
    check_json_depth(text, source)
    try:
        with deep():
            return json.loads(text)
    except json.JSONDecodeError as exc:
        _raise_syntax(exc, source)
    except ValueError as exc:  # a number with more than 4,300 digits, and such
        raise InputError(f"{source}: invalid JSON: {exc}") from None
    except RecursionError:  # (the depth is checked first; a last guard all the same)
        raise NestingError(f"{source}: JSON nested too deeply (more than {MAX_JSON_DEPTH:,} levels)") from None


def check_json_depth(text: str, source: str) -> None:
    """A NestingError naming ``source:line:column`` when the JSON text nests deeper than
    depth.MAX_JSON_DEPTH levels, unless a syntax error comes first (then json.loads reports it)."""
    at = too_deep(text, MAX_JSON_DEPTH)
    if at is None:
        return
    try:
        with deep():
            json.loads(text[: at + 1])
    except json.JSONDecodeError as exc:
        if exc.pos <= at:
            return  # the syntax error comes first: the caller's json.loads reports it
    except (ValueError, RecursionError):
        pass
    line = text.count("\n", 0, at) + 1
    column = at - (text.rfind("\n", 0, at) + 1) + 1
    raise NestingError(
        f"{source}:{line}:{column}: JSON nested too deeply (more than {MAX_JSON_DEPTH:,} levels of arrays and "
        "objects, the most the workbench reads, and deeper than transformers' own json.load goes)",
        line,
        column,
    )


def _raise_syntax(exc: json.JSONDecodeError, source: str) -> None:
    raise InputError(f"{source}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}", exc.lineno, exc.colno) from None


parse_schema_text = parse_json_text


def load_json(path: str | os.PathLike, what: str = "JSON") -> Any:
    """A JSON file's value (``what`` names the kind of file in messages)."""
    return parse_json_text(read_text(path, what), str(path))


def load_schema(path: str | os.PathLike) -> Any:
    return load_json(path, "schema")


class WriteError(OSError):
    """A file could not be written; the message names the file the user asked for, never the
    temporary file beside it. Nothing of the new text reached that file."""


def atomic_write(path: str | os.PathLike, text: str) -> None:
    """Write the whole text or nothing: a temporary file beside the target, then a rename."""
    atomic_write_all([(path, text)])


def atomic_write_all(files: list[tuple[str | os.PathLike, str]]) -> None:
    """Write several files all or nothing, as far as the file system allows: every temporary file
    is written and flushed (where a full disk or a missing permission shows) before the first
    rename, so a failure leaves every target as it was."""
    staged: list[tuple[str, Path]] = []
    try:
        for target, text in files:
            target = Path(target)
            staged.append((_stage(target, text), target))
        for tmp, target in staged:
            try:
                os.replace(tmp, target)
            except OSError as exc:
                raise WriteError(f"{target}: cannot write: {_reason(exc)}") from None
    except BaseException:
        for tmp, _ in staged:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
        raise


def _stage(path: Path, text: str) -> str:
    """The text in a temporary file beside ``path``, with the mode ``path`` should end up with."""
    if path.is_dir():
        raise WriteError(f"{path}: is a folder, not a file")
    if not path.parent.is_dir():
        raise WriteError(f"{path}: no such folder {path.parent}")
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise WriteError(f"{path}: cannot write: {_reason(exc)}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        # mkstemp makes the file private (0600); the result should have the mode the target had,
        # or for a new file the one any other program would give it (0666 less the umask).
        os.chmod(tmp, path.stat().st_mode & 0o7777 if path.exists() else 0o666 & ~_umask())
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        if isinstance(exc, OSError):
            raise WriteError(f"{path}: cannot write: {_reason(exc)}") from None
        raise
    return tmp


def _reason(exc: OSError) -> str:
    # strerror alone: str(exc) would name the temporary file, which the user never asked for.
    return exc.strerror or type(exc).__name__


def _umask() -> int:
    """The process umask. Linux shows it in /proc; elsewhere the only way to read it is to set it
    and set it back, which is brief enough for our single writer at a time."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def dump_json(value: Any, indent: int | None = 2) -> str:
    """The project's JSON style: 2-space indent, key order and non-ASCII kept. A lone surrogate
    (transformers returns one for a model's ``"\\ud800"``) stays an escape: UTF-8 cannot carry it."""
    return escape_json_text(json.dumps(value, indent=indent, ensure_ascii=False)) + "\n"


def check_outputs(outputs: list[str | os.PathLike], inputs: list[str | os.PathLike] = (), force: bool = False) -> None:
    """Refuse a write plan that would lose a file: two outputs to one path, an output that is one of
    the command's own inputs (even with ``force``), or an existing file without ``force``. Paths
    are compared after resolving symlinks, so ``./a`` and a link to it are the same file."""
    seen: dict[Path, str] = {}
    ins = {_same_file_key(Path(p)) for p in inputs}
    for out in outputs:
        key = _same_file_key(Path(out))
        if key in seen:
            raise InputError(f"{out}: named twice as an output (also as {seen[key]}); nothing written")
        seen[key] = str(out)
        if key in ins:
            raise InputError(f"{out}: is one of this command's inputs; refusing to write over it (nothing written)")
        if not force and (Path(out).exists() or Path(out).is_symlink()):
            raise InputError(f"{out}: already exists; pass --force to replace it (nothing written)")


def _same_file_key(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path.absolute()
