"""Where each quantified atom sits in the pattern text, so a warning can quote the loop as written.

re's parse tree keeps no offsets, so this scans the pattern itself (escapes, classes, groups and
their prefixes, comments, counted repeats) and returns the span of every quantifier in source order;
the check pairs the n-th span with the n-th repeat the automaton saw, and falls back to unparsing
when the counts disagree.
"""

from __future__ import annotations

import re

from ..regex_source import RegexSourceError, class_end, escape_end

# -- quoting the loop as written -----------------------------------------------------------------

_COUNT = re.compile(r"\{(?!\})\d*(?:,\d*)?\}")


def _quantifier_spans(pattern: str) -> list[tuple[int, int]] | None:
    """(start, end) of every quantified atom, in the order of the quantifiers; None when the text
    cannot be read (the caller then unparses)."""
    try:
        return _spans(pattern)
    except RegexSourceError:
        return None


def _spans(pattern: str) -> list[tuple[int, int]] | None:
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
        if c in "\\[":
            j = escape_end(pattern, i) if c == "\\" else class_end(pattern, i)
            atom, i = (i, j), j
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
