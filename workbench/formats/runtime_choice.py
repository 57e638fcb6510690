"""The one place that turns a user's ``--runtime VERSION`` (the CLI's option, the TUI's picker) into
what each format runs. No UI imports: the CLI and the TUI both call it.

- A ``response_template`` runs the template engine as that release runs it (5.13–5.24,
  ``engine.releases``; default the newest).
- A ``response_schema`` is read by transformers 5.3–5.14 only, and every one of them runs it as
  5.14.1's ``recursive_parse`` does (what the schema engine reproduces); the one difference is the
  ``gemma4-tool-call`` x-parser, which exists from 5.5. 5.15 and later do not read it: such a
  runtime is refused, with a sentence saying so, never emulated.

Every refusal is a ``RuntimeRefused`` or ``UnknownRelease`` (both ``ValueError``) with a one-line,
user-facing message.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..engine.releases import (NEWEST, NEWEST_MINOR, OLDEST, SCHEMA_FROM, SCHEMA_MINORS, SCHEMA_UNTIL, TEMPLATE_ONLY, Release,
                                UnknownRelease, minor_of, release, span)
from ..engine.versions import SCHEMA, TEMPLATE, schema_releases

SCHEMA_OLDEST, SCHEMA_NEWEST = SCHEMA_MINORS
_SCHEMA_SPAN = span(SCHEMA_FROM, SCHEMA_UNTIL)  # "5.3–5.14", for messages
RUNTIME_HELP = (
    f"The transformers release to behave as ({span(OLDEST, NEWEST)} for a response_template, default the newest, "
    f"{NEWEST}; {_SCHEMA_SPAN} for a response_schema, default {SCHEMA_UNTIL}). The README's release table says what "
    "each changed."
)


class RuntimeRefused(ValueError):
    """A release that exists but does not run this format (a schema under 5.15 and later)."""


@dataclass(frozen=True)
class Runtime:
    """What a parser file runs as: its format and the release (``minor``). ``release`` is the
    template engine's ``Release`` (None for a schema, whose engine has one behaviour)."""

    format: str
    minor: tuple[int, int]

    @property
    def release(self) -> Release | None:
        return Release(self.minor) if self.format == TEMPLATE else None

    def __str__(self) -> str:
        return f"{self.minor[0]}.{self.minor[1]}"

    def describe(self) -> str:
        return f"transformers {self}"


def _name(minor: tuple[int, int]) -> str:
    return f"{minor[0]}.{minor[1]}"


def schema_runtime(value: Any = None, schema: Any = None) -> Runtime:
    """The release a response_schema runs as for ``--runtime value`` (None: 5.14). With the schema,
    a ``gemma4-tool-call`` x-parser under 5.3–5.4 (which lack it) is refused too."""
    if value is None:
        return Runtime(SCHEMA, SCHEMA_NEWEST)
    minor = minor_of(value)
    if minor > NEWEST_MINOR:
        release(value)  # raises the one message for a release newer than the workbench knows
    if minor > SCHEMA_NEWEST:
        raise RuntimeRefused(
            f"transformers {TEMPLATE_ONLY} and later do not read response_schema ({_SCHEMA_SPAN} do): give --runtime "
            f"{_SCHEMA_SPAN} for a schema, or migrate it to a response_template ('workbench migrate')"
        )
    if minor < SCHEMA_OLDEST:
        raise RuntimeRefused(
            f"transformers {_name(minor)} does not load response_schema from a tokenizer ({_SCHEMA_SPAN} do); "
            f"give --runtime {_SCHEMA_SPAN} for a schema"
        )
    if schema is not None:
        for narrowing in schema_releases(schema).narrowings:
            if narrowing.since is not None and minor < narrowing.since:
                raise RuntimeRefused(f"transformers {_name(minor)} cannot run this schema: {narrowing.pointer}: {narrowing.why}")
    return Runtime(SCHEMA, minor)


def template_runtime(value: Any = None) -> Runtime:
    """The release a response_template runs as for ``--runtime value`` (None: the newest)."""
    return Runtime(TEMPLATE, release(value).minor)


def runtime_for(fmt: str, value: Any = None, parser: Any = None) -> Runtime:
    """What a parser file of format ``fmt`` runs as under ``--runtime value``."""
    if fmt == TEMPLATE:
        return template_runtime(value)
    return schema_runtime(value, parser)


def check_name(value: Any) -> None:
    """``UnknownRelease`` unless ``value`` (not None) names some release the workbench knows of in
    either format (5.3–5.24): for commands that run both formats, before they read a file."""
    if value is None:
        return
    minor = minor_of(value)
    if minor > NEWEST_MINOR:
        release(value)
    if minor < SCHEMA_OLDEST:
        raise UnknownRelease(f"transformers {_name(minor)} reads neither response_schema ({_SCHEMA_SPAN} do, from a "
                             f"tokenizer) nor response_template ({OLDEST} and later)")


def runtimes_for_both(value: Any = None) -> tuple[dict[str, Runtime], list[str]]:
    """For a command that runs both formats (``check``): what each format runs as under
    ``--runtime value``, and, for a format that release does not read, a note saying it is left
    out (that format is then missing from the mapping). ``UnknownRelease`` for a name that is no
    release the workbench knows in either format."""
    if value is None:
        return {SCHEMA: schema_runtime(), TEMPLATE: template_runtime()}, []
    check_name(value)
    runtimes, notes = {}, []
    try:
        runtimes[TEMPLATE] = template_runtime(value)
    except UnknownRelease as exc:
        notes.append(f"response templates not checked: {exc}")
    try:
        runtimes[SCHEMA] = schema_runtime(value)
    except RuntimeRefused as exc:
        notes.append(f"response schemas not checked: {exc}")
    return runtimes, notes


__all__ = [
    "NEWEST", "RUNTIME_HELP", "Runtime", "RuntimeRefused", "UnknownRelease", "SCHEMA_NEWEST", "SCHEMA_OLDEST",
    "check_name", "runtime_for", "runtimes_for_both", "schema_runtime", "template_runtime",
]
