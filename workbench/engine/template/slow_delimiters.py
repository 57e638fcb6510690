"""Delimiter patterns that make transformers' parse quadratic.

transformers searches every watched delimiter with ``partial=True`` (docs/response-template.md#finding-regions),
and the ``regex`` module's partial search of a pattern that *begins* with an unbounded repeat
(``\\s*<tool_call>``, ``(?:(?<!\\s)\\s+)?</s>``, ``(?<=\\})\\s*,``) retries the repeat to the end
of the text from every place it can start: one search over 225 KB of prose takes over a second,
a 2 MB output minutes, and the runtime has no time limit. A repeat after a literal
(``</tool_call>\\s*``) or anchored at the text's start (``^\\s*<think>``) is linear, and so is a
small bound (``\\s{0,64}``).

The ``regex`` module exposes no parser, so this reads just enough of a pattern with the shared
hand-reader (``engine/regex_source.py``): the top-level alternatives, and in each the zero-width
assertions and optional groups a match can start with.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Iterator

from ..pointer import join
from ..regex_source import RegexSourceError, alternatives, atom_end, quantifier_end

BOUND = 1000  # a repeat of at most this many is linear enough: the cost is bound × text
KEYS = ("open_pattern", "close_pattern")
WHY = (
    "begins with {what}: transformers searches delimiters with "
    "partial=True, which retries such a repeat to the end of the text from every place it can start, "
    "so a long output parses in quadratic time (minutes at 2 MB). Let the previous region's closer "
    "eat the whitespace (e.g. '</tool_call>\\s*'), or bound it ('\\s{{0,64}}')"
)


def slow_delimiters(template: Any) -> Iterator[tuple[str, str]]:
    """(pointer, why) for each delimiter pattern of ``template`` that begins with an unbounded repeat."""
    fields = template.get("fields") if isinstance(template, dict) else None
    if not isinstance(fields, dict):
        return
    for name, spec in fields.items():
        if not isinstance(spec, dict):
            continue
        for key in KEYS:
            pattern = spec.get(key)
            if isinstance(pattern, str):
                found = leading_repeat(pattern)
                if found is not None:
                    atom, quantifier = found
                    what = (
                        f"an unbounded repeat ({atom}{quantifier})" if not atom.startswith("(") or _unbounded(quantifier)
                        else f"a group holding an unbounded repeat that may match in more than one way ({atom}{quantifier})"
                    )
                    yield join("fields", name, key), WHY.format(what=what)


def leading_repeat(pattern: str) -> tuple[str, str] | None:
    """The (atom, quantifier) of an unbounded repeat some match of ``pattern`` can begin with, or None
    (also for text that cannot be read: transformers would not load it, nor groups nested deeper
    than the ``regex`` module itself can compile)."""
    try:
        return _leading_repeat(pattern)
    except RecursionError:
        return None


def _leading_repeat(pattern: str) -> tuple[str, str] | None:
    """``leading_repeat`` for the inside of a group: a RecursionError goes up to the outermost
    call, where it ends the check once, not again at each level of nesting."""
    try:
        for alternative in alternatives(pattern, posix=True):
            found = _leading(alternative)
            if found is not None:
                return found
    except RegexSourceError:
        return None
    return None


def _items(text: str) -> Iterator[tuple[str, str, int]]:
    """Each top-level atom of ``text`` with its quantifier, and where the next one starts."""
    i = 0
    while i < len(text):
        end = atom_end(text, i, posix=True)
        after = quantifier_end(text, end)
        yield text[i:end], text[end:after], after
        i = after


def _leading(branch: str) -> tuple[str, str] | None:
    can_fail = _can_fail_from(branch)
    for atom, quantifier, after in _items(branch):
        if atom in ("^", "\\A"):
            return None  # anchored at the text's start: tried once
        if atom.startswith(("(?=", "(?!", "(?<=", "(?<!")) or atom in ("\\b", "\\B", "\\G"):
            continue  # zero-width: the match still begins at what follows
        if _unbounded(quantifier):
            return atom, quantifier
        if not atom.startswith("(") or atom.startswith("(?#"):
            return None
        inner = atom[_group_body(atom):-1]
        found = _leading_repeat(inner)
        if found is not None:
            return found
        optional = quantifier in ("?", "*", "??", "*?", "?+", "*+") or quantifier.startswith("{0")
        alternating = len(alternatives(inner, posix=True)) > 1 and can_fail(after)
        if (optional or alternating) and _holds_unbounded(inner):
            # Measured, not derived: partial search of `(?:,\s*)?\}x` over prose with commas, or of
            # `(?:<t>\s*|\n)\{` over newlines, is quadratic too, wherever the group matches and what
            # follows fails; `(?:<t>\s*)\{` and `(?:<a>\s*<b>|<b>)\s*` are linear.
            return atom, quantifier
        if not optional:
            return None
        # the group may match nothing: the match may begin after it
    return None


def _can_fail_from(branch: str) -> Callable[[int], bool]:
    """``can_fail(start)``: whether the rest of ``branch`` from the item at ``start`` holds an item
    that must match (one without a quantifier that allows none). Each item is read once over all
    the calls, not once per call: asking at every optional group of a long branch was quadratic.
    A call reads no further than the first item that must match, as a single scan would."""
    known: dict[int, bool] = {}

    def can_fail(start: int) -> bool:
        passed, i, answer = [], start, False
        while i < len(branch):
            if i in known:
                answer = known[i]
                break
            passed.append(i)
            end = atom_end(branch, i, posix=True)
            after = quantifier_end(branch, end)
            q = branch[end:after]
            if not (q[:1] in ("?", "*") or q.startswith("{0")):
                answer = True
                break
            i = after
        for i in passed:
            known[i] = answer
        return answer

    return can_fail


@functools.lru_cache(maxsize=4096)  # nested optional groups ask again about each inner group
def _holds_unbounded(pattern: str) -> bool:
    """Whether an unbounded repeat occurs anywhere in ``pattern``."""
    return any(
        _unbounded(q) or (atom.startswith("(") and not atom.startswith("(?#") and _holds_unbounded(atom[_group_body(atom):-1]))
        for atom, q, _ in _items(pattern)
    )


def _group_body(atom: str) -> int:
    """Where a group's body starts: after ``(``, ``(?P<name>``, ``(?<name>``, ``(?flags:``."""
    if atom.startswith("(?P<") or (atom.startswith("(?<") and atom[3] not in "=!"):
        return atom.index(">") + 1
    if atom.startswith(("(?>", "(?|")):
        return 3
    if atom.startswith("(?"):
        colon = atom.find(":")
        return colon + 1 if colon != -1 else len(atom) - 1
    return 1


def _unbounded(quantifier: str) -> bool:
    q = quantifier[:-1] if len(quantifier) > 1 and quantifier[-1] in "?+" else quantifier  # lazy / possessive
    if q in ("*", "+"):
        return True
    if q.startswith("{") and "," in q:
        high = q[1:-1].split(",", 1)[1].strip()
        return high == "" or (high.isdigit() and int(high) > BOUND)
    return False
