"""The seam between the workbench and its two parser formats: ``format_of`` tells them apart (the
one rule), and each ``Format`` says what its format can do (base.py). Everything outside the engine
holds a Format and calls it; see docs/architecture.md."""

from __future__ import annotations

import json
import re
from typing import Any

from ..engine.formats import format_of as _format_name
from ..engine.schema.regexes import DEFAULT_TIME_LIMIT  # one time limit for every parse, either format
from .base import CannotRun, Checked, Format, StreamFailed
from .result import Analysis
from .schema import SchemaFormat
from .template import MatrixSample, TemplateFormat  # noqa: F401 - a sample as a release matrix runs it
from ..engine.template.traps import DROPPED as TRAP_DROPPED, OVERWRITTEN as TRAP_OVERWRITTEN  # what scan_runner's traps are

RESPONSE_SCHEMA = SchemaFormat()
RESPONSE_TEMPLATE = TemplateFormat()
FORMATS = (RESPONSE_SCHEMA, RESPONSE_TEMPLATE)
_BY_NAME = {f.name: f for f in FORMATS}
_TEMPLATE_KEY = re.compile(r'"(fields|version)"\s*:')


def interrupt() -> None:
    """Cut short the parse running on this (main) thread, whatever its format: the analysis
    process calls it from its signal handler when a newer request waits."""
    for fmt in FORMATS:
        fmt.interrupt()


def by_name(name: str) -> Format:
    return _BY_NAME[name]


def other_format(fmt: Format) -> Format:
    """The format ``fmt`` is not: what ``workbench migrate`` writes from a format that ``migrates``."""
    return next(f for f in FORMATS if f != fmt)


def by_noun(noun: str) -> Format:
    """The format a user calls ``noun`` (``--schema`` / ``--template``)."""
    return next(f for f in FORMATS if f.noun == noun)


def format_of(value: Any) -> Format:
    """The format of a parsed parser file, by the rule transformers applies (engine/formats.py);
    a template loaded by the engine is a template."""
    return _BY_NAME[_format_name(value)]


def format_of_text(text: str) -> Format:
    """The format of an editor's text, also while it is not JSON yet (then: by its keys)."""
    try:
        return format_of(json.loads(text))
    except ValueError:
        return RESPONSE_TEMPLATE if _TEMPLATE_KEY.search(text) else RESPONSE_SCHEMA
    except RecursionError:
        return RESPONSE_SCHEMA


def reading_notes(parsers: list[Any]) -> list[tuple[str, str]]:
    """What the transformers releases read of a tokenizer holding ``parsers`` ((level, line) pairs)."""
    fmts = [format_of(parser) for parser in parsers]
    if set(fmts) == set(FORMATS):
        from ..engine.releases import OLDEST, SCHEMA_FROM, SCHEMA_UNTIL, TEMPLATE_ONLY, just_before

        notes = [("note", f"transformers {SCHEMA_FROM} to {just_before(OLDEST.minor)} read response_schema; {OLDEST} and "
                          f"{SCHEMA_UNTIL} read both and prefer response_template (parse_response then needs prefix=); "
                          f"{TEMPLATE_ONLY} and later read only response_template")]
        refused = _refused_where_both_are_read(parsers[fmts.index(RESPONSE_TEMPLATE)])
        if refused:  # they do not fall back to the schema: the tokenizer cannot parse there at all
            notes.append(("warning", f"{OLDEST} and {SCHEMA_UNTIL} prefer response_template and cannot load this one "
                                     f"({refused}), so they parse nothing with this tokenizer, response_schema included"))
        return notes
    notes = [("note", fmts[0].version_note)]
    if fmts[0].superseded is not None:
        notes.append(("warning", fmts[0].superseded))
    return notes


def _refused_where_both_are_read(template: Any) -> str | None:
    """Why the first template releases (which prefer it to a schema) refuse ``template``, or None."""
    from ..engine.releases import OLDEST
    from ..engine.template.load import describe_load_error, load_template

    try:
        load_template(template, OLDEST)
    except ValueError as exc:
        return describe_load_error(exc)
    except Exception:  # noqa: BLE001 - a template that loads nowhere is validate's to report
        return None
    return None


def format_of_file(path: Any) -> Format:
    """By the file's name alone (``schemas/<family>.template.json``), before it is read."""
    return RESPONSE_TEMPLATE if str(path).endswith(RESPONSE_TEMPLATE.suffix) else RESPONSE_SCHEMA


__all__ = [
    "Analysis", "CannotRun", "StreamFailed", "DEFAULT_TIME_LIMIT", "Checked", "FORMATS", "Format", "RESPONSE_SCHEMA", "RESPONSE_TEMPLATE", "TRAP_DROPPED", "TRAP_OVERWRITTEN",
    "by_name", "by_noun", "other_format", "format_of", "interrupt", "format_of_file", "format_of_text", "reading_notes",
]
