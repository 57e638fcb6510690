"""Argument values written bare (a string as it is, any other value as JSON) and read back by the
JSON rule: what the formats of qwen3_coder, nemotron3, seed_oss, glm45, glm47, minimax_m2 and
solar_open2 write inside their parameter elements."""

from __future__ import annotations

import json
from typing import Any

from grammars import Unexpressible, json_text


def _constant(name: str) -> Any:
    raise ValueError(name)


def reads_as_json(text: str) -> bool:
    """The JSON rule reads ``text`` as a JSON value (surrounding whitespace allowed, as
    ``json.loads``; ``NaN`` and ``Infinity`` are no JSON)."""
    try:
        json.loads(text, parse_constant=_constant)
    except ValueError:
        return False
    return True


def bare(value: Any) -> str:
    """``value`` as the format writes it: a string as it is, anything else as JSON. A string the
    JSON rule reads as another value (``"42"``, ``"true"``, ``" null"``, ``'"quoted"'``) cannot be
    written: it would come back as that value."""
    if isinstance(value, str):
        if reads_as_json(value):
            raise Unexpressible(f"the string {value!r} reads as JSON")
        return value
    return json_text(value)
