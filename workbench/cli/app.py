"""The ``workbench`` command."""

from __future__ import annotations

import typer

from .check import check
from .draft import draft
from .export import export
from .migrate import migrate
from .open import open_
from .parse import parse
from .roundtrip import roundtrip
from .validate import validate

app = typer.Typer(
    name="workbench",
    help="Write and debug transformers response schemas against raw model output.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command()(parse)
app.command()(validate)
app.command()(export)
app.command()(check)
app.command()(migrate)
app.command(name="open")(open_)
app.command()(roundtrip)
app.command()(draft)


def main() -> None:
    app()
