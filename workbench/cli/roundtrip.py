"""``workbench roundtrip``: render probe assistant messages with a model's chat template, parse what
the assistant wrote with a response schema or template, and classify every difference.

The work is the engine's (``workbench.engine.chat_template.roundtrip``); this module reads the files
and prints. Exit codes: 0 no difference is the parser's fault; 1 some is; 2 the input is unusable.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console
from rich.table import Table

from ..chat_templates import load_chat_template
from ..engine import errors as error_problems
from ..engine import parse_response as parse_with_schema
from ..engine import template as template_engine
from ..engine import validate as validate_schema
from ..engine.chat_template import ChatTemplateError, compile_chat_template
from ..engine.chat_template.roundtrip import WHY, ProbeResult, golden, roundtrip as run_roundtrip
from ..engine.formats import format_of
from ..engine.versions import SCHEMA, TEMPLATE
from ..files import InputError, WriteError, atomic_write_all, load_schema
from ..samples import Sample
from .output import FAILED, OK, UNUSABLE, emit, say, stop


def roundtrip(
    chat_template: Path = typer.Option(..., "--chat-template", help="A tokenizer folder or a .jinja file."),
    schema: Optional[Path] = typer.Option(None, "--schema", help="A response schema to check."),
    template: Optional[Path] = typer.Option(None, "--template", help="A response template to check."),
    name: Optional[str] = typer.Option(None, "--name", help="Which of the model's named chat templates to render."),
    variable: list[str] = typer.Option([], "--var", help="A template variable, NAME=JSON (e.g. enable_thinking=false); repeatable."),
    as_json: bool = typer.Option(False, "--json", help="Print the results as JSON."),
    write_samples: Optional[Path] = typer.Option(
        None, "--write-samples", help="Write each probe's output, prompt and golden (the probe message) into this folder."
    ),
    force: bool = typer.Option(False, "--force", help="With --write-samples: write over existing files."),
) -> None:
    """Render probe messages with the chat template and check that the parser gives them back."""
    if (schema is None) == (template is None):
        raise stop("error: give one parser: --schema FILE or --template FILE", UNUSABLE)
    parser_path = schema or template
    try:
        model = load_chat_template(chat_template)
        picked, source = model.pick(name, tools=True)
        parser = load_schema(parser_path)
    except InputError as exc:
        raise stop(f"error: {exc}", UNUSABLE)
    kwargs = _variables(variable)
    parse = _parser(parser_path, parser, template is not None)
    try:
        compile_chat_template(source)
    except ChatTemplateError as exc:  # nothing can be rendered
        raise stop(f"error: {model.origin.get(picked, chat_template)}: {exc}", UNUSABLE)
    results = run_roundtrip(source, parse, special_tokens=model.special_tokens, **kwargs)
    if write_samples is not None:
        _write_samples(write_samples, results, TEMPLATE if template is not None else SCHEMA, force)
    emit(json.dumps([_as_dict(r) for r in results], ensure_ascii=False, indent=2) + "\n" if as_json else _table(results))
    raise typer.Exit(FAILED if any(r.parser_wrong for r in results) else OK)


def _parser(path: Path, value: Any, is_template: bool):
    if is_template != (format_of(value) == TEMPLATE):
        raise stop(f"error: {path} is a response {'schema' if is_template else 'template'}; pass it with "
                   f"{'--schema' if is_template else '--template'}", UNUSABLE)
    if is_template:
        try:
            compiled = template_engine.load_template(value)
        except (ValueError, TypeError, KeyError) as exc:
            raise stop(f"error: {path}: {exc}", UNUSABLE)
        return lambda output, prompt: template_engine.parse_response(output, compiled, prefix=prompt)
    problems = error_problems(validate_schema(value))
    if problems:
        raise stop(f"error: {path}: {problems[0]}", UNUSABLE)
    return lambda output, prompt: parse_with_schema(output, value)


def _variables(items: list[str]) -> dict[str, Any]:
    out = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key.isidentifier():
            raise stop(f"error: --var {item!r}: expected NAME=JSON", UNUSABLE)
        try:
            out[key] = json.loads(raw)
        except ValueError:
            out[key] = raw  # a bare word is a string
    return out


def _as_dict(result: ProbeResult) -> dict:
    return {
        "probe": result.name, "message": result.message, "prompt": result.prompt, "output": result.output,
        "parsed": result.parsed, "error": result.error,
        "differences": [{"kind": d.kind, "why": WHY[d.kind], "path": d.path, "expected": d.expected, "got": d.got, "note": d.note}
                        for d in result.differences],
    }


def _table(results: list[ProbeResult]) -> str:
    table = Table("probe", "result", "differences", show_lines=False)
    for r in results:
        verdict = "round-trips" if not r.differences else "parser wrong" if r.parser_wrong else "not the parser's fault"
        lines = [f"{WHY[d.kind]}: {d.path or '/'}" + (f" expected {_short(d.expected)}, got {_short(d.got)}" if d.path else "")
                 + (f" ({d.note})" if d.note else "") for d in r.differences]
        table.add_row(r.name, verdict, "\n".join(lines))
    console = Console(record=True, width=160, file=io.StringIO())  # rendered to text, printed by emit
    console.print(table)
    wrong = sum(r.parser_wrong for r in results)
    return console.export_text() + (f"{wrong} of {len(results)} probes: the parser is wrong\n" if wrong else f"{len(results)} probes: no difference is the parser's fault\n")


def _short(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _write_samples(folder: Path, results: list[ProbeResult], fmt: str, force: bool) -> None:
    """<probe>.txt (the output), <probe>.prompt.txt and the golden for the parser's format: a folder
    `workbench open` and `workbench check` read. Nothing is written over without --force."""
    if folder.exists() and not folder.is_dir():
        raise stop(f"error: {folder} is a file, not a folder", UNUSABLE)
    files = []
    for result in results:
        if result.output is None:
            continue  # not rendered: nothing to parse
        sample = Sample(folder / f"{result.name}.txt", result.output)
        golden_text = json.dumps(golden(result), ensure_ascii=False, indent=2) + "\n"
        files += [(sample.path, result.output), (folder / f"{result.name}.prompt.txt", result.prompt),
                  (sample.expected_value_path(fmt), golden_text)]
    existing = [str(path) for path, _ in files if path.exists()]
    if existing and not force:
        raise stop(f"error: {existing[0]} exists ({len(existing)} of the files would be replaced); pass --force", UNUSABLE)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        atomic_write_all(files)
    except (OSError, WriteError) as exc:
        raise stop(f"error: {exc}", UNUSABLE)
    say(f"wrote {len(files) // 3} samples with their prompts and goldens to {folder}")

