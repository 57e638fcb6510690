"""Reusing trace subtrees between runs on one raw text, for incremental reparsing.

The TUI reparses a sample after every schema edit, and most edits touch one schema node. A schema
node's outcome (its value or failure, and its whole trace subtree) depends only on what it
receives and on the node itself: the subschema (its JSON text), the input, and where both sit
(pointer path, the key it fills, how its parent handed the input on, the nearest raw span). ``trace(..., cache=c)``
looks each node up by exactly those; on a hit it adopts the cached subtree into the new tree (the
same Python objects: a consumer that has already seen them, such as the TUI's worker sending
trees across a pipe, can refer to them instead of copying) and returns the cached value, or
raises the cached failure again.

Inputs are identified without hashing large strings. A raw slice is ``(offset, length)``: the
engine carries, with every string it got from the raw text, the offset where it was cut, so for
one raw text the pair determines the string. A member of a parsed JSON value is the JSON text's
bounds plus the keys leading to it, which determine it too (a jmespath ``transform`` breaks that
link, and the engine then carries no location). A dict or list built from regex groups is keyed
by its members' slices. Other strings are keyed by their contents; any other input is not cached.

Reused nodes are shared, never rebuilt: nothing in the engine changes a node after its subtree is
done, except ``Trace.locate``, which fills in a JSON member's span from the raw text, lazily and
the same way in whichever trace asks (the cache is bound to one raw text). Values are shared too,
so they must not be mutated by the caller. A timeout is never cached (it depends on the time
left, not on the input), and nor is anything a run that stopped midway left unfinished.
"""

from __future__ import annotations

from typing import Any


class SubtreeCache:
    """Subtrees of the recent ``trace()`` runs on one raw text.

    Bound to one text: a run on a different text empties it first. Bounded: it keeps the subtrees
    in the trees of the last two runs (reused or built), so an edit and its undo both find their
    nodes, and drops the rest. A run that was interrupted (by an exception other than a parse
    failure, such as the TUI superseding it with a newer edit) does not count as one.

    ``hits`` and ``misses`` count, for the latest run, the schema nodes reused and the ones run
    (every node that was looked up: a hit's descendants are not counted)."""

    __slots__ = ("text", "hits", "misses", "runs", "reusable", "_current", "_previous", "_older", "_finished")

    def __init__(self) -> None:
        self.text: str | None = None
        self.hits = self.misses = self.runs = 0
        self.reusable = False  # whether this run has anything to reuse (not on a first run)
        self._current: dict = {}
        self._previous: dict = {}
        self._older: dict = {}
        self._finished = True

    def __len__(self) -> int:
        """Entries held (one reused in this run also counts in the run it came from)."""
        return len(self._current) + len(self._previous) + len(self._older)

    def clear(self) -> None:
        self._current, self._previous, self._older = {}, {}, {}
        self._finished = True

    def begin(self, text: str) -> None:
        """Start a run on ``text`` (called by trace)."""
        if text is not self.text and text != self.text:
            self.clear()
        self.text = text
        if self._finished:
            # Entries last used two runs ago are dropped; the two runs before this one stay.
            self._older, self._previous = self._previous, self._current
        else:
            # The last run was interrupted (a newer edit superseded it): it does not count as a
            # run, so nothing is dropped; what it built joins the run before it.
            self._previous.update(self._current)
        self._current = {}
        self._finished = False
        self.reusable = bool(self._previous or self._older)
        self.hits = self.misses = 0
        self.runs += 1

    def finish(self) -> None:
        """The run ended, with a value or an error (called by trace)."""
        self._finished = True

    def take(self, key: Any) -> tuple | None:
        """The entry for ``key`` from the two runs before this one, or None. An entry is
        ``(node, value, failure, (key, entry) of each cached node below it)``; taking it makes it,
        and the entries below it (its subtree, reused whole), this run's. (Any entry stored
        under a key is as good as any other: the key determines the outcome.) An entry this run already used
        or built is not handed out again: the same node must not appear twice in one tree (two
        identical tool calls reached through a rewrite have the same key)."""
        current = self._current
        if key in current:
            return None
        entry = self._previous.get(key)
        if entry is None:
            entry = self._older.get(key)
            if entry is None:
                return None
        # The older generations are dropped whole at the next rotation: copying the entries
        # into this run's is all that keeping them takes.
        current[key] = entry
        keep = current.setdefault  # one hash per entry: a key this run already holds stays as it is
        below = list(entry[3])
        while below:
            key, kept = below.pop()
            if keep(key, kept) is kept:
                below.extend(kept[3])
        return entry

    def put(self, key: Any, entry: tuple) -> None:
        self._current[key] = entry


def input_key(content: Any, loc: Any) -> Any:
    """What identifies a node's input, given the raw text, or None if it is not worth keying.
    ``loc`` is the engine's location of ``content`` (see parse.py)."""
    kind = type(loc)
    if kind is int:
        return (loc, len(content)) if type(content) is str else None
    if kind is tuple:  # a JSON member: (container path, key)
        container, key = loc
        return (container.start, container.end, container.keys, key)
    if loc is None:
        return content if type(content) is str else None
    # A dict or list of regex groups: each member a raw slice (or an absent group).
    if kind is dict and type(content) is dict:
        parts = []
        for name, value in content.items():
            member = loc.get(name)
            if type(value) is str and type(member) is int:
                parts.append((name, member, len(value)))
            elif value is None and member is None:
                parts.append((name,))
            else:
                return None
        return ("groups", tuple(parts))
    if kind is list and type(content) is list and len(loc) == len(content):
        parts = []
        for value, member in zip(content, loc):
            part = input_key(value, member) if value is not None else ()
            if part is None or (member is None and value is not None):
                return None
            parts.append(part)
        return ("items", tuple(parts))
    return None
