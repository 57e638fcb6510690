"""The trace of a ``response_template`` parse: each region with its delimiters, body and values,
and what the message does not show (docs/response-template.md#finding-regions; the objects are in trace_types.py).

``trace_response`` runs the parser ``parse_response`` runs (``stream.ResponseParser``) with a
``Recorder`` attached, so the trace and the message cannot disagree: the parser tells it of every
region event, and hands it each stage of a closing region's value (parsed, transformed, cast) as
it computes it. The tie-breaks come from the scanner itself.

What the message does not show, and the trace does: text thrown away (``Dropped``), a region whose
value a later region of the same field overwrote (``Region.overwritten_by``), values dropped at
the end for being empty (``Emptied``), regions the text ended inside although their field has a
closer (``Region.left_open``), and which rule picked one of several delimiters matching at the
same place (``TieBreak``).
"""

from __future__ import annotations

from copy import deepcopy
from typing import Any

from ..pointer import join
from ..spans import RegexMatch, build_match
from .errors import DEFAULT_TIME_LIMIT, TemplateRegexTimeout
from .parsers import parse_content
from .regions import OPEN
from .stream import ResponseParser
from .tools import cast_tool_calls
from .trace_types import (
    AT_END,
    BY_CLOSE,
    BY_OPEN,
    EMPTY_CLOSER,
    LONGER,
    NAME_ORDER,
    NO_IMPLICIT,
    OPEN_FIRST,
    UNREAD,
    Candidate,
    Dropped,
    Emptied,
    Failure,
    Region,
    TemplateTrace,
    TieBreak,
)
from .transform import shape


def trace_response(
    text: str,
    response_template: Any,
    *,
    prefix: str | None = None,
    tools: Any = None,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    runtime: Any = None,
) -> TemplateTrace:
    """``parse_response(text, ...)`` with its trace. What ``parse_response`` raises before it
    reads any text (a bad template, ``prefix=None``, bad tools) is raised; what it raises while
    parsing is the trace's ``error``, with everything recorded up to there."""
    recorder = Recorder()
    try:
        parser = ResponseParser(
            response_template, prefix=prefix, tools=tools, time_limit=time_limit, recorder=recorder, runtime=runtime
        )
        parser.feed(text)
        message, _ = parser.finalize()
    except Exception as exc:  # what the runtime raises on this text: part of the trace
        if recorder.parser is None:
            raise
        return recorder.build(text, prefix, error=exc)
    return recorder.build(text, prefix, message=message)


