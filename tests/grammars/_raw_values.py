"""Argument values written raw (a string as it is, any other value as JSON) and read back by the
JSON rule, as the XML-element formats of the newest families write them (minicpm5, ling3, hy_v4,
minimax_m3): the value's own checks are each family's."""

from __future__ import annotations

import json
from typing import Any

from grammars import Unexpressible, json_text


def _constant(name: str) -> Any:
    raise ValueError(name)


def reads_as_json(text: str) -> bool:
    """The JSON rule reads ``text`` as a JSON value (``NaN``/``Infinity`` are no JSON)."""
    try:
        json.loads(text, parse_constant=_constant)
    except ValueError:
        return False
    return True


def raw(value: Any, trimmed: bool = False) -> str:
    """``value`` as the format writes it: a string as it is, anything else as JSON. A string the
    JSON rule reads as another value (``"42"``, ``"true"``, ``'"quoted"'``) cannot be written: it
    would come back as that value; where the format trims a value (``trimmed``), neither can a
    string with whitespace at an edge."""
    if isinstance(value, str):
        if reads_as_json(value):
            raise Unexpressible(f"the string {value!r} reads as JSON")
        if trimmed and value != value.strip():
            raise Unexpressible(f"the format trims the string {value!r}")
        return value
    return json_text(value)
