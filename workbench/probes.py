"""Round-trip probes as files: the parser a round trip runs (a schema or a template, as loaded from
its file), and the probes written as samples with their prompts and goldens, which ``workbench
check`` and the TUI read like any other samples. Shared by ``workbench roundtrip`` and ``workbench
open --chat-template``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

from .chat_templates import ChatTemplate
from .engine import errors as error_problems
from .engine import parse_response as parse_with_schema
from .engine import template as template_engine
from .engine import validate as validate_schema
from .engine.chat_template import ChatTemplateError, compile_chat_template
from .engine.chat_template.roundtrip import ProbeResult, golden, roundtrip
from .engine.formats import format_of
from .engine.versions import SCHEMA, TEMPLATE
from .files import InputError, atomic_write_all
from .samples import Sample


def parser_of(path: Path, value: Any) -> tuple[str, Callable[[str, str], Any]]:
    """(format, parse(output, prompt)) for a schema or template read from ``path``; ``InputError``
    when it cannot run."""
    if format_of(value) == TEMPLATE:
        try:
            compiled = template_engine.load_template(value)
        except Exception as exc:  # noqa: BLE001 - what transformers raises when it loads it
            raise InputError(f"{path}: {template_engine.describe_load_error(exc)}") from None
        return TEMPLATE, lambda output, prompt: template_engine.parse_response(output, compiled, prefix=prompt)
    problems = error_problems(validate_schema(value))
    if problems:
        raise InputError(f"{path}: {problems[0]}")
    return SCHEMA, lambda output, prompt: parse_with_schema(output, value)


def template_variables(items: list[str]) -> dict[str, Any]:
    """``NAME=JSON`` items (``enable_thinking=false``) as the variables a render gets; a value that
    is not JSON is a string."""
    out = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key.isidentifier():
            raise InputError(f"--var {item!r}: expected NAME=JSON")
        try:
            out[key] = json.loads(raw)
        except ValueError:
            out[key] = raw
    return out


def run_probes(model: ChatTemplate, name: str | None, parse: Callable[[str, str], Any], **variables: Any) -> list[ProbeResult]:
    """The round trip of every probe; ``InputError`` (naming the file and line) when the chat
    template does not compile."""
    picked, source = model.pick(name, tools=True)
    try:
        compile_chat_template(source)
    except ChatTemplateError as exc:
        raise InputError(f"{model.origin.get(picked, 'chat template')}: {exc}") from None
    return roundtrip(source, parse, special_tokens=model.special_tokens, **variables)


def probe_files(folder: Path, results: list[ProbeResult], fmt: str) -> list[tuple[Path, str]]:
    """<probe>.txt (the output), <probe>.prompt.txt and the golden for the parser's format."""
    files: list[tuple[Path, str]] = []
    for result in results:
        if result.output is None:
            continue  # not rendered: nothing to parse
        sample = Sample(folder / f"{result.name}.txt", result.output)
        files += [
            (sample.path, result.output),
            (folder / f"{result.name}.prompt.txt", result.prompt or ""),
            (sample.expected_value_path(fmt), json.dumps(golden(result), ensure_ascii=False, indent=2) + "\n"),
        ]
    return files


def write_probe_samples(folder: Path, results: list[ProbeResult], fmt: str, force: bool = False) -> int:
    """Write the probe files (all or nothing); refuses to replace a file unless ``force``. The
    number of samples written."""
    if folder.exists() and not folder.is_dir():
        raise InputError(f"{folder} is a file, not a folder")
    files = probe_files(folder, results, fmt)
    existing = [str(path) for path, _ in files if path.exists()]
    if existing and not force:
        raise InputError(f"{existing[0]} exists ({len(existing)} of the files would be replaced); pass --force")
    folder.mkdir(parents=True, exist_ok=True)
    atomic_write_all(files)
    return len(files) // 3
