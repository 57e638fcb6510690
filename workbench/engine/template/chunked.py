"""A template's streamed parse on given chunkings, against its one-shot parse: what a serving
client would get if the output arrived cut there (``workbench scan --chunkings``)."""

from __future__ import annotations

import json
from typing import Any

from ..difference import first_difference
from .errors import DEFAULT_TIME_LIMIT
from .stream import ResponseParser


def closes(text: str, template: Any, cuts: list[int], *, prefix: str, tools: Any = None,
           time_limit: float | None = DEFAULT_TIME_LIMIT, runtime: Any = None) -> tuple[dict, list]:
    """The message and the (field, value) of every ``region_close`` event, ``text`` fed in the
    chunks ``cuts`` (sorted offsets) make. What a call raises is raised."""
    parser = ResponseParser(template, prefix=prefix, tools=tools, time_limit=time_limit, runtime=runtime)
    events = list(parser.initial_events)
    at = 0
    for cut in [*cuts, len(text)]:
        if cut > at:
            events += parser.feed(text[at:cut])
            at = cut
    message, last = parser.finalize()
    return message, [(e["field"], e["value"]) for e in events + last if e["type"] == "region_close"]


def stream_difference(text: str, template: Any, chunkings: list[list[int]], *, prefix: str, tools: Any = None,
                      time_limit: float | None = DEFAULT_TIME_LIMIT, runtime: Any = None) -> str | None:
    """Where the first of ``chunkings`` whose streamed parse differs from the one-shot parse
    (its message or its closed values, in order) parts from it; None when none differs."""
    whole = _outcome(text, template, [], prefix, tools, time_limit, runtime)
    for cuts in chunkings:
        got = _outcome(text, template, cuts, prefix, tools, time_limit, runtime)
        if got != whole:
            where = _where(whole, got)
            return f"cut at {_shown(cuts)}: {where}"
    return None


def _outcome(text, template, cuts, prefix, tools, time_limit, runtime) -> tuple:
    try:
        message, closed = closes(text, template, cuts, prefix=prefix, tools=tools, time_limit=time_limit, runtime=runtime)
        return ("message", message, closed)
    except Exception as exc:  # noqa: BLE001 - a streamed call that raises is a difference to report
        return ("raised", f"{type(exc).__name__}: {exc}", None)


def _where(whole: tuple, got: tuple) -> str:
    if whole[0] != got[0]:
        return f"one-shot {whole[0]}, streamed {got[0]}" + (f" ({got[1][:120]})" if got[0] == "raised" else "")
    if whole[0] == "raised":
        return f"raised otherwise: {got[1][:120]}"
    return first_difference(whole[1], got[1]) or "events: " + (first_difference(
        json.loads(json.dumps(whole[2], default=str)), json.loads(json.dumps(got[2], default=str))) or "differ")


def _shown(cuts: list[int]) -> str:
    return ",".join(map(str, cuts[:8])) + (f",… ({len(cuts)} cuts)" if len(cuts) > 8 else "")
