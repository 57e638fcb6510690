"""The trace: what each schema node received, what its regexes matched, and what it gave back.

One ``Trace`` flows from the engine to every consumer (CLI ``--trace``, the TUI panes). All spans
are absolute ``(start, end)`` offsets into the raw output text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator, Optional

from ..spans import MISSING, Group, RegexMatch, Span, build_match  # noqa: F401 - the trace's vocabulary, shared with the template engine
from .json_spans import member_spans

# How a node's input relates to the raw text:
RAW = "raw"  # the input is exactly text[start:end] (``span`` is set)
JSON = "json"  # the input was parsed from JSON: from the text at ``source_span`` once located
DERIVED = "derived"  # rewritten (substitutions, gemma4 conversion, jmespath); ``source_span`` is
#                      the nearest raw text it came from
STRUCTURED = "structured"  # a dict or list built from regex groups; ``source_span`` is the match
NONE = "none"  # the node got None (its parent had nothing for it) or is a const


@dataclass(slots=True, eq=False)
class TraceNode:
    path: str  # JSON pointer of the schema node
    schema: Any
    key: str | int | None  # the property name or item index this node fills in its parent
    via: str | None  # how the parent produced this node's input, e.g. "x-regex group 'content'"
    input_kind: str = NONE
    span: Optional[Span] = None  # set only when input_kind is RAW
    source_span: Optional[Span] = None  # nearest raw text the input came from
    # Raw matches as (key, index, match, base offset or None, substitution index); turned into
    # RegexMatch objects only when someone reads ``matches``, so tracing stays cheap.
    # ``found`` and ``children`` stay the shared empty tuple until the first entry (most nodes are
    # leaves): a trace of a large output holds tens of thousands of nodes, and two lists for each
    # would be as many objects to allocate and for the cycle collector to scan.
    found: list | tuple = field(default=(), repr=False)
    children: list["TraceNode"] | tuple = ()
    value: Any = MISSING
    error: str | None = None
    no_match: str | None = None  # the x- key that found nothing, when that ended the node
    # For a JSON member not located yet: (start, end, keys, key), the JSON text holding it and
    # the keys leading to it; or (start, end, keys) when the last key is the node's own ``key``
    # (the members of one object share that tuple: one object less per member). No links between nodes but parent -> child, so a dropped tree is freed
    # at once by reference counting rather than left for the cycle collector.
    json_origin: Optional[tuple] = None
    _matches: Optional[list[RegexMatch]] = field(default=None, repr=False)

    @property
    def matches(self) -> list[RegexMatch]:
        if self._matches is None or len(self._matches) != len(self.found):
            self._matches = [build_match(*found) for found in self.found]
        return self._matches

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
    members: dict = field(default_factory=dict, repr=False)  # (start, end) -> member spans
    _index: Optional[dict] = field(default=None, repr=False)

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
        return self.index().get(path, [])

    def index(self) -> dict[str, list[TraceNode]]:
        """Schema path -> its visits, built once (callers off the UI thread can build it early)."""
        if self._index is None:
            index: dict[str, list[TraceNode]] = {}
            for node in self.root.walk():
                index.setdefault(node.path, []).append(node)
            self._index = index
        return self._index

    def set_index(self, index: dict[str, list[TraceNode]]) -> None:
        """Use an index built elsewhere (subtree_memo.SubtreeMemo reuses parts of earlier ones)."""
        self._index = index

    def locate(self, node: TraceNode) -> Optional[Span]:
        """The node's exact source span, locating JSON members on demand."""
        locate(self.text, node, self.members)
        return node.source_span

    def locate_all(self) -> "Trace":
        for node in self.root.walk():
            locate(self.text, node, self.members)
        return self


def locate(text: str, node: TraceNode, cache: dict) -> None:
    """Find where a JSON member node's value stands in the raw text."""
    if node.json_origin is None:
        return
    origin = node.json_origin
    node.json_origin = None
    if len(origin) == 4:
        start, end, keys, last = origin
    else:
        (start, end, keys), last = origin, node.key
    for key in keys + (last,):
        spans = cache.get((start, end))
        if spans is None:
            spans = cache[(start, end)] = member_spans(text, start, end) or {}
        try:
            start, end = spans[key]
        except (KeyError, IndexError, TypeError):
            return
    node.source_span = (start, end)
    if text[start] == '"' and isinstance(node_input := _string_input(node), str) and text[start + 1 : end - 1] == node_input:
        node.input_kind = RAW  # a JSON string without escapes is a raw slice after all
        node.span = node.source_span = (start + 1, end - 1)


def _string_input(node: TraceNode) -> Any:
    """The decoded string a JSON member node received (its value, for a plain string node)."""
    schema = node.schema if isinstance(node.schema, dict) else {}
    if any(k.startswith("x-") for k in schema if isinstance(k, str)) or "const" in schema:
        return None
    return node.value if isinstance(node.value, str) else None
