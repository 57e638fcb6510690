"""Errors a parse can end in, each naming the schema node (as a JSON pointer) where it happened.

The runtime raises ValueError or TypeError; ours subclass the same builtins so code written
against transformers catches them unchanged.
"""

from __future__ import annotations

from .pointer import display


class ParseFailure(Exception):
    """A parse stopped at one schema node. ``path`` is that node's JSON pointer."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        # Pointer segments, innermost first: each enclosing node prepends its own while unwinding,
        # so the hot path never builds a path unless something fails.
        self._segments: list[str] = []

    def add_segment(self, segment: str) -> None:
        self._segments.append(segment)

    @property
    def path(self) -> str:
        return "".join(reversed(self._segments))

    def __str__(self) -> str:
        return f"{display(self.path)}: {self.message}"


class SchemaValueError(ParseFailure, ValueError):
    """Where transformers raises ValueError (no match groups, bad JSON, missing required keys...)."""


class SchemaTypeError(ParseFailure, TypeError):
    """Where transformers raises TypeError (wrong input type for a node, unsupported type...)."""


class RegexTimeout(ParseFailure, TimeoutError):
    """A regex ran past the time limit. transformers would still be running; we stop and say where."""
