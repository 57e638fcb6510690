"""``ResponseParser``: the streaming parser, with transformers' API and events, as the release it
is given runs it (releases.py; docs/response-template.md#finding-regions, #streaming).

The text is cut into disjoint regions, left to right. One region is current at a time: an
explicit field (opened by its opener), the implicit field (the one without an opener, opened by
the first text routed to it), or a sink that drops text when there is no implicit field. Text
goes to the current region as ``region_chunk`` events; a region that closes is parsed, reshaped,
its tool calls cast, and stored (``region_close``). The whole text stays in the buffer, since
patterns may look behind the current position or anchor at its start (``^``).

Errors are the runtime's, raised from the call where it raises them (content and transform errors
from the ``feed()`` that closes the region, a missing required field from ``finalize()``), with
the state left as the runtime leaves it. Two additions: a regex that runs past ``time_limit``
seconds raises ``TemplateRegexTimeout`` naming its template key, and a template whose zero-width
opener and closer would make the runtime loop forever at one position raises ``RuntimeError``.
"""

from __future__ import annotations

import logging
from copy import deepcopy
from typing import Any

from .errors import DEFAULT_TIME_LIMIT, TemplateRegexTimeout
from .load import Template, load_template
from .parsers import CLEAN_CHUNK_PARSERS, parse_content
from ..releases import release as release_of
from .regions import OPEN, Extended, scan, scan_literal, watchlist
from .tools import cast_tool_calls, tool_parameters
from .transform import shape

logger = logging.getLogger(__name__)

PREFIX_REQUIRED = (
    "`ResponseParser`/`parse_response` requires `prefix` (the chat prompt sent to the model before "
    "generation), because chat templates often pre-write part of the assistant message (e.g. an "
    "opening `<think>` tag) that the parser must see to parse the output correctly. If the generation "
    'already contains the complete message, pass `prefix=""` to opt out explicitly.'
)


def _release(response_template: Any, runtime: Any, tools: Any, caller: str) -> Any:
    """The release to behave as (a loaded Template's own unless ``runtime`` names one); before 5.15
    ``tools=`` is a TypeError naming ``caller``, as the runtime's signature gives it."""
    if isinstance(response_template, Template) and runtime is None:
        runtime = response_template.release
    release = release_of(runtime)
    if tools is not None and not release.has("tools"):
        raise TypeError(f"{caller}() got an unexpected keyword argument 'tools'")
    return release


def _empty(value: Any) -> bool:
    return value is None or (isinstance(value, (list, dict, str)) and not value)


