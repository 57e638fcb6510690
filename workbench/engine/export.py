"""Shipping a parser: as a JSON file, or as the ``response_schema`` or ``response_template`` key
(by the file's format) of a tokenizer folder.

Both refuse a schema that ``validate`` finds errors in, or a template transformers would reject
when it loads, and write atomically: a refused or interrupted export leaves every file byte for
byte as it was. The CLI and the TUI call these.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..files import InputError, WriteError, atomic_write_all, dump_json, parse_schema_text, read_text
from .formats import format_of
from .template import load_failure
from .validate import Problem, errors, validate
from .versions import TEMPLATE

CONFIG_NAME = "tokenizer_config.json"

VERSION_NOTE = (
    "transformers 5.3 to 5.14 read response_schema; 5.15 and later drop it silently when the "
    "tokenizer loads (they read only response_template), so parse_response there will not use "
    "this schema. Tell your users to pin transformers>=5.3,<5.15."
)
TEMPLATE_NOTE = (
    "transformers 5.13 and later read response_template (5.13 and 5.14 prefer it to a "
    "response_schema and then require prefix= in parse_response); 'workbench validate' names the "
    "releases that give the same result."
)


def version_note(value: Any) -> str:
    return TEMPLATE_NOTE if format_of(value) == TEMPLATE else VERSION_NOTE


class ExportRefused(Exception):
    """Nothing was written; the message says why, naming the file or the schema path."""


@dataclass
class ExportReport:
    written: list[Path] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)


def _checked(schema: Any) -> list[Problem]:
    if format_of(schema) == TEMPLATE:
        failure = load_failure(schema)
        if failure is not None:
            raise ExportRefused(f"transformers would reject this response_template when it loads: {failure}")
        return []
    problems = validate(schema)
    bad = errors(problems)
    if bad:
        listed = "; ".join(str(p) for p in bad)
        raise ExportRefused(f"the schema has {len(bad)} validation error{'s' if len(bad) > 1 else ''}: {listed}")
    return problems


def export_schema(schema: Any, out: str | Path | None = None, tokenizer_dir: str | Path | None = None) -> ExportReport:
    """Write ``schema`` to ``out`` and/or into ``tokenizer_dir``'s config, or refuse and write nothing."""
    return export_parsers([schema], out=out, tokenizer_dir=tokenizer_dir)


def export_parsers(parsers: list[Any], out: str | Path | None = None, tokenizer_dir: str | Path | None = None) -> ExportReport:
    """Write one parser, or a schema and a template together, into ``tokenizer_dir``'s config (each
    as its own key; one parser may also go to ``out``), or refuse and write nothing."""
    if out is None and tokenizer_dir is None:
        raise ExportRefused("say where to export: an output file, a tokenizer folder, or both")
    if not 1 <= len(parsers) <= 2:
        raise ExportRefused("export takes one file, or two: a response_schema and a response_template")
    formats = [format_of(parser) for parser in parsers]
    if len(set(formats)) != len(formats):
        raise ExportRefused(f"both files are a {formats[0]}: give one response_schema and one response_template")
    if out is not None and len(parsers) > 1:
        raise ExportRefused("-o writes one file: with a schema and a template, export into a tokenizer folder")
    report = ExportReport()
    for parser in parsers:
        report.warnings.extend(_checked(parser))
    schema = parsers[0]
    config_path, config_text = None, None
    if tokenizer_dir is not None:
        config_path, config_text = _config_with(Path(tokenizer_dir), parsers)
    files: list[tuple[Path, str]] = []
    if out is not None:
        out = Path(out)
        if out.is_dir():
            raise ExportRefused(f"{out}: is a folder; give a file name, such as {out / 'response_schema.json'}")
        if not out.parent.is_dir():
            raise ExportRefused(f"{out.parent}: no such folder")
        files.append((out, dump_json(schema)))
    if config_path is not None:
        files.append((config_path, config_text))
    # Everything is checked, and every file staged, before anything is replaced.
    try:
        atomic_write_all(files)
    except WriteError as exc:
        raise ExportRefused(str(exc)) from None
    report.written.extend(path for path, _ in files)
    return report


