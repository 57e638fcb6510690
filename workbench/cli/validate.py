"""``workbench validate``: every problem in a schema, with its path."""

from __future__ import annotations

from pathlib import Path

import typer

from ..engine import errors, validate as validate_schema
from ..files import InputError, parse_schema_text, read_text
from .output import FAILED, OK, UNUSABLE, emit, stop


def validate(schema: Path = typer.Argument(..., help="The response schema (JSON).")) -> None:
    """Check SCHEMA: print 'ok', or every problem with its JSON pointer (exit 1 on errors)."""
    try:
        text = read_text(schema, "schema")
    except InputError as exc:
        raise stop(f"error: {exc}", UNUSABLE)
    try:
        value = parse_schema_text(text, str(schema))
    except InputError as exc:
        raise stop(f"error: {exc}", FAILED)
    problems = validate_schema(value)
    for problem in problems:
        emit(f"{schema}: {problem}\n")
    if errors(problems):
        raise typer.Exit(FAILED)
    emit("ok\n" if not problems else f"ok ({len(problems)} warning{'s' if len(problems) > 1 else ''})\n")
    raise typer.Exit(OK)
