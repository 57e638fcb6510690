"""A template's parse with its traps noted, cheaply enough for every row of a dataset
(``workbench scan``): text it throws away and values a later region of the same field replaced.

``trace_response`` finds the same (and much more) at about twice a parse's cost; this watcher is
told of the same events by ``ResponseParser`` and keeps only what a verdict needs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import DEFAULT_TIME_LIMIT
from .stream import ResponseParser

DROPPED = "dropped"
OVERWRITTEN = "overwritten"


@dataclass(frozen=True, slots=True)
class Trap:
    kind: str  # DROPPED or OVERWRITTEN
    field: str | None  # the field whose value was replaced (None for dropped text)
    text: str  # the text thrown away, or the value replaced (as text)


class _Watcher:
    """The recorder interface of ``ResponseParser`` (trace.Recorder's), keeping dropped spans."""

    def __init__(self) -> None:
        self.parser: Any = None
        self.dropped: list[tuple[int, int]] = []

    def attach(self, parser: Any, ties: list) -> tuple:
        self.parser = parser
        return parser._parse, parser._shape, parser._cast

    def routed(self, field: Any, start: int, end: int) -> None:
        if field is None:
            self.dropped.append((start, end))

    def opened(self, field: Any, match: Any) -> None:
        pass

    def closing(self, closer: Any, at_end: bool) -> None:
        parser = self.parser
        if (parser._current is None or not parser._opened) and closer is not None and closer.end() > closer.start():
            self.dropped.append((closer.start(), closer.end()))

    def finishing(self, output: dict) -> None:
        parser = self.parser
        if parser._pos < len(parser._buffer):
            self.dropped.append((parser._pos, len(parser._buffer)))


def parse_with_traps(text: str, template: Any, *, prefix: str, tools: Any = None,
                     time_limit: float | None = DEFAULT_TIME_LIMIT, runtime: Any = None) -> tuple[dict, list[Trap]]:
    """``parse_response``'s message (or what it raises) and the traps the output fell into: dropped
    text of the output (not of the prompt's tail), and each earlier non-empty value of a field
    that neither repeats nor joins, which a later region replaced."""
    watcher = _Watcher()
    parser = ResponseParser(template, prefix=prefix, tools=tools, time_limit=time_limit, recorder=watcher, runtime=runtime)
    events = parser.feed(text)
    message, last = parser.finalize()
    traps: list[Trap] = []
    start = len(parser.prefix_tail)
    buffer = parser._buffer
    for a, b in watcher.dropped:
        if b > start:
            traps.append(Trap(DROPPED, None, buffer[max(a, start):b]))
    fields = parser.template.fields
    seen: dict[str, Any] = {}
    for event in events + last:
        if event["type"] != "region_close":
            continue
        name = event["field"]
        field = fields[name]
        if field.repeats or field.join is not None:
            continue
        earlier = seen.get(name)
        if earlier is not None and not _blank(earlier):
            traps.append(Trap(OVERWRITTEN, name, earlier if isinstance(earlier, str) else repr(earlier)))
        seen[name] = event["value"]
    return message, traps


def _blank(value: Any) -> bool:
    return (isinstance(value, str) and not value.strip()) or value in (None, [], {})
