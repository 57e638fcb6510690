"""Which spans of the raw output to colour, and how: the trace turned into disjoint runs that a
view paints line by line. One field (top-level property) per colour; the kind says how strongly.
"""

from __future__ import annotations

import heapq
from typing import Iterable, NamedTuple

from .trace_tree import RAW, Span, Trace, TraceNode

# Kinds, weakest first: a later kind wins where spans overlap. Each regex stage of a node has its
# own kinds, ranked in the order the stages run, so a later stage's matches show on top of an
# earlier stage's group (a tool_calls x-regex group holding the x-regex-iterator matches).
SUBSTITUTION = "substitution"  # an x-regex-substitutions match (text that gets rewritten)
MATCH = "match"  # a whole x-regex match
GROUP = "group"  # an x-regex capture group
ITEM = "item"  # an x-regex-iterator match (ITEM_ALT for every other one, so neighbours stay apart)
ITEM_ALT = "item-alt"
ITEM_GROUP = "item-group"  # a group of an iterator match
ITEM_GROUP_ALT = "item-group-alt"
PAIR = "pair"  # an x-regex-key-value match
PAIR_GROUP = "pair-group"  # its key or value group
VALUE = "value"  # the text a node received as its value (VALUE_ALT inside odd iterator items)
VALUE_ALT = "value-alt"
SELECTED = "selected"  # what the user is looking at
EMPTY = "empty"  # a selected empty match: drawn on the character after it
_RANK = {
    SUBSTITUTION: 0, MATCH: 1, GROUP: 2, ITEM: 3, ITEM_ALT: 3, ITEM_GROUP: 4, ITEM_GROUP_ALT: 4,
    PAIR: 5, PAIR_GROUP: 6, VALUE: 7, VALUE_ALT: 7, SELECTED: 9, EMPTY: 10,
}
# x- key -> (kind of its match, kind of its groups), (the same for odd iterator matches)
_STAGE = {
    "x-regex-substitutions": ((SUBSTITUTION, SUBSTITUTION), (SUBSTITUTION, SUBSTITUTION)),
    "x-regex": ((MATCH, GROUP), (MATCH, GROUP)),
    "x-regex-iterator": ((ITEM, ITEM_GROUP), (ITEM_ALT, ITEM_GROUP_ALT)),
    "x-regex-key-value": ((PAIR, PAIR_GROUP), (PAIR, PAIR_GROUP)),
}

NO_FIELD = -1


class Paint(NamedTuple):
    """A span to colour. A tuple, so that the thousands of a large output cross to the UI
    process (and sort) cheaply."""

    start: int
    end: int
    field: int  # index into the field names, or NO_FIELD
    kind: str


def node_paints(node: TraceNode, field: int, alt: bool = False) -> Iterable[Paint]:
    """What one trace node contributes: the slice it was handed, its matches and their groups.
    ``alt``: the node lies inside an odd iterator match, so its value takes the other shade."""
    if node.input_kind == RAW and node.via is not None and node.span is not None:
        yield Paint(*node.span, field, VALUE_ALT if alt else VALUE)
    for m in node.matches:
        if m.span is None:
            continue
        match_kind, group_kind = _STAGE[m.key][m.key == "x-regex-iterator" and m.index % 2 == 1]
        yield Paint(*m.span, field, match_kind)
        for g in m.groups:
            if g.span is not None:
                yield Paint(*g.span, field, group_kind)


def trace_paints(trace: Trace) -> tuple[list[str], list[Paint]]:
    """Field names (the root's properties, in order) and every paint of the trace."""
    fields: list[str] = []
    paints: list[Paint] = []
    root = trace.root
    for child in root.children:
        if isinstance(child.key, str) and child.key not in fields:
            fields.append(child.key)
    index = {name: i for i, name in enumerate(fields)}
    # The root's own matches: a named group belongs to the field of the same name.
    for m in root.matches:
        if m.span is None:
            continue
        paints.append(Paint(*m.span, NO_FIELD, _STAGE[m.key][0][0]))
        for g in m.groups:
            if g.span is not None:
                paints.append(Paint(*g.span, index.get(g.name, NO_FIELD), _STAGE[m.key][0][1]))
    for child in root.children:
        field = index.get(child.key, NO_FIELD) if isinstance(child.key, str) else NO_FIELD
        stack = [(child, False)]
        while stack:
            node, alt = stack.pop()
            paints.extend(node_paints(node, field, alt))
            for item in node.children:
                # An item an iterator match handed over keeps that match's shade, down its subtree.
                item_alt = (item.via == "x-regex-iterator" and isinstance(item.key, int) and item.key % 2 == 1) or alt
                stack.append((item, item_alt))
    return fields, paints


def node_spans(trace: Trace, node: TraceNode, key: str | None = None, substitution: int | None = None) -> list[Span]:
    """What to light when the user points at a schema node: the text it received (located exactly
    for JSON members at any depth) and its matches' groups, or with ``key`` only the matches of that
    x- key (and entry of x-regex-substitutions). Zero-width spans are kept: an empty match is
    shown as a mark where it matched."""
    spans: list[Span] = []
    if key is None:
        own = trace.locate(node)  # finds a JSON member's exact text on demand
        if node.path and (node.span or own) is not None:
            spans.append(node.span or own)
    for m in node.matches:
        if key is not None and (m.key != key or (substitution is not None and m.substitution != substitution)):
            continue
        groups = [g.span for g in m.groups if g.span is not None]
        if key is not None and m.span is not None:
            spans.append(m.span)
        spans.extend(groups)
    return spans


def flatten(paints: Iterable[tuple]) -> list[Paint]:
    """Disjoint runs, sorted by start; where paints overlap, the stronger kind (then the later
    start, then the shorter: the inner one) wins. A sweep over the boundaries: O(n log n).
    Paints may be Paint or plain (start, end, field, kind) tuples, as they arrive from the worker."""
    events = []
    for order, (start, end, field, kind) in enumerate(paints):
        if end > start:
            key = (_RANK[kind], start, -end, order)
            events.append((start, 1, key, (field, kind)))
            events.append((end, 0, key, None))
    events.sort(key=lambda e: (e[0], e[1]))
    runs: list[Paint] = []
    active: list = []  # max-heap by key, lazily pruned
    ended: set = set()
    position = None
    for at, starting, key, look in events:
        if position is not None and at > position:
            while active and active[0][1] in ended:
                heapq.heappop(active)
            if active:
                top = active[0][2]
                if runs and runs[-1][1] == position and runs[-1][2:] == top:
                    runs[-1] = Paint(runs[-1][0], at, *top)
                else:
                    runs.append(Paint(position, at, *top))
        position = at
        if starting:
            heapq.heappush(active, (_negate(key), key, look))
        else:
            ended.add(key)
    return runs


def _negate(key: tuple) -> tuple:
    return tuple(-k for k in key)
