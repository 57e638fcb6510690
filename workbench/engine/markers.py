"""The literal markers a parser knows (tags and special tokens such as ``<tool_call>``,
``<|im_end|>``, ``[TOOL_CALLS]``), read out of its regexes: where one turns up inside a parsed
value, the parser most likely cut a region in the wrong place (``workbench scan`` says so).

Written by hand because no library reads literals back out of a regex: the tokens are picked by
their shape from the pattern's text with its escapes undone, which finds the markers real parsers
spell out and misses those built from alternations (``<(?:tool|function)_call>``), a miss that
costs a warning, never a false one.
"""

from __future__ import annotations

import re
from typing import Iterable

_ESCAPED = re.compile(r"\\([^A-Za-z0-9])")
# <tag>, </tag>, <|token|>, <｜token｜> (full-width bars), [TOKEN], with what real formats put inside.
_SHAPES = re.compile(
    r"<[|｜][^<>\s|｜]{1,60}[|｜]>"
    r"|</?[A-Za-z_][\w:.\-▁]{0,60}>"
    r"|\[[A-Z][A-Z_]{2,30}\]"
)
_MAGIC = set("()[]{}?*+|^$\\")
_GROUP_NAME = re.compile(r"\(\?(?:P?<[A-Za-z_]\w*>|<[=!])")
# A tag whose name is a group of plain alternatives, as parsers write several spellings at once:
# "</?(?:tool_call|tools?)>" gives <tool_call>, <tools>, <tool> (and their closers).
_ALTERNATIVES = re.compile(r"<(/\??|/)?\(\?:((?:\w+\??\|)+\w+\??)\)>")


def literal_markers(patterns: Iterable[str]) -> list[str]:
    """The markers spelled out in ``patterns`` (regex sources or literal delimiters), in order."""
    found: dict[str, None] = {}
    for pattern in patterns:
        text = _GROUP_NAME.sub("(", _ESCAPED.sub(r"\1", pattern))
        for match in _ALTERNATIVES.finditer(text):
            slashes = {"": [""], "/": ["/"]}.get(match.group(1) or "", ["", "/"])
            for word in match.group(2).split("|"):
                spellings = [word[:-1], word[:-2]] if word.endswith("?") else [word]
                for slash in slashes:
                    for spelled in spellings:
                        found[f"<{slash}{spelled}>"] = None
        for match in _SHAPES.finditer(text):
            token = match.group()
            inner = token[2:-2] if token[1] in "|｜" else token[1:-1]
            # A token glued to regex syntax it was cut from ("<[^>]+>" has no literal in it).
            if not _MAGIC.intersection(inner):
                found[token] = None
    return list(found)


def markers_in(text: str, markers: list[str]) -> list[str]:
    """The ``markers`` that ``text`` holds."""
    return [m for m in markers if m in text]
