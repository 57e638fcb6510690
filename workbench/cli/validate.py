"""``workbench validate``: every problem in a parser file, with its path, and the transformers
releases that read it and give the same result."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..engine import WARNING, Problem, errors, validate as validate_schema
from ..engine.formats import format_of
from ..engine.template import load_failure
from ..engine.template.matrix import release_matrix
from ..engine.template.serving import vllm_problems, vllm_verdict
from ..engine.template.slow_delimiters import slow_delimiters
from ..engine.versions import TEMPLATE, schema_releases, template_releases
from ..files import InputError, NestingError, parse_schema_text, read_text
from ..samples import template_samples
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
    chosen = runtime_or_stop(format_of(value), runtime, value)
    if format_of(value) == TEMPLATE:
        _validate_template(schema, value, chosen.release if runtime is not None else None, samples)
    if samples is not None:
        raise stop(f"error: --samples is for response templates (the release matrix); {schema} is a response_schema", UNUSABLE)
    problems = validate_schema(value)
    for problem in problems:
        emit_line(f"{schema}: {problem}")
    if errors(problems):
        raise typer.Exit(FAILED)
    emit("ok\n" if not problems else f"ok ({len(problems)} warning{'s' if len(problems) > 1 else ''})\n")
    _releases(schema, schema_releases(value))
    raise typer.Exit(OK)


def _validate_template(path: Path, value, runtime, samples: Optional[Path]) -> None:
    """A template is checked as transformers ``runtime`` (default the newest) checks it when it
    loads: the first error, in its words (the runtime stops at the first); then, as warnings,
    delimiters that make its parse quadratic; then the release matrix on its samples (information:
    a split never changes the exit code)."""
    skipped: list[str] = []
    try:
        matrix_samples = template_samples(path, samples, skipped)
    except InputError as exc:
        raise stop(f"error: {exc}", UNUSABLE)
    for why in skipped:
        say(f"note: the release matrix leaves out a sample: {why}")
    failure = load_failure(value, runtime)
    if failure is not None:
        emit_line(f"{path}: error {failure}" + (f" (transformers {runtime})" if runtime is not None else ""))
        _matrix(path, value, matrix_samples)
        raise typer.Exit(FAILED)
    warnings = [Problem(pointer, WARNING, why) for pointer, why in slow_delimiters(value)]
    for problem in warnings:
        emit_line(f"{path}: {problem}")
    emit("ok\n" if not warnings else f"ok ({len(warnings)} warning{'s' if len(warnings) > 1 else ''})\n")
    _releases(path, template_releases(value))
    _matrix(path, value, matrix_samples)
    _serving(path, value)
    raise typer.Exit(OK)


def _matrix(path: Path, value, samples) -> None:
    """The release matrix's lines, when there are samples to run it on."""
    if samples is None:
        return
    for line in release_matrix(value, samples).lines():
        emit_line(f"{path}: {line}")


def _releases(path: Path, releases) -> None:
    for line in releases.describe():
        emit_line(f"{path}: {line}")


def _serving(path: Path, value) -> None:
    """Whether vLLM 0.33 serves the template, and why not or what it changes. A refusal is not a
    failure here: transformers runs the template (docs/response-template.md#serving-in-vllm)."""
    problems = vllm_problems(value)
    emit_line(f"{path}: {vllm_verdict(value, problems)}")
    for problem in problems:
        emit_line(f"{path}:   vllm {problem}")
