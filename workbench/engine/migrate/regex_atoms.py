"""A regex as the sequence of its top-level atoms, each with its source text.

Migration cuts a schema regex such as ``<think>\\s*((?:.*?\\S)??)\\s*(?:</think>|$)`` into the part
before its group (the opener), the group (the body) and the part after (the closer). The pieces
must keep their exact spelling, because they become a template's ``open_pattern`` and
``close_pattern``; so the pattern is split here by hand, atom by atom (an escape, a class, a group
with its quantifier), and each atom is then judged by what ``re``'s own parser makes of it.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..backtracking.parsetree import MAXREPEAT, _sre
from ..regex_source import RegexSourceError, alternatives, atom_end, group_end, quantifier_end


class NotSplittable(Exception):
    """The pattern cannot be cut into atoms that keep their meaning apart (the reason says why)."""


def split_atoms(pattern: str) -> list[str]:
    """The top-level atoms of ``pattern`` (with their quantifiers), in order. A top-level ``|``, a
    backreference or an inline flag group makes pieces that do not mean on their own what they
    meant together: NotSplittable."""
    if re.match(r"\(\?[aiLmsux-]*x", pattern):
        raise NotSplittable("it is a verbose (?x) pattern")
    if _BACKREFERENCE.search(pattern):
        raise NotSplittable("it has a backreference")
    atoms, i, n = [], 0, len(pattern)
    try:
        while i < n:
            start, c = i, pattern[i]
            if c == "(" and re.match(r"\(\?[aiLmsux-]+\)", pattern[i:]):
                raise NotSplittable("it sets inline flags, which apply to the whole pattern")
            if c == "|":
                raise NotSplittable("it is an alternation at the top level")
            if c == ")":
                raise NotSplittable("it has an unbalanced ')'")
            i = quantifier_end(pattern, atom_end(pattern, i))
            atoms.append(pattern[start:i])
    except RegexSourceError as exc:
        raise NotSplittable(str(exc)) from None
    return atoms


def split_alternatives(text: str) -> list[str]:
    """``a|b|c`` at the top level of ``text`` (the inside of a group) as ``["a", "b", "c"]``."""
    if _BACKREFERENCE.search(text):
        raise NotSplittable("it has a backreference")
    try:
        return alternatives(text)
    except RegexSourceError as exc:
        raise NotSplittable(str(exc)) from None


# A backreference: \1-\99 (not three octal digits) or (?P=name), outside a class. Found before
# cutting, so no piece is cut from the group it refers to.
_BACKREFERENCE = re.compile(r"(?<!\\)(?:\\\\)*\\(?![0-7]{3})[1-9]|\(\?P=")


# ----- what an atom is -----------------------------------------------------------------------------


@lru_cache(maxsize=1024)
def _parsed(text: str):
    return list(_sre.parse(text, re.DOTALL))


def compiles(text: str) -> bool:
    try:
        re.compile(text, re.DOTALL)
    except re.error:
        return False
    return True


def literal_of(text: str) -> str | None:
    """The exact string ``text`` matches when it is a plain literal (escapes and unquantified
    non-capturing groups allowed), else None."""
    try:
        return _literal(_parsed(text))
    except re.error:
        return None


def _literal(items) -> str | None:
    out = []
    for op, av in items:
        if op is _sre.LITERAL:
            out.append(chr(av))
        elif op is _sre.SUBPATTERN and av[0] is None and not av[1] and not av[2]:
            inner = _literal(av[3])
            if inner is None:
                return None
            out.append(inner)
        else:
            return None
    return "".join(out)


def is_capture(atom: str) -> bool:
    """An unquantified capturing group: ``(...)`` or ``(?P<name>...)``."""
    return _capture_inner(atom) is not None


def capture_name(atom: str) -> str | None:
    m = re.match(r"\(\?P<(\w+)>", atom)
    return m.group(1) if m else None


def capture_inner(atom: str) -> str:
    inner = _capture_inner(atom)
    assert inner is not None
    return inner


def _capture_inner(atom: str) -> str | None:
    if not atom.endswith(")"):
        return None  # quantified
    if atom.startswith("(?P<"):
        return atom[atom.index(">") + 1 : -1]
    if atom.startswith("(") and not atom.startswith("(?"):
        return atom[1:-1]
    return None


def group_count(text: str) -> int:
    try:
        return re.compile(text, re.DOTALL).groups
    except re.error:
        return 0


def group_names(text: str) -> set[str]:
    try:
        return set(re.compile(text, re.DOTALL).groupindex)
    except re.error:
        return set()


def noncapturing_inner(atom: str) -> str | None:
    """The inside of an unquantified ``(?:...)``, else None."""
    if atom.startswith("(?:") and atom.endswith(")") and _closes_at_end(atom):
        return atom[3:-1]
    return None


def is_start(atom: str) -> bool:
    return atom in ("^", r"\A")


def is_end(text: str) -> bool:
    """``$`` or ``\\Z`` (``\\z`` in the template's ``regex`` module): the end of the text."""
    return text in ("$", r"\Z", r"\z")


def is_trim(atom: str) -> bool:
    """``\\s*`` (or any greedy run of whitespace that may be empty): a strip of the body's edge."""
    try:
        items = _parsed(atom)
    except re.error:
        return False
    if len(items) != 1 or items[0][0] is not _sre.MAX_REPEAT:
        return False
    low, high, body = items[0][1]
    return low == 0 and high == MAXREPEAT and _whitespace_only(list(body))


def _whitespace_only(items) -> bool:
    if len(items) != 1:
        return False
    op, av = items[0]
    if op is _sre.IN:
        return all(
            (o is _sre.CATEGORY and a is _sre.CATEGORY_SPACE) or (o is _sre.LITERAL and chr(a).isspace())
            for o, a in av
        )
    if op is _sre.LITERAL:
        return chr(av).isspace()
    return False


def is_lookahead(atom: str) -> bool:
    return atom.startswith(("(?=", "(?!")) and atom.endswith(")")


def is_negative_lookahead(atom: str) -> bool:
    return atom.startswith("(?!") and atom.endswith(")")


def can_be_empty(atom: str) -> bool:
    """Whether the atom can match the empty string (an optional part, a zero-width assertion that
    holds on empty text, ...)."""
    try:
        return re.fullmatch(atom, "", re.DOTALL) is not None
    except re.error:
        return False


def is_lazy_any(text: str) -> bool:
    """Whether a group body is "any text, as little as possible": ``.*?``, ``(?:.*?\\S)??``,
    ``\\S(?:.*?\\S)??``, ``[\\s\\S]*?`` and the like. Judged by what it accepts (every probe text
    that has no whitespace at its edges) and by having no greedy unbounded repeat."""
    return _accepts_probes(text) and not _has_greedy_star(_parsed_or_none(text))


def is_greedy_any(text: str) -> bool:
    """``.*`` or ``.+``: the rest of the text."""
    return _accepts_probes(text) and _has_greedy_star(_parsed_or_none(text))


_PROBES = ("x", "x y", "x\n\ny", '<a b="c">{d}</a>')


def _accepts_probes(text: str) -> bool:
    try:
        compiled = re.compile(text, re.DOTALL)
    except re.error:
        return False
    return all(compiled.fullmatch(probe) for probe in _PROBES)


def _parsed_or_none(text: str):
    try:
        return _parsed(text)
    except re.error:
        return None


def _has_greedy_star(items) -> bool:
    if items is None:
        return True
    for op, av in items:
        if op is _sre.MAX_REPEAT:
            if av[1] == MAXREPEAT:
                return True
            if _has_greedy_star(list(av[2])):
                return True
        elif op is _sre.MIN_REPEAT:
            if _has_greedy_star(list(av[2])):
                return True
        elif op is _sre.SUBPATTERN:
            if _has_greedy_star(list(av[3])):
                return True
        elif op is _sre.BRANCH:
            if any(_has_greedy_star(list(branch)) for branch in av[1]):
                return True
    return False


def swallows(atom: str) -> bool:
    """Whether the atom (outside lookarounds) takes any text of any length (``.*?``, ``[\\s\\S]*``):
    an opener with such a part reads other fields' text instead of marking a place."""
    try:
        return _swallows(_parsed(atom))
    except re.error:
        return False


def _swallows(items) -> bool:
    for op, av in items:
        if op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT):
            body = list(av[2])
            if av[1] == MAXREPEAT and len(body) == 1 and _any_char(body[0]):
                return True
            if _swallows(body):
                return True
        elif op is _sre.SUBPATTERN:
            if _swallows(list(av[3])):
                return True
        elif op is _sre.BRANCH:
            if any(_swallows(list(branch)) for branch in av[1]):
                return True
    return False


