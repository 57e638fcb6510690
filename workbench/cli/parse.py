"""``workbench parse``: run a parser file on one raw output and print the message dict. The file's
format (``format_of``) decides the engine."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..formats import format_of
from ..store.files import InputError, dump_json, load_schema, read_sample
from ..store.samples import family_schema
from .output import FAILED, UNUSABLE, emit, runtime_option, runtime_or_stop, say, stop
from ..formats import StreamFailed
from .template_parse import describe_prompt, prompt_for, tools_from


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
    release = kind.release(chosen)
    say(f"note: {schema} is a {kind}" + (f", run as {chosen.describe()}" if runtime is not None else ""))
    if (not kind.reads_prompt and (prefix is not None or prefix_file is not None or tools is not None)) or (stream and not kind.streams):
        raise stop(f"error: {schema} is a {kind}: --prefix, --prefix-file, --tools and --stream are for response templates", UNUSABLE)
    if show_trace and stream:
        raise stop("error: give --trace or --stream, not both", UNUSABLE)
    if kind.reads_prompt:
        describe_prompt(source)
    else:
        prompt, tool_definitions = "", None
    for line in kind.parse_notes(schema_value, tool_definitions):
        say(line if line.startswith("note:") else f"{schema}: {line}")
    failure = kind.load_failure(schema_value, release)
    if failure is not None:
        raise stop(f"error: {schema}: {kind.refusal(failure)}", UNUSABLE)
    if stream:
        if chunk < 1:
            raise stop("error: --chunk must be at least 1", UNUSABLE)
        try:
            for line in kind.stream(schema_value, text, prompt, tools=tool_definitions, chunk=chunk, runtime=release):
                emit(dump_json(line, indent=None))
        except StreamFailed as exc:
            raise stop(f"error: {sample}: {exc}", FAILED)
        return
    if show_trace:
        report, failed = kind.trace_report(kind.trace(schema_value, text, prompt=prompt, tools=tool_definitions, runtime=release))
        emit(dump_json(report))
        if failed is not None:
            raise stop(f"error: {sample}: {failed}", FAILED)
        return
    try:
        message = kind.parse(schema_value, text, prompt, tools=tool_definitions, runtime=release)
    except Exception as exc:
        failed = kind.failure(exc)
        if failed is None:
            raise
        raise stop(f"error: {sample}: {failed}", FAILED)
    emit(dump_json(message))
