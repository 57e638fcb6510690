"""``workbench draft``: a response_template and the equivalent response_schema read off a model's
chat template by differential analysis (``workbench.engine.chat_template.draft``), each checked at
once by the round trip.

Exit codes: 0 drafted and every probe comes back through both; 1 drafted, but some probe does not
(the tables say which, and the draft says what it guessed); 2 the input is unusable.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..chat_template_files import load_chat_template
from ..formats import CannotRun, format_of
from ..engine.chat_template import ChatTemplateError, RenderBudget
from ..engine.chat_template.draft import draft as draft_template
from ..engine.chat_template.roundtrip import roundtrip
from ..files import InputError, WriteError, atomic_write_all, check_outputs, dump_json
from ..formats.runtime_choice import template_runtime
from ..probes import sandboxed, template_file, template_variables
from .output import FAILED, OK, UNUSABLE, ProgressLine, emit_json, emit_text, render_budget, render_timeout_option, runtime_option, say, stop
from .roundtrip import report_dict, report_table


def draft(
    chat_template: Path = typer.Option(..., "--chat-template", help="A tokenizer folder or a .jinja file."),
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
        model = load_chat_template(chat_template)
        variables, budget = template_variables(variable), render_budget(render_timeout)
        targets = [(path, value) for path, value in ((out, "template"), (schema_out, "schema")) if path is not None]
        check_outputs([path for path, _ in targets], model.files, force)  # before the work, and again before writing
        with ProgressLine(f"rendering {template_file(model, name)}: ") as progress, \
                sandboxed(model, name, variables, budget, progress) as renderer:
            try:
                found = draft_template(renderer)
            except ChatTemplateError as exc:
                raise InputError(f"{template_file(model, name)}: {exc}") from None
            try:
                through_template = roundtrip(renderer, format_of(found.template).runner(found.template, chosen.release))
            except CannotRun as exc:  # a draft transformers would not load is the workbench's bug, said as such
                raise InputError(f"{template_file(model, name)}: the drafted template is one transformers {chosen} would not load "
                                 f"({exc}); nothing written") from None
            through_schema = roundtrip(renderer, format_of(found.schema).runner(found.schema))
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
        emit_text("\n".join(lines) + "\n" + shown + "round trip of the drafted template:\n" + report_table(through_template)
                  + "round trip of the drafted schema:\n" + report_table(through_schema))
    for path, _ in targets:
        say(f"wrote {path}")
    for notice in notices:
        say(f"note: {notice}")
    raise typer.Exit(FAILED if any(r.parser_wrong for r in through_template + through_schema) else OK)
