"""The ``workbench`` command."""

from __future__ import annotations

import importlib.metadata

import typer
from typer.core import TyperCommand, TyperGroup

from ..engine.depth import raise_limit

from .check import check
from .draft import draft
from .export import export
from .migrate import migrate
from .new import new
from .open import open_
from .parse import parse
from .roundtrip import roundtrip
from .scan import scan
from .validate import validate

def _bare_flags(params: list) -> list:
    """``params`` with each on/off flag's type label blanked: typer labels every option with its
    type, and ``--json <bool>`` reads as if the flag took a value."""
    for param in params:
        if getattr(param, "is_flag", False) and not getattr(param, "count", False):
            param.metavar = ""
    return params


class Command(TyperCommand):
    def get_params(self, ctx):
        return _bare_flags(super().get_params(ctx))


class Group(TyperGroup):
    def get_params(self, ctx):
        return _bare_flags(super().get_params(ctx))


app = typer.Typer(
    cls=Group,
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


app.command(cls=Command)(parse)
app.command(cls=Command)(validate)
app.command(cls=Command)(export)
app.command(cls=Command)(check)
app.command(cls=Command)(migrate)
app.command(name="open", cls=Command)(open_)
app.command(cls=Command)(roundtrip)
app.command(cls=Command)(draft)
app.command(cls=Command)(new)
app.command(cls=Command)(scan)


def main() -> None:
    # Every input is capped at depth.MAX_JSON_DEPTH levels when it is read, so the walks of it
    # (the engines, the trace's JSON, the output's JSON) may recurse that deep: see depth.py.
    raise_limit()
    app()
