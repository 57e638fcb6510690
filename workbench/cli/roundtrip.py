"""``workbench roundtrip``: render probe assistant messages with a model's chat template, parse what
the assistant wrote with a response schema or template, and classify every difference.

The work is the engine's (``workbench.engine.chat_template.roundtrip``) and ``workbench.jobs.probes``;
this module reads the files and prints. Exit codes: 0 every probe rendered and no difference is the
parser's fault; 1 some is, or some probe could not be rendered (nothing was checked on it); 2 the
input is unusable (a chat template that renders no probe at all is).
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..engine.chat_template import RenderBudget
from ..formats import format_of
from ..engine.chat_template.roundtrip import CANNOT_RENDER, CONVENTIONS, WHY, Difference, ProbeResult, reparse, unusable
from ..engine.preview import preview_pair
from ..engine.visible import visible
from ..store.files import InputError, WriteError, load_schema
from ..jobs.probes import parser_of, run_probes, template_file, template_variables, write_probe_samples
from .model_source import chat_template_option, model_from, renderer_option, trust_renderer_option
from .output import FAILED, OK, UNUSABLE, ProgressLine, emit_json, emit_text, render_budget, render_timeout_option, runtime_option, runtime_or_stop, say, stop


def roundtrip(
    chat_template: Optional[Path] = chat_template_option(),
    renderer: Optional[str] = renderer_option(),
    trust_renderer: bool = trust_renderer_option(),
    schema: Optional[Path] = typer.Option(None, "--schema", help="A response schema to check."),
    template: Optional[Path] = typer.Option(None, "--template", help="A response template to check."),
    name: Optional[str] = typer.Option(None, "--name", help="Which of the model's named chat templates to render."),
    variable: list[str] = typer.Option([], "--var", help="A template variable, NAME=JSON (e.g. enable_thinking=false); repeatable."),
    as_json: bool = typer.Option(False, "--json", help="Print the results as JSON."),
    write_samples: Optional[Path] = typer.Option(
        None, "--write-samples", help="Write each probe's output, prompt and golden (the probe message) into this folder."
    ),
    force: bool = typer.Option(False, "--force", help="With --write-samples: write over existing files."),
    render_timeout: float = render_timeout_option(RenderBudget.seconds),
    runtime: Optional[str] = runtime_option(),
) -> None:
    """Render probe messages with the chat template and check that the parser(s) give them back."""
    if schema is None and template is None:
        raise stop("error: give a parser: --schema FILE, --template FILE, or both", UNUSABLE)
    # each parser given, by the option it came with: both are judged on the same renders
    given = [(noun, path) for noun, path in (("schema", schema), ("template", template)) if path is not None]
    try:
        model = model_from(chat_template, renderer, trust_renderer)
        parsers = [(noun, path, *_parser(noun, path, runtime)) for noun, path in given]
        variables, budget = template_variables(variable), render_budget(render_timeout)
        with ProgressLine(f"rendering {template_file(model, name)}: ") as progress:
            results = run_probes(model, name, parsers[0][3], variables, budget, progress)
        why = unusable(results)
        if why is not None:
            raise InputError(f"{template_file(model, name)}: {why}")
        by_noun = {parsers[0][0]: results} | {noun: reparse(results, parse) for noun, _, _, parse in parsers[1:]}
        if write_samples is not None:
            notices: list[str] = []
            count = write_probe_samples(write_samples, [(by_noun[noun], fmt) for noun, _, fmt, _ in parsers], force,
                                        inputs=[*model.files, *(path for _, path, _, _ in parsers)], notices=notices)
            for notice in notices:
                say(f"note: {notice}")
            say(f"wrote {count} samples with their prompts and goldens to {write_samples}")
    except (InputError, WriteError, OSError) as exc:
        raise stop(f"error: {exc}", UNUSABLE)
    if len(by_noun) == 1:
        if as_json:
            emit_json([report_dict(r) for r in results])
        else:
            emit_text(report_table(results))
        raise typer.Exit(exit_code(results))
    if as_json:
        emit_json({noun: [report_dict(r) for r in rs] for noun, rs in by_noun.items()})
    else:
        emit_text(both_table(by_noun["schema"], by_noun["template"]))
    # the worse of the two: 0 only when both round-trip
    raise typer.Exit(max(exit_code(by_noun["schema"]), exit_code(by_noun["template"])))


def _parser(noun: str, path: Path, runtime: Optional[str]):
    """(format, parse) of the parser file given with ``--<noun>``, as ``--runtime`` runs it."""
    value = load_schema(path)
    chosen = runtime_or_stop(format_of(value), runtime, value)
    fmt, parse = parser_of(path, value, chosen.release)
    if fmt.noun != noun:
        raise InputError(f"{path} is a {fmt}; pass it with --{fmt.noun}")
    return fmt, parse


def exit_code(results: list[ProbeResult]) -> int:
    """0 only when every probe rendered and none came back wrong (shared with ``draft``)."""
    return FAILED if any(r.parser_wrong or r.unrendered for r in results) else OK


def report_dict(result: ProbeResult) -> dict:
    return {
        "probe": result.name, "message": result.message, "prompt": result.prompt, "output": result.output,
        "parsed": result.parsed, "error": result.error,
        # the shapes that made the probe render (CONVENTIONS), and the message as the template saw it
        "conventions": list(result.conventions), "rendered_as": result.rendered, "rendered": not result.unrendered,
        "differences": [{"kind": d.kind, "why": WHY[d.kind], "path": d.path, "expected": d.expected, "got": d.got, "note": d.note}
                        for d in result.differences],
    }


def difference_line(d: Difference) -> str:
    """One difference: its kind, path and both values cut around where they part."""
    line = f"{WHY[d.kind]}: {d.path or '/'}"
    if d.path:
        expected, got = preview_pair(d.expected, d.got)
        line += f" expected {expected}, got {got}"
    return line + (f" ({d.note})" if d.note else "")


def both_table(schema: list[ProbeResult], template: list[ProbeResult]) -> str:
    """The schema's and the template's verdicts on each probe, side by side. Both parsers read the
    same render: what that render lacks (and the shapes it needed) is said once, under the probe."""
    table = Table("probe", "schema", "template", "differences", show_lines=False)
    for s, t in zip(schema, template):
        said = {noun: [difference_line(d) for d in r.differences] for noun, r in (("schema", s), ("template", t))}
        lines = [f"both: {line}" for line in said["schema"] if line in said["template"]]
        lines += [f"{noun}: {line}" for noun, mine in said.items() for line in mine if f"both: {line}" not in lines]
        shapes = "".join(f"\nrendered with {CONVENTIONS[c]}" for c in s.conventions)
        table.add_row(Text(visible(s.name) + shapes), Text(s.verdict), Text(t.verdict),
                      Text(visible("\n".join(lines), keep_newlines=True)))
    console = Console(record=True, width=160, file=io.StringIO())
    console.print(table)
    return console.export_text() + "".join(f"{noun}: {_summary(rs)}" for noun, rs in (("schema", schema), ("template", template)))


def _summary(results: list[ProbeResult]) -> str:
    """The verdict over all probes, in a line (and one for the probes no shape rendered)."""
    wrong, unrendered = sum(r.parser_wrong for r in results), sum(r.unrendered for r in results)
    return (f"{wrong} of {len(results)} probes: the parser is wrong\n" if wrong else f"{len(results)} probes: no difference is the parser's fault\n") + (
        f"{unrendered} of {len(results)} probes could not be rendered in any shape tried: nothing was checked on them\n" if unrendered else "")


def report_table(results: list[ProbeResult]) -> str:
    table = Table("probe", "result", "differences", show_lines=False)
    for r in results:
        lines = [difference_line(d) for d in r.differences]
        # Text, not markup: a template's error or a probe's value may hold "[/]" or "[link=…]".
        verdict = r.verdict + "".join(f"\nrendered with {CONVENTIONS[c]}" for c in r.conventions)
        table.add_row(Text(visible(r.name)), Text(verdict), Text(visible("\n".join(lines), keep_newlines=True)))
    console = Console(record=True, width=160, file=io.StringIO())  # rendered to text, printed by emit
    console.print(table)
    return console.export_text() + _summary(results)
