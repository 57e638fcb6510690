"""The position automaton of a parsed regex and the search for loops that match text two ways.

``_Automaton`` turns re's parse tree into a Glushkov automaton (one position per character leaf,
with first/last/nullable fragments per subpattern), records every quantifier as a ``_Repeat`` and
every pair of adjacent overlapping loops, and ``ambiguous_loops`` finds the strongly connected parts
of the automaton squared that hold a diagonal pair and a divergent step: the exponential loops. It
is the core of the check, kept apart from the parsing of text and the writing of suggestions.
"""

from __future__ import annotations

from dataclasses import dataclass

from .charsets import _UNIVERSE, _leaf_set, _overlap, _subset
from .parsetree import _ATOMIC, _POSSESSIVE, _REPEATS, MAXREPEAT, _sre

_LARGE = 10  # {n,m} with m below this can only be polynomially ambiguous (degree < m)
# Steps the check takes before it gives up on a huge or intricate pattern (either budget is a few
# tenths of a second). Building the automaton costs a step per pair of positions linked and per
# entry copied: linear for most patterns, but a long run of optional items links every position to
# every later one. The search costs a step per pair of steps compared, quadratic in the steps of a
# loop at worst. Past either budget the check stops and says so (``risks`` warns that the regex
# was not fully checked, never passes it silently): a cycle found in the part explored is a cycle
# all the same, so stopping early only misses, never invents. The shipped schemas' regexes take at
# most about 1,600 steps to build and 100 to search.
_BUILD_BUDGET = 1_000_000
_SEARCH_BUDGET = 100_000


class _Exhausted(Exception):
    """The build budget ran out: the automaton is incomplete, so nothing about loops can be said."""


# -- the position automaton ----------------------------------------------------------------------


@dataclass(slots=True)
class _Frag:
    first: dict  # position -> number of ways to reach it from the start (capped at 2)
    last: dict  # position -> number of ways to finish after it
    final: set  # last positions after which the subpattern ends with no assertion left to pass
    empty: int  # ways to match the empty string (0: not nullable; capped at 2)
    free: bool  # can match empty without passing an assertion


def _empty_frag(ways: int = 1, free: bool = True) -> _Frag:
    return _Frag({}, {}, set(), ways, free)


@dataclass(slots=True)
class _Repeat:
    node: tuple
    order: int  # post-order index among all quantifiers = their order in the source text
    loops: bool  # can iterate without a small bound
    last: frozenset  # positions an iteration can end on
    kind: str = "ambiguous"


