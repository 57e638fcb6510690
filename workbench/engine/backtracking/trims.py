"""Whitespace trims that rescan a run: polynomial backtracking the loop check does not see.

The shapes that made shipped schemas quadratic or cubic on a long whitespace run (see
``workbench check --linear``), each read from re's parse tree, side by side in one sequence:

- ``\\s*(?:X)?\\s*``: two loops over the same run with only an optional part between; each way of
  sharing the run is tried when what follows fails. ``\\s*(?:X\\s*)?`` matches the same text.
- ``\\s*((?:.*?\\S)??)``: a loop, then a lazy group that starts with a loop over the same
  characters: when what follows fails, the group rescans the run's tail for every length the
  first loop gives back. ``\\s*(?!\\s)((?:.*?\\S)??)`` lets the loop give nothing back.
- ``(\\{.*?)\\s*``: a group ending in a lazy loop, then a loop over the same characters: at each
  character of a run the lazy loop takes, the next loop rescans the rest. ``(\\{(?:.*?\\S)??)\\s*``
  gives the same matches (the group never ends in whitespace).
- ``\\\\(?=.*\\x00\\Z)``: a lookaround that scans to the end of the text, in a regex ``search``
  tries at every position: quadratic in the text.
- ``^\\s*(?:<think>|(?=.*?</think>))``: a loop, then (perhaps after optional parts) a lookaround
  that scans to the end of the text, or an alternation one of whose branches starts with one: when
  the lookaround fails, the loop gives back a character and it scans again, from every character of
  the run, even in an anchored regex. ``\\s*(?!\\s)(?:…)`` lets the loop give nothing back.

Each is harmless when what follows always succeeds (``\\s*(?:X)?\\s*`` at the end of the regex,
``\\s*((?:.*?\\S)??)\\s*(?:</a>|$)``), so those are not reported.
"""

from __future__ import annotations

import functools
import re
import warnings
from dataclasses import dataclass
from typing import NamedTuple

from .charsets import _UNIVERSE, _leaf_set, _merge, _overlap
from .parsetree import MAXREPEAT, _REPEATS, _sre
from .unparse import _unparse

_ENDS = (_sre.AT_END, _sre.AT_END_STRING)
_STARTS = (_sre.AT_BEGINNING, _sre.AT_BEGINNING_STRING)
_SPACE = (_sre.CATEGORY, _sre.CATEGORY_SPACE)


@functools.cache
def _spaces() -> tuple:
    """The code points ``\\s`` takes: computed over every code point (~0.15 s), so on first use, not
    at import (the analysis process's start is on the TUI's first paint)."""
    return tuple(_leaf_set(_sre.IN, [_SPACE], False))


@dataclass(frozen=True, slots=True)
class Trim:
    construct: str
    kind: str  # "optional between", "loop into lazy group", "lazy group end", "lookaround scan",
    # "loop before scan"
    rewrite: str | None

    def message(self) -> str:
        what = {
            "optional between": "two loops with only an optional part between them share one run",
            "loop into lazy group": "the loop gives characters back to a lazy group that starts "
            "with a loop over the same characters, which rescans the rest of the run each time",
            "lazy group end": "the group ends in a lazy loop and the loop after it takes the same "
            "characters, so it rescans the rest of a run at each character the lazy loop takes",
            "lookaround scan": "the lookaround scans to the end of the text at every position the "
            "search tries (the regex is not anchored at the start)",
            "loop before scan": "a lookaround after the loop scans to the end of the text, and when it "
            "or what follows fails the loop gives back a character and the lookaround scans again, "
            "from every character of the run",
        }[self.kind]
        on = "a long text" if self.kind == "lookaround scan" else "a long whitespace run"
        message = (
            f"`{self.construct}` backtracks polynomially on {on}: {what}; Python's re "
            "(which transformers uses, with no time limit) takes seconds at 10,000 characters"
        )
        if self.rewrite:
            message += f"; `{self.rewrite}` matches the same text in linear time"
        return message


