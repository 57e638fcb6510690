"""What a template trace is made of (built by trace.py): ``TemplateTrace`` with its ``Region``s
and the notes on what the message does not show, and its JSON view.

Every span is a ``(start, end)`` offset into ``TemplateTrace.text``, the parser's own buffer: the
prompt tail it read (the prefix after the last start anchor) followed by the output. A region that
opens in the prompt and goes on in the output is one span; ``output_span`` and ``prefix_span`` cut
a span into the two texts the user has.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field as default
from typing import Any

from ..spans import MISSING, RegexMatch, Span

# How a region ended.
BY_CLOSE = "close"  # its closer matched
BY_OPEN = "open"  # an explicit field's opener matched (this ends only the implicit region)
AT_END = "end"  # the text ended

# Why text was dropped.
NO_IMPLICIT = "no implicit field"  # outside explicit regions, with no implicit field to take it
EMPTY_CLOSER = "closer of an empty region"  # the implicit closer matched before any text: it closes nothing
UNREAD = "not read"  # after an empty closer on an empty region, where the runtime stops reading

# Which rule decided a tie between delimiters matching at the same place (docs/response-template.md#finding-regions step 3).
LONGER = "longer match"
OPEN_FIRST = "opener before closer"
NAME_ORDER = "smaller field name"


@dataclass(slots=True, eq=False)
class Region:
    """One region, in text order. ``open`` is None for the implicit field's region, ``close`` when
    no closer ended it. The values are ``MISSING`` until the parse reaches them: ``cast`` is set
    only with ``tools=``. ``index`` is also the ``index`` of its delimiters' ``RegexMatch``es."""

    index: int
    field: Any
    open: RegexMatch | None
    body: Span
    close: RegexMatch | None = None
    ended: str | None = None  # BY_CLOSE, BY_OPEN or AT_END; None if an error came while it was open
    captures: dict = default(default_factory=dict)  # open_pattern's named groups, as the transform saw them
    parsed: Any = MISSING
    transformed: Any = MISSING
    cast: Any = MISSING
    overwritten_by: int | None = None  # the later region of the same field that replaced its value
    left_open: bool = False  # the text ended inside it, though its field has a closer

    @property
    def span(self) -> Span:
        """Opener, body and closer together."""
        return (self.open.span[0] if self.open else self.body[0], self.close.span[1] if self.close else self.body[1])

    @property
    def value(self) -> Any:
        """The value it stored (MISSING if its close failed before it had one)."""
        return self.cast if self.cast is not MISSING else self.transformed


@dataclass(slots=True)
class Dropped:
    """Text no region holds. Adjacent spans dropped for the same reason are one."""

    span: Span
    reason: str  # NO_IMPLICIT, EMPTY_CLOSER or UNREAD


@dataclass(slots=True)
class Candidate:
    """One delimiter in a tie (its match's ``index`` is 0)."""

    kind: str  # "open" or "close"
    field: Any
    match: RegexMatch
    lost_by: str | None  # the rule that ranked it below the winner; None for the winner


@dataclass(slots=True)
class TieBreak:
    """Delimiters whose committable matches start at ``at``; the winner first, then by rank."""

    at: int
    candidates: list[Candidate]

    @property
    def rule(self) -> str:
        """The rule that beat the runner-up."""
        return self.candidates[1].lost_by


@dataclass(slots=True)
class Emptied:
    """A key dropped from the message at the end because its value was empty (docs/response-template.md#empty-values-are-dropped)."""

    field: Any
    value: Any
    regions: list[int]  # the regions whose value it was (for join, every piece)


@dataclass(slots=True)
class Failure:
    """What the parse raised: the type and message ``parse_response`` raises, the fields it
    happened in (the region being closed, the delimiter's field for a timeout, the missing
    required fields), and the region being closed, if any."""

    type: str
    message: str
    fields: list
    region: int | None
    exception: Exception


