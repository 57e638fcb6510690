"""The parse tree: one tree node per trace node, built lazily as the user expands it.

It shows either format's tree: every node names its key (``key``, ``path``) and has children; the
format says how a node's line reads (``Format.label_parts``) and how deep a tree opens.

A node's children are shown a page at a time: a 2 MB output has thousands of calls, and Textual's
Tree adds a row in about 0.1 ms, so showing them all would hold every keystroke for a third of a
second. A dim row after the page (no data) shows the next page when selected."""

from __future__ import annotations

from itertools import islice
from typing import Any

from rich.text import Text
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from ...formats.remote_tree import RemoteNode, child_count, children_of
from ..plain import shown, visible

Identity = tuple  # the keys from the root to a node: stable across reparses of the same schema
PAGE = 100  # children shown at once


def label_for(node: Any, fmt: Any) -> Text:
    """A tree line, in the words of the node's format: keys, values and errors come from the files,
    so their control characters are shown as symbols (and a lone surrogate as its escape), one line."""
    (name, style), *rest = fmt.label_parts(node)
    label = Text(visible(name), style=style)  # the name's style is the line's: the rest is drawn over it
    for text, style in rest:
        label.append(visible(text), style=style)
    return shown(label, keep_newlines=False)


class ParseTree(Tree[Any]):
    """Shows a trace's tree; keeps the user's expanded nodes and cursor across reparses.

    A large trace's nodes are ``RemoteNode`` stubs whose children may still be in the analysis
    process: opening one shows a "loading" row and posts ``ChildrenWanted``; the screen fetches
    them and hands them to ``children_arrived``."""

    class ChildrenWanted(Message):
        """The children of ``node`` (a row whose data is a RemoteNode) are needed."""

        def __init__(self, node: TreeNode) -> None:
            super().__init__()
            self.node = node

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("message", id=id)
        self.shown_root: Any = None  # the root shown
        self.format: Any = None  # the format of the tree shown
        self._expanded: set[Identity] = {()}
        self._open_depth = 1

    @staticmethod
    def identity(node: TreeNode[Any]) -> Identity:
        keys = []
        while node is not None and node.parent is not None:
            keys.append(node.data.key if node.data is not None else None)
            node = node.parent
        return tuple(reversed(keys))

    def show(self, root: Any, fmt: Any = None) -> None:
        """Show the tree under ``root`` (the root of an analysis of format ``fmt``; None: the
        format of the tree shown)."""
        fmt = fmt if fmt is not None else self.format
        if self.shown_root is not None and fmt is self.format and type(self.shown_root) is type(root) and _same_shape(self.root, root):
            # The usual keystroke: same nodes, new values. Relabel in place; no rebuild, no flicker.
            self.shown_root = root
            _relabel(self.root, root, fmt)
            return
        cursor = self.identity(self.cursor_node) if self.cursor_node is not None else ()
        self.shown_root, self.format = root, fmt
        # Small trees open deep; large ones (thousands of tool calls) on demand (the format says
        # how deep). A RemoteNode is the root of a trace too large to send whole.
        nodes = 401 if type(root) is RemoteNode else sum(1 for _ in islice(root.walk(), 401))
        self._open_depth = fmt.open_depth(nodes)
        self.clear()
        self.root.data = root
        self.root.set_label(label_for(root, fmt))
        self._fill(self.root)
        self.root.expand()
        target = self._restore(self.root, (), cursor)
        if target is not None:
            self.call_after_refresh(self.move_cursor, target)

    def opened(self) -> list[Identity]:
        """The key paths of the expanded nodes and of the cursor's parent: what a large trace
        sends the children of with its first reply, so that they show again at once."""
        opened = [identity for identity in self._expanded if identity]
        if self.cursor_node is not None and self.cursor_node.parent is not None:
            opened.append(self.identity(self.cursor_node.parent))
        return opened

    def children_arrived(self, row: TreeNode[Any], node: RemoteNode, children: list[RemoteNode] | None) -> None:
        """``node``'s children came from the analysis process (None: that trace is gone)."""
        if row.data is not node or node.loaded is not None or children is None:
            return  # redrawn meanwhile; a newer tree comes with its own
        node.loaded = children
        self._fill(row)

    def _fill(self, parent: TreeNode[Any], upto: int = 0) -> None:
        """Show the next page of ``parent``'s children, and more if needed to show child ``upto``."""
        children = children_of(parent.data)
        rows = parent.children
        if children is None:  # still in the analysis process: ask for them once
            if not rows:
                parent.add_leaf(Text("⋯ loading", style="dim italic"))
                self.post_message(self.ChildrenWanted(parent))
            return
        start = len(rows) - (1 if rows and rows[-1].data is None else 0)
        if start < len(rows):
            rows[-1].remove()  # the "more" row: it goes after the new page
        end = min(len(children), max(start + PAGE, upto + 1))
        for child in children[start:end]:
            parent.add(label_for(child, self.format), data=child, allow_expand=bool(child_count(child)))
        if end < len(children):
            left = len(children) - end
            parent.add_leaf(Text(f"⋯ {left} more (enter shows {min(PAGE, left)} more)", style="dim italic"))

    def _child_at(self, node: TreeNode[Any], index: int) -> TreeNode[Any]:
        """The row of ``node``'s child ``index``, showing pages up to it."""
        if index >= len(node.children) or node.children[index].data is None:
            self._fill(node, upto=index)
        return node.children[index] if index < len(node.children) else None

    def _restore(self, node: TreeNode[Any], identity: Identity, cursor: Identity):
        """Re-expand what was expanded (the root's children always); return the cursor's node."""
        found = node if identity == cursor else None
        if cursor[: len(identity)] == identity and len(cursor) > len(identity) and node.data is not None:
            key = cursor[len(identity)]  # the cursor's row may be past the pages shown
            index = next((i for i, c in enumerate(children_of(node.data) or ()) if c.key == key), None)
            if index is not None:
                self._child_at(node, index)
        for child in node.children:
            if child.data is None:
                continue
            child_identity = identity + (child.data.key,)
            loaded = children_of(child.data) is not None
            if child.allow_expand and not loaded and child_identity in self._expanded:
                self._fill(child)  # opened after this tree was asked for: its children are fetched again
                child.expand()
                found = child if child_identity == cursor else found
            elif child.allow_expand and loaded and (child_identity in self._expanded or len(child_identity) <= self._open_depth):
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
            if node.data is not None and child_count(node.data) and not node.children:
                self._fill(node)
            children = children_of(node.data) if node.data is not None else None
            index = next((i for i, c in enumerate(children or ()) if _failed(c)), None)
            if index is None:
                break
            failing = self._child_at(node, index)
            node.expand()
            node = failing
        if node is not self.root:
            self.call_after_refresh(self.move_cursor, node)

    def on_tree_node_expanded(self, event: Tree.NodeExpanded[Any]) -> None:
        node = event.node
        self._expanded.add(self.identity(node))
        if node.data is not None and not node.children:
            self._fill(node)

    def on_tree_node_selected(self, event: Tree.NodeSelected[Any]) -> None:
        node = event.node
        if node.data is None and node.parent is not None:  # the "more" row
            parent, at = node.parent, len(node.parent.children) - 1
            self._fill(parent)
            self.call_after_refresh(self.move_cursor, parent.children[at])

    def on_tree_node_collapsed(self, event: Tree.NodeCollapsed[Any]) -> None:
        self._expanded.discard(self.identity(event.node))


