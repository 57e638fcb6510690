"""Which spans of the raw output to colour, and how: the trace turned into disjoint runs that a
view paints line by line. One field (top-level property) per colour; the kind says how strongly.
"""

from __future__ import annotations

from typing import Iterable

from ..paint import (
    GROUP, ITEM, ITEM_ALT, ITEM_GROUP, ITEM_GROUP_ALT, MATCH, NO_FIELD, PAIR, PAIR_GROUP, SUBSTITUTION, VALUE, VALUE_ALT, Paint,
)
from .trace_tree import RAW, Trace, TraceNode
from ..spans import Span

_STAGE = {
    "x-regex-substitutions": ((SUBSTITUTION, SUBSTITUTION), (SUBSTITUTION, SUBSTITUTION)),
    "x-regex": ((MATCH, GROUP), (MATCH, GROUP)),
    "x-regex-iterator": ((ITEM, ITEM_GROUP), (ITEM_ALT, ITEM_GROUP_ALT)),
    "x-regex-key-value": ((PAIR, PAIR_GROUP), (PAIR, PAIR_GROUP)),
}


def node_paints(node: TraceNode, field: int, alt: bool = False) -> Iterable[tuple]:
    """What one trace node contributes: the slice it was handed, its matches and their groups.
    ``alt``: the node lies inside an odd iterator match, so its value takes the other shade.
    Plain (start, end, field, kind) tuples: a 2 MB trace has ~200,000, and a Paint costs several
    times as much to make."""
    if node.input_kind == RAW and node.via is not None and node.span is not None:
        yield (*node.span, field, VALUE_ALT if alt else VALUE)
    found = node.found
    if found and type(found[0]) is not tuple:  # RegexMatch objects (a node that crossed to the UI)
        found = [(m.key, m.index, m) for m in found]
    for entry in found:
        key, index, m = entry[0], entry[1], entry[2]
        if len(entry) == 3:  # a RegexMatch
            if m.span is None:
                continue
            match_kind, group_kind = _STAGE[key][key == "x-regex-iterator" and index % 2 == 1]
            yield (*m.span, field, match_kind)
            for g in m.groups:
                if g.span is not None:
                    yield (*g.span, field, group_kind)
            continue
        # (key, index, re match, base, substitution), as the trace found it: the paints of
        # build_match's RegexMatch, without building it (a 2 MB output has ~100,000 of them).
        base = entry[3]
        if base is None:
            continue
        match_kind, group_kind = _STAGE[key][key == "x-regex-iterator" and index % 2 == 1]
        start, end = m.span()
        yield (base + start, base + end, field, match_kind)
        for i in range(1, m.re.groups + 1):
            start, end = m.span(i)
            if start >= 0:
                yield (base + start, base + end, field, group_kind)


def field_names(root: TraceNode) -> list[str]:
    """The fields of a trace: the root's properties, in order. Each gets a colour."""
    fields: list[str] = []
    for child in root.children:
        if isinstance(child.key, str) and child.key not in fields:
            fields.append(child.key)
    return fields


def root_paints(root: TraceNode, fields: list[str]) -> list[Paint]:
    """The root's own matches: a named group belongs to the field of the same name."""
    index = {name: i for i, name in enumerate(fields)}
    paints = []
    for m in root.matches:
        if m.span is None:
            continue
        paints.append(Paint(*m.span, NO_FIELD, _STAGE[m.key][0][0]))
        for g in m.groups:
            if g.span is not None:
                paints.append(Paint(*g.span, index.get(g.name, NO_FIELD), _STAGE[m.key][0][1]))
    return paints


def subtree_paints(child: TraceNode, field: int, alt: bool = False) -> list[Paint]:
    """Every paint of a subtree of one field (``alt``: it lies inside an odd iterator match)."""
    paints: list[Paint] = []
    stack = [(child, alt)]
    while stack:
        node, alt = stack.pop()
        paints.extend(node_paints(node, field, alt))
        for item in node.children:
            # An item an iterator match handed over keeps that match's shade, down its subtree.
            item_alt = (item.via == "x-regex-iterator" and isinstance(item.key, int) and item.key % 2 == 1) or alt
            stack.append((item, item_alt))
    return paints


def field_of(child: TraceNode, fields: list[str]) -> int:
    return fields.index(child.key) if isinstance(child.key, str) and child.key in fields else NO_FIELD


def trace_paints(trace: Trace) -> tuple[list[str], list[Paint]]:
    """Field names (the root's properties, in order) and every paint of the trace."""
    fields = field_names(trace.root)
    paints = root_paints(trace.root, fields)
    for child in trace.root.children:
        paints.extend(subtree_paints(child, field_of(child, fields)))
    return fields, paints


def node_spans(trace: Trace, node: TraceNode, key: str | None = None, substitution: int | None = None) -> list[Span]:
    """What to light when the user points at a schema node: the text it received (located exactly
    for JSON members at any depth) and its matches' groups, or with ``key`` only the matches of that
    x- key (and entry of x-regex-substitutions). Zero-width spans are kept: an empty match is
    shown as a mark where it matched."""
    spans: list[Span] = []
    if key is None:
        own = trace.locate(node)  # finds a JSON member's exact text on demand
        received = node.span or own
        # A top-level field receives the whole output and finds its value with its regex: lighting
        # what it received would light everything, so then only its matches (its value) are lit.
        whole = received is not None and tuple(received) == (0, len(trace.text)) and bool(node.matches)
        if node.path and received is not None and not whole:
            spans.append(received)
    for m in node.matches:
        if key is not None and (m.key != key or (substitution is not None and m.substitution != substitution)):
            continue
        groups = [g.span for g in m.groups if g.span is not None]
        if key is not None and m.span is not None:
            spans.append(m.span)
        spans.extend(groups)
    return spans
