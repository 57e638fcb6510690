"""``workbench parse``: run a parser file on one raw output and print the message dict. The file's
format decides the engine: a response_template (it has ``fields``) or a response_schema."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..formats import format_of
from ..files import InputError, dump_json, load_schema, read_sample
from ..samples import family_schema
from .output import FAILED, UNUSABLE, emit, runtime_option, runtime_or_stop, say, stop
from .template_parse import describe_prompt, parse_with_template, prompt_for, tools_from


def parse(
    sample: Path = typer.Argument(..., help="Raw model output (UTF-8 text)."),
    schema: Optional[Path] = typer.Option(
        None, "--schema", "-s", help="The response schema (default: schemas/<family>.json for samples under sample_outputs/<family>/)."
    ),
    show_trace: bool = typer.Option(False, "--trace", help="Print the trace with the message: per schema node, or per template region (spans, matches, values)."),
    prefix: Optional[str] = typer.Option(None, "--prefix", help="Templates: the generation prompt (prefix=)."),
    prefix_file: Optional[Path] = typer.Option(
        None, "--prefix-file", help="Templates: read the prompt from FILE (default: <case>.prompt.txt beside SAMPLE, else its folder's default.prompt.txt)."
    ),
    tools: Optional[Path] = typer.Option(None, "--tools", help="Templates: JSON tool definitions for tools= argument casting."),
    stream: bool = typer.Option(False, "--stream", help="Templates: the event stream as JSON lines, as ResponseParser gives it."),
    chunk: int = typer.Option(4, "--chunk", help="With --stream: characters per feed()."),
    runtime: Optional[str] = runtime_option(),
) -> None:
    """Parse SAMPLE with SCHEMA (a response_schema or a response_template) and print the message
    as JSON, as transformers would give it."""
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
        kind = format_of(schema_value)
        if kind.reads_prompt:
            prompt, source = prompt_for(sample, prefix, prefix_file)
            tool_definitions = tools_from(tools)
    except InputError as exc:
        raise stop(f"error: {exc}", UNUSABLE)
    chosen = runtime_or_stop(kind, runtime, schema_value)
    say(f"note: {schema} is a {kind}" + (f", run as {chosen.describe()}" if runtime is not None else ""))
    if kind.reads_prompt:
        if show_trace and stream:
            raise stop("error: give --trace or --stream, not both", UNUSABLE)
        describe_prompt(source)
        parse_with_template(sample, text, schema, schema_value, prompt, tool_definitions, stream, chunk, show_trace,
                            chosen.release)
        return
    if stream or prefix is not None or prefix_file is not None or tools is not None:
        raise stop(f"error: {schema} is a response_schema: --prefix, --prefix-file, --tools and --stream are for response templates", UNUSABLE)
    checked = kind.check(schema_value)
    for problem in checked.problems:
        say(f"{schema}: {problem}")
    if checked.errors:
        raise stop(f"error: {schema}: the schema has errors (see above); fix them or run 'workbench validate'", UNUSABLE)

    result = kind.trace(schema_value, text)
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
