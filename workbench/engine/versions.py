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

SCHEMA, TEMPLATE = "response_schema", "response_template"
from .releases import NEWEST_MINOR as NEWEST  # the newest release these facts were checked on


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
        ((5, 3), (5, 14)),
        "5.0–5.2 do not load it from tokenizer_config.json; 5.15 and later drop it silently",
    )
    for pointer, node in _walk(schema):
        if isinstance(node, dict) and node.get("x-parser") == "gemma4-tool-call":
            releases.narrowings.append(
                Narrowing(pointer + "/x-parser", (5, 5), None, "the gemma4-tool-call parser exists from 5.5")
            )
    return releases


_DOTTED = re.compile(r"\{\w+(?:\.\w+)+\}")


# `transformers serve` shows reasoning from the first of these fields present (docs/response-template.md#fallback-templates).
SERVE_REASONING = ("reasoning_content", "thinking", "reasoning")
_REASONING_LIKE = re.compile(r"reason|think|thought", re.IGNORECASE)


def tools_narrowing() -> Narrowing:
    """Passing ``tools=`` (``parse --tools``): the runtime call, not the file, narrows the range."""
    return Narrowing(
        "tools=", (5, 20), None,
        "tools= exists from 5.15 (5.13–5.14 raise TypeError); its casting gives this result from 5.20 "
        "(oneOf and array types from 5.18, \"3.0\" to an integer from 5.20)",
    )


def template_releases(template: Any) -> Releases:
    releases = Releases(TEMPLATE, ((5, 13), None), "introduced in 5.13; the only format 5.15 and later read")
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
                Narrowing(at + "/join", (5, 16), None, "'join' exists from 5.16 (5.13–5.15 reject the template)")
            )
        for pointer, text in _strings(spec.get("transform"), at + "/transform"):
            if _DOTTED.fullmatch(text):
                releases.narrowings.append(
                    Narrowing(pointer, (5, 16), None,
                              f"the dotted placeholder {text} is resolved from 5.16; 5.13–5.15 keep it as a literal string")
                )
    defaults = template.get("defaults")
    if isinstance(defaults, dict):
        for key, value in defaults.items():
            spec = fields.get(key)
            if isinstance(value, (list, dict)) and isinstance(spec, dict) and spec.get("repeats"):
                releases.narrowings.append(
                    Narrowing(f"/defaults/{escape(key)}", (5, 21), None,
                              "before 5.21 this list default is shared between parses: each parse appends to the last one's")
                )
    _since_5_24(template, fields, releases)
    return releases


# A delimiter regex whose match can lean on where the text so far ends (end anchors, a look-ahead
# for "nothing more", \K, reverse or fuzzy matching): 5.24 holds such a match back while streaming.
_END_DEPENDENT = re.compile(r"(?<!\\)\$|\\[ZzK]|\(\?!\.\)|\(\?[a-zA-Z]*r|\{[^}]*[edis]<")


def _since_5_24(template: dict, fields: dict, releases: Releases) -> None:
    for pointer, node in _walk(template):
        if pointer.endswith("/content") and node == "python-call-list" or (
            pointer.endswith("/value_parser/name") and node == "python-call-list"
        ):
            releases.narrowings.append(Narrowing(
                pointer, (5, 24), None, "the python-call-list parser exists from 5.24 (5.13–5.23 refuse the template)"))
        elif pointer.endswith("/content_args/unquoted_keys") and node is True:
            releases.splits.append(Narrowing(
                pointer, (5, 24), None,
                "5.24 also quotes bare keys with whitespace around them ({a: 1, b: 2}) and never inside a quoted "
                "string; 5.13–5.23 fail on the first and rewrite the second"))
        elif pointer.endswith("/content_args/merge_duplicates") and node is True:
            releases.splits.append(Narrowing(
                pointer, (5, 24), None,
                "a repeated key whose first value is a list: 5.24 wraps it ([[1, 2], 3]), 5.13–5.23 extend it ([1, 2, 3])"))
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
                    at + "/close_pattern", (5, 24), None,
                    f"the transform uses the closer's named group(s) {sorted(groups & used)}, placeholders from 5.24 "
                    "(5.13–5.23 raise KeyError when the closer matches)"))
            elif groups:
                releases.splits.append(Narrowing(
                    at + "/close_pattern", (5, 24), None,
                    "the closer's named groups are placeholders from 5.24: they win over the opener's of the same name, "
                    "and the unknown-placeholder error lists them"))
        for key in ("open_pattern", "close_pattern"):
            pattern = spec.get(key)
            if isinstance(pattern, str) and _END_DEPENDENT.search(pattern):
                releases.splits.append(Narrowing(
                    f"{at}/{key}", (5, 24), None,
                    "its match can depend on where the text ends ($, \\Z, \\K, a look-ahead for the end): 5.24 holds "
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
