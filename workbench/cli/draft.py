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

from ..chat_template_files import ChatTemplate
from ..formats import CannotRun, format_of
from ..engine.chat_template import ChatTemplateError, RenderBudget
from ..engine.chat_template.draft import Draft, draft as draft_template
from ..engine.chat_template.roundtrip import ProbeResult, roundtrip, unusable
from ..files import InputError, WriteError, atomic_write_all, check_outputs, dump_json
from ..formats.runtime_choice import Runtime, template_runtime
from ..probes import sandboxed, template_file, template_variables
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
        found, through_template, through_schema = draft_and_roundtrip(model, name, variables, budget, chosen)
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


def draft_and_roundtrip(model: ChatTemplate, name: Optional[str], variables: dict, budget: RenderBudget,
                        chosen: Runtime) -> tuple[Draft, list[ProbeResult], list[ProbeResult]]:
    """The draft read off the chat template, and the round trip of its template (as ``chosen``) and
    of its schema, all rendered in one sandboxed child process under ``budget`` (shared with ``new``).
    ``InputError`` when the template renders no probe: there is nothing to write."""
    with ProgressLine(f"rendering {template_file(model, name)}: ") as progress, \
            sandboxed(model, name, variables, budget, progress) as renderer:
        try:
            found = draft_template(renderer, runtime=str(chosen.release))  # what that release can read
        except ChatTemplateError as exc:
            raise InputError(f"{template_file(model, name)}: {exc}") from None
        try:
            through_template = roundtrip(renderer, format_of(found.template).runner(found.template, chosen.release))
        except CannotRun as exc:  # a draft transformers would not load is the workbench's bug, said as such
            raise InputError(f"{template_file(model, name)}: the drafted template is one transformers {chosen} would not load "
                             f"({exc}); nothing written") from None
        through_schema = roundtrip(renderer, format_of(found.schema).runner(found.schema))
    why = unusable(through_template)
    if why is not None:
        raise InputError(f"{template_file(model, name)}: {why}; nothing written")
    return found, through_template, through_schema


def missing_fields(template: dict, results: list[ProbeResult]) -> list[str]:
    """What keeps a draft from being a success even where no probe came back wrong: calls the
    template has that the draft cannot read or the probes could not render."""
    calls = [r for r in results if r.message.get("tool_calls")]
    said = []
    unrendered = [r.name for r in calls if r.unrendered]
    if unrendered:
        said.append(f"the tool-call probes {', '.join(unrendered)} could not be rendered, so the calls were not checked")
    shown = [r.name for r in calls if r.output is not None
             and any(call["function"]["name"] in r.output for call in r.seen["tool_calls"])]
    if "tool_calls" not in template.get("fields", {}) and shown:
        said.append("the draft has no tool_calls field, but the template renders tool calls")
    return said
