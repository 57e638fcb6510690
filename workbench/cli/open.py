"""``workbench open``: the TUI on a sample file or a folder of samples."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..files import InputError
from .output import UNUSABLE, stop


def open_(
    sample: Path = typer.Argument(..., help="A raw output file, or a folder of them (*.txt)."),
    schema: Optional[Path] = typer.Option(
        None, "--schema", "-s",
        help="The schema or template to edit (default: schemas/<family>.json for samples under sample_outputs/<family>/).",
    ),
    template: bool = typer.Option(
        False, "--template", "-t",
        help="Edit the family's response template, schemas/<family>.template.json, instead of its schema.",
    ),
    tools: Optional[Path] = typer.Option(None, "--tools", help="Templates: JSON tool definitions for tools= argument casting."),
) -> None:
    """Open the workbench: edit SCHEMA (a response_schema or a response_template) and watch it
    parse SAMPLE live."""
    from ..document import SchemaDocument
    from ..samples import discover, family_schema, load
    from ..templates import STARTER_TEMPLATE
    from .template_parse import tools_from

    try:
        if template and schema is not None:
            raise InputError("give --schema FILE or --template, not both")
        paths = discover(sample)
        samples = [load(p) for p in paths]
        tool_definitions = tools_from(tools)
        if schema is None:
            schema = family_schema(paths[0], template=template)
        if template and schema is None:
            # No family template yet: a starter one, saved where the family's would be.
            document = SchemaDocument(_template_path(paths[0]), STARTER_TEMPLATE)
        else:
            document = SchemaDocument.open(schema)
    except InputError as exc:
        raise stop(f"error: {exc}", UNUSABLE)
    from ..tui.app import WorkbenchApp  # Textual is imported only for the TUI

    WorkbenchApp(document, samples, tools=tool_definitions).run()


def _template_path(sample: Path) -> Path | None:
    """Where ``schemas/<family>.template.json`` would be for a sample under sample_outputs/<family>/."""
    from ..samples import TEMPLATE_SUFFIX, family_schema

    schema = family_schema(sample)
    return schema.with_name(schema.stem + TEMPLATE_SUFFIX) if schema is not None else None
