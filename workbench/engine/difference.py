"""Where two parse results first differ, as a short path-level description (for goldens, the
round trip and the release matrix alike)."""

from __future__ import annotations

import json
from typing import Any


def first_difference(expected: Any, got: Any, path: str = "") -> str:
    """A short path-level description of the first place two values differ."""
    if type(expected) is not type(got):
        return f"{path or '/'}: expected {_short(expected)}, got {_short(got)}"
    if isinstance(expected, dict):
        for key in expected:
            if key not in got:
                return f"{path}/{key}: missing"
            diff = first_difference(expected[key], got[key], f"{path}/{key}")
            if diff:
                return diff
        for key in got:
            if key not in expected:
                return f"{path}/{key}: unexpected {_short(got[key])}"
        if list(expected) != list(got):
            return f"{path or '/'}: keys in another order"
        return ""
    if isinstance(expected, list):
        for i, (a, b) in enumerate(zip(expected, got)):
            diff = first_difference(a, b, f"{path}/{i}")
            if diff:
                return diff
        if len(expected) != len(got):
            return f"{path or '/'}: expected {len(expected)} items, got {len(got)}"
        return ""
    return "" if expected == got else f"{path or '/'}: expected {_short(expected)}, got {_short(got)}"


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."
