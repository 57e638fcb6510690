"""Which transformers releases read a parser file, and which give the same result.

Facts from docs/response-template.md#release-differences and #releases-at-a-glance (each run on every release
5.0–5.23) and docs/response-schema.md. A format has the releases that read it; a feature the file uses can narrow that
range to the releases that give the same result, and each such narrowing is reported with the
key that causes it, so a maintainer knows which users a choice leaves behind.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .pointer import escape
from .releases import FIRST_MINOR, OLDEST, OLDEST_MINOR, SCHEMA_DROPPED, SCHEMA_MINORS, SCHEMA_PARSER_SINCE, Release
from .releases import NEWEST_MINOR as NEWEST  # the newest release these facts were checked on
from .releases import before, just_before, release_of_change
from .releases import span as _span

SCHEMA, TEMPLATE = "response_schema", "response_template"


def _since(change: str) -> tuple[int, int]:
    return release_of_change(change).minor


@dataclass(frozen=True)
class Narrowing:
    pointer: str  # the key that narrows the range
    since: tuple[int, int] | None  # first release that gives the same result (None: no lower bound)
    until: tuple[int, int] | None  # last release that does (None: every release checked)
    why: str


@dataclass
class Releases:
    """The releases that read a file (``reads``) and, after every narrowing, give the result this
    workbench shows (``same``)."""

    format: str
    reads: tuple[tuple[int, int], tuple[int, int] | None]
    why: str
    narrowings: list[Narrowing] = field(default_factory=list)
    # Keys whose result may change at a release on some outputs, not all (``since``: the release
    # that changed it): the release matrix on samples says whether it does on them.
    splits: list[Narrowing] = field(default_factory=list)
    notes: list[tuple[str, str]] = field(default_factory=list)  # (pointer, why): not about releases
    served: bool | None = None  # for a template: whether vLLM serves it (engine/template/serving.py; None: not asked)

    @property
    def same(self) -> tuple[tuple[int, int], tuple[int, int] | None]:
        low, high = self.reads
        for n in self.narrowings:
            if n.since is not None and n.since > low:
                low = n.since
            if n.until is not None and (high is None or n.until < high):
                high = n.until
        return low, high

    def describe(self) -> list[str]:
        lines = [f"{self.format}: read by transformers {span(self.reads)} ({self.why})"]
        low, high = self.same
        if (low, high) != self.reads:
            lines.append(f"same result on transformers {span((low, high))} only:")
        lines += [f"  {n.pointer or '/'}: {n.why}" for n in self.narrowings]
        for since in sorted({n.since for n in self.splits}):
            before = f"{self.reads[0][0]}.{self.reads[0][1]}–{since[0]}.{since[1] - 1}"
            lines.append(f"release split at {since[0]}.{since[1]}: some outputs parse differently in {before} "
                         f"and in {since[0]}.{since[1]}:")
            lines += [f"  {n.pointer or '/'}: {n.why}" for n in self.splits if n.since == since]
        lines += [f"note: {pointer or '/'}: {why}" for pointer, why in self.notes]
        return lines


def span(bounds: tuple[tuple[int, int], tuple[int, int] | None]) -> str:
    low, high = bounds
    start = f"{low[0]}.{low[1]}"
    if high is None:
        return f"{start} and later (checked to {NEWEST[0]}.{NEWEST[1]})"
    return f"{start}–{high[0]}.{high[1]}" if high != low else start


def schema_releases(schema: Any) -> Releases:
    releases = Releases(
        SCHEMA,
        SCHEMA_MINORS,
        f"{_span(Release(FIRST_MINOR), just_before(SCHEMA_MINORS[0]))} do not load it from tokenizer_config.json; "
        f"{Release(SCHEMA_DROPPED)} and later drop it silently",
    )
    for pointer, node in _walk(schema):
        if isinstance(node, dict) and node.get("x-parser") in SCHEMA_PARSER_SINCE:
            name = node["x-parser"]
            since = SCHEMA_PARSER_SINCE[name]
            releases.narrowings.append(
                Narrowing(pointer + "/x-parser", since, None, f"the {name} parser exists from {Release(since)}")
            )
    return releases


_DOTTED = re.compile(r"\{\w+(?:\.\w+)+\}")


# `transformers serve` shows reasoning from the first of these fields present (docs/response-template.md#fallback-templates).
SERVE_REASONING = ("reasoning_content", "thinking", "reasoning")
_REASONING_LIKE = re.compile(r"reason|think|thought", re.IGNORECASE)


def tools_narrowing() -> Narrowing:
    """Passing ``tools=`` (``parse --tools``): the runtime call, not the file, narrows the range."""
    tools, one_of, floats = (release_of_change(name) for name in ("tools", "tools_one_of", "tools_whole_floats"))
    newest = max(tools, one_of, floats)
    return Narrowing(
        "tools=", newest.minor, None,
        f"tools= exists from {tools} ({before('tools')} raise TypeError); its casting gives this result from {newest} "
        f"(oneOf and array types from {one_of}, \"3.0\" to an integer from {floats})",
    )


def template_releases(template: Any) -> Releases:
    releases = Releases(TEMPLATE, (OLDEST_MINOR, None),
                        f"introduced in {OLDEST}; the only format {Release(SCHEMA_DROPPED)} and later read")
    if not isinstance(template, dict):
        return releases
    fields = template.get("fields") if isinstance(template.get("fields"), dict) else {}
    for name, spec in fields.items():
        if not isinstance(spec, dict):
            continue
        at = f"/fields/{escape(name)}"
        if _REASONING_LIKE.search(name) and name not in SERVE_REASONING:
            releases.notes.append(
                (at, f"`transformers serve` shows reasoning only from a field named {', '.join(SERVE_REASONING)}; "
                     f"it passes '{name}' on as an ordinary message key")
            )
        if "join" in spec:
            releases.narrowings.append(
                Narrowing(at + "/join", _since("join"), None,
                          f"'join' exists from {release_of_change('join')} ({before('join')} reject the template)")
            )
        for pointer, text in _strings(spec.get("transform"), at + "/transform"):
            if _DOTTED.fullmatch(text):
                releases.narrowings.append(
                    Narrowing(pointer, _since("dotted_placeholders"), None,
                              f"the dotted placeholder {text} is resolved from {release_of_change('dotted_placeholders')}; "
                              f"{before('dotted_placeholders')} keep it as a literal string")
                )
    defaults = template.get("defaults")
    if isinstance(defaults, dict):
        for key, value in defaults.items():
            spec = fields.get(key)
            if isinstance(value, (list, dict)) and isinstance(spec, dict) and spec.get("repeats"):
                releases.narrowings.append(
                    Narrowing(f"/defaults/{escape(key)}", _since("fresh_defaults"), None,
                              f"before {release_of_change('fresh_defaults')} this list default is shared between parses: "
                              "each parse appends to the last one's")
                )
    _later_changes(template, fields, releases)
    return releases


# A delimiter regex whose match can lean on where the text so far ends (end anchors, a look-ahead
# for "nothing more", \K, reverse or fuzzy matching): hold_regex_matches holds such a match back while streaming.
_END_DEPENDENT = re.compile(r"(?<!\\)\$|\\[ZzK]|\(\?!\.\)|\(\?[a-zA-Z]*r|\{[^}]*[edis]<")


def _later_changes(template: dict, fields: dict, releases: Releases) -> None:
    """The changes of CHANGES from python_call_list on, each where the template meets it."""
    calls, spaced, merge, captures, held = (
        release_of_change(name)
        for name in ("python_call_list", "json_keys_spaced", "merge_wraps_lists", "close_captures", "hold_regex_matches"))
    for pointer, node in _walk(template):
        if pointer.endswith("/content") and node == "python-call-list" or (
            pointer.endswith("/value_parser/name") and node == "python-call-list"
        ):
            releases.narrowings.append(Narrowing(
                pointer, calls.minor, None,
                f"the python-call-list parser exists from {calls} ({before('python_call_list')} refuse the template)"))
        elif pointer.endswith("/content_args/unquoted_keys") and node is True:
            releases.splits.append(Narrowing(
                pointer, spaced.minor, None,
                f"{spaced} also quotes bare keys with whitespace around them ({{a: 1, b: 2}}) and never inside a quoted "
                f"string; {before('json_keys_spaced')} fail on the first and rewrite the second"))
        elif pointer.endswith("/content_args/merge_duplicates") and node is True:
            releases.splits.append(Narrowing(
                pointer, merge.minor, None,
                f"a repeated key whose first value is a list: {merge} wraps it ([[1, 2], 3]), "
                f"{before('merge_wraps_lists')} extend it ([1, 2, 3])"))
    for name, spec in fields.items():
        if not isinstance(spec, dict):
            continue
        at = f"/fields/{escape(name)}"
        closer = spec.get("close_pattern")
        if isinstance(closer, str) and spec.get("transform") is not None:
            try:
                groups = set(re.compile(closer).groupindex)
            except re.error:
                groups = set()
            used = {text[1:-1] for _, text in _strings(spec.get("transform"), at + "/transform")
                    if text.startswith("{") and text.endswith("}")}
            if groups & used:
                releases.narrowings.append(Narrowing(
                    at + "/close_pattern", captures.minor, None,
                    f"the transform uses the closer's named group(s) {sorted(groups & used)}, placeholders from {captures} "
                    f"({before('close_captures')} raise KeyError when the closer matches)"))
            elif groups:
                releases.splits.append(Narrowing(
                    at + "/close_pattern", captures.minor, None,
                    f"the closer's named groups are placeholders from {captures}: they win over the opener's of the same "
                    "name, and the unknown-placeholder error lists them"))
        for key in ("open_pattern", "close_pattern"):
            pattern = spec.get(key)
            if isinstance(pattern, str) and _END_DEPENDENT.search(pattern):
                releases.splits.append(Narrowing(
                    f"{at}/{key}", held.minor, None,
                    f"its match can depend on where the text ends ($, \\Z, \\K, a look-ahead for the end): {held} holds "
                    "it back until more text decides, which moves events while streaming and, at the end of a "
                    "prompt or with \\K, changes one-shot results"))


def _walk(node: Any, pointer: str = ""):
    yield pointer, node
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _walk(value, f"{pointer}/{escape(key)}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _walk(value, f"{pointer}/{i}")


def _strings(node: Any, pointer: str):
    for at, value in _walk(node, pointer):
        if isinstance(value, str):
            yield at, value
