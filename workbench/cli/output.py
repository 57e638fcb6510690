"""How commands speak: results on stdout, one-line messages on stderr, and the exit codes.

Exit codes: 0 done, 1 the schema does not work on this input (or, for ``validate``, has errors,
not being JSON among them), 2 the input itself is unusable (missing file, bad JSON, not UTF-8, a
schema ``validate`` rejects; for ``export``, anything that stops it before it writes).
"""

from __future__ import annotations

import sys

import typer

OK, FAILED, UNUSABLE = 0, 1, 2


def emit(text: str) -> None:
    # Bytes, so non-ASCII output never depends on the terminal's locale.
    sys.stdout.buffer.write(text.encode("utf-8"))
    sys.stdout.flush()


def say(message: str) -> None:
    """One line on stderr."""
    typer.echo(" ".join(message.splitlines()), err=True)


def stop(message: str, code: int) -> typer.Exit:
    say(message)
    return typer.Exit(code)
