"""How an analysis crosses the pipe from the analysis process to the UI: a pickler that sends each
trace node once. A format whose traces share nodes between edits (the schema engine's subtree cache)
has a node the UI already holds go as a token; the UI's table resolves it. Both sides keep the same
table, pruned at the same replies. The dataclasses of both formats' traces pickle as constructor
calls, several times faster than through copyreg."""

from __future__ import annotations

import dataclasses
import io
import itertools
import operator
import pickle
from typing import Any

from ..engine.schema.trace_tree import TraceNode
from ..engine.spans import Group, RegexMatch
from ..engine.template.trace_types import Candidate, Dropped, Emptied, Failure, Region, TemplateTrace, TieBreak

_NODE_FIELDS = tuple(f.name for f in dataclasses.fields(TraceNode))
_FOUND = _NODE_FIELDS.index("found")
_MATCHES = _NODE_FIELDS.index("_matches")
_node_values = operator.attrgetter(*_NODE_FIELDS)
_PLAIN = {
    cls: operator.attrgetter(*(f.name for f in dataclasses.fields(cls)))
    for cls in (RegexMatch, Group, Region, Dropped, Candidate, TieBreak, Emptied, Failure, TemplateTrace)
}


def _rebuild_node(token: int, *values: Any) -> TraceNode:  # pragma: no cover - replaced on load
    raise RuntimeError("trace nodes are loaded by _Unpickler only")


def _rebuild_plain(cls: type, values: tuple) -> Any:
    return cls(*values)


class Pickler(pickle.Pickler):
    """Pickles a reply. With a schema trace (``nodes``), a trace node the UI already holds, or its
    value, goes as its token (persistent_id); a new node gets a token and its fields, with its
    regex matches built (``re.Match`` objects do not pickle). Dataclasses with slots pickle several
    times faster as a constructor call than through copyreg."""

    def __init__(self, file, table: "NodeTable", nodes: bool = True) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.table = table
        if nodes:  # called for every object pickled (a third of a 2 MB template trace's dump): only where it can hit
            tokens, identity = table.tokens, id
            self.persistent_id = lambda obj: tokens.get(identity(obj))

    def reducer_override(self, obj: Any) -> Any:
        kind = type(obj)
        if kind is TraceNode:
            values = list(_node_values(obj))
            values[_FOUND] = values[_MATCHES] = obj.matches
            return _rebuild_node, (self.table.add(obj), *values)
        if kind in _PLAIN:
            return _rebuild_plain, (kind, _PLAIN[kind](obj))
        return NotImplemented


class Unpickler(pickle.Unpickler):
    def __init__(self, file, table: "NodeTable") -> None:
        super().__init__(file)
        self.table = table

    def persistent_load(self, token: Any) -> Any:
        return self.table.objects[token]

    def find_class(self, module: str, name: str) -> Any:
        if module == __name__ and name == "_rebuild_node":
            return self._rebuild_node
        return super().find_class(module, name)

    def _rebuild_node(self, token: int, *values: Any) -> TraceNode:
        node = TraceNode(*values)
        self.table.put(token, node)
        return node


class NodeTable:
    """The trace nodes both processes hold, and their values, by token (a node's value has the
    negated token). Both sides prune it to the latest trace after every reply, in the same order,
    so the two tables always agree and a reply need not repeat what the UI already has."""

    def __init__(self) -> None:
        self.tokens: dict[int, int] = {}  # id(object) -> token
        self.objects: dict[int, Any] = {}  # token -> object (also keeps ids from being reused)
        self._next = itertools.count(1)
        self._pending: list[tuple[int, TraceNode]] = []
        self._live = 0  # objects kept by the last pruning

    def add(self, node: TraceNode) -> int:
        """A node being pickled. Its value is known to the other side only once the whole reply
        is loaded, so values are registered after the dump (see settle)."""
        token = next(self._next)
        self.tokens[id(node)] = token
        self.objects[token] = node
        self._pending.append((token, node))
        return token

    def put(self, token: int, node: TraceNode) -> None:
        self.tokens[id(node)] = token
        self.objects[token] = node
        self._pending.append((token, node))

    def settle(self, root: TraceNode | None) -> None:
        """After a reply: register the new nodes' values; with a trace, forget older traces."""
        for token, node in self._pending:
            if isinstance(node.value, (dict, list, str)):
                self.tokens[id(node.value)] = -token
                self.objects[-token] = node.value
        self._pending = []
        # Pruning walks the whole trace, so it waits until the table has doubled. Both sides
        # have tables of the same size at every step, so they prune at the same replies.
        if root is None or len(self.objects) <= 2 * self._live + 4096:
            return
        live = set()
        for node in root.walk():
            live.add(id(node))
            live.add(id(node.value))
        self.objects = {t: o for t, o in self.objects.items() if id(o) in live}
        self.tokens = {id(o): t for t, o in self.objects.items()}
        self._live = len(self.objects)




def dump(message: Any, table: NodeTable, nodes: bool) -> bytes:
    """``message`` as bytes; ``nodes``: it holds a trace whose nodes the table tracks."""
    buffer = io.BytesIO()
    Pickler(buffer, table, nodes=nodes).dump(message)
    return buffer.getvalue()


def load(data: bytes, table: NodeTable) -> Any:
    return Unpickler(io.BytesIO(data), table).load()