@functools.lru_cache(maxsize=2048)
def trims(pattern: str, flags: int = re.DOTALL) -> tuple[Trim, ...]:
    """Every slow trim in ``pattern``; ``()`` if re rejects it."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            parsed = _sre.parse(pattern, flags)
    except (re.error, RecursionError, OverflowError):
        return ()
    names = {index: name for name, index in parsed.state.groupdict.items()}
    ignorecase = bool(parsed.state.flags & _sre.SRE_FLAG_IGNORECASE)
    items = list(parsed)
    found: list[Trim] = []
    anchored = bool(items) and items[0][0] is _sre.AT and items[0][1] in _STARTS  # search tries one place
    _Walk(names, ignorecase, found, anchored).seq(items, _NOTHING, False)
    return tuple(dict.fromkeys(found))


class _Walk:
    def __init__(self, names: dict, ignorecase: bool, found: list, anchored: bool) -> None:
        self.names, self.ignorecase, self.found, self.anchored = names, ignorecase, found, anchored

    def seq(self, items: list, after: _Rest, in_lookaround: bool) -> None:
        """Look at each place of ``items``; ``after`` sums up what the regex runs next (approximately)."""
        rests = _rests(items, after, self.ignorecase)  # rests[k]: items[k:], then after
        for i, (op, av) in enumerate(items):
            self.at(items, i, rests)
            rest = rests[i + 1]
            if op is _sre.SUBPATTERN:
                self.seq(av[3], rest, in_lookaround)
            elif op is _sre.BRANCH:
                for alternative in av[1]:
                    self.seq(alternative, rest, in_lookaround)
            elif op in _REPEATS:
                self.seq(av[2], rest, in_lookaround)
            elif op in (_sre.ASSERT, _sre.ASSERT_NOT):
                if not self.anchored and not in_lookaround and _dot_loop(av[1], self.ignorecase):
                    self.add(_unparse([(op, av)], self.names), "lookaround scan", None)
                self.seq(list(av[1]), _NOTHING, True)

    def at(self, items: list, i: int, rests: list[_Rest]) -> None:
        loop = self.loop(items[i], greedy=True)
        if loop is not None:
            j = i + 1
            while j < len(items) and _optional(items[j]):
                j += 1
            if j < len(items) and not rests[j + 1].succeeds:
                self.optional_between(items, i, j, loop)
            # Past loop-free optionals only: with a loop inside the optional part, shipped schemas
            # guard the lazy group's end with a look-ahead the rest summary cannot see, so a
            # warning there would be wrong more often than right.
            k = i + 1
            while k < len(items) and _optional(items[k]) and not _has_loop(items[k][1][2]):
                k += 1
            if k < len(items) and not rests[k].succeeds:
                self.into_lazy_group(items, i, k, loop)
            if j < len(items) and self.anchored:  # unanchored, "lookaround scan" says it already
                self.before_scan(items, i, j, loop, rests)
        self.lazy_end(items, i, rests)

    def optional_between(self, items, i, j, loop) -> None:
        second = self.loop(items[j], greedy=True)
        if j == i + 1 or second is None or not _overlap(loop, second):
            return
        rewrite = None
        # ``\s*(?:X\s*)?`` for ``\s*(?:X)?\s*``; an X that already ends in the loop keeps as it
        # is (``\s*(?:<response>\s*)?``). No rewrite for a lazy optional, or for an X holding
        # another loop (it could end up beside the appended one and share a run with it).
        if loop == second and items[j][1][0] == 0 and all(op is _sre.MAX_REPEAT for op, _ in items[i + 1 : j]):
            tail = _unparse([items[j]], self.names)
            parts = [_unparse([items[i]], self.names)]
            for op, av in items[i + 1 : j]:
                last = _last_item(av[2])
                if last is not None and _unparse([last], self.names) == tail:
                    parts.append(_unparse([(op, av)], self.names))
                elif _has_loop(av[2]):
                    parts = None
                    break
                else:
                    parts.append(f"(?:{_text(av[2], self.names)}{tail})?")
            rewrite = "".join(parts) if parts else None
        self.add(_unparse(items[i : j + 1], self.names), "optional between", rewrite)

    def before_scan(self, items, i, j, loop, rests) -> None:
        """``\\s*(?=.*?</think>)``, ``\\s*(?:<think>|(?=.*?</think>))``: a lookaround that scans to
        the end, first in ``items[j]`` (or in a branch of it), run again at each character the loop
        gives back when it, or what follows, fails."""
        leads = _leading_lookarounds(items[j])
        scans = [(op, av) for op, av in leads if _dot_loop(av[1], self.ignorecase)]
        if not scans:
            return
        # A positive lookaround that always passes (``(?=.*)``) before a rest that always succeeds
        # never makes the loop give anything back.
        if rests[j + 1].succeeds and all(
            op is _sre.ASSERT and _rests(list(av[1]), _NOTHING, self.ignorecase)[0].succeeds for op, av in scans
        ):
            return
        rewrite = None
        if self.spaces(items[i]) and all(_starts_off(item, loop, self.ignorecase) for item in _branch_starts(items[j])):
            leaf = _unparse(items[i][1][2], self.names)
            rewrite = _unparse([items[i]], self.names) + f"(?!{leaf})" + _text([items[j]], self.names)
        self.add(_unparse(items[i : j + 1], self.names), "loop before scan", rewrite)

    def into_lazy_group(self, items, i, j, loop) -> None:
        first = _first_loop(items[j])
        if first is None or self.loop(items[j], greedy=True) is not None:
            return
        if not _overlap(loop, _leaf_set(*first[2][0], self.ignorecase) or ()):
            return
        rewrite = None
        # The guard gives the same matches when the group may be empty and a \s* follows it
        # (then a group starting inside the run could as well start after it).
        if j == i + 1 and first[0] == 0 and j + 1 < len(items) and self.spaces(items[j + 1]):
            leaf = _unparse(items[i][1][2], self.names)
            rewrite = _unparse([items[i]], self.names) + f"(?!{leaf})" + _unparse([items[j]], self.names)
        self.add(_unparse(items[i : j + 1], self.names), "loop into lazy group", rewrite)

    def lazy_end(self, items, i, rests) -> None:
        group = items[i]
        body, optional = _group_body(group)
        if body is None or not body or i + 1 >= len(items):
            return
        last = self.loop(body[-1], greedy=False)
        trailing = self.loop(items[i + 1], greedy=True)
        if last is None or trailing is None or not _overlap(last, trailing):
            return
        if len(body) == 1 and last == _UNIVERSE and body[-1][1][0] == 0 and not optional:
            return  # ``(.*?)\s*``: validate's own trim warning says it, with its rewrite
        if rests[i + 2].succeeds:
            return
        rewrite = None
        low = body[-1][1][0]
        if low == 0 and self.spaces(items[i + 1]):  # then the group never ends in whitespace
            leaf = body[-1][1][2]
            ending = r"\S" if last == _UNIVERSE else _without_space(leaf[0])
            if ending:
                written, loop_text = _unparse([group], self.names), _unparse([body[-1]], self.names)
                at = written.rfind(loop_text + ")")
                if at >= 0:
                    rewrite = (written[:at] + f"(?:{loop_text}{ending})??" + written[at + len(loop_text) :]
                               + _unparse([items[i + 1]], self.names))
        self.add(_unparse(items[i : i + 2], self.names), "lazy group end", rewrite)

    def loop(self, item, greedy: bool):
        """The character set of an unbounded loop over one character (greedy or lazy as asked)."""
        op, av = item
        if op is not (_sre.MAX_REPEAT if greedy else _sre.MIN_REPEAT) or av[1] != MAXREPEAT or len(av[2]) != 1:
            return None
        return _leaf_set(*av[2][0], self.ignorecase)

    def spaces(self, item) -> bool:
        """A greedy loop taking at least every whitespace character, from zero: ``\\s*``."""
        taken = self.loop(item, greedy=True)
        return taken is not None and item[1][0] == 0 and _merge(list(taken) + list(_spaces())) == taken

    def add(self, construct: str, kind: str, rewrite: str | None) -> None:
        self.found.append(Trim(construct, kind, rewrite))


def _text(items, names) -> str:
    """``items`` written out; a lone alternation keeps its group, so text can follow it."""
    text = _unparse(items, names)
    return f"(?:{text})" if len(items) == 1 and items[0][0] is _sre.BRANCH else text


def _optional(item) -> bool:
    """``(?:X)?`` (or ``(?:X)??``): loops inside X (``(?:<response>\\s*)?``) do not matter, the
    loops on either side share the run whenever X does not match."""
    op, av = item
    return op in _REPEATS and av[:2] == (0, 1)


def _branch_starts(item) -> list:
    """The first item of each way ``item`` can start: through groups and into every branch."""
    op, av = item
    if op is _sre.SUBPATTERN:
        return _branch_starts(av[3][0]) if av[3] else [item]
    if op is _sre.BRANCH:
        return [start for alternative in av[1] if alternative for start in _branch_starts(alternative[0])]
    return [item]


def _leading_lookarounds(item) -> list:
    """The lookarounds ``item`` can start with (in any branch)."""
    return [start for start in _branch_starts(item) if start[0] in (_sre.ASSERT, _sre.ASSERT_NOT) and start[1][0] == 1]


def _starts_off(item, loop, ignorecase: bool) -> bool:
    """Cannot match from a character of ``loop`` other than as it would from the next one: a
    character ``loop`` never takes, or a lookahead ``(?=.*?L…)`` whose literal L is not one of
    them (from one character earlier its scan only has one more character to skip)."""
    op, av = item
    if op in (_sre.LITERAL, _sre.NOT_LITERAL, _sre.IN):
        taken = _leaf_set(op, av, ignorecase)
        return taken is not None and not _overlap(taken, loop)
    if op is _sre.ASSERT and av[0] == 1:
        body = list(av[1])
        if len(body) >= 2 and body[0][0] in _REPEATS and body[0][1][1] == MAXREPEAT and len(body[0][1][2]) == 1:
            if _leaf_set(*body[0][1][2][0], ignorecase) == _UNIVERSE:
                return _starts_off(body[1], loop, ignorecase)
    return False


def _last_item(items):
    """The last item of ``items``, looking into a group that ends them: ``\\s*`` in ``(<r>\\s*)``."""
    while items:
        op, av = items[-1]
        if op is not _sre.SUBPATTERN:
            return items[-1]
        items = av[3]
    return None


def _has_loop(items) -> bool:
    for op, av in items:
        if op in _REPEATS and av[1] > 1:
            return True
        children = (
            [av[3]] if op is _sre.SUBPATTERN else av[1] if op is _sre.BRANCH else [av[2]] if op in _REPEATS
            else [av[1]] if op in (_sre.ASSERT, _sre.ASSERT_NOT) else []
        )
        if any(_has_loop(child) for child in children):
            return True
    return False


def _first_loop(item):
    """The unbounded loop a nullable group starts with: ``((?:.*?\\S)??)`` starts with ``.*?``."""
    op, av = item
    while True:
        if op is _sre.SUBPATTERN:
            body = av[3]
        elif op in _REPEATS and av[1] == 1 and av[0] == 0:
            body = av[2]
        elif op in _REPEATS and av[1] == MAXREPEAT and len(av[2]) == 1:
            return av
        else:
            return None
        if not body:
            return None
        op, av = body[0]


def _group_body(item):
    """The body of ``(…)`` or ``(…)?``, and whether it was optional."""
    op, av = item
    optional = False
    if op is _sre.MAX_REPEAT and av[:2] == (0, 1) and len(av[2]) == 1:
        op, av = av[2][0]
        optional = True
    return (av[3], optional) if op is _sre.SUBPATTERN else (None, False)


def _without_space(leaf) -> str | None:
    """``[^<]`` less whitespace: ``[^<\\s]``; None for other sets."""
    op, av = leaf
    if op is _sre.NOT_LITERAL:
        op, av = _sre.IN, [(_sre.NEGATE, None), (_sre.LITERAL, av)]
    if op is _sre.IN and av and av[0][0] is _sre.NEGATE:
        return _unparse([(op, list(av) + [_SPACE])], {})
    return None


def _passes(item, at_end: bool = False) -> bool:
    """Matches the empty string with nothing that could fail (``at_end``: at the end of the text,
    where ``$`` and a negative lookahead pass too)."""
    op, av = item
    if op is _sre.SUBPATTERN:
        return all(_passes(i, at_end) for i in av[3])
    if op is _sre.BRANCH:
        return any(all(_passes(i, at_end) for i in alternative) for alternative in av[1])
    if op in _REPEATS:
        return av[0] == 0 or all(_passes(i, at_end) for i in av[2])
    return at_end and ((op is _sre.AT and av in _ENDS) or op is _sre.ASSERT_NOT)


def _dot_loop(items, ignorecase: bool) -> bool:
    """Holds a loop that can take any character (a lookaround that holds one scans to the end)."""
    for op, av in items:
        if op in _REPEATS:
            if av[1] == MAXREPEAT and len(av[2]) == 1 and _leaf_set(*av[2][0], ignorecase) == _UNIVERSE:
                return True
            if _dot_loop(av[2], ignorecase):
                return True
        elif op is _sre.SUBPATTERN and _dot_loop(av[3], ignorecase):
            return True
        elif op is _sre.BRANCH and any(_dot_loop(alternative, ignorecase) for alternative in av[1]):
            return True
    return False


def _absorbs(item, ignorecase: bool) -> bool:
    """Starts with a loop that can take any character: ``((?:.*?\\S)??)`` can reach the last
    non-space character of any text."""
    first = _first_loop(item)
    return first is not None and _leaf_set(*first[2][0], ignorecase) == _UNIVERSE


class _Rest(NamedTuple):
    """What the regex runs after a place, summed up for ``succeeds``: a list of items followed by
    the rest after it, without copying the lists (a long regex would make that quadratic)."""

    absorbs: bool  # some item starts with a loop that can take any character
    succeeds: bool  # matches (a prefix of) any text: see ``_rests``
    passes: bool  # every item passes
    passes_at_end: bool  # every item passes at the end of the text


_NOTHING = _Rest(False, True, True, True)  # the end of the regex (or of a lookaround)


def _rests(items: list, after: _Rest, ignorecase: bool) -> list[_Rest]:
    """``out[k]`` sums up ``items[k:]`` followed by ``after``, for every k, in one pass from the end.

    ``succeeds`` says whether the rest matches (a prefix of) any text: then the first way the loops
    share a run is accepted and nothing is retried; False when it can fail, so the sharing costs.
    It is true when, for the last item that absorbs (starts with a loop that can take any
    character), every item before it passes and every item after it passes at the end of the text,
    or, with no such item, when every item passes.
    """
    out = [after] * (len(items) + 1)
    rest = after
    for k in range(len(items) - 1, -1, -1):
        item = items[k]
        absorbs, passes, at_end = _absorbs(item, ignorecase), _passes(item), _passes(item, at_end=True)
        if rest.absorbs:  # the last absorbing item is further on: this one must pass
            succeeds = passes and rest.succeeds
        elif absorbs:  # this is the last absorbing item: everything after it must pass at the end
            succeeds = rest.passes_at_end
        else:
            succeeds = passes and rest.passes
        rest = _Rest(absorbs or rest.absorbs, succeeds, passes and rest.passes, at_end and rest.passes_at_end)
        out[k] = rest
    return out
