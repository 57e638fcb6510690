"""Linear loops matching the same text as an ambiguous one, to suggest in the warning.

A warning is more useful with a fix: ``(B)*`` whose body only ever matches strings over one set is
that set's loop, ``(?:X+Y?)+`` with disjoint X and Y unrolls to ``X+(?:YX+)*Y?``, and two adjacent
loops over nested sets merge into one. Each returns ``None`` when no such simple form is certain.
"""

from __future__ import annotations

from .charsets import _UNIVERSE, _leaf_set, _merge, _overlap
from .parsetree import _ATOMIC, _POSSESSIVE, _REPEATS, MAXREPEAT, _sre
from .unparse import _class_item, _quantifier, _unparse_item

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
