"""Replaying a stream: the output fed to ``ResponseParser`` in chunks, as ``workbench parse
--stream`` feeds it, with what each call gave and what a streaming client suffers from.

``replay(output, template, prefix=..., chunk=4)`` runs the parser (with a trace recorder attached,
so that every event's text can be placed in the buffer) and records each call: the chunk fed, the
events, how far the parser has read (what it holds back). ``assemble(replay, step)`` is the
message as a client builds it from the events up to a step. The flags:

- ``LEAK``: text emitted to a field that the one-shot parse reads otherwise: part of a delimiter
  (a marker leaking into the shown text), another field's text, or text it drops;
- ``DIRTY``: a field whose chunks are ``dirty`` (json, xml-inline, kv-lines): raw markup, not text
  a client can show as it comes;
- ``LATE_CLOSE``: a region closed by its closer only at ``finalize()``: a regex closer at the very
  end of the text could still grow, so it is held back until the stream ends;
- ``SHOWN_THEN_OVERWRITTEN``: text a client was shown as a field's value, which a later region of
  the same field replaces in the message;
- ``DIFFERENCE``: the streamed result (or the way the text was cut) differs from the one-shot one.

Spans are offsets into the parser's buffer: the prompt tail, then the output from ``output_start``.
UI-free.
"""

from __future__ import annotations

import bisect
import json
from dataclasses import dataclass, field
from typing import Any

from ..spans import MISSING, Span
from .errors import DEFAULT_TIME_LIMIT
from .stream import ResponseParser
from .trace import Recorder, trace_response
from .trace_types import TemplateTrace

INITIAL, FEED, FINALIZE = "initial", "feed", "finalize"
LEAK = "leak"
DIRTY = "dirty"
LATE_CLOSE = "late close"
SHOWN_THEN_OVERWRITTEN = "overwritten"
DIFFERENCE = "differs"
MAX_STEPS = 20_000  # more feeds than this: the chunk grows (a 2 MB output would take ~540,000)
MAX_FLAGS_PER_KIND = 200


@dataclass(slots=True)
class Step:
    """One call: the prompt's ``initial_events``, one ``feed()``, or ``finalize()``."""

    call: str  # INITIAL, FEED or FINALIZE
    fed: Span | None  # the chunk fed (buffer offsets), for a feed
    read: int  # how far the parser had read after the call: fed text beyond it is held back
    events: list[dict]
    spans: list  # per event: a chunk's text, an opener's or closer's match (None: no text)
    error: str | None = None  # what the call raised ("ValueError: ..."): the stream ends there


@dataclass(slots=True)
class Flag:
    kind: str
    step: int  # the call where it shows
    field: Any
    span: Span | None  # buffer offsets
    message: str


@dataclass
class Replay:
    prefix_tail: str  # the prompt tail the parser read first
    output_start: int  # = len(prefix_tail)
    chunk: int  # characters per feed()
    asked: int  # the chunk asked for (smaller when the output needed more than MAX_STEPS feeds)
    steps: list[Step]
    flags: list[Flag] = field(default_factory=list)
    message: dict | None = None  # finalize()'s message (None if a call raised)
    error: str | None = None
    oneshot_message: dict | None = None
    oneshot_error: str | None = None

    @property
    def same_as_oneshot(self) -> bool:
        return self.error == self.oneshot_error and _dumps(self.message) == _dumps(self.oneshot_message)

    def flags_until(self, step: int) -> list[Flag]:
        return [f for f in self.flags if f.step <= step]


@dataclass(slots=True)
class Part:
    """One region as a client sees it: the chunks so far, and the value once it closed."""

    field: Any
    text: str
    dirty: bool
    closed: bool
    value: Any = MISSING


class _Watch(Recorder):
    """A trace recorder that also keeps, per call, the spans behind the events."""

    def __init__(self) -> None:
        super().__init__()
        self.chunks: list[Span] = []
        self.opens: list[Span] = []
        self.closes: list[tuple[Span | None, bool]] = []  # (closer's span, closed at the end of the text)

    def routed(self, field: Any, start: int, end: int) -> None:
        super().routed(field, start, end)
        if field is not None:
            self.chunks.append((start, end))

    def opened(self, field: Any, match: Any) -> None:
        super().opened(field, match)
        self.opens.append(match.span())

    def closing(self, closer: Any, at_end: bool) -> None:
        parser = self.parser
        had = parser._current is not None and parser._opened
        super().closing(closer, at_end)
        if had:
            self.closes.append((closer.span() if closer is not None else None, at_end))

    def take(self, events: list[dict], implicit: Any) -> list:
        """The spans of one call's events, in order; the queues start again empty."""
        chunks, opens, closes = iter(self.chunks), iter(self.opens), iter(self.closes)
        spans: list = []
        for event in events:
            kind = event["type"]
            if kind == "region_chunk":
                spans.append(next(chunks, None))
            elif kind == "region_open":
                spans.append(None if event["field"] == implicit else next(opens, None))
            else:
                spans.append(next(closes, (None, False)))
        self.chunks, self.opens, self.closes = [], [], []
        return spans