def _same_shape(shown: TreeNode[Any], node: Any) -> bool:
    """Whether ``node`` has the children ``shown`` displays (compared where filled in)."""
    if shown.data is None or bool(child_count(shown.data)) != bool(child_count(node)):
        return False
    if not shown.children:
        return True
    if child_count(shown.data) != child_count(node) or children_of(node) is None or children_of(shown.data) is None:
        return False  # (a large trace's rows shown whose children did not come this time: drawn afresh)
    return all(
        a.data.key == b.key and a.data.path == b.path and _same_shape(a, b)
        for a, b in zip(_rows(shown), node.children)
    )


def _rows(shown: TreeNode[Any]) -> list[TreeNode[Any]]:
    """The rows of ``shown``'s children, without the "more" row."""
    rows = shown.children
    return rows[:-1] if rows and rows[-1].data is None else list(rows)


def _relabel(shown: TreeNode[Any], node: Any, fmt: Any) -> None:
    shown.data = node
    label = label_for(node, fmt)
    if label != shown.label:
        shown.set_label(label)
    for a, b in zip(_rows(shown), node.children):
        _relabel(a, b, fmt)


def _failed(node: Any) -> bool:
    """Whether the parse failed at this node or below it."""
    if type(node) is RemoteNode:
        return node.failed
    return node.error is not None or any(_failed(c) for c in node.children)
