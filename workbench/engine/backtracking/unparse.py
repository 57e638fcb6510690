"""Writing parsed regexes back out as pattern text.

Used to quote a loop when its span in the source cannot be found (verbose patterns, or a parser
that rewrote the tree) and to spell the suggested linear rewrites; it renders re's parse-tree nodes
(literals, classes, categories, groups with their names, repeats, lookarounds, anchors) as text.
"""

from __future__ import annotations

from .parsetree import _ATOMIC, _POSSESSIVE, _REPEATS, MAXREPEAT, _sre

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
    # An alternation after other items (re factors a|ab into a(?:|b)) needs its own group.
    return "".join(
        f"(?:{_unparse_item(op, av, names)})" if op is _sre.BRANCH and len(items) > 1 else _unparse_item(op, av, names)
        for op, av in items
    )


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
