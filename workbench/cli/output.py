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


def render_timeout_option(default: float):
    """``--render-timeout SECONDS``, for the commands that render a chat template."""
    return typer.Option(default, "--render-timeout", metavar="SECONDS",
                        help="The time the chat template's renders may take together (they run in a child process under "
                             "a memory and an output cap as well); past it the command stops with exit 2.")


def render_budget(seconds: float):
    """The render budget for ``--render-timeout SECONDS``; ``InputError`` unless a positive number."""
    import math

    from ..engine.chat_template import RenderBudget
    from ..files import InputError

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
