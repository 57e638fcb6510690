"""Loops in a regex that Python's ``re`` can take exponential time over.

``re`` backtracks: when the rest of a pattern fails, it retries every other way the loops so far
could have split the text. If a loop's body can match the same text in two ways — ``(a+)+``,
``(\\s*)*``, ``(a|aa)+``, ``(.|\\s)*`` — a run of n characters has about 2**n splits, and a
match that fails after it hangs; transformers runs these patterns with no time limit.

The check reads the structure re runs, not the spelling: the pattern is parsed with ``re``'s own
parser (which merges ``(\\w|\\d)`` into the class ``[\\w\\d]``, safe), turned into a position
automaton (Glushkov: one state per character-matching leaf; nullable, first and last sets per
subpattern), and a loop is reported when two different paths lead from a state back to itself over
the same text (exponential degree of ambiguity: a strongly connected part of the automaton squared
holding a diagonal pair and a divergent step). Character sets are intervals of code points, so
``[^<\\s]`` and ``\\s`` are known to be disjoint. Lookarounds are taken to succeed, except the
tempered dot ``(?:(?!</a>).)*``, whose guard is understood; a loop that another lookaround makes
unambiguous would be reported all the same.

Two unbounded loops side by side over overlapping characters (``\\s*\\s*x``) are reported too: only
polynomial, but cubic under ``search``, which tries every start position.
"""

from __future__ import annotations

import array
import functools
import re
import sys
import warnings
from dataclasses import dataclass

if sys.version_info >= (3, 11):
    from re import _parser as _sre
else:  # pragma: no cover - the project runs 3.11+, but the parser moved there
    import sre_parse as _sre

MAXREPEAT = _sre.MAXREPEAT
_LARGE = 10  # {n,m} with m below this can only be polynomially ambiguous (degree < m)
# Pairs of steps to look at before giving up on a huge pattern (about a tenth of a second). A cycle
# found in the part explored is a cycle all the same, so stopping early only misses, never invents.
_BUDGET = 100_000
_TOP = 0x10FFFF
_UNIVERSE = ((0, _TOP),)

_REPEATS = (_sre.MAX_REPEAT, _sre.MIN_REPEAT)
_POSSESSIVE = getattr(_sre, "POSSESSIVE_REPEAT", None)
_ATOMIC = getattr(_sre, "ATOMIC_GROUP", None)


@dataclass(frozen=True, slots=True)
class Risk:
    construct: str  # the loop as written in the pattern (or as re parsed it)
    offset: int | None  # where it starts in the pattern, when it could be located
    kind: str  # exponential: "nested", "alternatives", "ambiguous"; polynomial: "adjacent"
    rewrite: str | None  # an equivalent loop that cannot blow up, when there is a simple one
    grouped: str | None = None  # the rewrite inside the capture group the loop repeated

    def message(self) -> str:
        at = f" at offset {self.offset}" if self.offset is not None else ""
        if self.kind == "adjacent":
            what = (
                f"adjacent quantifiers: in `{self.construct}`{at} both loops can match the same characters, "
                "so each time what follows fails re tries every way of sharing a run between them (quadratic "
                "in the run at every place a search starts); Python's re (which transformers uses, with no "
                "time limit) can hang for seconds on a few thousand characters"
            )
            if self.rewrite:
                what += f"; `{self.rewrite}` matches the same text in linear time"
            return what
        if self.kind == "nested":
            what = (
                f"nested quantifier: in `{self.construct}`{at} the inner and outer loops can split the same "
                "text between them in exponentially many ways"
            )
        elif self.kind == "alternatives":
            what = (
                f"overlapping alternatives in a loop: in `{self.construct}`{at} the branches can match the "
                "same text, so a run of it splits into iterations in exponentially many ways"
            )
        else:
            what = (
                f"ambiguous loop: each iteration of `{self.construct}`{at} can match the same text in more "
                "than one way, so a run of it splits in exponentially many ways"
            )
        what += (
            "; when the rest of the regex then fails, Python's re (which transformers uses, with no time "
            "limit) tries every split and can hang (2**n tries for n repetitions)"
        )
        if self.rewrite:
            what += f"; `{self.rewrite}` matches the same text in linear time"
            if self.grouped:
                what += f" (`{self.grouped}` to capture the whole run)"
        return what


