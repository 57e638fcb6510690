"""``workbench migrate``: write the response_template for a response schema, list what could not be
translated, and show where the two disagree on the family's samples.

The work is the engine's (``workbench.engine.migrate``); this module reads the files, writes the
template and prints. Exit codes: 0 written, nothing untranslatable, every sample agrees; 1 written
(or, with nothing translatable, not) but something was not translated or a sample differs; 2 the
input is unusable and nothing is written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer

from ..formats import format_of
from ..engine.migrate import ABSENT, header_of
from ..store.files import check_outputs, InputError, ReadOnlyError, WriteError, dump_json, load_schema, read_text
from ..jobs.migration import Case, MigrationRun, anchor_from, cases_of, run, unescape
from ..store.samples import discover, load
from .output import UNUSABLE, emit, emit_line, say, stop

NO_ANCHOR = (
    "cannot tell where the assistant's message begins in the prompt (the template's start_anchor): "
    "pass --start-anchor TEXT, the chat template's assistant header, e.g. --start-anchor "
    "'<|im_start|>assistant\\n' (\\n stands for a line break), or --prefix-file with a prompt"
)


def migrate(
    schema: Path = typer.Argument(..., help="The response schema (JSON) to translate."),
    out: Path = typer.Option(..., "--out", "-o", help="Write the response template here."),
    samples: Optional[Path] = typer.Option(
        None, "--samples", help="Samples to compare on (a folder or a file; default: sample_outputs/<family>/ beside schemas/<family>.json)."
    ),
    prefix_file: Optional[Path] = typer.Option(
        None, "--prefix-file", help="A prompt to read the start anchor from (its assistant header)."
    ),
    start_anchor: list[str] = typer.Option(
        [], "--start-anchor", help="Where the assistant's message begins in the prompt (repeatable; \\n stands for a line break)."
    ),
    force: bool = typer.Option(False, "--force", help="Write over an existing OUT."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """Translate SCHEMA into a response_template (docs/response-template.md#translating-a-schema), list what cannot be
    translated, write OUT, and compare both on the samples."""
    value = _schema(schema)
    # The inputs: the schema, the prompt file, and every file beside the samples (their prompts and
    # goldens); OUT is never one of them, even with --force.
    target = samples if samples is not None else _family_folder(schema)
    folder = target if target is None or target.is_dir() else target.parent
    inputs = [schema, *([prefix_file] if prefix_file is not None else []),
              *([p for p in folder.iterdir() if p.is_file()] if folder is not None and folder.is_dir() else [])]
    try:
        check_outputs([out], inputs, force=force)
    except InputError as exc:
        raise stop(f"error: {exc}", UNUSABLE)
    cases = _samples(schema, samples)
    anchor, source = _anchor(start_anchor, prefix_file, cases)
    try:
        result = run(value, cases, anchor, source, out, allow_read_only=force)
    except ReadOnlyError as exc:
        raise stop(f"error: {exc}; nothing was written (pass --force to replace it)", UNUSABLE)
    except WriteError as exc:
        raise stop(f"error: {exc}; nothing was written", UNUSABLE)
    for notice in result.notices:
        say(f"note: {notice}")
    if as_json:
        emit(dump_json(_report(schema, result)))
    else:
        for line in result.lines():
            emit_line(line)
    raise typer.Exit(result.code)


# ----- input ---------------------------------------------------------------------------------------


def _schema(path: Path) -> Any:
    try:
        value = load_schema(path)
    except InputError as exc:
        raise stop(f"error: {exc}", UNUSABLE)
    fmt = format_of(value)
    if not fmt.migrates:
        raise stop(f"error: {path} is already a {fmt} (it has 'fields' or 'version')", UNUSABLE)
    problems = fmt.check(value).errors
    if problems:
        for problem in problems:
            say(f"{path}: {problem}")
        raise stop(f"error: {path} has {len(problems)} validation error{'s' if len(problems) > 1 else ''}; fix them first", UNUSABLE)
    return value


def _samples(schema: Path, given: Path | None) -> list[Case]:
    """The samples, each with its prompt: what the template gets as prefix=."""
    target = given if given is not None else _family_folder(schema)
    if target is None:
        return []
    try:
        return cases_of([load(path) for path in discover(target)])
    except InputError as exc:
        raise stop(f"error: {exc}", UNUSABLE)


def _family_folder(schema: Path) -> Path | None:
    """``sample_outputs/<family>/`` for ``schemas/<family>.json``, when that tree has it."""
    resolved = schema.resolve()
    folder = resolved.parent.parent / "sample_outputs" / resolved.name.removesuffix(".json")
    return folder if resolved.parent.name == "schemas" and folder.is_dir() else None


def _anchor(given: list[str], prefix_file: Path | None, cases) -> tuple[Any, str]:
    """The start anchor and where it came from: --start-anchor, else the --prefix-file prompt,
    else the samples' prompts (anchor.derive_start_anchor), else exit 2."""
    if given:
        anchors = list(dict.fromkeys(unescape(a) for a in given))
        if "" in anchors:
            raise stop("error: --start-anchor cannot be empty", UNUSABLE)
        return (anchors[0] if len(anchors) == 1 else anchors), "--start-anchor"
    if prefix_file is not None:
        try:
            prompt = read_text(prefix_file, "prompt")
        except InputError as exc:
            raise stop(f"error: {exc}", UNUSABLE)
        anchor = header_of(prompt)
        if anchor is None:
            raise stop(f"error: {prefix_file}: no assistant header found; {NO_ANCHOR}", UNUSABLE)
        return anchor, str(prefix_file)
    anchor = anchor_from(cases)
    if anchor is None:
        raise stop(f"error: {NO_ANCHOR}", UNUSABLE)
    return anchor, "the samples' prompts"


# ----- output --------------------------------------------------------------------------------------


def _report(schema: Path, result: MigrationRun) -> dict:
    def outcome(o) -> dict:
        return {"error": o.error} if o.failed else {"value": o.value}

    def difference(d) -> dict:
        row: dict = {"path": d.path}
        if d.schema is not ABSENT:
            row["schema"] = d.schema
        if d.template is not ABSENT:
            row["template"] = d.template
        return row

    migration = result.migration
    return {
        "schema": str(schema),
        "out": str(result.out),
        "written": result.written,
        "start_anchor": result.anchor,
        "start_anchor_from": result.anchor_source,
        "template": migration.template,
        "untranslatable": [{"path": i.path, "reason": i.reason} for i in migration.untranslatable],
        "notes": [{"path": i.path, "note": i.reason} for i in migration.notes],
        "samples": [
            {
                "case": c.case,
                "agrees": c.agrees,
                "schema": outcome(c.schema),
                "template": outcome(c.template),
                "differences": [difference(d) for d in c.differences],
            }
            for c in result.comparisons
        ],
        "exit_code": result.code,
    }
