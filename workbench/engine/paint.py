"""How a pane colours text, for both formats: the kinds of paint (weakest first), a ``Paint`` (a span
with its field and kind), and the sweep that turns overlapping paints into disjoint runs."""

from __future__ import annotations

import heapq
from typing import Iterable, NamedTuple

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
# A response_template's regions (engine/template/highlights.py): the same vocabulary of spans, with
# the kinds of that format. Delimiters are told apart from bodies; the traps of the format (text
# thrown away, a value overwritten or dropped for being empty, a region the text ended inside)
# show on top of the field colours.
DELIMITER = "delimiter"  # an opener or closer match
CAPTURE = "capture"  # a named group of an opener (a transform variable)
BODY = "body"  # a region's body (BODY_ALT for every other region of a field)
BODY_ALT = "body-alt"
DROPPED = "dropped"  # text no region holds: thrown away
OVERWRITTEN = "overwritten"  # a region whose value a later region of its field replaced
EMPTIED = "emptied"  # a region whose value was dropped at the end for being empty
LEFT_OPEN = "left-open"  # where a region's closer was expected when the text ended
# The streaming replay (engine/template/replay.py): text fed but held back, text not fed yet, and
# text a streaming client was shown wrongly.
HELD = "held"
UNFED = "unfed"
FLAGGED = "flagged"
RANK = {
    SUBSTITUTION: 0, MATCH: 1, GROUP: 2, ITEM: 3, ITEM_ALT: 3, ITEM_GROUP: 4, ITEM_GROUP_ALT: 4,
    PAIR: 5, PAIR_GROUP: 6, VALUE: 7, VALUE_ALT: 7, SELECTED: 9, EMPTY: 10,
    DELIMITER: 1, CAPTURE: 2, BODY: 7, BODY_ALT: 7, UNFED: 0, HELD: 8,
    OVERWRITTEN: 8, EMPTIED: 8, LEFT_OPEN: 8, DROPPED: 8, FLAGGED: 8,
}
NO_FIELD = -1


class Paint(NamedTuple):
    """A span to colour. A tuple, so that the thousands of a large output cross to the UI
    process (and sort) cheaply."""

    start: int
    end: int
    field: int  # index into the field names, or NO_FIELD
    kind: str


def flatten(paints: Iterable[tuple]) -> list[Paint]:
    """Disjoint runs, sorted by start; where paints overlap, the stronger kind (then the later
    start, then the shorter: the inner one) wins. A sweep over the boundaries: O(n log n).
    Paints may be Paint or plain (start, end, field, kind) tuples, as they arrive from the worker."""
    return _joined(sweep(paints))


def sweep(paints: Iterable[tuple], part: int = 0) -> list[tuple]:
    """flatten's work, keeping with each run the key of the paint that won it, so that swept
    parts can be merged later (merge) as if swept together; ``part`` orders paints of different
    parts as their concatenation would."""
    items = [(start, end, field, kind, (RANK[kind], start, -end, part, order))
             for order, (start, end, field, kind) in enumerate(paints) if end > start]
    return _nested_sweep(items) or _heap_sweep(items)


def _nested_sweep(items: list[tuple]) -> list[tuple] | None:
    """The sweep of paints that nest (a match holds its groups, an item its values: the usual
    case), with a stack whose entries keep the best key of all beneath them: linear after the
    sort, where the heap's bookkeeping costs most of the time. None when two paints cross."""
    items.sort(key=_outer_first)
    runs: list[tuple] = []
    stack: list[tuple] = []  # (end, best key, field, kind) of the paints covering ``position``
    position = 0

    def emit(start: int, stop: int) -> None:
        _, key, field, kind = stack[-1]
        if runs and runs[-1][1] == start and runs[-1][4] == key:
            runs[-1] = (runs[-1][0], stop, field, kind, key)
        else:
            runs.append((start, stop, field, kind, key))

    for start, end, field, kind, key in items:
        while stack and stack[-1][0] <= start:
            if position < stack[-1][0]:
                emit(position, stack[-1][0])
                position = stack[-1][0]
            stack.pop()
        if stack:
            if end > stack[-1][0]:
                return None  # it crosses the paint it starts in
            if position < start:
                emit(position, start)
            below = stack[-1]
            stack.append((end, key, field, kind) if key > below[1] else (end, below[1], below[2], below[3]))
        else:
            stack.append((end, key, field, kind))
        position = start
    while stack:
        if position < stack[-1][0]:
            emit(position, stack[-1][0])
            position = stack[-1][0]
        stack.pop()
    return runs


