"""The ``workbench`` command."""

from __future__ import annotations

import importlib.metadata

import typer

from ..engine.depth import raise_limit

from .check import check
from .draft import draft
from .export import export
from .migrate import migrate
from .new import new
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
#: The distribution's name on PyPI ("workbench" there is an unrelated package).
DISTRIBUTION = "response-parser-workbench"


def _version(value: bool) -> None:
    if value:
        try:
            version = importlib.metadata.version(DISTRIBUTION)
        except importlib.metadata.PackageNotFoundError:  # run from a checkout that was never installed
            version = "unknown (not installed)"
        typer.echo(f"workbench {version} ({DISTRIBUTION})")
        raise typer.Exit(0)


@app.callback()
def _options(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version and exit."),
) -> None:
    """Write and debug transformers response schemas against raw model output."""


app.command()(parse)
app.command()(validate)
app.command()(export)
app.command()(check)
app.command()(migrate)
app.command(name="open")(open_)
app.command()(roundtrip)
app.command()(draft)
app.command()(new)


def main() -> None:
    # Every input is capped at depth.MAX_JSON_DEPTH levels when it is read, so the walks of it
    # (the engines, the trace's JSON, the output's JSON) may recurse that deep: see depth.py.
    raise_limit()
    app()
