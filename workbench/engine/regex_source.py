"""Reading a regex's source text by hand: where an escape, a character class, a group and a
quantifier end, and the top-level alternatives.

Hand-written because neither ``re``'s parse tree nor the ``regex`` module keeps source offsets, and
three checks need the text as written: the backtracking check quotes a loop as the user wrote it
(``backtracking/quoting.py``), migration cuts a schema regex into opener, body and closer
(``migrate/regex_atoms.py``), and the slow-delimiter check reads how a template delimiter begins
(``template/slow_delimiters.py``). Text that cannot be cut (a lone backslash, an unterminated
class, an unbalanced group) raises ``RegexSourceError``.
"""

from __future__ import annotations

import re

_QUANTIFIER = re.compile(r"[*+?]|\{\d*,?\d*\}")
_OCTAL = re.compile(r"0[0-7]{0,2}")
_THREE_OCTAL = re.compile(r"[0-7]{3}")


class RegexSourceError(ValueError):
    """The text cannot be cut into atoms; the message says why."""


def escape_end(p: str, i: int) -> int:
    """The end of the escape starting at ``p[i] == "\\\\"``: ``\\xhh``, ``\\uhhhh``, ``\\Uhhhhhhhh``,
    ``\\N{…}``, ``\\p{…}``/``\\P{…}`` (the ``regex`` module), an octal ``\\0oo`` or ``\\ooo``, a
    backreference of up to two digits, else one character."""
    if i + 1 >= len(p):
        raise RegexSourceError("it ends with a lone backslash")
    c = p[i + 1]
    if c == "x":
        return i + 4
    if c == "u":
        return i + 6
    if c == "U":
        return i + 10
    if c in "NpP" and p.startswith("{", i + 2):
        return p.find("}", i) + 1 or len(p)
    if c == "0":
        return _OCTAL.match(p, i + 1).end()
    if c.isdigit():  # three octal digits are a character; else a backreference of one or two digits
        return i + 4 if _THREE_OCTAL.match(p, i + 1) else i + 3 if p[i + 2 : i + 3].isdigit() else i + 2
    return i + 2


def class_end(p: str, i: int, posix: bool = False) -> int:
    """The end of the character class starting at ``p[i] == "["`` (a leading ``]`` is a member;
    with ``posix``, ``[:alpha:]`` inside is one item, as in the ``regex`` module)."""
    j = i + 1
    if j < len(p) and p[j] == "^":
        j += 1
    if j < len(p) and p[j] == "]":
        j += 1
    while j < len(p):
        if p[j] == "\\":
            j = escape_end(p, j)
        elif posix and p.startswith("[:", j) and ":]" in p[j + 2 :]:
            j = p.index(":]", j + 2) + 2
        elif p[j] == "]":
            return j + 1
        else:
            j += 1
    raise RegexSourceError("it has an unterminated character class")


def group_end(p: str, i: int, posix: bool = False) -> int:
    """The end of the group opening at ``p[i] == "("`` (its closing parenthesis included)."""
    depth, j = 0, i
    while j < len(p):
        c = p[j]
        if c == "\\":
            j = escape_end(p, j)
            continue
        if c == "[":
            j = class_end(p, j, posix)
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    raise RegexSourceError("it has an unbalanced '('")


def atom_end(p: str, i: int, posix: bool = False) -> int:
    """The end of the atom starting at ``i``: an escape, a class, a group, or one character."""
    c = p[i]
    if c == "\\":
        return escape_end(p, i)
    if c == "[":
        return class_end(p, i, posix)
    if c == "(":
        return group_end(p, i, posix)
    return i + 1


def quantifier_end(p: str, i: int) -> int:
    """The end of the quantifier at ``i`` (with its lazy ``?`` or possessive ``+``), or ``i``."""
    m = _QUANTIFIER.match(p, i)
    if not m or m.group() in ("{}", "{,}"):
        return i
    i = m.end()
    if i < len(p) and p[i] in "?+":
        i += 1
    return i


def alternatives(text: str, posix: bool = False) -> list[str]:
    """``a|b|c`` at the top level of ``text`` (a pattern, or the inside of a group) as ``["a", "b", "c"]``."""
    parts, depth, start, i, n = [], 0, 0, 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i = escape_end(text, i)
            continue
        if c == "[":
            i = class_end(text, i, posix)
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            parts.append(text[start:i])
            start = i + 1
        i += 1
    parts.append(text[start:])
    return parts
