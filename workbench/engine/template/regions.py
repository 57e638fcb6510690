"""Finding the next delimiter in the text: which delimiters are watched, which match wins, and
how much text must be held back because a delimiter may still be arriving
(docs/response-template.md#finding-regions, #streaming).

Every watched delimiter is searched from the current position, with ``partial=True`` while more
text may come. A match is *pending* if it is partial, or complete but able to change with more
text: it ends at the buffer's edge and is zero-width, a regex, or a literal that another literal
of its list extends; or (5.24 on, ``Extended``) it is a regex match ending before the edge that
comes out different when the text is followed by one more character. Pending matches hold back
everything from their start. Among the other
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
    delimiter: Delimiter  # the field's opener or closer, by ``kind``
    order: int  # 0 for an opener, 1 for a closer: an opener wins a tie
    memo_key: tuple  # (kind, field name): this delimiter's entry in a scan memo
    literal_pattern: Any  # the compiled pattern of a literal delimiter, else None (see _search_now)


def _watched(kind: str, field: Field) -> Watched:
    opener = kind == OPEN
    delimiter = field.open if opener else field.close
    literal = delimiter.pattern if delimiter.literals is not None else None
    return Watched(kind, field, delimiter, 0 if opener else 1, (kind, field.name), literal)


class Found(NamedTuple):
    kind: str
    field: Field
    match: Any  # regex.Match


def watchlist(template: Template, current: Any) -> list[Watched]:
    """Inside an explicit region, only its own closer; otherwise (the implicit region, or the
    sink when there is none) every opener, then the implicit field's closer."""
    if current is not None and current != template.implicit:
        field = template.fields[current]
        return [_watched(CLOSE, field)] if field.close is not None else []
    watched = [_watched(OPEN, field) for field in template.fields.values() if field.open is not None]
    if template.implicit is not None:
        implicit = template.fields[template.implicit]
        if implicit.close is not None:
            watched.append(_watched(CLOSE, implicit))
    return watched


def _search_now(watched: Watched, buffer: str, pos: int, final: bool, limit: float | None) -> Any:
    if watched.delimiter.literals is not None:
        # Literals (escaped, joined by ``|``) cannot backtrack, so they search without a time
        # limit: regex's ``timeout=`` costs about 2 µs a search, more than the search itself
        # when a stream feeds a few characters at a time.
        if final:
            return watched.delimiter.pattern.search(buffer, pos)
        return watched.delimiter.pattern.search(buffer, pos, partial=True)
    try:
        if final:
            return watched.delimiter.pattern.search(buffer, pos, timeout=limit)
        return watched.delimiter.pattern.search(buffer, pos, partial=True, timeout=limit)
    except TimeoutError:
        raise TemplateRegexTimeout(("fields", watched.field.name, watched.delimiter.key), limit) from None


