"""The ``OPEN(BODY)CLOSE`` shape of a schema regex, and the delimiters a template field gets from it.

A schema finds a field with ``re.search`` over the whole text; a template cuts the text once into
regions between delimiters (docs/response-template.md#translating-a-schema). The two agree when the regex is an opener,
one group that takes any text up to the first closer (``.*?``, ``(?:.*?\\S)??``, ...), and a
closer, so that is the shape looked for here:

- ``open_atoms``: the atoms before the group, less the ``\\s*`` right before it (``lead_trim``);
  named groups among them (``captures``) become named groups of ``open_pattern``;
- the body group: lazy, or greedy only when nothing but the end of the text follows (``rest``);
  literal characters it must start with (``\\{(?:.*?\\S)??``) stay a lookahead of the opener;
- the closer: its alternatives (``(?:</think>|<|im_end|>|$)``) less the end of the text, which a
  template needs no delimiter for (``close_end``), and less the ``\\s*`` before it (``trail_trim``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import regex_atoms as ra


class NotShape(Exception):
    """The regex is not of the ``OPEN(.*?)CLOSE`` shape; the message says what breaks it."""


@dataclass
class Shape:
    open_atoms: list[str]
    captures: list[str]  # named groups in the opener
    lead_trim: bool
    body_name: str | None  # the body group's name, when the regex names its groups
    body_lookahead: str  # literal atoms the body starts with (kept as a lookahead of the opener)
    rest: bool  # the body is greedy: it runs to the end of the text
    trail_trim: bool
    close_alts: list[str] = field(default_factory=list)  # pattern text of each closer but the end
    close_end: bool = False  # the end of the text closes it too

    @property
    def open_text(self) -> str:
        return "".join(self.open_atoms)

    def skip_only(self) -> bool:
        """An opener that requires no text: only ``^``, whitespace, optional parts and negative
        lookaheads. Such a regex reads "whatever is left" rather than a delimited region."""
        return not self.captures and all(
            ra.is_start(a) or ra.is_trim(a) or ra.is_negative_lookahead(a) or (ra.can_be_empty(a) and not ra.is_lookahead(a))
            for a in self.open_atoms
        )

    def check_opener(self) -> None:
        """NotShape when a part before the group takes any text (``^.*?</think>``): as an opener
        it would take in other fields' text."""
        swallowing = [a for a in self.open_atoms if ra.swallows(a)]
        if swallowing:
            raise NotShape(
                f"the part before its group ({''.join(swallowing)}) takes any text, so as an opener it "
                "would take in other fields' text (overlapping captures)"
            )

    def skip_parts(self) -> list[str]:
        """The optional parts and lookaheads of a skip-only opener (what it steps over)."""
        return [a for a in self.open_atoms if not (ra.is_start(a) or ra.is_trim(a))]


