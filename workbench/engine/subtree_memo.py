"""What the panes need of a trace, kept per field subtree between traces that share subtrees.

With a subtree cache (subtree_cache.py), an edit inside one field gives a trace whose other
fields are the very same node objects as before, in the analysis process and, once they have
crossed, in the UI too. Their colour runs and their part of the path index are then the same as
well: only the edited field's are computed again. On a 2 MB output with thousands of tool calls
that is most of the cost of an edit in ``thinking``.
"""

from __future__ import annotations

from .highlights import Paint, field_names, field_of, merge, root_paints, subtree_paints, sweep
from .trace_tree import Trace, TraceNode


class SubtreeMemo:
    """Runs and index parts of the root's children, by node identity. Keeps only the latest
    trace's entries: a subtree that left the trace is not coming back as the same object."""

    def __init__(self) -> None:
        self._runs: dict[tuple, tuple[TraceNode, list[tuple]]] = {}
        self._index: dict[int, tuple[TraceNode, dict[str, list[TraceNode]]]] = {}

    def runs(self, trace: Trace) -> tuple[list[str], list[Paint]]:
        """Field names and the disjoint colour runs, as highlights.flatten(trace_paints(...)) gives them."""
        root = trace.root
        fields = field_names(root)
        parts = [sweep(root_paints(root, fields), -1)]
        kept = {}
        for position, child in enumerate(root.children):
            field = field_of(child, fields)
            key = (id(child), field, position)  # the field and the position decide its colour and ties
            entry = self._runs.get(key)
            if entry is None or entry[0] is not child:
                entry = (child, sweep(subtree_paints(child, field), position))
            kept[key] = entry
            parts.append(entry[1])
        self._runs = kept
        return fields, merge(parts)

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
