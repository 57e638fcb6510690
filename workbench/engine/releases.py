"""The transformers releases whose ``response_template`` engine the workbench runs, and what each
one changed (docs/response-template.md#release-differences). One table, ``CHANGES``: every behaviour that
differs between releases is named here with the first release that has it, and the engine asks
``release.has(name)`` where it behaves differently. Every other part of the engine is the same in
every release from 5.13 on (the chat-parsing sources were compared release by release).

A release is named by its minor version ("5.23"; "5.23.0" and "5.23.1" mean the same): patch
releases never changed chat parsing.

This is the one place a release is written down (tests/test_one_table_of_releases.py): the rest of the
workbench asks ``release_of_change(name)``, ``NEWEST`` and the facts below, and words its messages
from them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Change:
    name: str
    since: tuple[int, int]
    what: str  # what the release does, in one line
    before: str  # what the releases before it did
    label: str = ""  # a few words, for a list of changes


CHANGES: tuple[Change, ...] = (
    Change("tools", (5, 15), "parse_response(tools=...) casts tool-call arguments to the declared types",
           "TypeError: tools= is an unexpected keyword argument",
           label="tools= casting"),
    Change("join", (5, 16), "the field key 'join' joins a repeated field's strings",
           "the template is refused: unknown key 'join'",
           label="join"),
    Change("dotted_placeholders", (5, 16), "a placeholder {content.name} reads a key of the value",
           "kept as literal text",
           label="dotted placeholders"),
    Change("tools_one_of", (5, 18), "tools= reads oneOf choices and leaves a list argument of an array type whole",
           "anyOf only; every string in a list argument is cast",
           label="oneOf in tools="),
    Change("tools_whole_floats", (5, 20), "tools= casts \"3.0\" to the integer 3",
           "\"3.0\" stays a string for an integer parameter",
           label="\"3.0\" as an integer"),
    Change("fresh_defaults", (5, 21), "each parse starts from a fresh copy of 'defaults'",
           "a list in 'defaults' is shared: a repeated field appends to it, and the next parse with the same "
           "template sees those items",
           label="fresh defaults per parse"),
    Change("python_call_list", (5, 24), "the content parser python-call-list reads [name(key=value, ...), ...]",
           "the template is refused: unknown content parser 'python-call-list'",
           label="python-call-list"),
    Change("json_keys_spaced", (5, 24),
           "json unquoted_keys quotes a bare key with whitespace around it and leaves quoted strings alone",
           "only a word right after '{' or ',' and right before ':' is quoted, inside strings too",
           label="spaced json keys"),
    Change("merge_wraps_lists", (5, 24), "xml-inline merge_duplicates wraps the first value in a list even when it is a list",
           "a first value that is a list is extended",
           label="merge wraps lists"),
    Change("close_captures", (5, 24), "named groups of a close_pattern join the transform's placeholders",
           "only the opener's named groups are placeholders",
           label="closer groups as placeholders"),
    Change("hold_regex_matches", (5, 24),
           "while streaming, a regex delimiter match that could change with more text is held back "
           "(also when it ends before the end of the text so far)",
           "a match that ends before the end of the text so far is acted on at once",
           label="regex matches held back"),
)
_SINCE = {change.name: change.since for change in CHANGES}

OLDEST_MINOR, NEWEST_MINOR = (5, 13), (5, 24)

# What the releases read of a tokenizer folder (docs/response-template.md#releases-at-a-glance):
# before SCHEMA_MINORS neither key; response_schema from 5.3 to 5.14, response_template from
# OLDEST_MINOR (preferred when both are there); from SCHEMA_DROPPED on the template only, as
# tokenizers drop response_schema when they load.
FIRST_MINOR = (5, 0)  # the first release of the line these facts cover
SCHEMA_MINORS = ((5, 3), (5, 14))
SCHEMA_DROPPED = (5, 15)
# The response_schema parsers a release added after SCHEMA_MINORS[0] (docs/response-schema.md).
SCHEMA_PARSER_SINCE = {"gemma4-tool-call": (5, 5)}
# The release whose chat parsing vLLM 0.33 carries a copy of (engine/template/serving.py).
VLLM_MINOR = (5, 23)
# The transformers versions ``export --verify`` installs (jobs/verify.py): the last that reads
# response_schema, and from SCHEMA_DROPPED on one in each run of releases that behave alike
# (``behaviours()``; formats/tokenizer_reads.py picks the one inside each run).
CHECKED_VERSIONS = ("5.14.1", "5.15.0", "5.16.0", "5.18.0", "5.20.0", "5.23.0", "5.24.0")


@dataclass(frozen=True, order=True)
class Release:
    """A transformers release's ``response_template`` behaviour, by its minor version."""

    minor: tuple[int, int]

    def has(self, change: str) -> bool:
        return self.minor >= _SINCE[change]

    def __str__(self) -> str:
        return f"{self.minor[0]}.{self.minor[1]}"