class Recorder:
    """Told of a ``ResponseParser``'s region events (see its ``_open``, ``_route``, ``_close`` and
    ``finalize``). A close is settled (its overwrite noted) at the next event, so a close that
    raised is still pending when the parse ends: that is the region the error happened in."""

    def __init__(self) -> None:
        self.parser: ResponseParser | None = None
        self.regions: list[Region] = []
        self.dropped: list[Dropped] = []
        self.ties: list = []  # the scanner's raw tie lists
        self.current: Region | None = None  # the open region
        self.pending: Region | None = None  # the region whose close is not settled yet
        self.stored: dict = {}  # field -> the regions whose value the output holds
        self.before_drop: dict | None = None  # the output before finalize dropped empty values
        self._keys: dict = {}  # (field name, delimiter key) -> the delimiter's template pointer

    def attach(self, parser: ResponseParser, ties: list) -> tuple:
        """The parser's stages of a region's value, each recording its result."""
        self.parser, self.ties = parser, ties
        return self._parse, self._shape, self._cast

    # The events ---------------------------------------------------------------------------------

    def routed(self, field: Any, start: int, end: int) -> None:
        if self.pending is not None:
            self._settle()
        if field is None:
            self._drop(start, end, NO_IMPLICIT)
            return
        region = self.current
        if region is None:  # the implicit region opens at its first text
            region = self.current = self._new(field, None, start)
        region.body = (region.body[0], end)

    def opened(self, field: Any, match: Any) -> None:
        if self.pending is not None:
            self._settle()
        index = len(self.regions)
        opener = _match(self._keys, field, field.open, index, match)
        self.current = self._new(field.name, opener, match.end())
        self.current.captures = self.parser._captures

    def closing(self, closer: Any, at_end: bool) -> None:
        if self.pending is not None:
            self._settle()
        parser = self.parser
        if parser._current is None or not parser._opened:
            if closer is not None and closer.end() > closer.start():
                self._drop(closer.start(), closer.end(), EMPTY_CLOSER)
            return
        region = self.current
        field = parser.template.fields[region.field]
        if closer is not None:
            region.close = _match(self._keys, field, field.close, region.index, closer)
        region.ended = BY_CLOSE if closer is not None else AT_END if at_end else BY_OPEN
        region.left_open = at_end and field.close is not None
        self.pending = region

    def finishing(self, output: dict) -> None:
        if self.pending is not None:
            self._settle()
        self.before_drop = output
        parser = self.parser
        if parser._pos < len(parser._buffer):
            self._drop(parser._pos, len(parser._buffer), UNREAD)

    # The stages of a closing region's value ------------------------------------------------------

    def _parse(self, body: str, content: Any, args: Any, limit: Any, where: tuple, release: Any) -> Any:
        value = self.pending.parsed = parse_content(body, content, args, limit, where, release)
        return value

    def _shape(self, value: Any, field: Any, captures: dict, release: Any) -> Any:
        value = self.pending.transformed = shape(value, field, captures, release)
        return value

    def _cast(self, value: Any, parameters: dict, release: Any) -> Any:
        # Casting changes tool arguments in place, and the transformed value shares them with the
        # parsed one: cast a copy, so both stay as they were.
        value = self.pending.cast = cast_tool_calls(deepcopy(value), parameters, release)
        return value

    # ---------------------------------------------------------------------------------------------

    def _new(self, field: Any, opener: RegexMatch | None, body_start: int) -> Region:
        region = Region(len(self.regions), field, opener, (body_start, body_start))
        self.regions.append(region)
        return region

    def _settle(self) -> None:
        """The pending close stored its value: note whom it overwrote."""
        region = self.pending
        stored = self.stored.setdefault(region.field, [])
        if not self.parser.template.fields[region.field].repeats:  # no repeats, no join: it replaces
            for earlier in stored:
                self.regions[earlier].overwritten_by = region.index
            stored.clear()
        stored.append(region.index)
        self.pending = self.current = None

    def _drop(self, start: int, end: int, reason: str) -> None:
        last = self.dropped[-1] if self.dropped else None
        if last is not None and last.reason == reason and last.span[1] == start:
            last.span = (last.span[0], end)  # one span for text the hold-back cut in two
        else:
            self.dropped.append(Dropped((start, end), reason))

    def build(self, output: str, prefix: str, message: dict | None = None, error: Exception | None = None) -> TemplateTrace:
        parser = self.parser
        tail = parser.prefix_tail
        trace = TemplateTrace(
            text=tail + output,
            output_start=len(tail),
            prefix_tail_start=len(prefix) - len(tail),
            anchor_found=parser.anchor_found,
            regions=self.regions,
            dropped=self.dropped,
            ties=[_tie_break(self._keys, tied) for tied in self.ties],
            emptied=[],
            message=message,
            template=parser.template,
        )
        if error is not None:
            trace.error = self._failure(error)
        else:
            trace.emptied = [
                Emptied(key, value, self.stored.get(key, [])) for key, value in self.before_drop.items() if key not in message
            ]
        return trace

    def _failure(self, exc: Exception) -> Failure:
        parser, region = self.parser, self.pending
        if region is not None:
            fields = [region.field]
        elif isinstance(exc, TemplateRegexTimeout):
            fields = [exc.field] if exc.field is not None else []
        elif self.before_drop is not None:  # finalize's last check: required fields never written
            fields = [name for name, field in parser.template.fields.items() if not field.optional and name not in self.before_drop]
        else:  # a template the runtime would loop on, in the current region
            fields = [parser._current] if parser._current is not None else []
        return Failure(type(exc).__name__, str(exc), fields, region.index if region is not None else None, exc)


def _match(keys: dict, field: Any, delimiter: Any, index: int, match: Any) -> RegexMatch:
    key = keys.get((field.name, delimiter.key))
    if key is None:
        key = keys[field.name, delimiter.key] = join("fields", field.name, delimiter.key)
    return build_match(key, index, match, 0, None)


def _tie_break(keys: dict, tied: list) -> TieBreak:
    """The scanner's ``(rank, Found)`` list, winner first, as a TieBreak: each loser is marked
    with the first rank part that differs from the winner's (start, -length, kind, name)."""
    best = tied[0][0]
    candidates = []
    for rank, found in tied:
        lost_by = None if rank == best else LONGER if rank[1] != best[1] else OPEN_FIRST if rank[2] != best[2] else NAME_ORDER
        delimiter = found.field.open if found.kind == OPEN else found.field.close
        candidates.append(Candidate(found.kind, found.field.name, _match(keys, found.field, delimiter, 0, found.match), lost_by))
    return TieBreak(best[0], candidates)
