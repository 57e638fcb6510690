"""Round-trip probes as files: the parser a round trip runs (a schema or a template, as loaded from
its file), and the probes written as samples with their prompts and goldens, which ``workbench
check`` and the TUI read like any other samples. Shared by ``workbench roundtrip``, ``workbench
new``, ``workbench open --chat-template`` and ``export --verify`` without samples.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

from ..store.chat_template_files import ChatTemplate
from ..engine.chat_template import (
    RESERVED_VARIABLES, ChatTemplateError, RenderBudget, RenderOverBudget, SandboxedRenderer, reserved_variable,
)
from ..engine.chat_template.python_renderer import PythonRenderer
from ..engine.chat_template.draft import Draft, draft as draft_template
from ..engine.chat_template.roundtrip import ProbeResult, golden, roundtrip, unusable
from ..formats import CannotRun, Format, format_of
from ..store.files import InputError, atomic_write_all, check_outputs, dump_json
from ..store.samples import PROBES, Sample, read_probes


def parser_of(path: Path, value: Any, runtime: Any = None) -> tuple[Format, Callable[[str, str], Any]]:
    """(format, parse(output, prompt)) for a schema or template read from ``path``, as transformers
    ``runtime`` runs it (a release name or ``Release``; None: the format's default); ``InputError``
    when it cannot run."""
    fmt = format_of(value)
    try:
        return fmt, fmt.runner(value, runtime)
    except CannotRun as exc:
        raise InputError(f"{path}: {exc}") from None


def template_variables(items: list[str]) -> dict[str, Any]:
    """``NAME=JSON`` items (``enable_thinking=false``) as the variables a render gets; a value that
    is not JSON is a string. A name the render sets itself (``messages``, ``tools``, …) is refused."""
    out = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key.isidentifier():
            raise InputError(f"--var {item!r}: expected NAME=JSON")
        if key in RESERVED_VARIABLES:
            raise InputError(f"--var {key}: {reserved_variable(key)}")
        try:
            out[key] = json.loads(raw)
        except ValueError:
            out[key] = raw
    return out


def template_file(model: ChatTemplate, name: str | None) -> Path | str:
    """The file the chat template a round trip renders was read from (messages name it)."""
    picked, _ = model.pick(name, tools=True)
    return model.origin.get(picked, "chat template")


@contextmanager
def sandboxed(model: ChatTemplate, name: str | None, variables: dict[str, Any], budget: RenderBudget = RenderBudget(),
              progress: Callable[[str], None] | None = None) -> Iterator[SandboxedRenderer]:
    """A renderer of the model's chat template (the one a conversation with tools picks) under
    ``budget``, in a child process killed on exit. The template is compiled first: a syntax error,
    and any render past the budget, is an ``InputError`` naming the template's file."""
    _, source = model.pick(name, tools=True)
    origin = template_file(model, name)
    if model.function is not None:
        renderer: SandboxedRenderer = PythonRenderer(Path(origin), model.function, variables, budget)
    else:
        renderer = SandboxedRenderer(source, model.special_tokens, variables, budget)
    renderer.progress = progress
    try:
        try:
            renderer.check()
        except ChatTemplateError as exc:
            raise InputError(f"{origin}: {exc}") from None
        yield renderer
    except RenderOverBudget as exc:
        raise InputError(f"{origin}: {exc}") from None
    finally:
        renderer.close()


def run_probes(model: ChatTemplate, name: str | None, parse: Callable[[str, str], Any], variables: dict[str, Any] | None = None,
               budget: RenderBudget = RenderBudget(), progress: Callable[[str], None] | None = None) -> list[ProbeResult]:
    """The round trip of every probe, rendered under ``budget``; ``InputError`` (naming the file,
    and the line) when the chat template does not compile or overruns the budget."""
    with sandboxed(model, name, variables or {}, budget, progress) as renderer:
        return roundtrip(renderer, parse)


def probe_files(folder: Path, results: list[ProbeResult], fmt: str) -> list[tuple[Path, str]]:
    """<probe>.txt (the output), <probe>.prompt.txt and the golden for the parser's format, and the
    folder's probes.json (each probe's message, by name)."""
    files: list[tuple[Path, str]] = []
    for result in results:
        if result.output is None:
            continue  # not rendered: nothing to parse
        sample = Sample(folder / f"{result.name}.txt", result.output)
        files += [
            (sample.path, result.output),
            (folder / f"{result.name}.prompt.txt", result.prompt or ""),
            (sample.expected_value_path(fmt), dump_json(golden(result))),
        ]
    rendered = {r.name: r.seen for r in results if r.output is not None}  # the probe as the template saw it
    if rendered:  # so the sample bar and `check` judge these samples as the round trip does
        files.append((folder / PROBES, dump_json(read_probes(folder) | rendered if folder.is_dir() else rendered)))
    return files


def write_probe_samples(folder: Path, judged: list[tuple[list[ProbeResult], str]], force: bool = False, inputs: list[Path] = (),
                        notices: list[str] | None = None) -> int:
    """Write the probe files (all or nothing) with a golden for each (results, format) in
    ``judged`` (one render, one parser each); refuses to replace a file unless ``force``, and one of
    the command's ``inputs`` (its chat template, its parser) even then. The number of samples
    written; what the user may not expect (a hard link broken) is added to ``notices``."""
    if folder.exists() and not folder.is_dir():
        raise InputError(f"{folder} is a file, not a folder")
    files: dict[Path, str] = {}
    for results, fmt in judged:  # the outputs, prompts and probes.json are the same for every parser
        files.update(probe_files(folder, results, fmt))
    check_outputs(list(files), inputs, force)
    folder.mkdir(parents=True, exist_ok=True)
    said = atomic_write_all(list(files.items()))
    if notices is not None:
        notices.extend(said)
    return sum(r.output is not None for r in judged[0][0])


def draft_and_roundtrip(model: ChatTemplate, name: str | None, variables: dict, budget: RenderBudget,
                        chosen: Any, progress: Callable[[str], None] | None = None,
                        ) -> tuple[Draft, list[ProbeResult], list[ProbeResult]]:
    """The draft read off the chat template, and the round trip of its template (as ``chosen``, a
    ``Runtime``) and of its schema, all rendered in one sandboxed child process under ``budget``
    (``draft`` and ``new``; ``progress`` hears which probe renders). ``InputError`` when the
    template renders no probe: there is nothing to write."""
    with sandboxed(model, name, variables, budget, progress) as renderer:
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