def _config_with(folder: Path, parsers: list[Any]) -> tuple[Path, str]:
    if not folder.is_dir():
        raise ExportRefused(f"{folder}: no such tokenizer folder")
    path = folder / CONFIG_NAME
    try:
        config = parse_schema_text(read_text(path, "tokenizer config"), str(path))
    except InputError as exc:
        raise ExportRefused(str(exc)) from None
    if not isinstance(config, dict):
        raise ExportRefused(f"{path}: a tokenizer config must be a JSON object")
    # Replacing the value keeps the key where it was; a new key goes last. Nothing else changes.
    for parser in parsers:
        config[format_of(parser)] = parser
    return path, dump_json(config)


def export_to(schema_text: str, target: Path, sample_text: str | None = None) -> list[str]:
    """Export a schema's text to a .json file, or into a tokenizer folder and verify it there if
    transformers is installed (the TUI's export): the lines to show, the first saying what was
    written. Raises ExportRefused, and then nothing was written."""
    try:
        schema = parse_schema_text(schema_text, "schema")
    except InputError as exc:
        raise ExportRefused(str(exc)) from None
    if not target.is_dir():
        report = export_schema(schema, out=target)
        lines = [f"Exported to {report.written[0]}"]
    else:
        report = export_schema(schema, tokenizer_dir=target)
        lines = [f"Exported into {report.written[0]}"]
        try:
            result = verify_tokenizer_dir(target, schema, sample_text)
            lines += result.lines if result.ok else ["VERIFY FAILED: " + "; ".join(result.lines)]
        except ExportRefused as exc:
            lines.append(f"not verified: {exc}")
    if report.warnings:
        lines.append(f"{len(report.warnings)} warning(s)")
    return lines + [version_note(schema)]


@dataclass
class Verification:
    ok: bool
    lines: list[str]


def require_transformers():
    """transformers' AutoTokenizer, or ExportRefused saying how to install it. Callers that verify
    after writing ask this first, so a missing transformers stops them before any write."""
    try:
        import transformers  # noqa: F401 - optional: only the verifier needs it
        from transformers import AutoTokenizer
    except ImportError:
        raise ExportRefused("--verify needs transformers: pip install 'transformers>=5,<5.15'") from None
    return AutoTokenizer


def verify_tokenizer_dir(tokenizer_dir: str | Path, schema: Any, sample_text: str | None = None) -> Verification:
    """Load the folder with transformers and check it holds ``schema`` and parses like we do."""
    AutoTokenizer = require_transformers()
    import importlib.metadata

    from .parse import parse_response

    version = importlib.metadata.version("transformers")
    lines = [f"loaded with transformers {version}"]
    try:
        tokenizer = AutoTokenizer.from_pretrained(str(tokenizer_dir))
    except Exception as exc:  # whatever the loader raises, the user needs its words
        return Verification(False, lines + [f"transformers could not load {tokenizer_dir}: {exc}"])
    key = format_of(schema)
    loaded = getattr(tokenizer, key, None)
    if json.dumps(loaded) != json.dumps(schema):  # strict: key order and 1 vs 1.0 count
        lines.append(f"the loaded tokenizer's {key} differs from the exported one"
                     + (f" (this transformers does not read {key})" if loaded is None else ""))
        return Verification(False, lines)
    lines.append(f"{key} loaded back unchanged")
    if sample_text is not None:
        if key == TEMPLATE:
            from .template import parse_response as template_parse

            def theirs_call():
                return tokenizer.parse_response(sample_text, prefix="")

            def ours_call():
                return template_parse(sample_text, schema, prefix="")
        else:
            def theirs_call():
                return tokenizer.parse_response(sample_text)

            def ours_call():
                return parse_response(sample_text, schema)
        theirs, ours = _outcome(theirs_call), _outcome(ours_call)
        if theirs[0] != ours[0] or (theirs[0] == "value" and theirs != ours):
            lines.append(f"parse_response differs on the sample: transformers gave {theirs[1]!r}, the workbench {ours[1]!r}")
            return Verification(False, lines)
        lines.append("parse_response on the sample agrees with the workbench" + (' (prefix="")' if key == TEMPLATE else ""))
    return Verification(True, lines)


def _outcome(call) -> tuple[str, str]:
    """("value", its JSON) or ("error", its first line): values must match exactly, errors in kind."""
    try:
        return "value", json.dumps(call())
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        return "error", str(exc).splitlines()[0] if str(exc) else type(exc).__name__