@dataclass(slots=True, eq=False)
class TemplateTrace:
    """``trace_response``'s result: the message (or the error) and how the text was cut."""

    text: str  # the prompt tail + the output
    output_start: int  # where the output starts in ``text``
    prefix_tail_start: int  # where the tail starts in the whole prefix
    anchor_found: bool | None  # as ResponseParser.anchor_found (None for prefix="")
    regions: list[Region]
    dropped: list[Dropped]
    ties: list[TieBreak]
    emptied: list[Emptied]
    message: dict | None = None  # parse_response's result, None when it raised
    error: Failure | None = None
    template: Any = default(default=None, repr=False)  # the loaded Template

    @property
    def ok(self) -> bool:
        return self.error is None

    def text_of(self, span: Span) -> str:
        return self.text[span[0] : span[1]]

    def output_span(self, span: Span) -> Span | None:
        """The part of ``span`` in the output, as offsets into the output (None if none)."""
        start, end = max(span[0], self.output_start), span[1]
        if end < start or (end == start and span[0] < self.output_start):
            return None
        return (start - self.output_start, end - self.output_start)

    def prefix_span(self, span: Span) -> Span | None:
        """The part of ``span`` in the prompt tail, as offsets into the whole prefix (None if none)."""
        start, end = span[0], min(span[1], self.output_start)
        if end < start or (end == start and span[1] > self.output_start):
            return None
        return (start + self.prefix_tail_start, end + self.prefix_tail_start)

    def to_dict(self) -> dict:
        """A JSON-ready view (``workbench parse --trace``): spans as ``[start, end]`` in ``text``
        (prompt tail, then the output from ``output_start``), delimiters and dropped text with
        their text, values as the parse gave them."""
        out: dict[str, Any] = {
            "prefix_tail": self.text[: self.output_start],
            "prefix_tail_start": self.prefix_tail_start,
            "output_start": self.output_start,
            "regions": [self._region_dict(region) for region in self.regions],
        }
        if self.dropped:
            out["dropped"] = [{"span": list(d.span), "text": self.text_of(d.span), "reason": d.reason} for d in self.dropped]
        if self.ties:
            out["ties"] = [
                {"at": tie.at, "rule": tie.rule, "candidates": [self._candidate_dict(c) for c in tie.candidates]}
                for tie in self.ties
            ]
        if self.emptied:
            out["emptied"] = [{"field": e.field, "value": e.value, "regions": e.regions} for e in self.emptied]
        return out

    def error_dict(self) -> dict | None:
        if self.error is None:
            return None
        error = self.error
        return {"type": error.type, "message": error.message, "fields": error.fields, "region": error.region}

    def _region_dict(self, region: Region) -> dict:
        spec = self.template.fields[region.field] if self.template is not None else None
        out: dict[str, Any] = {"index": region.index, "field": region.field}
        if region.open is not None:
            out["open"] = self._match_dict(region.open)
        out["body"] = list(region.body)
        if region.close is not None:
            out["close"] = self._match_dict(region.close)
        out["ended"] = region.ended
        if region.left_open:
            out["left_open"] = True
        if region.captures:
            out["captures"] = region.captures
        if region.parsed is not MISSING:
            out["parsed"] = region.parsed
        if region.transformed is not MISSING and spec is not None and spec.transform is not None:
            out["transformed"] = region.transformed
        if region.cast is not MISSING and region.cast != region.transformed:
            out["cast"] = region.cast  # only where tools= changed the value
        if region.overwritten_by is not None:
            out["overwritten_by"] = region.overwritten_by
        return out

    def _match_dict(self, match: RegexMatch) -> dict:
        out: dict[str, Any] = {"key": match.key, "span": list(match.span), "text": self.text_of(match.span)}
        named = {str(g.name): list(g.span) if g.span else None for g in match.groups if isinstance(g.name, str)}
        if named:
            out["groups"] = named
        return out

    def _candidate_dict(self, candidate: Candidate) -> dict:
        out = {"kind": candidate.kind, "field": candidate.field, **self._match_dict(candidate.match)}
        if candidate.lost_by is not None:
            out["lost_by"] = candidate.lost_by
        return out

