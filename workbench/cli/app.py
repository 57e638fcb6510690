"""The ``workbench`` command."""

from __future__ import annotations

import typer

from ..engine.depth import raise_limit

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
    # Every input is capped at depth.MAX_JSON_DEPTH levels when it is read, so the walks of it
    # (the engines, the trace's JSON, the output's JSON) may recurse that deep: see depth.py.
    raise_limit()
    app()