def _any_char(item) -> bool:
    op, av = item
    if op is _sre.ANY:
        return True
    if op is _sre.IN:
        categories = {a for o, a in av if o is _sre.CATEGORY}
        return any({positive, negative} <= categories for positive, negative in _COMPLEMENTS)
    return False


_COMPLEMENTS = (
    (_sre.CATEGORY_SPACE, _sre.CATEGORY_NOT_SPACE),
    (_sre.CATEGORY_DIGIT, _sre.CATEGORY_NOT_DIGIT),
    (_sre.CATEGORY_WORD, _sre.CATEGORY_NOT_WORD),
)


def literal_runs(text: str) -> set[str]:
    """Every run of two or more literal characters in the pattern, at any depth: what a pattern
    says about the markers it looks for (``(?:\\s*<think>.*?</think>)?`` gives ``<think>`` and
    ``</think>``)."""
    runs: set[str] = set()
    try:
        _collect_runs(_parsed(text), runs)
    except re.error:
        pass
    return runs


def _collect_runs(items, runs: set[str]) -> None:
    current: list[str] = []

    def flush() -> None:
        if len(current) >= 2:
            runs.add("".join(current))
        current.clear()

    for op, av in items:
        if op is _sre.LITERAL:
            current.append(chr(av))
            continue
        flush()
        if op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT):
            _collect_runs(list(av[2]), runs)
        elif op is _sre.SUBPATTERN:
            _collect_runs(list(av[3]), runs)
        elif op is _sre.BRANCH:
            for branch in av[1]:
                _collect_runs(list(branch), runs)
        elif op in (_sre.ASSERT, _sre.ASSERT_NOT):
            _collect_runs(list(av[1]), runs)
    flush()


def leading_literal(text: str) -> str:
    """The literal characters every match of ``text`` starts with, after optional whitespace."""
    out = []
    try:
        items = _parsed(text)
    except re.error:
        return ""
    for op, av in items:
        if op is _sre.LITERAL:
            out.append(chr(av))
        elif not out and op is _sre.MAX_REPEAT and av[0] == 0 and _whitespace_only(list(av[2])):
            continue
        else:
            break
    return "".join(out)


def _closes_at_end(atom: str) -> bool:
    """Whether the group that opens ``atom`` is all of it."""
    try:
        return group_end(atom, 0) == len(atom)
    except RegexSourceError:
        return False

