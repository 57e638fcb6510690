"""Unsaved edits kept when the app stops on an error it did not expect.

Whatever the error, what the user typed must survive it: each unsaved text goes to a new file
beside its own (``<name>.unsaved-<time>``), created exclusively so that nothing existing is ever
replaced, and the paths are reported after the app has closed.
"""

from __future__ import annotations

import os
import time
from pathlib import Path


def rescue(pieces: list[tuple[Path | None, str]], now: float | None = None) -> list[str]:
    """Write each ``(path, text)`` to a fresh file beside ``path`` (the working folder for text
    that has no file yet); one sentence per piece, naming where it went or why it could not."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    said = []
    for path, text in pieces:
        base = path if path is not None else Path.cwd() / "schema.json"
        for n in range(100):
            target = base.with_name(f"{base.name}.unsaved-{stamp}" + (f"-{n}" if n else ""))
            try:
                # O_EXCL: a rescue never replaces a file, not even an earlier rescue.
                fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                continue
            except OSError as exc:
                said.append(f"unsaved edits of {base} could not be kept: {exc.strerror}")
                break
            with os.fdopen(fd, "w", encoding="utf-8", errors="surrogatepass", newline="") as handle:
                handle.write(text)
            said.append(f"unsaved edits of {base} kept in {target}")
            break
    return said
