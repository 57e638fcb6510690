"""The trace: what each schema node received, what its regexes matched, and what it gave back.

One ``Trace`` flows from the engine to every consumer (CLI ``--trace``, the TUI panes). All spans
are absolute ``(start, end)`` offsets into the raw output text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator, Optional

Span = tuple[int, int]

# How a node's input relates to the raw text:
RAW = "raw"  # the input is exactly text[start:end] (``span`` is set)
JSON = "json"  # the input was parsed from the JSON text at ``source_span``
DERIVED = "derived"  # rewritten (substitutions, gemma4 conversion, jmespath); ``source_span`` is
#                      the nearest raw text it came from
STRUCTURED = "structured"  # a dict or list built from regex groups; ``source_span`` is the match
NONE = "none"  # the node got None (its parent had nothing for it) or is a const


class _Missing:
    def __repr__(self) -> str:
        return "<no value>"


MISSING: Any = _Missing()


@dataclass(slots=True)
class Group:
    """One capture group of a match. ``span`` is None when the group did not take part, or when
    the text searched was not raw (then ``relative`` holds offsets into that text)."""

    name: str | int
    span: Optional[Span]
    relative: Optional[Span] = None


@dataclass(slots=True)
class RegexMatch:
    """One match of one ``x-`` key. ``index`` counts iterator/key-value/substitution matches."""

    key: str
    index: int
    span: Optional[Span]
    groups: list[Group]
    relative: Optional[Span] = None
    substitution: int | None = None  # which entry of x-regex-substitutions


@dataclass(slots=True, eq=False)
class TraceNode:
    path: str  # JSON pointer of the schema node
    schema: Any
    key: str | int | None  # the property name or item index this node fills in its parent
    via: str | None  # how the parent produced this node's input, e.g. "x-regex group 'content'"
    input_kind: str = NONE
    span: Optional[Span] = None  # set only when input_kind is RAW
    source_span: Optional[Span] = None  # nearest raw text the input came from
    matches: list[RegexMatch] = field(default_factory=list)
    children: list["TraceNode"] = field(default_factory=list)
    value: Any = MISSING
    error: str | None = None
    no_match: str | None = None  # the x- key that found nothing, when that ended the node

    def walk(self) -> Iterator["TraceNode"]:
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def to_dict(self) -> dict:
        """A JSON-ready view (for ``workbench parse --trace``)."""
        out: dict[str, Any] = {"path": self.path or "/"}
        if self.key is not None:
            out["key"] = self.key
        if self.via:
            out["via"] = self.via
        out["input"] = self.input_kind
        if self.span is not None:
            out["span"] = list(self.span)
        elif self.source_span is not None:
            out["source_span"] = list(self.source_span)
        if self.matches:
            out["matches"] = [_match_dict(m) for m in self.matches]
        if self.no_match:
            out["no_match"] = self.no_match
        if self.error is not None:
            out["error"] = self.error
        elif self.value is not MISSING:
            out["value"] = self.value
        if self.children:
            out["children"] = [c.to_dict() for c in self.children]
        return out


def _match_dict(m: RegexMatch) -> dict:
    out: dict[str, Any] = {"key": m.key, "index": m.index}
    if m.substitution is not None:
        out["substitution"] = m.substitution
    if m.span is not None:
        out["span"] = list(m.span)
    elif m.relative is not None:
        out["relative_span"] = list(m.relative)
    out["groups"] = {
        str(g.name): (list(g.span) if g.span else list(g.relative) if g.relative else None) for g in m.groups
    }
    return out


@dataclass(slots=True)
class Trace:
    """The result of ``trace()``: the value (as ``parse_response`` gives it) or the error, and the tree."""

    text: str
    root: TraceNode
    value: Any = None
    error: Exception | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def error_path(self) -> str | None:
        return getattr(self.error, "path", None) if self.error is not None else None

    def nodes(self) -> Iterator[TraceNode]:
        return self.root.walk()

    def nodes_at(self, path: str) -> list[TraceNode]:
        """Every visit of one schema node (an ``items`` node is visited once per item)."""
        return [n for n in self.root.walk() if n.path == path]