OLDEST, NEWEST = Release(OLDEST_MINOR), Release(NEWEST_MINOR)
VLLM_PARSES_AS = Release(VLLM_MINOR)
# The first and last releases that read response_schema, and the first that reads the template only.
SCHEMA_FROM, SCHEMA_UNTIL, TEMPLATE_ONLY = (Release(minor) for minor in (*SCHEMA_MINORS, SCHEMA_DROPPED))


def release_of_change(name: str) -> Release:
    """The first release that has the change ``name`` (a row of ``CHANGES``)."""
    return Release(_SINCE[name])


def just_before(minor: tuple[int, int]) -> Release:
    """The release before ``minor`` in its major line (5.12 for 5.13)."""
    return Release((minor[0], minor[1] - 1))


def before(change: str, first: Release = OLDEST) -> str:
    """The releases from ``first`` to the last without ``change``, for a message: "5.13–5.15"."""
    return span(first, just_before(_SINCE[change]))
# ASCII digits, no leading zeros (a release is 5.23, never 5.023); a patch, pre- or post-release
# suffix names the same minor release.
_NAME = re.compile(r"([1-9][0-9]*|0)\.([1-9][0-9]*|0)(?:\.[0-9]+(?:\.?(?:post|rc|dev)[0-9]*)?)?")


class UnknownRelease(ValueError):
    pass


def release(value: Any = None) -> Release:
    """``None`` (the newest), a ``Release``, or a release name such as "5.23" or "5.23.0"."""
    if value is None:
        return NEWEST
    if isinstance(value, Release):
        return value
    minor = minor_of(value)
    if minor < OLDEST_MINOR:
        raise UnknownRelease(
            f"transformers {minor[0]}.{minor[1]} has no response_template engine (it exists from {OLDEST})"
        )
    if minor > NEWEST_MINOR:
        raise UnknownRelease(
            f"transformers {minor[0]}.{minor[1]} is newer than the newest release the workbench knows ({NEWEST}); "
            "see the README on adding a release"
        )
    return Release(minor)


def minor_of(value: Any) -> tuple[int, int]:
    """The (major, minor) a release name ("5.23", "5.23.0") names, any release; ``UnknownRelease``
    for anything else."""
    found = _NAME.fullmatch(value.strip()) if isinstance(value, str) else None
    if found is None:
        raise UnknownRelease(f"{value!r} is not a transformers release (write it as 5.23 or 5.23.0)")
    return int(found[1]), int(found[2])


def all_releases() -> list[Release]:
    return [Release((5, minor)) for minor in range(OLDEST_MINOR[1], NEWEST_MINOR[1] + 1)]


def behaviours() -> list[tuple[Release, Release]]:
    """The runs of releases that behave the same, oldest first: (first, last) of each."""
    starts = sorted({OLDEST_MINOR, *(since for since in _SINCE.values())})
    runs = []
    for index, start in enumerate(starts):
        end = (starts[index + 1][0], starts[index + 1][1] - 1) if index + 1 < len(starts) else NEWEST_MINOR
        runs.append((Release(start), Release(end)))
    return runs


def span(first: Release, last: Release) -> str:
    return str(first) if first == last else f"{first}–{last}"


def changes_between(older: Release, newer: Release) -> list[Change]:
    """The changes a user moving from ``older`` to ``newer`` meets."""
    return [change for change in CHANGES if older.minor < change.since <= newer.minor]
