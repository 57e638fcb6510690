"""Where each schema node stands in the schema's JSON text, so editor and trace can point at each
other: pointer -> text range, and cursor offset -> the innermost pointer."""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from .schema.json_spans import member_spans, value_bounds
from .pointer import escape


@dataclass
class SchemaPositions:
    text: str
    spans: dict[str, tuple[int, int]]  # pointer -> (start, end) of the value's JSON text
    _line_starts: list[int]
    _regions: dict[str, tuple[int, int]]

    @classmethod
    def of(cls, text: str) -> "SchemaPositions":
        """Positions for a JSON text that parses (callers check that first)."""
        spans: dict[str, tuple[int, int]] = {}
        regions: dict[str, tuple[int, int]] = {}  # members with their keys, for pointer_at
        start, end = value_bounds(text, 0, len(text))
        stack = [("", start, end)]
        while stack:
            pointer, s, e = stack.pop()
            spans[pointer] = (s, e)
            members = member_spans(text, s, e)
            if isinstance(members, dict):
                stack.extend((f"{pointer}/{escape(k)}", ms, me) for k, (ms, me) in members.items())
                # A member's key belongs to it: the text from the end of the previous member (or
                # the opening brace) to its value, so a cursor on "x-regex" is in that member.
                previous_end = s + 1
                for k, (ms, me) in sorted(members.items(), key=lambda item: item[1][0]):
                    regions[f"{pointer}/{escape(k)}"] = (previous_end, me)
                    previous_end = me + 1
            elif isinstance(members, list):
                stack.extend((f"{pointer}/{i}", ms, me) for i, (ms, me) in enumerate(members))
        line_starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]
        return cls(text, spans, line_starts, {**spans, **regions})

    def pointer_at(self, offset: int) -> str:
        """The innermost pointer whose value (or, for an object member, key and value) contains
        ``offset``."""
        best, best_len = "", None
        for pointer, (s, e) in self._regions.items():
            if s <= offset <= e and (best_len is None or e - s < best_len):
                best, best_len = pointer, e - s
        return best

    def location(self, offset: int) -> tuple[int, int]:
        """(row, column), 0-based, of a text offset."""
        row = bisect.bisect_right(self._line_starts, offset) - 1
        return row, offset - self._line_starts[row]

    def offset(self, row: int, column: int) -> int:
        if row >= len(self._line_starts):
            return len(self.text)
        return min(self._line_starts[row] + column, len(self.text))

    def range_of(self, pointer: str) -> tuple[tuple[int, int], tuple[int, int]] | None:
        """The (row, col) start and end of the pointer's value, or None if not in the text."""
        span = self.spans.get(pointer)
        if span is None:
            return None
        return self.location(span[0]), self.location(span[1])


def schema_node_of(pointer: str) -> str:
    """The schema node a pointer is in: "/properties/a/x-regex" -> "/properties/a"."""
    parts = pointer.split("/")
    node: list[str] = []
    i = 1
    while i < len(parts):
        part = parts[i]
        if part in ("properties", "prefixItems") and i + 1 < len(parts):
            node += [part, parts[i + 1]]
            i += 2
        elif part in ("items", "additionalProperties"):
            node.append(part)
            i += 1
        else:
            break
    return "".join("/" + p for p in node)
