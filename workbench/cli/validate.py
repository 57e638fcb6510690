"""``workbench validate``: every problem in a parser file, with its path, and the transformers
releases that read it and give the same result."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..engine.problems import ERROR, WARNING
from ..formats import format_of
from ..store.files import InputError, NestingError, parse_schema_text, read_text
from ..store.samples import template_samples
from .output import FAILED, OK, UNUSABLE, emit, emit_line, runtime_option, runtime_or_stop, say, stop


def validate(
    schema: Path = typer.Argument(..., help="The response schema or response template (JSON)."),
    runtime: Optional[str] = runtime_option(),
    samples: Optional[Path] = typer.Option(
        None, "--samples", metavar="DIR",
        help="Templates: the samples the release matrix runs (a folder or a file; default the family's "
             "sample_outputs/<family>/ for schemas/<family>.template.json).",
    ),
) -> None:
    """Check SCHEMA: print 'ok', or every problem with its JSON pointer (exit 1 on errors), then
    which transformers releases read it and, for a template with samples, where releases give
    different results on them."""
    try:
        text = read_text(schema, "schema")
    except InputError as exc:
        raise stop(f"error: {exc}", UNUSABLE)
    try:
        value = parse_schema_text(text, str(schema))
    except NestingError as exc:  # valid JSON, but deeper than anything reads: unusable, not a schema error
        raise stop(f"error: {exc}", UNUSABLE)
    except InputError as exc:
        raise stop(f"error: {exc}", FAILED)
    fmt = format_of(value)
    chosen = runtime_or_stop(fmt, runtime, value)
    if samples is not None and not fmt.releases_differ:
        raise stop(f"error: --samples is for response templates (the release matrix); {schema} is a {fmt}", UNUSABLE)
    skipped: list[str] = []
    try:
        matrix_samples = template_samples(schema, samples, skipped) if fmt.releases_differ else None
    except InputError as exc:
        raise stop(f"error: {exc}", UNUSABLE)
    for why in skipped:
        say(f"note: the release matrix leaves out a sample: {why}")
    # The editor's problem list shows this very list (Format.check).
    checked = fmt.check(value, runtime=fmt.release(chosen) if runtime is not None else None)
    ran_as = f" (transformers {runtime})" if runtime is not None else ""
    shown = [p for p in checked.problems if p.severity in (ERROR, WARNING)]
    for problem in shown:
        emit_line(f"{schema}: {fmt.error_line(problem)}" + (ran_as if problem.severity == ERROR else ""))
    if checked.errors:
        _matrix(schema, fmt, value, matrix_samples)
        raise typer.Exit(FAILED)
    warnings = len(shown)
    emit("ok\n" if not warnings else f"ok ({warnings} warning{'s' if warnings > 1 else ''})\n")
    for line in checked.releases.describe():
        emit_line(f"{schema}: {line}")
    _matrix(schema, fmt, value, matrix_samples)
    for line in fmt.serving_lines(value, checked):
        emit_line(f"{schema}: {line}")
    raise typer.Exit(OK)


def _matrix(path: Path, fmt, value, samples) -> None:
    """The release matrix's lines, when there are samples to run it on."""
    if samples is None:
        return
    for line in fmt.matrix(value, samples).lines():
        emit_line(f"{path}: {line}")
