"""Reading samples and schemas, and writing files, so that bad input gets a message naming the file
and line, and nothing is ever half-written."""

from __future__ import annotations

import json
import os
import re
import signal
import sys
import stat
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..engine.depth import MAX_JSON_DEPTH, deep, too_deep
from ..engine.visible import escape_json_text


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
        long_number = re.search(r"\d{%d,}" % (sys.get_int_max_str_digits() + 1), text) if "digits" in str(exc) else None
        if long_number is None:
            raise InputError(f"{source}: invalid JSON: {exc}") from None
        at = long_number.start()
        line, column = text.count("\n", 0, at) + 1, at - (text.rfind("\n", 0, at) + 1) + 1
        raise InputError(f"{source}:{line}:{column}: invalid JSON: a number of {len(long_number.group()):,} digits, past the "
                         f"{sys.get_int_max_str_digits():,} Python reads (and so transformers)", line, column) from None
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


class ReadOnlyError(WriteError):
    """The file to replace is read-only (its owner has no write permission): someone meant it to
    stay as it is. Nothing was written; pass ``allow_read_only=True`` to replace it anyway."""


# Signals that end the process by default while a file is being staged: each is turned into an
# exception for the duration of the write, so the cleanup that Ctrl+C (KeyboardInterrupt) gets
# removes the temporary files too; the signal is then delivered again to the handler it had.
_CLEANUP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


class _Signalled(BaseException):
    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def atomic_write(path: str | os.PathLike, text: str, *, allow_read_only: bool = False) -> list[str]:
    """Write the whole text or nothing: a temporary file beside the target, then a rename.
    Returns notices to show the user (see ``atomic_write_all``)."""
    return atomic_write_all([(path, text)], allow_read_only=allow_read_only)


def atomic_write_all(files: list[tuple[str | os.PathLike, str]], *, allow_read_only: bool = False) -> list[str]:
    """Write several files all or nothing, as far as the file system allows: every temporary file
    is written and flushed (where a full disk or a missing permission shows) before the first
    rename, so a failure leaves every target as it was.

    A file replaced keeps its mode, owner and group (the owner where the process may set it). A
    read-only target raises ReadOnlyError before anything is written, unless ``allow_read_only``.
    A symbolic link is written through (its target is replaced; the link stays). Returns one
    sentence per thing the user may not expect: a hard link broken (the file's other names keep
    the old text), a link written through, an owner that could not be kept. SIGTERM and SIGHUP
    during the write remove the temporary files before the process ends as the signal says."""
    plan = [(Path(target), text) for target, text in files]
    notices: list[str] = []
    resolved = [(target, _write_path(target, notices)) for target, _ in plan]
    for target, real in resolved:
        _refuse_read_only(target, real, allow_read_only)
    staged: list[tuple[str, Path, Path]] = []  # (temporary file, what the user named, what is replaced)
    with _cleanup_on_signals():
        try:
            for (target, text), (_, real) in zip(plan, resolved):
                _stage(real, text, target, staged, notices)
            for tmp, target, real in staged:
                try:
                    os.replace(tmp, real)
                except OSError as exc:
                    raise WriteError(f"{target}: cannot write: {_reason(exc)}") from None
        except BaseException:
            for tmp, _, _ in staged:
                try:
                    os.unlink(tmp)
                except FileNotFoundError:
                    pass
            raise
    return notices


@contextmanager
def _cleanup_on_signals():
    """SIGTERM and SIGHUP raise inside the block (main thread only: elsewhere Python cannot set
    handlers), and once the block has cleaned up, the signal is delivered to its old handler."""
    if not _CLEANUP_SIGNALS or threading.current_thread() is not threading.main_thread():
        yield
        return

    def raise_signalled(signum, frame):
        raise _Signalled(signum)

    previous = {}
    try:
        for signum in _CLEANUP_SIGNALS:
            if signal.getsignal(signum) is signal.SIG_IGN:
                continue  # ignored (nohup): it must stay harmless here too
            previous[signum] = signal.signal(signum, raise_signalled)
    except (ValueError, OSError):  # not settable here (an embedding host): write without
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        yield
        return
    try:
        yield
    except _Signalled as exc:
        _restore(previous)
        # Now with the temporary files gone: end (or do) what the signal would have done.
        os.kill(os.getpid(), exc.signum)
        raise WriteError(f"stopped by {signal.Signals(exc.signum).name}") from None
    finally:
        _restore(previous)


def _restore(previous: dict) -> None:
    for signum, handler in previous.items():
        signal.signal(signum, handler if handler is not None else signal.SIG_DFL)


def _write_path(target: Path, notices: list[str]) -> Path:
    """The file a write to ``target`` replaces: ``target`` itself, or for a symbolic link the file
    it points to (so the link survives and keeps pointing at the new text)."""
    if not target.is_symlink():
        return target
    real = Path(os.path.realpath(target))
    notices.append(f"{target} is a symbolic link: wrote through it to {real} (the link is kept)")
    return real


