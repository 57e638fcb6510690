"""The ``gemma4-tool-call`` parser's first step: Gemma 4's argument syntax to JSON.

Gemma 4 writes ``{location:<|"|>Paris<|"|>,days:3}``: bare keys, strings between ``<|"|>`` marks.
The runtime quotes the keys and re-encodes the strings, then parses the result as JSON; these
steps reproduce that conversion exactly, including its blind spots (a bare key after a space is
left unquoted, and the JSON parse then fails, as it does in transformers).
"""

from __future__ import annotations

import json
import re

_QUOTED = re.compile(r'<\|"\|>(.*?)<\|"\|>', re.DOTALL)
_BARE_KEY = re.compile(r"(?<=[{,])(\w+):")


def gemma4_to_json(text: str) -> str:
    strings: list[str] = []

    def stash(match: re.Match) -> str:
        strings.append(match.group(1))
        return f"\x00{len(strings) - 1}\x00"

    text = _QUOTED.sub(stash, text)
    text = _BARE_KEY.sub(r'"\1":', text)
    for i, s in enumerate(strings):
        text = text.replace(f"\x00{i}\x00", json.dumps(s))
    return text