def _outer_first(item: tuple) -> tuple:
    return item[0], -item[1]


def _heap_sweep(items: list[tuple]) -> list[tuple]:
    events = []
    for start, end, field, kind, key in items:
        events.append((start, 1, key, (field, kind)))
        events.append((end, 0, key, None))
    events.sort(key=lambda e: (e[0], e[1]))
    runs: list[tuple] = []
    active: list = []  # max-heap by key, lazily pruned
    ended: set = set()
    position = None
    for at, starting, key, look in events:
        if position is not None and at > position:
            while active and active[0][1] in ended:
                heapq.heappop(active)
            if active:
                _, top_key, (field, kind) = active[0]
                if runs and runs[-1][1] == position and runs[-1][4] == top_key:
                    runs[-1] = (runs[-1][0], at, field, kind, top_key)
                else:
                    runs.append((position, at, field, kind, top_key))
        position = at
        if starting:
            heapq.heappush(active, ((-key[0], -key[1], -key[2], -key[3], -key[4]), key, look))  # a max-heap: the key negated
        else:
            ended.add(key)
    return runs


def merge(parts: list[list[tuple]]) -> list[Paint]:
    """The runs of several swept parts, as flatten would give them for all their paints at once:
    where parts overlap, the run with the greater key wins."""
    return _joined(merge_keyed(parts))


def merge_keyed(parts: list[list[tuple]]) -> list[tuple]:
    """merge, keeping the keys, for merging again. Parts that follow one another in the text
    (the runs of an iterator's items) are joined in one pass; others are merged two by two, in
    rounds, so that many parts cost O(n log k) rather than O(n k)."""
    parts = [p for p in parts if p]
    if not parts:
        return []
    if all(a[-1][1] <= b[0][0] for a, b in zip(parts, parts[1:])):
        return [run for part in parts for run in part] if len(parts) > 1 else parts[0]
    while len(parts) > 1:
        parts = [_merge_two(a, b) for a, b in zip(parts[::2], parts[1::2])] + (parts[-1:] if len(parts) % 2 else [])
    return parts[0]


def _merge_two(a: list[tuple], b: list[tuple]) -> list[tuple]:
    """Two lists of disjoint sorted keyed runs into one, the greater key winning overlaps."""
    out: list[tuple] = []
    i = j = 0
    na, nb = len(a), len(b)
    at = min(a[0][0], b[0][0]) if a and b else 0
    while i < na or j < nb:
        while i < na and a[i][1] <= at:
            i += 1
        while j < nb and b[j][1] <= at:
            j += 1
        ra = a[i] if i < na else None
        rb = b[j] if j < nb else None
        if ra is None and rb is None:
            break
        covering_a = ra is not None and ra[0] <= at
        covering_b = rb is not None and rb[0] <= at
        if not covering_a and not covering_b:
            at = min(r[0] for r in (ra, rb) if r is not None)
            continue
        if covering_a and covering_b:
            win = ra if ra[4] > rb[4] else rb
            stop = min(ra[1], rb[1])
        elif covering_a:
            win, stop = ra, ra[1] if rb is None else min(ra[1], rb[0])
        else:
            win, stop = rb, rb[1] if ra is None else min(rb[1], ra[0])
        out.append((at, stop, win[2], win[3], win[4]))
        at = stop
    return out


def _joined(runs: list[tuple]) -> list[Paint]:
    """Keyed runs as Paints, neighbours of the same field and kind joined into one."""
    out: list[Paint] = []
    for start, end, field, kind, _ in runs:
        if out and out[-1][1] == start and out[-1][2] == field and out[-1][3] == kind:
            out[-1] = Paint(out[-1][0], end, field, kind)
        else:
            out.append(Paint(start, end, field, kind))
    return out
