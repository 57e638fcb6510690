"""``workbench draft``: a response_template and the equivalent response_schema read off a model's
chat template by differential analysis (``workbench.engine.chat_template.draft``), each checked at
once by the round trip.

Exit codes, as ``roundtrip``'s: 0 drafted, and every probe rendered and came back through both; 1
drafted, but some probe does not come back or could not be rendered, or the draft has no
``tool_calls`` field while the template renders calls (the tables and a sentence say which, and the
draft says what it guessed); 2 the input is unusable (a chat template that renders no probe at all is).
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..engine.chat_template import RenderBudget
from ..store.files import InputError, WriteError, atomic_write_all, check_outputs, dump_json
from ..formats.runtime_choice import template_runtime
from ..jobs.probes import draft_and_roundtrip, missing_fields, template_file, template_variables
from .model_source import chat_template_option, model_from, renderer_option, trust_renderer_option
from .output import FAILED, UNUSABLE, ProgressLine, emit_json, emit_text, render_budget, render_timeout_option, runtime_option, say, stop
from .roundtrip import both_table, exit_code, report_dict


def draft(
    chat_template: Optional[Path] = chat_template_option(),
    renderer: Optional[str] = renderer_option(),
    trust_renderer: bool = trust_renderer_option(),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Write the drafted response template here."),
    schema_out: Optional[Path] = typer.Option(None, "--schema-out", help="Write the drafted response schema here."),
    name: Optional[str] = typer.Option(None, "--name", help="Which of the model's named chat templates to analyse."),
    variable: list[str] = typer.Option([], "--var", help="A template variable, NAME=JSON (e.g. enable_thinking=true); repeatable."),
    force: bool = typer.Option(False, "--force", help="Write over an existing OUT (never over the chat template)."),
    as_json: bool = typer.Option(False, "--json", help="Print the draft and its round trip as JSON."),
    render_timeout: float = render_timeout_option(RenderBudget.seconds),
    runtime: Optional[str] = runtime_option(),
) -> None:
    """Draft a response template and schema from the chat template, and run the round trip on both
    (the template as transformers --runtime runs it; the schema as 5.14 does)."""
    try:
        chosen = template_runtime(runtime)
    except ValueError as exc:
        raise stop(f"error: --runtime {runtime}: {exc}", UNUSABLE)
    try:
        model = model_from(chat_template, renderer, trust_renderer)
        variables, budget = template_variables(variable), render_budget(render_timeout)
        targets = [(path, value) for path, value in ((out, "template"), (schema_out, "schema")) if path is not None]
        check_outputs([path for path, _ in targets], model.files, force)  # before the work, and again before writing
        with ProgressLine(f"rendering {template_file(model, name)}: ") as progress:
            found, through_template, through_schema = draft_and_roundtrip(model, name, variables, budget, chosen, progress)
        check_outputs([path for path, _ in targets], model.files, force)
        notices = atomic_write_all([(path, dump_json(found.template if what == "template" else found.schema)) for path, what in targets])
    except (InputError, WriteError, OSError) as exc:
        raise stop(f"error: {exc}", UNUSABLE)
    if as_json:
        emit_json({"findings": found.findings, "guesses": found.guesses, "template": found.template, "schema": found.schema,
                   "roundtrip": [report_dict(r) for r in through_template],
                   "schema_roundtrip": [report_dict(r) for r in through_schema]})
    else:
        lines = [f"found: {line}" for line in found.findings] + [f"guessed: {line}" for line in found.guesses]
        shown = ("" if out is not None else "response template:\n" + dump_json(found.template)) + (
            "" if schema_out is not None else "response schema:\n" + dump_json(found.schema))
        emit_text("\n".join(lines) + "\n" + shown + "round trip of the drafted parsers:\n" + both_table(through_schema, through_template))
    for path, _ in targets:
        say(f"wrote {path}")
    for notice in notices:
        say(f"note: {notice}")
    shortfalls = missing_fields(found.template, through_template)
    for sentence in shortfalls:
        say(f"not a success: {sentence}")
    raise typer.Exit(FAILED if shortfalls else exit_code(through_template + through_schema))
