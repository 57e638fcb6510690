"""Character sets as code point intervals: merging, complement, overlap, re's categories, case.

Whether two loops can match the same character comes down to whether their sets intersect, so every
character-matching leaf of the parse tree (a literal, ``.``, a class with ranges and ``\\s``/``\\d``/``\\w``)
becomes a sorted tuple of inclusive ``(lo, hi)`` code point intervals, computed by ``re`` itself for
the categories and widened for IGNORECASE; that makes ``[^<\\s]`` and ``\\s`` provably disjoint.
"""

from __future__ import annotations

import array
import functools
import re
import sys

from .parsetree import _sre

_TOP = 0x10FFFF
_UNIVERSE = ((0, _TOP),)


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


def _subset(a, b) -> bool:
    """Whether every character of ``a`` is in ``b``."""
    return not _overlap(a, _complement(b))


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
