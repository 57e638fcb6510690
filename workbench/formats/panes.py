"""The small things the panes are told about one place: what it stands for (``Lit``) and where a
parse failed (``Failure``), in the words of the status line."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..engine.spans import Span

EXCERPT = 24  # characters of matched text quoted in the status line


def excerpt(text: str, span: Span) -> tuple[str, bool]:
    start, end = span
    return text[start : min(end, start + EXCERPT)].replace("\n", "⏎"), end - start > EXCERPT


@dataclass
class Lit:
    """What one place stands for: spans to light in the output and in the prompt, the editor
    node to shade, and the matches to list (label, "start–end" or None, excerpt, cut short)."""

    mark: str | None = None
    output: list[Span] = field(default_factory=list)
    prompt: list[Span] = field(default_factory=list)
    title: str = ""
    items: list[tuple[str, str | None, str, bool]] = field(default_factory=list)
    more: int = 0


@dataclass
class Failure:
    """Where and why a parse failed, as the status line says it."""

    lead: str  # "Parse fails at /properties/x: "
    message: str
    pointer: str | None  # the key in the editor to look at
    input: str | None = None  # the start of the text it failed on
    cut: bool = False