def read_only_mode(path: str | os.PathLike) -> str | None:
    """``path``'s mode as ``ls`` shows it when it is a read-only file (its owner may not write
    it), else None. Mode bits, not os.access: root may write anything, but a 0444 file still
    says "keep me"."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return stat.filemode(info.st_mode) if stat.S_ISREG(info.st_mode) and not info.st_mode & stat.S_IWUSR else None


def _refuse_read_only(target: Path, real: Path, allow: bool) -> None:
    mode = read_only_mode(real)
    if mode is not None and not allow:
        raise ReadOnlyError(f"{target}: is read-only (mode {mode})")


def _stage(path: Path, text: str, named: Path | None = None, staged: list | None = None, notices: list[str] | None = None) -> str:
    """The text in a temporary file beside ``path``, with the mode, owner and group ``path`` has
    (or, for a new file, the mode any other program would give it). ``named`` is the path the user
    gave, for messages; the temporary file is added to ``staged`` as soon as it exists."""
    named = named if named is not None else path
    notices = notices if notices is not None else []
    if path.is_dir():
        raise WriteError(f"{named}: is a folder, not a file")
    if path.exists() and not path.is_file():
        # A device or FIFO (say /dev/null) replaced by a regular file would break the system.
        raise WriteError(f"{named}: is not a regular file (a device, FIFO or socket); refusing to replace it")
    if not path.parent.is_dir():
        raise WriteError(f"{named}: no such folder {path.parent}")
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise WriteError(
            f"{named}: cannot write: the text holds a character UTF-8 cannot carry "
            f"(U+{ord(text[exc.start]):04X} at offset {exc.start})"
        ) from None
    try:
        info = path.stat()
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise WriteError(f"{named}: cannot write: {_reason(exc)}") from None
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:64]}.", suffix=".tmp")  # fits where the name fits
    except OSError as exc:
        raise WriteError(f"{named}: cannot write: {_reason(exc)}") from None
    if staged is not None:
        staged.append((tmp, named, path))
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        _adopt(tmp, info, named, notices)
    except BaseException as exc:
        if staged is None or (tmp, named, path) not in staged:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
        if isinstance(exc, OSError):
            raise WriteError(f"{named}: cannot write: {_reason(exc)}") from None
        raise
    return tmp


def _adopt(tmp: str, info: os.stat_result | None, named: Path, notices: list[str]) -> None:
    """Give the temporary file the mode, owner and group of the file it replaces (``info``), or for
    a new file the mode any other program would give it."""
    if info is None:
        # mkstemp makes the file private (0600): 0666 less the umask instead.
        os.chmod(tmp, 0o666 & ~_umask())
        return
    _keep_owner(tmp, info, named, notices)
    # After chown, which clears set-user-ID and set-group-ID bits.
    os.chmod(tmp, info.st_mode & 0o7777)
    if info.st_nlink > 1:
        notices.append(
            f"{named} had {info.st_nlink - 1} other hard link{'s' if info.st_nlink > 2 else ''}: "
            "it was replaced by a new file, so those names still show the old text"
        )


def check_writable(path: str | os.PathLike, option: str = "") -> None:
    """Refuse, before any work, an output that could not be written by the rules of
    ``atomic_write``: a folder, a device, a missing folder, a read-only file, a name longer than
    the file system takes. ``option`` (``-o``) is named in the sentence."""
    named = Path(path)
    said = f"{named}" + (f" ({option})" if option else "")
    for part in named.parts:  # first: any look at a name too long fails with ENAMETOOLONG
        longest = _name_max(named.parent)
        if len(os.fsencode(part)) > longest:
            raise InputError(f"{said}: the name {part[:40]}… is longer than the {longest} bytes the file system takes "
                             "(nothing written)")
    real = Path(os.path.realpath(named)) if named.is_symlink() else named
    if real.is_dir():
        raise InputError(f"{said}: is a folder; give a file name (nothing written)")
    if real.exists() and not real.is_file():
        raise InputError(f"{said}: is not a regular file (a device, FIFO or socket); refusing to replace it (nothing written)")
    parent = real.parent
    if not parent.is_dir():
        raise InputError(f"{said}: no such folder {parent} (nothing written)")
    mode = read_only_mode(real)
    if mode is not None:
        raise InputError(f"{said}: is read-only (mode {mode}); make it writable or write elsewhere (nothing written)")
    if len(os.fsencode(real.name)) > _name_max(parent):
        raise InputError(f"{said}: the name is longer than the {_name_max(parent)} bytes the file system takes (nothing written)")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"{said}: cannot write in {parent}: permission denied (nothing written)")


def _name_max(folder: Path) -> int:
    try:
        return os.pathconf(folder if folder.is_dir() else ".", "PC_NAME_MAX")
    except (OSError, ValueError):
        return 255


class StagedFile:
    """A file written in pieces (a scan's results, batch by batch) under the rules of
    ``atomic_write``: ``tmp`` is a temporary file beside the target, moved into place by
    ``commit`` with the mode, owner and group of the file it replaces; a symbolic link is written
    through; a read-only target is refused (``ReadOnlyError``) before anything is written;
    ``discard`` removes the temporary file. ``notices`` as ``atomic_write`` returns them."""

    def __init__(self, path: str | os.PathLike, *, allow_read_only: bool = False, suffix: str = ".partial") -> None:
        self.named = Path(path)
        self.notices: list[str] = []
        self.real = _write_path(self.named, self.notices)
        _refuse_read_only(self.named, self.real, allow_read_only)
        if self.real.is_dir():
            raise WriteError(f"{self.named}: is a folder, not a file")
        if self.real.exists() and not self.real.is_file():
            raise WriteError(f"{self.named}: is not a regular file (a device, FIFO or socket); refusing to replace it")
        try:
            # A short prefix: the temporary name must fit wherever the target's name fits.
            fd, tmp = tempfile.mkstemp(dir=self.real.parent, prefix=f".{self.real.name[:64]}.", suffix=suffix)
        except FileNotFoundError:
            raise WriteError(f"{self.named}: no such folder {self.real.parent}") from None
        except OSError as exc:
            raise WriteError(f"{self.named}: cannot write: {_reason(exc)}") from None
        os.close(fd)
        self.tmp = Path(tmp)

    def commit(self) -> list[str]:
        """Move the finished temporary file into place; on failure it is removed (``WriteError``)."""
        try:
            try:
                info = self.real.stat()
            except FileNotFoundError:
                info = None
            with open(self.tmp, "rb") as handle:
                os.fsync(handle.fileno())  # a full disk shows here, not after the rename
            _adopt(str(self.tmp), info, self.named, self.notices)
            os.replace(self.tmp, self.real)
        except OSError as exc:
            self.discard()
            raise WriteError(f"{self.named}: cannot write: {_reason(exc)}") from None
        return self.notices

    def discard(self) -> None:
        try:
            os.unlink(self.tmp)
        except FileNotFoundError:
            pass


def _keep_owner(tmp: str, info: os.stat_result, named: Path, notices: list[str]) -> None:
    """Give the temporary file the replaced file's owner and group, so the readers it had keep it.
    Only root may give a file away; others keep the group when they belong to it."""
    if not hasattr(os, "chown"):
        return
    mine = os.stat(tmp)
    if (mine.st_uid, mine.st_gid) == (info.st_uid, info.st_gid):
        return
    try:
        os.chown(tmp, info.st_uid, info.st_gid)
        return
    except PermissionError:
        pass
    kept_group = False
    try:
        os.chown(tmp, -1, info.st_gid)
        kept_group = True
    except PermissionError:
        pass
    if mine.st_uid != info.st_uid or not kept_group:
        what = "owner" if kept_group else ("owner and group" if mine.st_uid != info.st_uid else "group")
        notices.append(
            f"{named}: could not keep its {what} (uid {info.st_uid}, gid {info.st_gid}); "
            f"the new file belongs to uid {mine.st_uid}, gid {os.stat(tmp).st_gid}"
        )


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
    are compared after resolving symlinks, and existing files by device and inode too, so ``./a``,
    a symlink and a hard link to it are all the same file. A device, FIFO or socket is never an
    output, even with ``force``."""
    seen: dict[object, str] = {}
    ins = {key for p in inputs for key in _same_file_keys(Path(p))}
    for out in outputs:
        keys = _same_file_keys(Path(out))
        for key in keys:
            if key in seen:
                raise InputError(f"{out}: named twice as an output (also as {seen[key]}); nothing written")
        for key in keys:
            seen[key] = str(out)
        if ins.intersection(keys):
            raise InputError(f"{out}: is one of this command's inputs; refusing to write over it (nothing written)")
        if Path(out).exists() and not Path(out).is_file() and not Path(out).is_dir():
            raise InputError(f"{out}: is not a regular file (a device, FIFO or socket); refusing to replace it (nothing written)")
        if not force and (Path(out).exists() or Path(out).is_symlink()):
            raise InputError(f"{out}: already exists; pass --force to replace it (nothing written)")


def _same_file_keys(path: Path) -> list[object]:
    """What identifies the file at ``path``: its resolved path, and its (device, inode) if it exists."""
    try:
        keys: list[object] = [path.resolve()]
    except (OSError, RuntimeError):
        keys = [path.absolute()]
    try:
        info = path.stat()
        keys.append((info.st_dev, info.st_ino))
    except (OSError, RuntimeError):
        pass
    return keys
