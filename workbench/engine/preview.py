"""A value as a short line of JSON, for labels and reports."""

from __future__ import annotations

import json
import reprlib
from typing import Any


def preview(value: Any, limit: int = 60) -> str:
    """The value as JSON, cut at ``limit`` with "…": the encoder's lazy form stops early, so a
    field holding thousands of calls costs no more than a short one. A value JSON cannot encode is
    shown as its (shortened) repr."""
    text = ""
    try:
        for chunk in json.JSONEncoder(ensure_ascii=False).iterencode(_clipped(value, [limit])):
            text += chunk
            if len(text) > limit:
                break
    except (TypeError, ValueError):
        text = reprlib.repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _clipped(value: Any, budget: list[int]) -> Any:
    """``value`` cut where its JSON would run past the preview: a string to one character more
    than it can show, containers once ``budget`` (the characters left to show, counted down by
    fewer than the JSON holds up to there) is spent. The encoder writes a long string as one chunk, so a 2 MB string (or a
    message holding one) would otherwise be escaped whole for a 60-character label."""
    kind = type(value)
    if kind is str:
        keep = max(budget[0], 0) + 1
        budget[0] -= min(len(value), keep) + 2
        return value[:keep]
    if kind is list or kind is tuple:
        budget[0] -= 1  # the opening bracket (the closing one comes after what may be cut)
        items = []
        for item in value:
            if budget[0] < 0:
                break
            items.append(_clipped(item, budget))
            budget[0] -= 1
        return items
    if kind is dict:
        budget[0] -= 1
        members = {}
        for key, item in value.items():
            if budget[0] < 0:
                break
            cut = _clipped(key, budget) if type(key) is str else key
            # A key cut short must not replace a member already there (rare: then it stays whole).
            members[cut if cut not in members else key] = _clipped(item, budget)
            budget[0] -= 2
        return members
    budget[0] -= 1
    return value


def preview_pair(expected: Any, got: Any, limit: int = 60, before: int = 20) -> tuple[str, str]:
    """Both values as JSON, each cut to the same window around the first character where they part
    (``before`` characters of what they share, then up to ``limit`` in all), with "…" where cut:
    two previews cut at one length from the start hide a difference that lies past it."""
    a, b = _json(expected), _json(got)
    at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    start = max(0, at - before)
    return _window(a, start, limit), _window(b, start, limit)


def _json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return reprlib.repr(value)


def _window(text: str, start: int, limit: int) -> str:
    head = "…" if start else ""
    body = text[start:start + limit - len(head)]
    return head + body if start + len(body) >= len(text) else head + body[:-1] + "…"
