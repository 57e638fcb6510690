"""The check itself: ``risks`` runs a pattern through the pieces, ``Risk`` says what was found.

``risks`` parses the pattern with re's parser, builds the automaton, asks it for ambiguous and
adjacent loops, quotes each as written (or unparsed) and attaches a linear rewrite when there is
one; ``Risk.message`` is the warning text validate shows. This is the package's whole public API.
"""

from __future__ import annotations

import functools
import re
import warnings
from dataclasses import dataclass

from .automaton import _BUILD_BUDGET, _SEARCH_BUDGET, _Automaton, _Exhausted, _Repeat
from .parsetree import _sre
from .quoting import _quantifier_spans
from .rewrites import _merged_loops, _rewrite
from .unparse import _unparse


@dataclass(frozen=True, slots=True)
class Risk:
    construct: str  # the loop as written in the pattern (or as re parsed it)
    offset: int | None  # where it starts in the pattern, when it could be located
    kind: str  # exponential: "nested", "alternatives", "ambiguous"; polynomial: "adjacent";
    # "unchecked": the check stopped before the end of the pattern (construct is empty)
    rewrite: str | None  # an equivalent loop that cannot blow up, when there is a simple one
    grouped: str | None = None  # the rewrite inside the capture group the loop repeated
    steps: int = 0  # for "unchecked": the budget the check ran out of (0: nested too deeply)

    def message(self) -> str:
        if self.kind == "unchecked":
            why = (
                f"the backtracking check stopped after {self.steps:,} steps" if self.steps
                else "the backtracking check could not follow groups nested this deeply"
            )
            return (
                f"{why}, so this regex was not fully checked: a loop in it that can backtrack "
                "exponentially may go unreported (split the regex, or check its loops by hand)"
            )
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


def _tail_loops(items: list) -> set[int]:
    """The ids of the quantifiers' arguments that end the pattern: nothing can follow them."""
    found: set[int] = set()
    if not items:
        return found
    op, av = items[-1]
    if op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT) or op is getattr(_sre, "POSSESSIVE_REPEAT", None):
        found.add(id(av))
    elif op is _sre.SUBPATTERN:
        found |= _tail_loops(list(av[-1]))
    elif op is _sre.BRANCH:
        for branch in av[1]:
            found |= _tail_loops(list(branch))
    return found


@functools.lru_cache(maxsize=2048)  # validate runs on every keystroke; most patterns are unchanged
def risks(pattern: str, flags: int = re.DOTALL) -> tuple[Risk, ...]:
    """Every loop in ``pattern`` that can backtrack exponentially; ``()`` if re rejects it.

    A pattern too large or intricate to check within the budget ends with an ``"unchecked"``
    risk (after the loops found in the part checked): never a silent pass."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # validate already reported re's own warnings
            parsed = _sre.parse(pattern, flags)
    except (re.error, RecursionError, OverflowError):
        return ()
    automaton = _Automaton(parsed.state.flags)
    try:
        automaton.region(list(parsed))
    except _Exhausted:
        return (Risk("", None, "unchecked", None, steps=_BUILD_BUDGET),)
    except RecursionError:
        return (Risk("", None, "unchecked", None),)
    # A loop the whole pattern ends with is never backtracked into: an iteration that fails (an
    # assertion inside it, ``$``) gives way to the iterations already matched, and nothing after
    # them can fail. (The automaton's own test, below, counts a pending assertion as "can fail".)
    tail = _tail_loops(list(parsed))
    loops = [repeat for repeat in automaton.ambiguous_loops() if id(repeat.node[1]) not in tail]
    stopped = (Risk("", None, "unchecked", None, steps=_SEARCH_BUDGET),) if automaton.stopped else ()
    # Two loops sharing a run is polynomial, not exponential, but under search (every start
    # position) still hangs for seconds at a few thousand characters once what follows fails.
    pairs = [(a, b) for a, b in automaton.adjacent if not b.last <= automaton.final]
    if not loops and not pairs:
        return stopped
    spans = None if parsed.state.flags & _sre.SRE_FLAG_VERBOSE else _quantifier_spans(pattern)
    if spans is not None and len(spans) != automaton.repeat_count:
        spans = None  # the parser rewrote something (a|a*b factored out a*): quote its version
    names = {index: name for name, index in parsed.state.groupdict.items()}

    def quote(first: _Repeat, last: _Repeat) -> tuple[str, int | None]:
        if spans is None:
            return _unparse([first.node] if first is last else [first.node, last.node], names), None
        return pattern[spans[first.order][0] : spans[last.order][1]], spans[first.order][0]

    found = []
    try:
        for repeat in sorted(loops, key=lambda r: r.order):
            found.append(Risk(*quote(repeat, repeat), repeat.kind, *_rewrite(repeat.node, names, flags)))
        for first, second in pairs:
            found.append(Risk(*quote(first, second), "adjacent", _merged_loops(first.node, second.node, names, flags)))
    except RecursionError:  # writing out a loop hundreds of groups deep (verbose patterns are unparsed)
        return (Risk("", None, "unchecked", None),)
    return tuple(found) + stopped
