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
        None, "--schema", "-s", help="The schema to edit (default: schemas/<family>.json for samples under sample_outputs/<family>/)."
    ),
) -> None:
    """Open the workbench: edit SCHEMA and watch it parse SAMPLE live."""
    from ..document import SchemaDocument
    from ..samples import discover, family_schema, load

    try:
        paths = discover(sample)
        samples = [load(p) for p in paths]
        if schema is None:
            schema = family_schema(paths[0])
        document = SchemaDocument.open(schema)
    except InputError as exc:
        raise stop(f"error: {exc}", UNUSABLE)
    from ..tui.app import WorkbenchApp  # Textual is imported only for the TUI

    WorkbenchApp(document, samples).run()
