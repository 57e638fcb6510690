"""A large trace's tree, kept in the analysis process and sent to the UI as the user opens it.

A 2 MB output's trace has 100,000+ nodes; pickling them all, loading them in the UI and building
its tree took seconds before the first paint. Past ``LARGE_TRACE`` nodes (``LARGE_TEMPLATE``
regions for a response_template) the analysis process keeps the whole result (``Held``) and sends
a slim ``Analysis``: the value or the error, colour runs, problems, the verdict, the failure as the
status line says it, and a tree of ``RemoteNode`` stubs whose children are filled in only for the
root, the nodes the user had expanded (and the cursor's ancestors) and the path to where the parse
fails. Everything else is a query to the process (``RemoteTrace``): a node's children when the
user expands it, the spans a node or an editor position stands for. Smaller traces cross whole,
as before: that is quicker than any round trip.

Both sides: the process builds stubs (``Held``); the UI asks through ``RemoteTrace`` (blocking
calls, for thread workers). Nothing here imports Textual.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from ..engine.spans import MISSING

LARGE_TRACE = 20_000  # schema trace nodes above which the trace stays in the analysis process
LARGE_TEMPLATE = 2_000  # template regions above which the template trace stays there


@dataclass(eq=False)
class RemoteNode:
    """A tree node as the UI sees it: what its line shows, and its children once fetched."""

    ref: int  # its number in the analysis process's Held
    key: Any
    path: str
    count: int  # how many children it has
    name: str = ""
    via: str | None = None
    value: Any = MISSING  # only where the line shows it
    error: str | None = None
    no_match: str | None = None
    text: str | None = None
    note: str | None = None
    found: range = range(0)  # as many as the node's matches (the line shows the count)
    failed: bool = False  # the parse failed here or below
    loaded: list | None = None  # the children, once fetched

    @property
    def children(self) -> list:
        return self.loaded if self.loaded is not None else []


def child_count(node: Any) -> int:
    """How many children a tree node has (fetched or not)."""
    return node.count if type(node) is RemoteNode else len(node.children)


def children_of(node: Any) -> list | None:
    """A tree node's children, or None while they are still in the analysis process."""
    return node.loaded if type(node) is RemoteNode else node.children


def is_large(analysis: Any) -> bool:
    """Whether an analysis's tree is too large to send whole (its format says)."""
    return analysis.trace is not None and analysis.format.is_large(analysis)


# ----- the analysis process's side ----------------------------------------------------------------
class Held:
    """One analysis kept whole in the analysis process, numbering the nodes it has sent."""

    def __init__(self, generation: int, analysis: Any, root: Any) -> None:
        self.generation = generation
        self.analysis = analysis  # the full one
        self.nodes: list = []  # ref -> node
        self.failing: set[int] = set()  # ids of the nodes on the way to the failure
        self.root = root
        self._index_memo = None

    def stub(self, node: Any) -> RemoteNode:
        self.nodes.append(node)
        return self.analysis.format.stub(node, len(self.nodes) - 1, id(node) in self.failing)

    def children(self, ref: int) -> list[RemoteNode] | None:
        if not 0 <= ref < len(self.nodes):
            return None
        return [self.stub(child) for child in self.nodes[ref].children]

    def spans(self, ref: int) -> tuple[list, list] | None:
        if not 0 <= ref < len(self.nodes):
            return None
        return self.analysis.spans_of(self.nodes[ref])

    def lit(self, pointer: str) -> Any:
        return self.analysis.lit_at(pointer)

    def answer(self, kind: str, arg: Any) -> Any:
        if kind == "children":
            return self.children(arg)
        if kind == "spans":
            return self.spans(arg)
        if kind == "lit":
            return self.lit(arg)
        raise ValueError(f"unknown query {kind!r}")

    def top(self, opened: Iterable[tuple]) -> RemoteNode:
        """The root's stub with its children, the children of every node at ``opened`` (key
        paths from the root) and of every node on the way to the failure."""
        self.failing = _failing_path(self.root) if not self.analysis.ok else set()  # (a walk of the whole tree)
        top = self.stub(self.root)
        top.loaded = self.children(top.ref)
        for keys in opened:
            self._open(top, keys)
        node = top
        while node.loaded is not None:
            node = next((c for c in node.loaded if c.failed), None)
            if node is None or not node.count:
                break
            node.loaded = self.children(node.ref)
        return top

    def _open(self, top: RemoteNode, keys: tuple) -> None:
        node = top
        for key in keys:
            if node.loaded is None:
                node.loaded = self.children(node.ref)
            node = next((c for c in node.loaded if c.key == key), None)
            if node is None or not node.count:
                return
        if node.loaded is None:
            node.loaded = self.children(node.ref)


def _failing_path(root: Any) -> set[int]:
    """The ids of the nodes from ``root`` down to the innermost node where the parse failed,
    taking the first failing child at each step (as ``ParseTree.select_failing`` does)."""
    if not _has_error(root):
        return set()
    path, node = {id(root)}, root
    while True:
        node = next((c for c in node.children if _has_error(c)), None)
        if node is None:
            return path
        path.add(id(node))


def _has_error(node: Any) -> bool:
    return node.error is not None or any(_has_error(c) for c in node.children)


def hold(analysis: Any, generation: int, opened: Iterable[tuple]) -> Held:
    """Keep ``analysis`` (whole) and make it the slim one to send: its tree becomes stubs, its
    trace loses what only the queries need (its format says what), and ``remote`` tells the UI
    where to ask."""
    failure = analysis.failure()
    full = dataclasses.replace(analysis)
    held = Held(generation, full, full.root)  # built here, where the trace still has what it needs
    analysis.format.slim(analysis, held.top(opened))
    analysis.remote = RemoteTrace(generation, failure)
    return held


# ----- the UI's side --------------------------------------------------------------------------------
@dataclass
class RemoteTrace:
    """Where the UI asks about a trace the analysis process keeps. Its calls block (for thread
    workers) and give None when the process no longer holds that trace (a newer one replaced it)."""

    generation: int
    failure: Any  # the Failure the status line shows, computed there
    ask: Callable[..., Any] | None = field(default=None, repr=False)  # set by the client on receipt

    def __getstate__(self) -> dict:
        return {"generation": self.generation, "failure": self.failure, "ask": None}

    def children(self, node: RemoteNode) -> list[RemoteNode] | None:
        return self.ask(self.generation, "children", node.ref)

    def spans_of(self, node: RemoteNode) -> tuple[list, list]:
        return self.ask(self.generation, "spans", node.ref) or ([], [])

    def lit_at(self, pointer: str) -> Any:
        return self.ask(self.generation, "lit", pointer)
