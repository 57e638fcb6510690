"""Which spans of the raw output to colour, and how: the trace turned into disjoint runs that a
view paints line by line. One field (top-level property) per colour; the kind says how strongly.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import Iterable

from .trace_tree import RAW, Trace, TraceNode

# Kinds, weakest first: a later kind wins where spans overlap.
MATCH = "match"  # a whole regex match
ITEM = "item"  # an iterator match (ITEM_ALT for every other one, so neighbours stay apart)
ITEM_ALT = "item-alt"
VALUE = "value"  # the text a node received as its value
GROUP = "group"  # a capture group
SELECTED = "selected"  # what the user is looking at
_RANK = {MATCH: 0, ITEM: 1, ITEM_ALT: 1, VALUE: 2, GROUP: 3, SELECTED: 4}

NO_FIELD = -1


@dataclass(frozen=True, slots=True)
class Paint:
    start: int
    end: int
    field: int  # index into the field names, or NO_FIELD
    kind: str


def node_paints(node: TraceNode, field: int) -> Iterable[Paint]:
    """What one trace node contributes: the slice it was handed, its matches and their groups."""
    if node.input_kind == RAW and node.via is not None and node.span is not None:
        yield Paint(*node.span, field, VALUE)
    for m in node.matches:
        if m.span is None:
            continue
        kind = MATCH if m.key != "x-regex-iterator" else (ITEM if m.index % 2 == 0 else ITEM_ALT)
        yield Paint(*m.span, field, kind)
        for g in m.groups:
            if g.span is not None:
                yield Paint(*g.span, field, GROUP)


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
        paints.append(Paint(*m.span, NO_FIELD, MATCH))
        for g in m.groups:
            if g.span is not None:
                paints.append(Paint(*g.span, index.get(g.name, NO_FIELD), GROUP))
    for child in root.children:
        field = index.get(child.key, NO_FIELD) if isinstance(child.key, str) else NO_FIELD
        for node in child.walk():
            paints.extend(node_paints(node, field))
    return fields, paints


def flatten(paints: Iterable[Paint]) -> list[Paint]:
    """Disjoint runs, sorted by start; where paints overlap, the stronger kind (then the later
    start, then the shorter: the inner one) wins. A sweep over the boundaries: O(n log n)."""
    events = []
    for order, p in enumerate(paints):
        if p.end > p.start:
            key = (_RANK[p.kind], p.start, -p.end, order)
            events.append((p.start, 1, key, p))
            events.append((p.end, 0, key, p))
    events.sort(key=lambda e: (e[0], e[1]))
    runs: list[Paint] = []
    active: list = []  # max-heap by key, lazily pruned
    ended: set = set()
    position = None
    for at, starting, key, paint in events:
        if position is not None and at > position:
            while active and active[0][1] in ended:
                heapq.heappop(active)
            if active:
                top = active[0][2]
                if runs and runs[-1].end == position and (runs[-1].field, runs[-1].kind) == (top.field, top.kind):
                    runs[-1] = Paint(runs[-1].start, at, top.field, top.kind)
                else:
                    runs.append(Paint(position, at, top.field, top.kind))
        position = at
        if starting:
            heapq.heappush(active, (_negate(key), key, paint))
        else:
            ended.add(key)
    return runs


def _negate(key: tuple) -> tuple:
    return tuple(-k for k in key)
