"""Finding the next delimiter in the text: which delimiters are watched, which match wins, and
how much text must be held back because a delimiter may still be arriving (§1.4, §1.8).

Every watched delimiter is searched from the current position, with ``partial=True`` while more
text may come. A match is *pending* if it is partial, or complete but able to change with more
text: it ends at the buffer's edge and is zero-width, a regex, or a literal that another literal
of its list extends. Pending matches hold back everything from their start. Among the other
(committable) matches the winner is the earliest start, then the longest, then an opener before
a closer, then the smaller field name; it must start before every pending match.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .errors import TemplateRegexTimeout
from .load import Delimiter, Field, Template

OPEN, CLOSE = "open", "close"


class Watched(NamedTuple):
    kind: str  # OPEN or CLOSE
    field: Field

    @property
    def delimiter(self) -> Delimiter:
        return self.field.open if self.kind == OPEN else self.field.close


class Found(NamedTuple):
    kind: str
    field: Field
    match: Any  # regex.Match


def watchlist(template: Template, current: Any) -> list[Watched]:
    """Inside an explicit region, only its own closer; otherwise (the implicit region, or the
    sink when there is none) every opener, then the implicit field's closer."""
    if current is not None and current != template.implicit:
        field = template.fields[current]
        return [Watched(CLOSE, field)] if field.close is not None else []
    watched = [Watched(OPEN, field) for field in template.fields.values() if field.open is not None]
    if template.implicit is not None:
        implicit = template.fields[template.implicit]
        if implicit.close is not None:
            watched.append(Watched(CLOSE, implicit))
    return watched


def _search(watched: Watched, buffer: str, pos: int, final: bool, limit: float | None, memo: dict | None) -> Any:
    """The delimiter's leftmost match (or partial match) from ``pos``. ``memo`` keeps the last
    search of each delimiter over this same buffer: its match is still the leftmost while ``pos``
    has not passed its start (or, when nothing matched, it still does not), which keeps a long
    one-shot parse linear instead of searching to the end of the text once per region."""
    delimiter = watched.delimiter
    key = (watched.kind, watched.field.name)
    if memo is not None and delimiter.reusable and key in memo:
        searched_from, match = memo[key]
        if searched_from <= pos and (match is None or match.start() >= pos):
            return match
    match = _search_now(watched, buffer, pos, final, limit)
    if memo is not None:
        memo[key] = (pos, match)
    return match


def _search_now(watched: Watched, buffer: str, pos: int, final: bool, limit: float | None) -> Any:
    delimiter = watched.delimiter
    try:
        if final:
            return delimiter.pattern.search(buffer, pos, timeout=limit)
        return delimiter.pattern.search(buffer, pos, partial=True, timeout=limit)
    except TimeoutError:
        raise TemplateRegexTimeout(("fields", watched.field.name, delimiter.key), limit) from None


def _may_change(delimiter: Delimiter, match: Any, buffer_end: int) -> bool:
    """Whether a complete match could still turn out different once more text arrives."""
    if match.end() != buffer_end:
        return False  # the byte after it has been seen
    if match.start() == match.end():
        return True  # ``$``, ``\\Z``, lookaheads: real only at the end of the text
    return delimiter.literals is None or delimiter.can_grow


def scan(
    watched: list[Watched],
    buffer: str,
    pos: int,
    final: bool,
    limit: float | None,
    memo: dict | None = None,
    ties: list | None = None,
) -> tuple[Found | None, int]:
    """The delimiter match to act on now (or None), and where held-back text starts
    (``len(buffer)`` when nothing is held). With ``final`` nothing is pending. ``memo``: a dict
    kept by the caller for as long as ``buffer`` and ``final`` stay the same. ``ties`` (for a
    trace): when committable matches start where the winner does, their ``(rank, Found)``
    pairs, best first, are appended to it as one list."""
    winner: Found | None = None
    winner_rank: tuple | None = None
    hold_from = len(buffer)
    candidates: list | None = [] if ties is not None else None
    for entry in watched:
        match = _search(entry, buffer, pos, final, limit, memo)
        if match is None:
            continue
        if not final and (match.partial or _may_change(entry.delimiter, match, len(buffer))):
            hold_from = min(hold_from, match.start())
            continue
        rank = (match.start(), match.start() - match.end(), 0 if entry.kind == OPEN else 1, entry.field.name)
        if ties is not None:
            candidates.append((rank, Found(entry.kind, entry.field, match)))
        if winner_rank is None or rank < winner_rank:
            winner_rank, winner = rank, Found(entry.kind, entry.field, match)
    if winner is not None and winner.match.start() >= hold_from:
        winner = None
    if ties is not None and winner is not None:
        tied = sorted(c for c in candidates if c[0][0] == winner_rank[0])
        if len(tied) > 1:
            ties.append(tied)
    return winner, hold_from
