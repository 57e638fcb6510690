"""The vocabulary of places both formats hand to every pane: a span of text, a regex match with its
groups, and the one "no value" marker. Absolute ``(start, end)`` offsets into the text parsed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

Span = tuple[int, int]


class _Missing:
    def __repr__(self) -> str:
        return "<no value>"

    def __reduce__(self) -> str:
        return "MISSING"  # the one instance, also after crossing to another process


MISSING: Any = _Missing()


@dataclass(slots=True)
class Group:
    """One capture group of a match. ``span`` is None when the group did not take part, or when
    the text searched was not raw (then ``relative`` holds offsets into that text)."""

    name: str | int
    span: Optional[Span]
    relative: Optional[Span] = None


@dataclass(slots=True)
class RegexMatch:
    """One match of one ``x-`` key. ``index`` counts iterator/key-value/substitution matches."""

    key: str
    index: int
    span: Optional[Span]
    groups: list[Group]
    relative: Optional[Span] = None
    substitution: int | None = None  # which entry of x-regex-substitutions


_GROUP_NAMES: dict = {}


def build_match(key: str, index: int, m, base: int | None, substitution: int | None) -> RegexMatch:
    """A RegexMatch from a re (or regex) match found in text that starts at ``base`` in the raw
    output (None: the text searched was rewritten, so only relative offsets are known)."""
    names = _GROUP_NAMES.get(m.re)
    if names is None:
        by_index = {i: name for name, i in m.re.groupindex.items()}
        names = _GROUP_NAMES[m.re] = tuple(by_index.get(i, i) for i in range(1, m.re.groups + 1))
    groups = []
    for i, name in enumerate(names, 1):
        s, e = m.span(i)
        if s < 0:
            groups.append(Group(name, None))
        elif base is None:
            groups.append(Group(name, None, (s, e)))
        else:
            groups.append(Group(name, (base + s, base + e)))
    s, e = m.span()
    if base is None:
        return RegexMatch(key, index, None, groups, relative=(s, e), substitution=substitution)
    return RegexMatch(key, index, (base + s, base + e), groups, substitution=substitution)