class Extended:
    r"""5.24's test for a regex match that ends before the buffer's edge: match the pattern again at
    the match's start in the buffer followed by ``"\x00"`` (neither a newline nor the end of the
    text); a match that moves, fails or captures differently relied on where the text ends (``$``
    before a trailing newline, ``\Z`` in a look-ahead, and, as it happens, ``\K`` and reverse
    patterns) and is held. The extended buffer is built once per buffer, not once per test, and a
    verdict is kept for as long as the same match is reused (see scan's memo): the runtime copies
    the buffer for every test, which would make a long one-shot parse quadratic here."""

    def __init__(self) -> None:
        self._of: str | None = None
        self._text = ""

    def held(self, watched: Watched, match: Any, buffer: str, limit: float | None, memo: dict | None) -> bool:
        if memo is not None:
            cached = memo.get(("held", watched.memo_key))
            if cached is not None and cached[0] is match:
                return cached[1]
        if self._of is not buffer:
            self._of, self._text = buffer, buffer + "\x00"
        try:
            again = watched.delimiter.pattern.match(self._text, match.start(), timeout=limit)
        except TimeoutError:
            raise TemplateRegexTimeout(("fields", watched.field.name, watched.delimiter.key), limit) from None
        verdict = again is None or again.span() != match.span() or again.groupdict() != match.groupdict()
        if memo is not None:
            memo[("held", watched.memo_key)] = (match, verdict)
        return verdict


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
    extended: Extended | None = None,
) -> tuple[Found | None, int]:
    """The delimiter match to act on now (or None), and where held-back text starts
    (``len(buffer)`` when nothing is held). With ``final`` nothing is pending. ``memo``: a dict
    kept by the caller for as long as ``buffer`` and ``final`` stay the same. ``ties`` (for a
    trace): when committable matches start where the winner does, their ``(rank, Found)``
    pairs, best first, are appended to it as one list. ``extended``: given from 5.24 on (see
    ``Extended``)."""
    best: Watched | None = None  # the winner so far, its match, start and end
    best_match: Any = None
    best_start = best_end = 0
    hold_from = len(buffer)
    candidates: list | None = [] if ties is not None else None
    edge = hold_from
    # The search and the ranking are written out here rather than in helpers: this loop runs
    # once per delimiter per feed(), and a streaming parser's cost is mostly per-call overhead.
    for entry in watched:
        if memo is not None and entry.delimiter.reusable:
            # The last search of this delimiter over this same buffer is still the leftmost match
            # while ``pos`` has not passed its start (or, when nothing matched, there is still
            # none): this keeps a long one-shot parse linear instead of searching to the end of
            # the text once per region. Entries: (searched from, match, its start or -1).
            cached = memo.get(entry.memo_key)
            if cached is not None and cached[0] <= pos and (cached[1] is None or cached[2] >= pos):
                match, start = cached[1], cached[2]
            else:
                match = _search_now(entry, buffer, pos, final, limit)
                start = -1 if match is None else match.start()
                memo[entry.memo_key] = (pos, match, start)
        elif entry.literal_pattern is not None:  # see _search_now: no time limit for literals
            pattern = entry.literal_pattern
            match = pattern.search(buffer, pos) if final else pattern.search(buffer, pos, partial=True)
            start = -1 if match is None else match.start()
        else:
            match = _search_now(entry, buffer, pos, final, limit)
            start = -1 if match is None else match.start()
        if match is None:
            continue
        end = match.end()
        if not final and (
            match.partial
            or (end == edge and _may_change(entry.delimiter, match, edge))
            or (end != edge and extended is not None and entry.delimiter.literals is None
                and extended.held(entry, match, buffer, limit, memo))
        ):
            if start < hold_from:
                hold_from = start
            continue
        if ties is not None:
            candidates.append(((start, start - end, entry.order, entry.field.name), Found(entry.kind, entry.field, match)))
        # The rank: earliest start, then longest, then an opener, then the smaller field name.
        if (
            best is None
            or start < best_start
            or (start == best_start
                and (start - end, entry.order, entry.field.name) < (best_start - best_end, best.order, best.field.name))
        ):
            best, best_match, best_start, best_end = entry, match, start, end
    if best is None or best_start >= hold_from:
        return None, hold_from
    winner = Found(best.kind, best.field, best_match)
    if ties is not None:
        tied = sorted((c for c in candidates if c[0][0] == best_start), key=lambda c: c[0])
        if len(tied) > 1:
            ties.append(tied)
    return winner, hold_from


def scan_literal(entry: Watched, buffer: str, pos: int) -> tuple[Found | None, int]:
    """``scan([entry], buffer, pos, final=False, ...)`` for one literal delimiter (an explicit
    region's closer, the usual case while streaming), without the general loop's setup: a
    stream calls this once per feed() of a few characters."""
    match = entry.literal_pattern.search(buffer, pos, partial=True)
    if match is None:
        return None, len(buffer)
    edge = len(buffer)
    if match.partial or (match.end() == edge and _may_change(entry.delimiter, match, edge)):
        return None, match.start()
    return Found(entry.kind, entry.field, match), edge
