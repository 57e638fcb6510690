"""Where each member of a JSON object or array stands in the text it was parsed from.

``json`` gives values but no positions. This walks one level of a JSON container with the
stdlib's own scanner (``raw_decode`` skips a whole value in C), so a trace can give tool-call
arguments their own spans without a second JSON parser written by hand.
"""

from __future__ import annotations

import json
from json.decoder import scanstring

_DECODER = json.JSONDecoder()
_WS = " \t\n\r"


def _skip_ws(text: str, i: int, end: int) -> int:
    while i < end and text[i] in _WS:
        i += 1
    return i


def value_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """The span of the JSON value in text[start:end], without surrounding whitespace."""
    i = _skip_ws(text, start, end)
    j = end
    while j > i and text[j - 1] in _WS:
        j -= 1
    return i, j


def member_spans(text: str, start: int, end: int) -> dict | list | None:
    """For the object or array whose text is text[start:end]: key -> span, or a list of spans.

    Duplicate keys keep the last span, as json.loads keeps the last value. Returns None when the
    text is not a container (or not the JSON we expect), so callers fall back to the whole span.
    """
    try:
        i = _skip_ws(text, start, end)
        if i >= end or text[i] not in "{[":
            return None
        is_object = text[i] == "{"
        i = _skip_ws(text, i + 1, end)
        spans: dict | list = {} if is_object else []
        close = "}" if is_object else "]"
        if i < end and text[i] == close:
            return spans
        while i < end:
            if is_object:
                key, i = scanstring(text, i + 1)
                i = _skip_ws(text, i, end)
                i = _skip_ws(text, i + 1, end)  # the ':'
            _, value_end = _DECODER.raw_decode(text, i)
            if is_object:
                spans[key] = (i, value_end)
            else:
                spans.append((i, value_end))
            i = _skip_ws(text, value_end, end)
            if i < end and text[i] == close:
                return spans
            i = _skip_ws(text, i + 1, end)  # the ','
        return None
    except (ValueError, IndexError):
        return None
