"""``workbench export``: ship a response schema or template as a JSON file or inside a tokenizer
folder (as the ``response_schema`` or ``response_template`` key, by the file's format)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..engine.export import ExportRefused, export_schema, require_transformers, verify_tokenizer_dir, version_note
from ..engine.formats import format_of
from ..files import InputError, load_schema, read_sample
from .output import FAILED, UNUSABLE, emit, say, stop


def export(
    schema: Path = typer.Argument(..., help="The response schema or response template (JSON)."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Write the schema as clean JSON here."),
    tokenizer_dir: Optional[Path] = typer.Option(
        None, "--tokenizer-dir",
        help="Set response_schema (or response_template) in DIR/tokenizer_config.json, keeping every other key."
    ),
    verify: bool = typer.Option(False, "--verify", help="Load the tokenizer folder with transformers and check it."),
    sample: Optional[Path] = typer.Option(None, "--sample", help="With --verify: also compare parse_response on this output."),
) -> None:
    """Export SCHEMA after validating it; nothing is written if anything is wrong."""
    if verify and tokenizer_dir is None:
        raise stop("error: --verify checks a tokenizer folder: give --tokenizer-dir", UNUSABLE)
    try:
        if verify:
            # Before anything is written: exit 2 promises an untouched folder.
            require_transformers()
        schema_value = load_schema(schema)
        sample_text = read_sample(sample) if sample is not None else None
        report = export_schema(schema_value, out=out, tokenizer_dir=tokenizer_dir)
    except (InputError, ExportRefused) as exc:
        raise stop(f"error: {exc}; nothing was written", UNUSABLE)
    say(f"note: {schema} is a {format_of(schema_value)}")
    for problem in report.warnings:
        say(f"{schema}: {problem}")
    for path in report.written:
        emit(f"wrote {path}\n")
    say(f"note: {version_note(schema_value)}")
    if verify:
        try:
            result = verify_tokenizer_dir(tokenizer_dir, schema_value, sample_text)
        except ExportRefused as exc:
            raise stop(f"error: {exc}", UNUSABLE)
        for line in result.lines:
            emit(f"verify: {line}\n")
        if not result.ok:
            raise stop("error: verification failed (see above)", FAILED)