class _Automaton:
    def __init__(self, flags: int) -> None:
        self.flags = flags
        self.sets: list = []  # position -> charset
        self.follow: list[list] = []  # position -> [(next position, provenance, copy)]
        self.literal: list[int | None] = []  # position -> the one character it matches, if just one
        self.guards: dict[int, set[str]] = {}  # position -> strings a (?!…) before it rules out there
        self.munch: dict[int, tuple] = {}  # position of a run [S]++ -> S: no step out of it into S
        self.final: set[int] = set()  # positions after which their region can succeed outright
        self.parent: dict[int, int | None] = {}  # construct id -> enclosing construct id
        self.repeats: dict[int, _Repeat] = {}
        self.branchy: set[int] = set()  # constructs that contain an alternation
        self._above_branch: set[int] | None = None  # branchy constructs and their ancestors
        self.repeat_count = 0
        self.adjacent: list[tuple[_Repeat, _Repeat]] = []  # x*y* with x and y overlapping
        self._ids = 0
        self._last_repeat = 0
        self._stack: list[int] = []
        self.spent = 0  # steps taken so far, against _BUILD_BUDGET, then _SEARCH_BUDGET
        self.stopped = False  # the search ran out of budget: some pairs were left unexplored

    def _charge(self, steps: int) -> None:
        self.spent += steps
        if self.spent > _BUILD_BUDGET:
            raise _Exhausted

    def region(self, items: list, ignorecase: bool | None = None) -> None:
        """A part re runs on its own (the pattern, a lookaround, an atomic group)."""
        frag = self.seq(items, bool(self.flags & _sre.SRE_FLAG_IGNORECASE) if ignorecase is None else ignorecase)
        self.final |= frag.final

    def _construct(self) -> int:
        self._ids += 1
        self.parent[self._ids] = self._stack[-1] if self._stack else None
        return self._ids

    def _position(self, charset) -> _Frag:
        p = len(self.sets)
        self.sets.append(charset)
        self.literal.append(charset[0][0] if len(charset) == 1 and charset[0][0] == charset[0][1] else None)
        self.follow.append([])
        return _Frag({p: 1}, {p: 1}, {p}, 0, False)

    def _link(self, last: dict, first: dict, provenance: int) -> None:
        # A step reachable in two ways (through (|) or (a*)?) is two steps: re tries both.
        self._charge(len(last) * len(first))
        for p, m1 in last.items():
            munch = self.munch.get(p)
            for q, m2 in first.items():
                if munch is not None and _subset(self.sets[q], munch):
                    continue  # the run took every character of its class: none can follow it
                for copy in range(min(2, m1 * m2)):
                    self.follow[p].append((q, provenance, copy))

    def seq(self, items, ignorecase: bool) -> _Frag:
        me = self._construct()
        self._stack.append(me)
        try:
            out = _empty_frag()
            guard: set[str] = set()
            previous = None
            for op, av in items:
                f = self.item(op, av, ignorecase)
                self._charge(1 + len(out.last) + len(out.final) + len(f.first) + len(f.last))
                current = self._char_loop(op, av, ignorecase)
                if previous and current and _overlap(previous[1], current[1]):
                    self.adjacent.append((previous[0], current[0]))
                previous = current
                if guard and not f.empty:
                    for q in f.first:
                        self.guards.setdefault(q, set()).update(guard)
                guard = _literal_lookahead(op, av) if not ignorecase else set()
                self._link(out.last, f.first, me)
                if out.empty:
                    for q, m in f.first.items():
                        out.first[q] = min(2, out.first.get(q, 0) + m * out.empty)
                last = dict(f.last)
                if f.empty:
                    for p, m in out.last.items():
                        last[p] = min(2, last.get(p, 0) + m * f.empty)
                out.final = set(f.final) | (out.final if f.free else set())
                out.last = last
                out.empty = min(2, out.empty * f.empty)
                out.free = out.free and f.free
            return out
        finally:
            self._stack.pop()

    def item(self, op, av, ignorecase: bool) -> _Frag:
        charset = _leaf_set(op, av, ignorecase)
        if charset is not None:
            return self._position(charset)
        if op is _sre.SUBPATTERN:
            _group, add, remove, body = av
            if add & _sre.SRE_FLAG_IGNORECASE:
                ignorecase = True
            if remove & _sre.SRE_FLAG_IGNORECASE:
                ignorecase = False
            return self.seq(body, ignorecase)
        if op is _sre.BRANCH:
            me = self._construct()
            self.branchy.add(me)
            self._stack.append(me)
            try:
                out = _Frag({}, {}, set(), 0, False)
                for alternative in av[1]:
                    f = self.seq(alternative, ignorecase)
                    self._charge(1 + len(f.first) + len(f.last))
                    out.first.update(f.first)
                    out.last.update(f.last)
                    out.final |= f.final
                    out.empty = min(2, out.empty + f.empty)
                    out.free = out.free or f.free
                return out
            finally:
                self._stack.pop()
        if op is _sre.GROUPREF_EXISTS:
            _group, yes, no = av
            return self.item(_sre.BRANCH, (None, [yes, no or []]), ignorecase)
        if op in _REPEATS:
            return self.repeat(op, av, ignorecase)
        if op is _POSSESSIVE and av[1] == MAXREPEAT and len(av[2]) == 1:
            charset = _leaf_set(*av[2][0], ignorecase)
            if charset is not None:
                return self._run(av[0], charset)
        if op is _POSSESSIVE or op is _ATOMIC:
            # re never backtracks into these once they matched: inside they fail on their own, and
            # outside they are one opaque step.
            body = av[2] if op is _POSSESSIVE else av
            self.region(body, ignorecase)
            if op is _POSSESSIVE:
                self.repeat_count += 1
            return self._position(_UNIVERSE)
        if op in (_sre.ASSERT, _sre.ASSERT_NOT):
            self.region(av[1], ignorecase)
            return _empty_frag(1, free=False)
        # AT (anchors, \b), GROUPREF: zero width as far as loops go, but they can fail.
        return _empty_frag(1, free=False)

    def _run(self, low: int, charset) -> _Frag:
        """``[S]{n,}+``: a maximal run of S, one position that loops on itself and is never left for
        a character of S (re does not give any back). Modelled exactly, rather than as one opaque
        step, so that ``(?:[^<]++|<)*`` reads as unambiguous: its branches start apart."""
        me = self._construct()
        self.repeat_count += 1
        frag = self._position(charset)
        (p,) = frag.first
        self.follow[p].append((p, me, 0))
        self.munch[p] = charset
        if low == 0:
            frag.empty, frag.free = 1, True
        return frag

    def _char_loop(self, op, av, ignorecase: bool):
        """(the repeat, its character set) if this item is an unbounded loop over one character."""
        if op not in _REPEATS or av[1] < _LARGE or len(av[2]) != 1:
            return None
        charset = _leaf_set(*av[2][0], ignorecase)
        return None if charset is None else (self.repeats[self._last_repeat], charset)

    def repeat(self, op, av, ignorecase: bool) -> _Frag:
        low, high, body = av
        me = self._construct()
        self._stack.append(me)
        try:
            b = self.seq(body, ignorecase)
        finally:
            self._stack.pop()
        self._charge(1 + len(b.first) + len(b.last))
        self.repeats[me] = _Repeat((op, av), self.repeat_count, high >= _LARGE, frozenset(b.last))
        self.repeat_count += 1
        self._last_repeat = me
        if high == 0:
            return _empty_frag()
        if high >= 2:
            self._link(b.last, b.first, me)
        if low == 0:
            empty = 1 if not b.empty else min(2, 1 + b.empty)
        else:
            empty = min(2, b.empty**low)
        return _Frag(dict(b.first), dict(b.last), set(b.final), empty, low == 0 or b.free)

    # -- the ambiguity check ---------------------------------------------------------------------

    def ambiguous_loops(self) -> list[_Repeat]:
        n = len(self.sets)
        component = [0] * n
        for index, members in enumerate(_sccs(range(n), lambda p: {q for q, _, _ in self.follow[p]})):
            for p in members:
                component[p] = index
        overlaps: dict[tuple[int, int], bool] = {}

        def overlap(p: int, q: int) -> bool:
            key = (p, q) if p <= q else (q, p)
            if key not in overlaps:
                overlaps[key] = p == q or (
                    _overlap(self.sets[p], self.sets[q]) and not self._excluded(p, q) and not self._excluded(q, p)
                )
            return overlaps[key]

        # Only pairs inside one strongly connected part of the automaton can lie on a cycle.
        # Steps into the same component, split by the one character a target matches (if just one),
        # so a long alternation of words does not pair every word with every other.
        inward: list[tuple[dict, list, list]] = []
        for p in range(n):
            by_char: dict[int, list] = {}
            other, steps = [], []
            for step in self.follow[p]:
                if component[step[0]] != component[p]:
                    continue
                steps.append(step)
                char = self.literal[step[0]]
                if char is None:
                    other.append(step)
                else:
                    by_char.setdefault(char, []).append(step)
            inward.append((by_char, other, steps))
        edges: dict[tuple[int, int], list] = {}
        todo = [(p, p) for p in range(n) if inward[p][2]]
        seen = set(todo)
        self.spent = 0  # the search has a budget of its own
        while todo and not self.stopped:
            p, q = todo.pop()
            out = edges.setdefault((p, q), [])
            by_char, other, steps = inward[q]
            for p2, prov1, copy1 in inward[p][2]:
                if self.spent >= _SEARCH_BUDGET:
                    self.stopped = True  # this pair's other steps and the pairs still to do go unexplored
                    break
                char = self.literal[p2]
                candidates = steps if char is None else other + by_char.get(char, [])
                self.spent += len(candidates) + 1
                for q2, prov2, copy2 in candidates:
                    if not overlap(p2, q2):
                        continue
                    divergent = (p2, prov1, copy1) != (q2, prov2, copy2)
                    out.append(((p2, q2), divergent, prov1, prov2))
                    if (p2, q2) not in seen:
                        seen.add((p2, q2))
                        todo.append((p2, q2))
        found: dict[int, _Repeat] = {}
        for members in _sccs(list(edges), lambda node: {e[0] for e in edges.get(node, ())}):
            inside = set(members)
            if not any(p == q for p, q in inside):
                continue
            internal = [e for node in inside for e in edges.get(node, ()) if e[0] in inside]
            if not any(divergent for _, divergent, _, _ in internal):
                continue
            provenances = {e[2] for e in internal} | {e[3] for e in internal}
            repeat = self._culprit(provenances)
            # If nothing after the loop can fail, re leaves it at the first split it tries.
            if repeat is not None and not repeat.last <= self.final:
                found[id(repeat)] = repeat
        return list(found.values())

    def _excluded(self, guarded: int, other: int) -> bool:
        """Whether a (?!…) before ``guarded`` forbids the text that ``other`` is bound to match."""
        for text in self.guards.get(guarded, ()):
            p, ok = other, True
            for i, char in enumerate(text):
                if self.literal[p] != ord(char):
                    ok = False
                    break
                if i + 1 < len(text):
                    targets = {q for q, _, _ in self.follow[p]}
                    if len(targets) != 1:
                        ok = False
                        break
                    p = targets.pop()
            if ok:
                return True
        return False

    def _culprit(self, provenances: set[int]) -> _Repeat | None:
        """The innermost unbounded loop enclosing every step of the ambiguous cycle."""
        chains = []
        for prov in provenances:
            chain, node = [], prov
            while node is not None:
                chain.append(node)
                node = self.parent[node]
            chains.append(chain[::-1])
        common = 0
        while all(len(c) > common and c[common] == chains[0][common] for c in chains):
            common += 1
        for node in reversed(chains[0][:common]):
            repeat = self.repeats.get(node)
            if repeat is not None and repeat.loops:
                repeat.kind = self._kind(node, chains)
                return repeat
        return None

    def _kind(self, loop: int, chains: list[list[int]]) -> str:
        for chain in chains:  # every chain passes through the loop: it is their common ancestor
            below = chain[chain.index(loop) + 1 :]
            if any(node in self.repeats and self.repeats[node].node[1][1] >= 2 for node in below):
                return "nested"
        if loop in self._branch_ancestors():  # an alternation inside the loop
            return "alternatives"
        return "ambiguous"

    def _branch_ancestors(self) -> set[int]:
        """Every construct that is or encloses an alternation, found once (a walk up from each
        alternation that stops where an earlier walk passed), not per loop reported."""
        if self._above_branch is None:
            self._above_branch = set()
            for node in self.branchy:
                while node is not None and node not in self._above_branch:
                    self._above_branch.add(node)
                    node = self.parent[node]
        return self._above_branch


def _literal_lookahead(op, av) -> set[str]:
    """The strings of a (?!lit|lit…) lookahead: the classic guard of a tempered dot (?:(?!</a>).)*."""
    if op is not _sre.ASSERT_NOT or av[0] != 1:
        return set()
    body = av[1]
    alternatives = body[0][1][1] if len(body) == 1 and body[0][0] is _sre.BRANCH else [body]
    strings = set()
    for alternative in alternatives:
        if not alternative or any(o is not _sre.LITERAL for o, _ in alternative):
            return set()
        strings.add("".join(chr(a) for _, a in alternative))
    return strings


def _sccs(nodes, successors) -> list[list]:
    """Tarjan's strongly connected components, iteratively (patterns can be long)."""
    index: dict = {}
    low: dict = {}
    on_stack: set = set()
    stack: list = []
    out: list[list] = []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(successors(root)))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(successors(child))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    if member == node:
                        break
                out.append(members)
    return out
