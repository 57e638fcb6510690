"""An exclusive lock on a folder, for read-modify-write of a file in it (``export --tokenizer-dir``
rewriting ``tokenizer_config.json``; building a verify runtime).

The lock is ``flock`` on the folder itself, not on the file: an atomic write replaces the file
(a new inode), so a lock held on the old one would not exclude the next writer, and a lock file
would be a stray file in the user's tokenizer folder. Every workbench process that rewrites a
file in the folder takes this lock first; other programs are not excluded (they do not ask).
Where ``fcntl`` does not exist (Windows) the lock is a no-op.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]


@contextmanager
def folder_lock(folder: str | os.PathLike, waiting: Callable[[], None] | None = None) -> Iterator[None]:
    """Hold an exclusive lock on ``folder`` for the ``with`` block. If another process holds it,
    ``waiting()`` is called once and the lock is waited for. Released when the block ends, or
    when the process dies."""
    if fcntl is None:  # pragma: no cover
        yield
        return
    fd = os.open(Path(folder), os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if waiting is not None:
                waiting()
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the only descriptor releases the lock
