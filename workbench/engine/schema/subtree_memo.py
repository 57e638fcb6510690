"""What the panes need of a trace, kept per field subtree between traces that share subtrees.

With a subtree cache (subtree_cache.py), an edit inside one field gives a trace whose other
fields are the very same node objects as before, in the analysis process and, once they have
crossed, in the UI too. Their colour runs and their part of the path index are then the same as
well: only the edited field's are computed again. On a 2 MB output with thousands of tool calls
that is most of the cost of an edit in ``thinking``.
"""

from __future__ import annotations

from ..paint import Paint, merge, merge_keyed, sweep
from .highlights import field_names, field_of, node_paints, root_paints, subtree_paints
from .trace_tree import Trace, TraceNode


class SubtreeMemo:
    """Swept colour runs per trace node and index parts per root child, by node identity (a
    subtree that left the trace is not coming back as the same object)."""

    def __init__(self) -> None:
        self._runs: dict[int, tuple] = {}  # id(node) -> (node, field, alt, part, keyed runs)
        self._live = 0  # nodes in the trace of the last pruning
        self._index: dict[int, tuple[TraceNode, dict[str, list[TraceNode]]]] = {}

    def runs(self, trace: Trace) -> tuple[list[str], list[Paint]]:
        """Field names and the disjoint colour runs, as highlights.flatten(trace_paints(...)) gives them."""
        root = trace.root
        fresh = not self._runs
        fields = field_names(root)
        parts = [sweep(root_paints(root, fields), -1)]
        for position, child in enumerate(root.children):
            parts.append(self._runs_of(child, field_of(child, fields), False, position))
        if fresh:  # all of them live: nothing to prune (and a walk of a 2 MB trace saved)
            self._live = len(self._runs)
        elif len(self._runs) > 3 * self._live + 4096:
            live = {id(node) for child in root.children for node in child.walk()}
            self._runs = {key: entry for key, entry in self._runs.items() if key in live}
            self._live = len(live)
        return fields, merge(parts)

    def _runs_of(self, node: TraceNode, field: int, alt: bool, part: int) -> list[tuple]:
        """The swept runs of a node's subtree, kept per root child and per array item: a reused
        one is taken as it was. An array sweeps only its own paints (its matches) and joins its
        items' runs, which lie one after the other in the text; anything else is swept whole,
        which on a first run is several times cheaper than merging node by node."""
        entry = self._runs.get(id(node))
        if entry is not None and entry[0] is node and entry[1] == field and entry[2] == alt and entry[3] == part:
            return entry[4]
        if node.children and all(isinstance(child.key, int) for child in node.children):
            items = []
            for child in node.children:
                # An item an iterator match handed over keeps that match's shade, down its subtree.
                child_alt = alt or (child.via == "x-regex-iterator" and child.key % 2 == 1)
                items.append(self._runs_of(child, field, child_alt, part))
            runs = merge_keyed([sweep(list(node_paints(node, field, alt)), part), merge_keyed(items)])
        else:
            runs = sweep(subtree_paints(node, field, alt), part)
        self._runs[id(node)] = (node, field, alt, part, runs)
        return runs

    def index(self, trace: Trace) -> dict[str, list[TraceNode]]:
        """Schema path -> its visits, for the whole trace; set as the trace's index."""
        merged: dict[str, list[TraceNode]] = {trace.root.path: [trace.root]}
        kept = {}
        for child in trace.root.children:
            entry = self._index.get(id(child))
            if entry is None or entry[0] is not child:
                part: dict[str, list[TraceNode]] = {}
                for node in child.walk():
                    part.setdefault(node.path, []).append(node)
                entry = (child, part)
            kept[id(child)] = entry
            for path, visits in entry[1].items():
                # A new list where two children share a path (additionalProperties at the root):
                # the cached lists are never changed.
                merged[path] = merged[path] + visits if path in merged else visits
        self._index = kept
        trace.set_index(merged)
        return merged