class ResponseParser:
    """``ResponseParser(template, prefix, *, tools=None)``: ``initial_events`` (from the prefix's
    tail after the last start anchor), ``feed(chunk) -> events``, ``finalize() -> (message,
    events)``. ``runtime`` (ours): the transformers release to behave as (a name such as "5.23",
    or a ``Release``; None: the one a loaded ``Template`` was loaded for, else the newest);
    ``time_limit`` (ours): seconds allowed for each regex search, None for no limit; ``recorder``
    (ours): a ``trace.Recorder`` that watches the parse."""

    def __init__(
        self,
        response_template: Any,
        prefix: str | None = None,
        *,
        tools: Any = None,
        time_limit: float | None = DEFAULT_TIME_LIMIT,
        recorder: Any = None,
        runtime: Any = None,
    ) -> None:
        self.release = release = _release(response_template, runtime, tools, "ResponseParser.__init__")
        self.template: Template = load_template(response_template, release)
        if prefix is None:
            raise ValueError(PREFIX_REQUIRED)
        self._limit = time_limit
        self._tool_parameters = tool_parameters(tools)
        self._buffer = ""
        self._pos = 0
        # Before 5.21 the outer dict only: a list default is shared by every parse of the template.
        self._output: dict = deepcopy(self.template.defaults) if release.has("fresh_defaults") else dict(self.template.defaults)
        self._close_captures = release.has("close_captures")
        # 5.24 on: a regex match that ends before the end of the text is held if more text could change it.
        self._extended: Extended | None = Extended() if release.has("hold_regex_matches") else None
        self._current: Any = self.template.implicit
        self._captures: dict = {}
        self._body: list[str] = []  # the region's text so far, joined when it closes (appending
        #                           to a str would copy it on every chunk of a long region)
        self._opened = False  # explicit regions open at their opener, the implicit one at its first text
        # A `join` field's pieces, joined once when the parse ends: the runtime concatenates the
        # string on every region (previous + join + value), which copies it each time and costs
        # regions x length; the joined value is the same.
        self._pieces: dict[str, list[str]] = {}
        self._finalized = False
        self.initial_events: list[dict] = []
        # Where the generation's region state starts: the prefix tail after the last anchor, or the
        # whole prefix when no anchor is found (then ``anchor_found`` is False; None for prefix="").
        self.anchor_found: bool | None = None
        self.prefix_tail = ""
        # A recorder (trace.Recorder) is told of every region event and sees each stage of a
        # region's value; without one, an event costs a single ``is not None`` test.
        self._recorder = recorder
        self._watchlists: dict = {}  # current region -> its watched delimiters (see scan.watchlist)
        # Whether a field's chunks are "dirty" (their parser does not stream clean text).
        self._dirty = {name: field.content not in CLEAN_CHUNK_PARSERS for name, field in self.template.fields.items()}
        self._ties: list | None = None  # scan() adds tie-breaks here when a recorder wants them
        self._parse, self._shape, self._cast = parse_content, shape, cast_tool_calls
        if recorder is not None:
            self._ties = []
            self._parse, self._shape, self._cast = recorder.attach(self, self._ties)
        if prefix:
            self._take_prefix(prefix)

    # The public calls -------------------------------------------------------------------------

    def feed(self, text: str) -> list[dict]:
        if self._finalized:
            raise RuntimeError("ResponseParser already finalized")
        if text:
            self._buffer += text
        events: list[dict] = []
        self._run(events, final=False)
        return events

    def finalize(self) -> tuple[dict, list[dict]]:
        if self._finalized:
            raise RuntimeError("ResponseParser already finalized")
        events: list[dict] = []
        self._run(events, final=True)
        for name, pieces in self._pieces.items():
            self._output[name] = self.template.fields[name].join.join(pieces)
        if self._recorder is not None:
            self._recorder.finishing(self._output)
        missing = [name for name, field in self.template.fields.items() if not field.optional and name not in self._output]
        if missing:
            raise ValueError(f"Required response_template fields missing from parsed output: {missing}")
        defaults = self.template.defaults
        self._output = {key: value for key, value in self._output.items() if key in defaults or not _empty(value)}
        self._finalized = True
        return self._output, events

    # The prefix -------------------------------------------------------------------------------

    def _take_prefix(self, prefix: str) -> None:
        anchor = self.template.anchor
        last_end = None
        try:
            for match in anchor.pattern.finditer(prefix, timeout=self._limit):
                last_end = match.end()
        except TimeoutError:
            raise TemplateRegexTimeout((anchor.key,), self._limit) from None
        if last_end is None:
            self.anchor_found = False
            kind = "start_anchor" if anchor.literals is not None else "start_anchor_pattern"
            logger.info(
                f"response_template defines {kind} but the anchor was not found in the prefix; "
                "the parser will process the entire prefix instead."
            )
            tail = prefix
        else:
            self.anchor_found = True
            tail = prefix[last_end:]
        self.prefix_tail = tail
        if tail:
            self._buffer = tail
            self._run(self.initial_events, final=False)

    # The region machine -----------------------------------------------------------------------

    def _run(self, events: list[dict], final: bool) -> None:
        """Act on every delimiter that can be decided now, then route the text that is safe to
        route (all of it when ``final``, and close the current region)."""
        # Region states met at this position: a repeat would loop forever. The set is made only
        # on a second pass at one position, which is rare; this loop runs once per feed().
        seen_at, first_current, first_opened, seen_here = -1, None, False, None
        # The scanner's searches over this buffer (see scan.scan), from the second pass on: most
        # feed() calls of a stream make one pass, and the memo would only cost them.
        memo: dict | None = None
        watchlists = self._watchlists
        while True:
            if self._pos != seen_at:
                seen_at, first_current, first_opened, seen_here = self._pos, self._current, self._opened, None
            else:
                state = (self._current, self._opened)
                if seen_here is None:
                    seen_here = {(first_current, first_opened)}
                if state in seen_here:
                    raise RuntimeError(
                        f"response_template delimiters match empty text over and over at position {self._pos} "
                        f"(field {self._current!r}): transformers would loop here forever"
                    )
                seen_here.add(state)
            watched = watchlists.get(self._current)
            if watched is None:
                watched = watchlists[self._current] = watchlist(self.template, self._current)
            if not final and len(watched) == 1 and watched[0].literal_pattern is not None and self._ties is None:
                found, hold_from = scan_literal(watched[0], self._buffer, self._pos)
            else:
                found, hold_from = scan(
                    watched, self._buffer, self._pos, final, self._limit, memo, self._ties, self._extended
                )
            if found is None:
                if final:
                    if self._pos < len(self._buffer):
                        self._route(events, self._pos, len(self._buffer))
                        self._pos = len(self._buffer)
                    self._close(events, at_end=True)
                elif hold_from > self._pos:
                    self._route(events, self._pos, hold_from)
                    self._pos = hold_from
                return
            if memo is None:
                memo = {}
            match = found.match
            if match.start() > self._pos:
                self._route(events, self._pos, match.start())
            self._pos = match.end()
            if found.kind == OPEN:
                self._close(events)
                self._open(events, found.field, match)
                continue
            # A region's closer: the explicit region's own, or the implicit region's.
            had_text = self._opened
            if self._close_captures:
                self._captures.update({name: value for name, value in match.groupdict().items() if value is not None})
            self._close(events, match)
            if not had_text and match.start() == match.end():
                return  # the runtime stops here: an empty closer on an empty region

    def _route(self, events: list[dict], start: int, end: int) -> None:
        """Route ``buffer[start:end]`` (never empty) to the current region."""
        if self._recorder is not None:
            self._recorder.routed(self._current, start, end)
        if self._current is None:
            return  # the sink: no implicit field
        text = self._buffer[start:end]
        if not self._opened:
            events.append({"type": "region_open", "field": self._current})
            self._opened = True
        self._body.append(text)
        events.append({"type": "region_chunk", "field": self._current, "text": text, "dirty": self._dirty[self._current]})

    def _open(self, events: list[dict], field: Any, match: Any) -> None:
        self._current = field.name
        self._captures = {name: value for name, value in match.groupdict().items() if value is not None}
        self._body = []
        self._opened = True
        events.append({"type": "region_open", "field": field.name})
        if self._recorder is not None:
            self._recorder.opened(field, match)

    def _close(self, events: list[dict], closer: Any = None, at_end: bool = False) -> None:
        """Store the current region's value (if it opened) and return to the implicit region.
        ``closer``: the closer's match, when one closed it; ``at_end``: the text ended."""
        if self._recorder is not None:
            self._recorder.closing(closer, at_end)
        if self._current is not None and self._opened:
            name = self._current
            field = self.template.fields[name]
            # Through attributes, so a recorder can watch each stage (see __init__).
            release = self.release
            value = self._parse(
                "".join(self._body), field.content, field.content_args, self._limit, ("fields", name, "content_args"), release
            )
            value = self._shape(value, field, self._captures, release)
            if self._tool_parameters:
                value = self._cast(value, self._tool_parameters, release)
            if field.join is not None:
                if not isinstance(value, str):
                    raise ValueError(
                        f"Field '{field.name}': 'join' requires each match to parse to a string, got {type(value).__name__}."
                    )
                pieces = self._pieces.get(name)
                if pieces is not None:
                    pieces.append(value)
                else:
                    previous = self._output.get(name)
                    if previous is not None and not isinstance(previous, str):
                        previous + field.join + value  # the runtime's TypeError for a default that is no string
                    self._pieces[name] = [value] if previous is None else [previous, value]
                    self._output[name] = value if previous is None else previous + field.join + value
            elif field.repeats:
                self._output.setdefault(name, []).append(value)
            else:
                self._output[name] = value
            events.append({"type": "region_close", "field": name, "value": value})
        self._current = self.template.implicit
        self._captures = {}
        self._body = []
        self._opened = False


def parse_response(
    text: str,
    response_template: Any,
    *,
    prefix: str | None = None,
    tools: Any = None,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    runtime: Any = None,
) -> dict:
    """The message transformers' ``parse_response`` gives: ``feed(text)`` then ``finalize()``."""
    release = _release(response_template, runtime, tools, "parse_response")
    parser = ResponseParser(response_template, prefix=prefix, tools=tools, time_limit=time_limit, runtime=release)
    parser.feed(text)
    message, _ = parser.finalize()
    return message
