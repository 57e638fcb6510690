"""``workbench parse``: run a schema on one raw output and print the message dict."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..engine import errors, trace, validate
from ..files import InputError, dump_json, load_schema, read_sample
from ..samples import family_schema
from .output import FAILED, UNUSABLE, emit, say, stop


def parse(
    sample: Path = typer.Argument(..., help="Raw model output (UTF-8 text)."),
    schema: Optional[Path] = typer.Option(
        None, "--schema", "-s", help="The response schema (default: schemas/<family>.json for samples under sample_outputs/<family>/)."
    ),
    show_trace: bool = typer.Option(False, "--trace", help="Print the trace: spans, matches and values per node."),
) -> None:
    """Parse SAMPLE with SCHEMA and print the message as JSON, as transformers would give it."""
    try:
        text = read_sample(sample)
        if schema is None:
            # As `open` does: a sample under sample_outputs/<family>/ goes with schemas/<family>.json.
            schema = family_schema(sample)
            if schema is None:
                raise InputError(
                    f"{sample}: no schema for this sample: give --schema, or keep the sample under "
                    "sample_outputs/<family>/ beside a schemas/<family>.json"
                )
        schema_value = load_schema(schema)
    except InputError as exc:
        raise stop(f"error: {exc}", UNUSABLE)
    problems = validate(schema_value)
    for problem in problems:
        say(f"{schema}: {problem}")
    if errors(problems):
        raise stop(f"error: {schema}: the schema has errors (see above); fix them or run 'workbench validate'", UNUSABLE)

    result = trace(text, schema_value)
    result.locate_all()
    if show_trace:
        emit(dump_json({"message": result.value, "error": _error_dict(result), "trace": result.root.to_dict()}))
    elif result.ok:
        emit(dump_json(result.value))
    if not result.ok:
        raise stop(f"error: {sample}: {result.error}", FAILED)


def _error_dict(result) -> dict | None:
    if result.ok:
        return None
    return {"path": result.error_path or "/", "message": getattr(result.error, "message", str(result.error))}
