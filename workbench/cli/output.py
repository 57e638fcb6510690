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
from ..store.files import dump_json

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


def render_timeout_option(default: float):
    """``--render-timeout SECONDS``, for the commands that render a chat template."""
    return typer.Option(default, "--render-timeout", metavar="SECONDS",
                        help="The time the chat template's renders may take together (they run in a child process under "
                             "a memory and an output cap as well); past it the command stops with exit 2.")


def runtime_option():
    """``--runtime VERSION``: the transformers release to behave as (``runtime_choice``)."""
    from ..formats.runtime_choice import RUNTIME_HELP

    return typer.Option(None, "--runtime", metavar="VERSION", help=RUNTIME_HELP)


def runtime_or_stop(fmt: str, value, parser=None):
    """The ``Runtime`` a parser of format ``fmt`` runs as under ``--runtime value``; a bad or
    refused value stops the command with one sentence (exit 2: the input cannot be run as asked)."""
    from ..formats.runtime_choice import runtime_for

    try:
        return runtime_for(fmt, value, parser)
    except ValueError as exc:
        raise stop(f"error: --runtime {value}: {exc}", UNUSABLE)


def render_budget(seconds: float):
    """The render budget for ``--render-timeout SECONDS``; ``InputError`` unless a positive number."""
    import math

    from ..engine.chat_template import RenderBudget
    from ..store.files import InputError

    if not (math.isfinite(seconds) and seconds > 0):
        raise InputError(f"--render-timeout {seconds:g}: expected a positive number of seconds")
    return RenderBudget(seconds=seconds)


def stop(message: str, code: int) -> typer.Exit:
    say(message)
    return typer.Exit(code)


class ProgressLine:
    """One line on stderr, rewritten in place while something runs, and erased at the end; only when
    stderr is a terminal (a log or a pipe gets nothing). Called with what is happening now."""

    def __init__(self, prefix: str, stream=None) -> None:
        from ..engine.visible import visible

        self.prefix = visible(prefix)
        self.stream = stream if stream is not None else sys.stderr
        try:
            self.active = self.stream.isatty()
        except (AttributeError, ValueError):
            self.active = False
        self.shown: str | None = None  # the text on the line

    def __call__(self, text: str) -> None:
        if self.active and text != self.shown:
            import shutil

            line = f"{self.prefix}{text} …"
            width = shutil.get_terminal_size().columns - 1  # a wrapped line could not be erased
            self.stream.write("\r\x1b[K" + (line if len(line) <= width else line[: max(width - 1, 0)] + "…"))
            self.stream.flush()
            self.shown = text

    def clear(self) -> None:
        if self.shown is not None:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = None

    def __enter__(self) -> "ProgressLine":
        return self

    def __exit__(self, *exc) -> None:
        self.clear()
