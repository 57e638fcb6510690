"""How commands speak: results on stdout, one-line messages on stderr, and the exit codes.

Exit codes: 0 done, 1 the schema does not work on this input (or, for ``validate``, has errors,
not being JSON among them), 2 the input itself is unusable (missing file, bad JSON, not UTF-8, a
schema ``validate`` rejects; for ``export``, anything that stops it before it writes).

What reaches the terminal never carries a file's control characters (an escape sequence in a file
name or a value would act on the terminal) nor a lone surrogate (which no encoding can write, so
printing it would crash): JSON goes through ``files.dump_json``, text through ``visible``.
"""

from __future__ import annotations

import sys
from typing import Any

import typer

from ..engine.visible import visible
from ..files import dump_json

OK, FAILED, UNUSABLE = 0, 1, 2


def emit(text: str) -> None:
    """``text`` on stdout as it is (JSON from dump_json, or text already made visible). Bytes, so
    non-ASCII output never depends on the terminal's locale; a lone surrogate, which UTF-8 cannot
    carry, is written as its ``\\udXXX`` escape rather than stopping the command."""
    sys.stdout.buffer.write(text.encode("utf-8", errors="backslashreplace"))
    sys.stdout.flush()


def emit_json(value: Any) -> None:
    """A value as the project's JSON (lone surrogates, C1 and bidi controls escaped)."""
    emit(dump_json(value))


def emit_text(text: str) -> None:
    """Lines that hold text from files (names, keys, values, messages): every control character
    shown as a symbol, line breaks kept."""
    emit(visible(text, keep_newlines=True))


def emit_line(text: str) -> None:
    """One line of a report on stdout, holding text from files: control characters (line breaks
    among them, so a record stays one line) shown as symbols."""
    emit(visible(text) + "\n")


def say(message: str) -> None:
    """One line on stderr, control characters from file names and values shown as symbols."""
    typer.echo(visible(" ".join(message.splitlines())), err=True)


def stop(message: str, code: int) -> typer.Exit:
    say(message)
    return typer.Exit(code)
