"""Delimiter patterns that make transformers' parse quadratic.

transformers searches every watched delimiter with ``partial=True`` (RESPONSE_TEMPLATE.md §1.4),
and the ``regex`` module's partial search of a pattern that *begins* with an unbounded repeat
(``\\s*<tool_call>``, ``(?:(?<!\\s)\\s+)?</s>``, ``(?<=\\})\\s*,``) retries the repeat to the end
of the text from every place it can start: one search over 225 KB of prose takes over a second,
a 2 MB output minutes, and the runtime has no time limit. A repeat after a literal
(``</tool_call>\\s*``) or anchored at the text's start (``^\\s*<think>``) is linear, and so is a
small bound (``\\s{0,64}``).

The ``regex`` module exposes no parser, so this reads just enough of a pattern by hand: the top-level
alternatives, and in each the zero-width assertions and optional groups a match can start with.
"""

from __future__ import annotations

from typing import Any, Iterator

from ..pointer import join

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
    """The (atom, quantifier) of an unbounded repeat some match of ``pattern`` can begin with, or None."""
    for alternative in _alternatives(pattern):
        found = _leading(alternative)
        if found is not None:
            return found
    return None


def _leading(branch: str) -> tuple[str, str] | None:
    i = 0
    while i < len(branch):
        if branch.startswith(("^", "\\A"), i):
            return None  # anchored at the text's start: tried once
        atom_end = _atom_end(branch, i)
        atom = branch[i:atom_end]
        quantifier, after = _quantifier(branch, atom_end)
        if atom.startswith(("(?=", "(?!", "(?<=", "(?<!")) or atom in ("\\b", "\\B", "\\G"):
            i = after  # zero-width: the match still begins at what follows
            continue
        if _unbounded(quantifier):
            return atom, quantifier
        if atom.startswith("(") and not atom.startswith("(?#"):
            inner = atom[_group_body(atom):-1]
            found = leading_repeat(inner)
            if found is not None:
                return found
            optional = quantifier in ("?", "*", "??", "*?", "?+", "*+") or quantifier.startswith("{0")
            alternating = len(_alternatives(inner)) > 1 and _can_fail(branch[after:])
            if (optional or alternating) and _holds_unbounded(inner):
                # Measured, not derived: partial search of `(?:,\s*)?\}x` over prose with commas, or of
                # `(?:<t>\s*|\n)\{` over newlines, is quadratic too, wherever the group matches and what
                # follows fails; `(?:<t>\s*)\{` and `(?:<a>\s*<b>|<b>)\s*` are linear.
                return atom, quantifier
            if optional:
                i = after  # the group may match nothing: the match may begin after it
                continue
        return None
    return None


def _can_fail(rest: str) -> bool:
    """Whether ``rest`` (a branch's remainder) holds an item that must match: one without a quantifier
    that allows none."""
    i = 0
    while i < len(rest):
        atom_end = _atom_end(rest, i)
        quantifier, i = _quantifier(rest, atom_end)
        if not (quantifier[:1] in ("?", "*") or quantifier.startswith("{0")):
            return True
    return False


def _holds_unbounded(pattern: str) -> bool:
    """Whether an unbounded repeat occurs anywhere in ``pattern``."""
    i = 0
    while i < len(pattern):
        atom_end = _atom_end(pattern, i)
        atom = pattern[i:atom_end]
        quantifier, i = _quantifier(pattern, atom_end)
        if _unbounded(quantifier):
            return True
        if atom.startswith("(") and not atom.startswith("(?#") and _holds_unbounded(atom[_group_body(atom):-1]):
            return True
    return False


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


def _alternatives(pattern: str) -> list[str]:
    """The top-level ``|`` branches."""
    branches, depth, start, i = [], 0, 0, 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            i = _class_end(pattern, i)
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            branches.append(pattern[start:i])
            start = i + 1
        i += 1
    branches.append(pattern[start:])
    return branches


def _atom_end(pattern: str, i: int) -> int:
    c = pattern[i]
    if c == "\\":
        if pattern.startswith(("\\x",), i):
            return i + 4
        if pattern.startswith(("\\N{", "\\p{", "\\P{"), i):
            return pattern.index("}", i) + 1
        return i + 2
    if c == "[":
        return _class_end(pattern, i)
    if c == "(":
        depth, j = 0, i
        while j < len(pattern):
            d = pattern[j]
            if d == "\\":
                j += 2
                continue
            if d == "[":
                j = _class_end(pattern, j)
                continue
            if d == "(":
                depth += 1
            elif d == ")":
                depth -= 1
                if depth == 0:
                    return j + 1
            j += 1
        return len(pattern)
    return i + 1


def _class_end(pattern: str, i: int) -> int:
    j = i + 1
    if j < len(pattern) and pattern[j] == "^":
        j += 1
    if j < len(pattern) and pattern[j] == "]":
        j += 1  # a leading ] is a member
    while j < len(pattern):
        if pattern[j] == "\\":
            j += 2
            continue
        if pattern[j] == "[" and pattern.startswith("[:", j):  # a POSIX class inside
            close = pattern.find(":]", j + 2)
            j = close + 2 if close != -1 else j + 1
            continue
        if pattern[j] == "]":
            return j + 1
        j += 1
    return len(pattern)


def _quantifier(pattern: str, i: int) -> tuple[str, int]:
    """The quantifier at ``i`` (with its lazy ``?`` or possessive ``+``) and where it ends."""
    if i >= len(pattern):
        return "", i
    c = pattern[i]
    if c in "*+?":
        j = i + 1
    elif c == "{" and "}" in pattern[i:] and all(ch.isdigit() or ch in ", " for ch in pattern[i + 1:pattern.index("}", i)]):
        j = pattern.index("}", i) + 1
    else:
        return "", i
    if j < len(pattern) and pattern[j] in "?+":
        j += 1
    return pattern[i:j], j