def shape_of(pattern: str) -> Shape:
    """The shape of a field regex (``x-regex`` or ``x-regex-iterator``), or NotShape."""
    try:
        atoms = ra.split_atoms(pattern)
    except ra.NotSplittable as exc:
        raise NotShape(f"it cannot be cut into opener, group and closer: {exc}") from None
    captures_at = [i for i, a in enumerate(atoms) if ra.is_capture(a)]
    names = ra.group_names(pattern)
    if names:
        # recursive_parse hands on the named groups only (unnamed ones are mere grouping): the last
        # one is the body, and every other one must sit, unquantified, in the opener.
        top = [i for i in captures_at if ra.capture_name(atoms[i])]
        if len(top) != len(names):
            last = top[-1] if top else -1
            # a group inside an unquantified group after the last top-level one: an alternative of the
            # closer (``(?:</tool_call>|(?P<cut_off>))``); inside a quantified one: an optional part
            holders = [a for a in atoms if ra.group_names(a) and not ra.is_capture(a)]
            closing = all(a.endswith(")") and atoms.index(a) > last for a in holders)
            raise NotShape(
                f"it takes data from {'its closing delimiter' if closing else 'an optional, repeated or nested part'}; "
                "a template takes named groups only from an opener, and the body as a whole "
                "(close_pattern groups are not available to a transform, docs/response-template.md#transform)"
            )
        body_at = top[-1]
        if not _any_text(ra.capture_inner(atoms[body_at])):
            raise NotShape("its last named group does not take any text up to a closer (.*?), so no group is the body")
    else:
        if ra.group_count(pattern) == 0:
            raise NotShape("it has no group")
        if len(captures_at) != 1 or ra.group_count(pattern) != 1:
            raise NotShape("it needs exactly one group, at its top level, for the body")
        body_at = captures_at[0]
    open_atoms, body_atom, close_atoms = atoms[:body_at], atoms[body_at], atoms[body_at + 1 :]
    captures = [ra.capture_name(a) for a in open_atoms if ra.capture_name(a)]
    lead_trim = trail_trim = False
    while open_atoms and ra.is_trim(open_atoms[-1]):
        open_atoms.pop()
        lead_trim = True
    while close_atoms and ra.is_trim(close_atoms[0]):
        close_atoms.pop(0)
        trail_trim = True
    lookahead, rest = _body(ra.capture_inner(body_atom))
    shape = Shape(open_atoms, captures, lead_trim, ra.capture_name(body_atom), lookahead, rest, trail_trim)
    _closer(shape, close_atoms)
    return shape


def _any_text(inner: str) -> bool:
    try:
        _body(inner)
    except NotShape:
        return False
    return True


def _body(inner: str) -> tuple[str, bool]:
    """(the literal the body must start with, whether it is greedy) for the group's inside."""
    if ra.is_lazy_any(inner):
        return "", False
    if ra.is_greedy_any(inner):
        return "", True
    try:
        atoms = ra.split_atoms(inner)
    except ra.NotSplittable:
        atoms = [inner]
    lead: list[str] = []
    while atoms and ra.literal_of(atoms[0]) is not None:
        lead.append(atoms.pop(0))
    rest = "".join(atoms)
    if lead and rest and ra.is_lazy_any(rest):
        return "".join(lead), False
    raise NotShape(f"its group ({inner}) does not take any text up to the closer, as a template region does")


def _closer(shape: Shape, atoms: list[str]) -> None:
    if not atoms:
        alternatives = []
        shape.close_end = True
    elif len(atoms) == 1 and ra.noncapturing_inner(atoms[0]) is not None:
        alternatives = ra.split_alternatives(ra.noncapturing_inner(atoms[0]))
    else:
        alternatives = ["".join(atoms)]
    for alt in alternatives:
        if ra.is_end(alt):
            shape.close_end = True
        elif alt == "":
            raise NotShape("its closer has an empty alternative, so the group always takes nothing")
        else:
            shape.close_alts.append(alt)
    if shape.rest and shape.close_alts:
        raise NotShape(
            "its group is greedy, so it runs to the last closer; a template region ends at the first"
        )
    if not shape.rest and not shape.close_alts and not shape.close_end:
        raise NotShape("its group is lazy with nothing after it, so it always takes nothing")


# ----- delimiters as template keys ------------------------------------------------------------------


def literals_of(atoms: list[str]) -> list[str] | None:
    """The literal strings a delimiter matches, when it is one literal or one group of literal
    alternatives (``(?:<tool_call>|<tools>)``); else None (it needs a pattern)."""
    if not atoms:
        return None
    whole = ra.literal_of("".join(atoms))
    if whole:
        return [whole]
    if len(atoms) == 1 and ra.noncapturing_inner(atoms[0]) is not None:
        found = [ra.literal_of(alt) for alt in ra.split_alternatives(ra.noncapturing_inner(atoms[0]))]
        if all(found):
            return list(dict.fromkeys(found))
    return None


def alternation(parts: list[str]) -> str:
    """Pattern text matching any of ``parts`` (pattern texts)."""
    return parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"


def escape(literal: str) -> str:
    return re.escape(literal)
