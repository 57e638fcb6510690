"""The parse tree: one tree node per trace node, built lazily as the user expands it."""

from __future__ import annotations

import json

from rich.text import Text
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from ...engine import MISSING, Trace, TraceNode

Identity = tuple  # the keys from the root to a node: stable across reparses of the same schema


def _preview(value, limit: int = 60) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def label_for(node: TraceNode) -> Text:
    name = "message" if node.key is None and not node.path else str(node.key if node.key is not None else node.path)
    label = Text(name, style="bold")
    if node.error is not None:
        label.append("  ✗ " + node.error.splitlines()[0][:120], style="bold red")
    elif node.no_match:
        label.append(f"  ∅ {node.no_match} found nothing", style="dim")
    elif node.via in ("const", "default"):
        label.append(f"  = {_preview(node.value)}", style="cyan")
        label.append(f"  ({node.via})", style="dim")
    elif node.value is not MISSING and not node.children:
        label.append("  " + _preview(node.value), style="green")
    found = len(node.found)  # not node.matches: that builds every match object
    if found and node.error is None:
        label.append(f"  [{found} match{'es' if found != 1 else ''}]", style="dim")
    return label


class ParseTree(Tree[TraceNode]):
    """Shows a Trace; keeps the user's expanded nodes and cursor across reparses."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("message", id=id)
        self.trace: Trace | None = None
        self._expanded: set[Identity] = {()}
        self._open_depth = 1

    @staticmethod
    def identity(node: TreeNode[TraceNode]) -> Identity:
        keys = []
        while node is not None and node.parent is not None:
            keys.append(node.data.key if node.data is not None else None)
            node = node.parent
        return tuple(reversed(keys))

    def show(self, trace: Trace) -> None:
        if self.trace is not None and _same_shape(self.root, trace.root):
            # The usual keystroke: same nodes, new values. Relabel in place; no rebuild, no flicker.
            self.trace = trace
            _relabel(self.root, trace.root)
            return
        cursor = self.identity(self.cursor_node) if self.cursor_node is not None else ()
        self.trace = trace
        # Small traces open fully; large ones (thousands of tool calls) open on demand.
        self._open_depth = 6 if sum(1 for _ in trace.nodes()) <= 400 else 0
        self.clear()
        self.root.data = trace.root
        self.root.set_label(label_for(trace.root))
        self._fill(self.root)
        self.root.expand()
        target = self._restore(self.root, (), cursor)
        if target is not None:
            self.call_after_refresh(self.move_cursor, target)

    def _fill(self, parent: TreeNode[TraceNode]) -> None:
        for child in parent.data.children:
            parent.add(label_for(child), data=child, allow_expand=bool(child.children))

    def _restore(self, node: TreeNode[TraceNode], identity: Identity, cursor: Identity):
        """Re-expand what was expanded (the root's children always); return the cursor's node."""
        found = node if identity == cursor else None
        for child in node.children:
            child_identity = identity + (child.data.key,)
            if child.allow_expand and (child_identity in self._expanded or len(child_identity) <= self._open_depth):
                if not child.children:
                    self._fill(child)
                child.expand()
                found = self._restore(child, child_identity, cursor) or found
            elif child_identity == cursor:
                found = child
        return found

    def select_failing(self) -> None:
        """Move the cursor to the innermost node where the parse failed, expanding its ancestors."""
        node = self.root
        while True:
            if node.data is not None and node.data.children and not node.children:
                self._fill(node)
            failing = next((c for c in node.children if c.data is not None and _failed(c.data)), None)
            if failing is None:
                break
            node.expand()
            node = failing
        if node is not self.root:
            self.call_after_refresh(self.move_cursor, node)

    def on_tree_node_expanded(self, event: Tree.NodeExpanded[TraceNode]) -> None:
        node = event.node
        self._expanded.add(self.identity(node))
        if node.data is not None and not node.children:
            self._fill(node)

    def on_tree_node_collapsed(self, event: Tree.NodeCollapsed[TraceNode]) -> None:
        self._expanded.discard(self.identity(event.node))


def _same_shape(shown: TreeNode[TraceNode], node: TraceNode) -> bool:
    """Whether ``node`` has the children ``shown`` displays (compared where filled in)."""
    if shown.data is None or bool(shown.data.children) != bool(node.children):
        return False
    if not shown.children:
        return True
    if len(shown.children) != len(node.children):
        return False
    return all(
        a.data is not None and a.data.key == b.key and a.data.path == b.path and _same_shape(a, b)
        for a, b in zip(shown.children, node.children)
    )


def _relabel(shown: TreeNode[TraceNode], node: TraceNode) -> None:
    shown.data = node
    label = label_for(node)
    if label != shown.label:
        shown.set_label(label)
    for a, b in zip(shown.children, node.children):
        _relabel(a, b)


def _failed(node: TraceNode) -> bool:
    """Whether the parse failed at this node or below it."""
    return node.error is not None or any(_failed(c) for c in node.children)