def replay(
    output: str,
    response_template: Any,
    *,
    prefix: str = "",
    tools: Any = None,
    chunk: int = 4,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    max_steps: int = MAX_STEPS,
    oneshot: TemplateTrace | None = None,
    runtime: Any = None,
) -> Replay:
    """Feed ``output`` in chunks of ``chunk`` characters and record every call (see the module's
    docstring). What the parser raises on construction (a bad template) is raised; what a call
    raises ends the replay there. ``oneshot``: the one-shot trace, if the caller has it (made for the
same ``runtime``, the transformers release to behave as; None: the newest)."""
    asked = max(1, chunk)
    chunk = max(asked, -(-len(output) // max_steps)) if max_steps else asked
    watch = _Watch()
    parser = ResponseParser(
        response_template, prefix=prefix, tools=tools, time_limit=time_limit, recorder=watch, runtime=runtime
    )
    implicit = parser.template.implicit
    tail = parser.prefix_tail
    base = len(tail)
    steps = [Step(INITIAL, None, parser._pos, parser.initial_events, watch.take(parser.initial_events, implicit))]
    result = Replay(tail, base, chunk, asked, steps)
    failure: Exception | None = None
    for at in range(0, len(output), chunk):
        fed = (base + at, base + min(at + chunk, len(output)))
        try:
            events = parser.feed(output[at : at + chunk])
        except Exception as exc:  # what the runtime raises from this call: the stream ends here
            failure = exc
            steps.append(Step(FEED, fed, parser._pos, [], [], _error(exc)))
            break
        steps.append(Step(FEED, fed, parser._pos, events, watch.take(events, implicit)))
    if failure is None:
        try:
            message, events = parser.finalize()
        except Exception as exc:
            failure = exc
            steps.append(Step(FINALIZE, None, parser._pos, [], [], _error(exc)))
        else:
            result.message = message
            steps.append(Step(FINALIZE, None, parser._pos, events, watch.take(events, implicit)))
    streamed = watch.build(output, prefix, message=result.message, error=failure)
    if failure is not None:
        result.error = _error(failure)
    if oneshot is None:
        oneshot = trace_response(
            output, response_template, prefix=prefix, tools=tools, time_limit=time_limit, runtime=runtime
        )
    result.oneshot_message = oneshot.message
    result.oneshot_error = f"{oneshot.error.type}: {oneshot.error.message}" if oneshot.error is not None else None
    result.flags = _flags(result, streamed, oneshot, parser)
    return result


def _error(exc: Exception) -> str:
    return f"{type(exc).__name__}: {exc}"


def _dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=False, ensure_ascii=False, default=repr)


def _excerpt(text: str, limit: int = 24) -> str:
    shown = text[:limit].replace("\n", "⏎")
    return repr(shown) + ("…" if len(text) > limit else "")


# ----- the flags --------------------------------------------------------------------------------------
def _flags(result: Replay, streamed: TemplateTrace, oneshot: TemplateTrace, parser: ResponseParser) -> list[Flag]:
    text = streamed.text
    flags: list[Flag] = []
    counts: dict[str, int] = {}

    def add(flag: Flag) -> None:
        counts[flag.kind] = counts.get(flag.kind, 0) + 1
        if counts[flag.kind] <= MAX_FLAGS_PER_KIND:
            flags.append(flag)

    segments = _segments(oneshot)
    starts = [s[0] for s in segments]
    dirty_regions: dict[Any, list[int]] = {}
    opened_at: list[int] = []  # the step each streamed region opened in (by region index)
    fields = parser.template.fields
    for number, step in enumerate(result.steps):
        for event, span in zip(step.events, step.spans):
            kind, name = event["type"], event["field"]
            if kind == "region_open":
                opened_at.append(number)
            elif kind == "region_chunk":
                if event["dirty"]:
                    dirty_regions.setdefault(name, []).append(number)
                if span is not None:
                    for flag in _leaks(text, span, name, segments, starts, number):
                        add(flag)
            elif kind == "region_close" and step.call == FINALIZE:
                closer, at_end = span
                if closer is not None:
                    field_spec = fields.get(name)
                    key = field_spec.close.key if field_spec is not None and field_spec.close is not None else "close"
                    add(Flag(LATE_CLOSE, number, name, closer, (
                        f"{name}'s {key} {_excerpt(text[closer[0]:closer[1]])} matched only at finalize(): a regex closer at the "
                        f"very end of the text could still grow, so it is held back, and a client gets {name}'s region_close only "
                        "when the stream ends"
                    )))
    for name, steps_of in dirty_regions.items():
        first = steps_of[0]
        regions = sum(1 for r in streamed.regions if r.field == name)
        add(Flag(DIRTY, first, name, None, (
            f"{name}'s chunks are dirty ({fields[name].content if name in fields else '?'}): raw markup a client cannot show "
            f"as it comes; its value arrives only with region_close ({regions} region{'s' if regions != 1 else ''})"
        )))
    for region in streamed.regions:
        if region.overwritten_by is None or region.body[1] <= region.body[0]:
            continue
        later = region.overwritten_by
        step = opened_at[later] if later < len(opened_at) else len(result.steps) - 1
        add(Flag(SHOWN_THEN_OVERWRITTEN, step, region.field, region.body, (
            f"{region.field} #{region.index} was streamed ({_excerpt(text[region.body[0]:region.body[1]])}), but #{later} of "
            f"the same field replaces its value: a client that showed it loses that text in the final message"
        )))
    for flag in _differences(result, streamed, oneshot, opened_at):
        add(flag)
    for kind, count in counts.items():
        if count > MAX_FLAGS_PER_KIND:
            flags.append(Flag(kind, len(result.steps) - 1, None, None, f"… and {count - MAX_FLAGS_PER_KIND} more {kind} flags"))
    flags.sort(key=lambda f: f.step)
    return flags


def _segments(trace: TemplateTrace) -> list[tuple[int, int, Any, str]]:
    """What the one-shot parse made of each stretch of text: (start, end, field, what), sorted."""
    out = []
    for r in trace.regions:
        if r.open is not None and r.open.span[1] > r.open.span[0]:
            out.append((*r.open.span, r.field, "opener"))
        if r.body[1] > r.body[0]:
            out.append((*r.body, r.field, "body"))
        if r.close is not None and r.close.span[1] > r.close.span[0]:
            out.append((*r.close.span, r.field, "closer"))
    out.extend((*d.span, None, "dropped") for d in trace.dropped if d.span[1] > d.span[0])
    out.sort()
    return out


def _leaks(text: str, span: Span, name: Any, segments: list, starts: list[int], step: int) -> list[Flag]:
    """The parts of a chunk emitted to ``name`` that the one-shot parse does not give to its body."""
    start, end = span
    flags = []
    i = max(0, bisect.bisect_right(starts, start) - 1)
    while i < len(segments) and segments[i][0] < end:
        s, e, owner, what = segments[i]
        i += 1
        lo, hi = max(s, start), min(e, end)
        if hi <= lo or (what == "body" and owner == name):
            continue
        piece = _excerpt(text[lo:hi])
        if what == "dropped":
            why = "the one-shot parse drops it"
        elif what == "body":
            why = f"the one-shot parse gives it to {owner}"
        else:
            why = f"the one-shot parse reads it as part of {owner}'s {what}: a marker leaking into the text"
        flags.append(Flag(LEAK, step, name, (lo, hi), f"{piece} was emitted to {name}, but {why}"))
    return flags


def _differences(result: Replay, streamed: TemplateTrace, oneshot: TemplateTrace, opened_at: list[int]) -> list[Flag]:
    flags = []
    last = len(result.steps) - 1
    for a, b in zip(streamed.regions, oneshot.regions):
        if a.field != b.field or a.span != b.span:
            step = opened_at[a.index] if a.index < len(opened_at) else last
            flags.append(Flag(DIFFERENCE, step, a.field, a.span, (
                f"the stream cut the text differently: streamed #{a.index} is {a.field} at {a.span[0]}–{a.span[1]}, "
                f"the one-shot parse's is {b.field} at {b.span[0]}–{b.span[1]}"
            )))
            break
    else:
        if len(streamed.regions) != len(oneshot.regions) and result.error is None:
            flags.append(Flag(DIFFERENCE, last, None, None, (
                f"the stream found {len(streamed.regions)} regions, the one-shot parse {len(oneshot.regions)}"
            )))
    if not result.same_as_oneshot:
        if result.error != result.oneshot_error:
            what = f"streamed: {result.error or 'a message'}; one-shot: {result.oneshot_error or 'a message'}"
        else:
            what = f"streamed: {_dumps(result.message)[:120]}; one-shot: {_dumps(result.oneshot_message)[:120]}"
        flags.append(Flag(DIFFERENCE, last, None, None, f"the streamed result differs from the one-shot result: {what}"))
    return flags


# ----- the client's view ------------------------------------------------------------------------------
def assemble(result: Replay, upto: int) -> list[Part]:
    """The regions as a client builds them from the events of calls 0..upto (in opening order)."""
    parts: list[Part] = []
    pieces: list[list[str]] = []
    current: dict[Any, int] = {}  # field -> its part being streamed
    for step in result.steps[: upto + 1]:
        for event in step.events:
            kind, name = event["type"], event["field"]
            if kind == "region_open":
                current[name] = len(parts)
                parts.append(Part(name, "", False, False))
                pieces.append([])
            elif kind == "region_chunk":
                if name not in current:  # a chunk with no open before it: start a part anyway
                    current[name] = len(parts)
                    parts.append(Part(name, "", False, False))
                    pieces.append([])
                index = current[name]
                pieces[index].append(event["text"])
                parts[index].dirty = parts[index].dirty or event["dirty"]
            elif kind == "region_close":
                index = current.pop(name, None)
                if index is None:
                    parts.append(Part(name, "", False, True, event["value"]))
                    pieces.append([])
                else:
                    parts[index].closed, parts[index].value = True, event["value"]
    for part, chunks in zip(parts, pieces):
        part.text = "".join(chunks)
    return parts
