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
        for chunk in json.JSONEncoder(ensure_ascii=False).iterencode(value):
            text += chunk
            if len(text) > limit:
                break
    except (TypeError, ValueError):
        text = reprlib.repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