@functools.lru_cache(maxsize=2048)  # validate runs on every keystroke; most patterns are unchanged
def risks(pattern: str, flags: int = re.DOTALL) -> tuple[Risk, ...]:
    """Every loop in ``pattern`` that can backtrack exponentially; ``()`` if re rejects it."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # validate already reported re's own warnings
            parsed = _sre.parse(pattern, flags)
    except (re.error, RecursionError, OverflowError):
        return ()
    automaton = _Automaton(parsed.state.flags)
    try:
        automaton.region(list(parsed))
    except RecursionError:
        return ()
    loops = automaton.ambiguous_loops()
    # Two loops sharing a run is polynomial, not exponential, but under search (every start
    # position) still hangs for seconds at a few thousand characters once what follows fails.
    pairs = [(a, b) for a, b in automaton.adjacent if not b.last <= automaton.final]
    if not loops and not pairs:
        return ()
    spans = None if parsed.state.flags & _sre.SRE_FLAG_VERBOSE else _quantifier_spans(pattern)
    if spans is not None and len(spans) != automaton.repeat_count:
        spans = None  # the parser rewrote something (a|a*b factored out a*): quote its version
    names = {index: name for name, index in parsed.state.groupdict.items()}

    def quote(first: _Repeat, last: _Repeat) -> tuple[str, int | None]:
        if spans is None:
            return _unparse([first.node] if first is last else [first.node, last.node], names), None
        return pattern[spans[first.order][0] : spans[last.order][1]], spans[first.order][0]

    found = []
    for repeat in sorted(loops, key=lambda r: r.order):
        found.append(Risk(*quote(repeat, repeat), repeat.kind, *_rewrite(repeat.node, names, flags)))
    for first, second in pairs:
        found.append(Risk(*quote(first, second), "adjacent", _merged_loops(first.node, second.node, names, flags)))
    return tuple(found)


# -- character sets: sorted, merged tuples of inclusive (lo, hi) code point intervals ----------


def _merge(intervals) -> tuple[tuple[int, int], ...]:
    out: list[list[int]] = []
    for lo, hi in sorted(intervals):
        if out and lo <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return tuple((lo, hi) for lo, hi in out)


def _complement(intervals) -> tuple[tuple[int, int], ...]:
    out, nxt = [], 0
    for lo, hi in intervals:
        if lo > nxt:
            out.append((nxt, lo - 1))
        nxt = hi + 1
    if nxt <= _TOP:
        out.append((nxt, _TOP))
    return tuple(out)


def _overlap(a, b) -> bool:
    i = j = 0
    while i < len(a) and j < len(b):
        if a[i][1] < b[j][0]:
            i += 1
        elif b[j][1] < a[i][0]:
            j += 1
        else:
            return True
    return False


@functools.cache
def _category(name: str) -> tuple[tuple[int, int], ...]:
    # Computed by re itself over every code point, so \s, \d and \w here are exactly re's.
    negated = name.startswith("CATEGORY_NOT_")
    base = name.replace("NOT_", "").replace("LOC_", "").replace("UNI_", "")
    probe = {"CATEGORY_DIGIT": r"\d+", "CATEGORY_SPACE": r"\s+", "CATEGORY_WORD": r"\w+"}.get(base)
    if probe is None:  # CATEGORY_LINEBREAK and friends never come out of the parser
        return _UNIVERSE
    found = _merge((m.start(), m.end() - 1) for m in re.finditer(probe, _all_chars()))
    return _complement(found) if negated else found


@functools.cache
def _all_chars() -> str:
    codes = array.array("I", range(_TOP + 1))
    if codes.itemsize != 4:  # pragma: no cover - no such platform in use
        return "".join(map(chr, range(_TOP + 1)))
    # A tenth of the time of joining chr()s; surrogates are code points re can meet too.
    return codes.tobytes().decode(f"utf-32-{sys.byteorder[0]}e", "surrogatepass")


def _with_case(intervals, ignorecase: bool):
    if not ignorecase:
        return _merge(intervals)
    extra = []
    for lo, hi in intervals:
        if hi - lo > 2000:  # wide ranges: the other case is almost surely inside already
            continue
        for code in range(lo, hi + 1):
            for variant in {chr(code).lower(), chr(code).upper(), chr(code).swapcase()}:
                if len(variant) == 1:
                    extra.append((ord(variant), ord(variant)))
    return _merge(list(intervals) + extra)


def _leaf_set(op, av, ignorecase: bool):
    if op is _sre.LITERAL:
        return _with_case([(av, av)], ignorecase)
    if op is _sre.NOT_LITERAL:
        return _complement(_with_case([(av, av)], ignorecase))
    if op is _sre.ANY:  # DOTALL, as transformers compiles; without it this over-approximates
        return _UNIVERSE
    if op is _sre.IN:
        negate = bool(av) and av[0][0] is _sre.NEGATE
        parts: list[tuple[int, int]] = []
        for item_op, item_av in av[1:] if negate else av:
            if item_op is _sre.LITERAL:
                parts.extend(_with_case([(item_av, item_av)], ignorecase))
            elif item_op is _sre.RANGE:
                parts.extend(_with_case([item_av], ignorecase))
            elif item_op is _sre.CATEGORY:
                parts.extend(_category(str(item_av)))
            else:
                return _UNIVERSE
        merged = _merge(parts)
        return _complement(merged) if negate else merged
    return None


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
    parent: int | None
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
        self.final: set[int] = set()  # positions after which their region can succeed outright
        self.parent: dict[int, int | None] = {}  # construct id -> enclosing construct id
        self.repeats: dict[int, _Repeat] = {}
        self.branchy: set[int] = set()  # constructs that contain an alternation
        self.repeat_count = 0
        self.adjacent: list[tuple[_Repeat, _Repeat]] = []  # x*y* with x and y overlapping
        self._ids = 0
        self._last_repeat = 0
        self._stack: list[int] = []

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
        for p, m1 in last.items():
            for q, m2 in first.items():
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
        self.repeats[me] = _Repeat((op, av), self.repeat_count, self.parent[me], high >= _LARGE, frozenset(b.last))
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
        budget = _BUDGET
        while todo and budget > 0:
            p, q = todo.pop()
            out = edges.setdefault((p, q), [])
            by_char, other, steps = inward[q]
            for p2, prov1, copy1 in inward[p][2]:
                char = self.literal[p2]
                candidates = steps if char is None else other + by_char.get(char, [])
                budget -= len(candidates) + 1
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
        if any(self._inside(branch, loop) for branch in self.branchy):
            return "alternatives"
        return "ambiguous"

    def _inside(self, node: int | None, ancestor: int) -> bool:
        while node is not None:
            if node == ancestor:
                return True
            node = self.parent[node]
        return False


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


# -- quoting the loop as written -----------------------------------------------------------------

_COUNT = re.compile(r"\{(?!\})\d*(?:,\d*)?\}")


def _quantifier_spans(pattern: str) -> list[tuple[int, int]] | None:
    """(start, end) of every quantified atom, in the order of the quantifiers.

    The parse tree keeps no offsets; re's parser creates one repeat per quantifier, so the n-th
    repeat in post-order is the n-th quantifier here (the caller checks the counts agree).
    """
    spans: list[tuple[int, int]] = []
    opens: list[int] = []
    atom: tuple[int, int] | None = None
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            j = _escape_end(pattern, i)
            atom, i = (i, j), j
        elif c == "[":
            j = i + 1
            if j < n and pattern[j] == "^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j = _escape_end(pattern, j) if pattern[j] == "\\" else j + 1
            atom, i = (i, j + 1), j + 1
        elif c == "(":
            if pattern.startswith("(?#", i):
                i = pattern.find(")", i) + 1 or n
                continue
            opens.append(i)
            atom, i = None, _group_body(pattern, i)
        elif c == ")":
            start = opens.pop() if opens else i
            atom, i = (start, i + 1), i + 1
        elif c == "|":
            atom, i = None, i + 1
        elif c in "*+?" or (c == "{" and _COUNT.match(pattern, i)):
            j = _COUNT.match(pattern, i).end() if c == "{" else i + 1
            if j < n and pattern[j] in "?+":
                j += 1
            if atom is None:
                return None
            spans.append((atom[0], j))
            atom, i = None, j
        else:
            atom, i = (i, i + 1), i + 1
    return spans


_GROUP_PREFIX = re.compile(r"\(\?(?:P<[^>]*>|P=[^)]*|<=|<!|[:=!>]|\(\w*\)|[aiLmsux]*(?:-[imsx]*)?:?)")


def _group_body(pattern: str, i: int) -> int:
    """Where the body of the group opening at i starts: after (?:, (?P<name>, (?<=, (?(1) ..."""
    if not pattern.startswith("(?", i):
        return i + 1
    return _GROUP_PREFIX.match(pattern, i).end()


def _escape_end(pattern: str, i: int) -> int:
    nxt = pattern[i + 1 : i + 2]
    if nxt == "x":
        return i + 4
    if nxt == "u":
        return i + 6
    if nxt == "U":
        return i + 10
    if nxt == "N" and pattern.startswith("{", i + 2):
        return pattern.find("}", i) + 1 or len(pattern)
    if nxt.isdigit():
        j = i + 2
        while j < min(len(pattern), i + 4) and pattern[j].isdigit():
            j += 1
        return j
    return i + 2


# -- writing regexes back out --------------------------------------------------------------------

_AT = {
    "AT_BEGINNING": "^",
    "AT_BEGINNING_STRING": r"\A",
    "AT_END": "$",
    "AT_END_STRING": r"\Z",
    "AT_BOUNDARY": r"\b",
    "AT_NON_BOUNDARY": r"\B",
}
_CATEGORY = {
    "CATEGORY_DIGIT": r"\d",
    "CATEGORY_NOT_DIGIT": r"\D",
    "CATEGORY_SPACE": r"\s",
    "CATEGORY_NOT_SPACE": r"\S",
    "CATEGORY_WORD": r"\w",
    "CATEGORY_NOT_WORD": r"\W",
}
_ESCAPES = {"\n": r"\n", "\t": r"\t", "\r": r"\r", "\f": r"\f", "\v": r"\v", "\0": r"\x00"}


def _char(code: int, in_class: bool = False) -> str:
    c = chr(code)
    if c in _ESCAPES:
        return _ESCAPES[c]
    if c in (r"\]^-[" if in_class else r".^$*+?{}[]\|()"):
        return "\\" + c
    return c


def _class_item(op, av) -> str:
    if op is _sre.LITERAL:
        return _char(av, True)
    if op is _sre.RANGE:
        return f"{_char(av[0], True)}-{_char(av[1], True)}"
    if op is _sre.CATEGORY:
        return _CATEGORY.get(str(av), "")
    return ""


def _quantifier(op, low: int, high: int) -> str:
    if (low, high) == (0, MAXREPEAT):
        q = "*"
    elif (low, high) == (1, MAXREPEAT):
        q = "+"
    elif (low, high) == (0, 1):
        q = "?"
    elif low == high:
        q = f"{{{low}}}"
    elif high == MAXREPEAT:
        q = f"{{{low},}}"
    else:
        q = f"{{{low},{high}}}"
    if op is _sre.MIN_REPEAT:
        q += "?"
    elif op is _POSSESSIVE:
        q += "+"
    return q


def _unparse(items, names: dict[int, str]) -> str:
    return "".join(_unparse_item(op, av, names) for op, av in items)


def _unparse_item(op, av, names: dict[int, str]) -> str:
    if op is _sre.LITERAL:
        return _char(av)
    if op is _sre.NOT_LITERAL:
        return f"[^{_char(av, True)}]"
    if op is _sre.ANY:
        return "."
    if op is _sre.IN:
        if len(av) == 1 and av[0][0] is _sre.CATEGORY:
            return _class_item(*av[0])
        negate = "^" if av and av[0][0] is _sre.NEGATE else ""
        return "[" + negate + "".join(_class_item(o, a) for o, a in av if o is not _sre.NEGATE) + "]"
    if op is _sre.BRANCH:
        return "|".join(_unparse(alternative, names) for alternative in av[1])
    if op is _sre.SUBPATTERN:
        group, _add, _remove, body = av
        opener = "(?:" if group is None else f"(?P<{names[group]}>" if group in names else "("
        return opener + _unparse(body, names) + ")"
    if op in _REPEATS or op is _POSSESSIVE:
        low, high, body = av
        return _atom(body, names) + _quantifier(op, low, high)
    if op is _ATOMIC:
        return "(?>" + _unparse(av, names) + ")"
    if op in (_sre.ASSERT, _sre.ASSERT_NOT):
        direction, body = av
        kind = ("=" if op is _sre.ASSERT else "!") if direction == 1 else ("<=" if op is _sre.ASSERT else "<!")
        return f"(?{kind}" + _unparse(body, names) + ")"
    if op is _sre.AT:
        return _AT.get(str(av), "")
    if op is _sre.GROUPREF:
        return f"(?P={names[av]})" if av in names else f"\\{av}"
    if op is _sre.GROUPREF_EXISTS:
        group, yes, no = av
        return f"(?({group})" + _unparse(yes, names) + ("|" + _unparse(no, names) if no else "") + ")"
    return ""


def _atom(body, names: dict[int, str]) -> str:
    text = _unparse(body, names)
    if len(body) == 1 and body[0][0] in (_sre.LITERAL, _sre.NOT_LITERAL, _sre.ANY, _sre.IN, _sre.SUBPATTERN):
        return text
    return "(?:" + text + ")"


# -- linear rewrites -----------------------------------------------------------------------------


def _rewrite(node, names: dict[int, str], flags: int) -> tuple[str | None, str | None]:
    """A linear loop matching the same text, and the same inside the group the loop repeated."""
    op, (low, high, body) = node
    if op is not _sre.MAX_REPEAT or high != MAXREPEAT or low > 1 or not _greedy(body):
        return None, None
    ignorecase = bool(flags & _sre.SRE_FLAG_IGNORECASE)
    group = None
    inner = body
    if len(inner) == 1 and inner[0][0] is _sre.SUBPATTERN:
        group, _add, _remove, inner = inner[0][1]
    loop = _single_set_loop(inner, low, names, ignorecase) or _unrolled(inner, low, names, ignorecase)
    if loop is None or group is None:
        return loop, None
    opener = f"(?P<{names[group]}>" if group in names else "("
    return loop, f"{opener}{loop})"


def _merged_loops(first, second, names: dict[int, str], flags: int) -> str | None:
    """x*x* is x*, and .*\\s* is .*: one loop when one set holds the other."""
    (op1, (low1, _h1, body1)), (op2, (low2, _h2, body2)) = first, second
    if op1 is not op2:
        return None
    ignorecase = bool(flags & _sre.SRE_FLAG_IGNORECASE)
    set1, set2 = _leaf_set(*body1[0], ignorecase), _leaf_set(*body2[0], ignorecase)
    if set1 == set2:
        body, low = body1, low1 + low2
    elif low2 == 0 and _merge(set1 + set2) == set1:
        body, low = body1, low1
    elif low1 == 0 and _merge(set1 + set2) == set2:
        body, low = body2, low2
    else:
        return None
    return _unparse_item(*body[0], names) + _quantifier(op1, low, MAXREPEAT)


def _greedy(items) -> bool:
    for op, av in items:
        if op is _sre.MIN_REPEAT or op is _POSSESSIVE or op is _ATOMIC:
            return False
        children = []
        if op is _sre.MAX_REPEAT:
            children = [av[2]]
        elif op is _sre.SUBPATTERN:
            children = [av[3]]
        elif op is _sre.BRANCH:
            children = av[1]
        if not all(_greedy(child) for child in children):
            return False
    return True


def _leaves(items, ignorecase: bool, out: list) -> bool:
    """Collect every character-matching leaf; False if anything else (anchors, lookarounds) is inside."""
    for op, av in items:
        if _leaf_set(op, av, ignorecase) is not None:
            out.append((op, av))
        elif op is _sre.SUBPATTERN:
            if av[1] or av[2] or not _leaves(av[3], ignorecase, out):
                return False
        elif op is _sre.BRANCH:
            if not all(_leaves(alternative, ignorecase, out) for alternative in av[1]):
                return False
        elif op is _sre.MAX_REPEAT:
            if not _leaves(av[2], ignorecase, out):
                return False
        else:
            return False
    return True


def _singles(items, ignorecase: bool):
    """The characters c for which the one-character string c is a whole match of ``items``."""
    nullable = [_nullable(op, av) for op, av in items]
    found: list = []
    for i, (op, av) in enumerate(items):
        if not all(nullable[:i] + nullable[i + 1 :]):
            continue
        charset = _leaf_set(op, av, ignorecase)
        if charset is not None:
            found.extend(charset)
        elif op is _sre.SUBPATTERN:
            found.extend(_singles(av[3], ignorecase))
        elif op is _sre.BRANCH:
            for alternative in av[1]:
                found.extend(_singles(alternative, ignorecase))
        elif op is _sre.MAX_REPEAT:
            low, high, body = av
            if high >= 1 and (low <= 1 or all(_nullable(o, a) for o, a in body)):
                found.extend(_singles(body, ignorecase))
    return _merge(found)


def _nullable(op, av) -> bool:
    if op is _sre.SUBPATTERN:
        return all(_nullable(o, a) for o, a in av[3])
    if op is _sre.BRANCH:
        return any(all(_nullable(o, a) for o, a in alternative) for alternative in av[1])
    if op in _REPEATS or op is _POSSESSIVE:
        return av[0] == 0 or all(_nullable(o, a) for o, a in av[2])
    return op in (_sre.AT, _sre.ASSERT, _sre.ASSERT_NOT, _sre.GROUPREF)


def _render_set(charset, leaves, names: dict[int, str], ignorecase: bool) -> str | None:
    if charset == _UNIVERSE:
        return "."  # transformers compiles with DOTALL
    for op, av in leaves:
        if _leaf_set(op, av, ignorecase) == charset:
            return _unparse_item(op, av, names)
    if all(op is _sre.LITERAL or (op is _sre.IN and av and av[0][0] is not _sre.NEGATE) for op, av in leaves):
        items = [_class_item(op, av) if op is _sre.LITERAL else "".join(_class_item(*i) for i in av) for op, av in leaves]
        return "[" + "".join(dict.fromkeys(items)) + "]"
    return None


def _single_set_loop(body, low: int, names: dict[int, str], ignorecase: bool) -> str | None:
    """(B)* is S* when B matches every single character of S and only strings over S."""
    leaves: list = []
    if not _leaves(body, ignorecase, leaves) or not leaves:
        return None
    charset = _merge(i for op, av in leaves for i in _leaf_set(op, av, ignorecase))
    if _singles(body, ignorecase) != charset:
        return None
    rendered = _render_set(charset, leaves, names, ignorecase)
    nullable = all(_nullable(op, av) for op, av in body)  # then even (B)+ matches the empty string
    return None if rendered is None else rendered + ("*" if low == 0 or nullable else "+")


def _unrolled(body, low: int, names: dict[int, str], ignorecase: bool) -> str | None:
    """(?:X+Y?)+ with X, Y disjoint sets is X+(?:YX+)*Y?: a Y has to separate two X runs."""
    if len(body) != 2 or body[0][0] is not _sre.MAX_REPEAT or body[1][0] is not _sre.MAX_REPEAT:
        return None
    (x_low, x_high, x_body), (y_low, y_high, y_body) = body[0][1], body[1][1]
    if (x_low, x_high) != (1, MAXREPEAT) or y_low != 0 or y_high not in (1, MAXREPEAT):
        return None
    if len(x_body) != 1 or len(y_body) != 1:
        return None
    x_set, y_set = _leaf_set(*x_body[0], ignorecase), _leaf_set(*y_body[0], ignorecase)
    if x_set is None or y_set is None or _overlap(x_set, y_set):
        return None
    x, y = _unparse_item(*x_body[0], names), _unparse_item(*y_body[0], names)
    if y_high == 1:
        loop = f"{x}+(?:{y}{x}+)*{y}?"
    else:
        loop = f"{x}+(?:{y}+{x}+)*{y}*"
    return loop if low == 1 else f"(?:{loop})?"
