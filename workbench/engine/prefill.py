"""What a generation prompt pre-writes: the one rule that splits it into the assistant header (the
start anchor) and the prefill after it.

A chat template's generation prompt ends with the assistant's header (``<|im_start|>assistant\\n``)
and may go on with text the model then writes from inside of (``<think>\\n``, StepFun / MiniMax
style; ``</think>`` with thinking off; an empty Gemma thought). A response template parses the
prompt's tail after its anchor together with the output (docs/response-template.md, "Finding
regions"), so a prefilled opener opens its region there. The prefill therefore never belongs in
the anchor: put there, it turns the region's opener into part of the header and leaves the region
without one. ``draft`` cuts its anchor with this rule, ``migrate`` derives its anchor with it,
and the prompt pane says a prompt's prefill with it (``prefill_note``).

The header, per prompt:

1. Find the last role word (``assistant``, ``model``, ``chatbot``, or the word ``ai``; any case)
   that stands as a header, not in prose: inside a special-token marker; or at most a few
   characters after a marker on its line (``<|im_start|>assistant``, ``<beginning_of_sentence>ai
   name=assistant``) or after its line's start (``]~b]ai``, ``Assistant:``); and followed by a
   marker, a colon, a line break or the end of the prompt.
2. Inside a marker (``<|assistant|>``, ``<|begin_assistant|>``, ``<｜Assistant｜>``), the header
   is that marker. Otherwise it runs from that marker (or the line's start) through the word and a
   marker right after it (``<|end_header_id|>``, ``<|im_middle|>``) or a colon.
3. With no such word, the header is the prompt's last marker (``[/INST]``, ``<|extra_0|>``).
4. The line breaks right after the header belong to it (``<|im_start|>assistant\\n``).

Everything after the header is the prefill. A marker is ``<...>`` without spaces or
``[UPPER_CASE]``/``[/UPPER_CASE]``.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from .visible import visible

ROLE = re.compile(r"assistant|model|chatbot|\bai\b", re.IGNORECASE)
MARKER = re.compile(r"<[^<>\s]{1,80}>|\[/?[A-Z][A-Z_]*\]")
NEWLINES = re.compile(r"(?:\r?\n)+")
GAP = 12  # at most this much text between a marker and its role word (``ai name=``)
SHOWN = 24  # characters of a prefill quoted in a note


class Split(NamedTuple):
    """A prompt cut at the end of its assistant header: ``head`` (the history and the header),
    ``header`` (the header alone: the start anchor) and ``prefill`` (what follows it)."""
    head: str
    header: str
    prefill: str


def split_prefill(prompt: str) -> Split | None:
    """``prompt`` cut at the end of its last assistant header (the rule in the module docstring),
    or None when it shows no header."""
    span = header_span(prompt)
    if span is None:
        return None
    start, end = span
    return Split(prompt[:end], prompt[start:end], prompt[end:])


def prefill_of(prompt: str) -> str:
    """What the generation prompt pre-writes after its assistant header ("" when nothing, or
    when the prompt shows no header)."""
    split = split_prefill(prompt)
    return split.prefill if split is not None else ""


def prefill_note(prompt: str, anchor_end: int | None) -> str:
    """What a prompt pane (or the CLI) says of ``prompt``'s prefill, given where the parse's start
    anchor ended in it (None when it was not found): "" with no prefill; the prefill, quoted;
    and a warning when the anchor ends past the header, inside the prefill, since the opener it
    takes in then opens nothing in the tail the parser reads."""
    span = header_span(prompt)
    if span is None or span[1] == len(prompt):
        return ""
    end = span[1]
    if anchor_end is not None and anchor_end > end:
        taken = _quoted(prompt[end:anchor_end])
        return f"⚠ the start anchor takes in the prefill {taken}: the tail the parser reads does not hold it"
    return f"prefill {_quoted(prompt[end:])}"


def _quoted(text: str) -> str:
    # Prompt text is a stranger's: line breaks as ⏎ (as the trees show them), other controls as
    # visible symbols, cut short.
    shown = visible(text[:SHOWN].replace("\n", "⏎"))
    return repr(shown) + ("…" if len(text) > SHOWN else "")


def header_span(prompt: str) -> tuple[int, int] | None:
    """Where the last assistant header of ``prompt`` starts and ends, or None."""
    markers = list(MARKER.finditer(prompt))
    for role in reversed(list(ROLE.finditer(prompt))):
        span = _header_at(prompt, role, markers)
        if span is not None:
            start, end = span
            break
    else:
        if not markers:
            return None
        start, end = markers[-1].start(), markers[-1].end()
    newlines = NEWLINES.match(prompt, end)
    if newlines:
        end = newlines.end()
    return (start, end) if end > start else None


def _header_at(prompt: str, role: re.Match, markers: list[re.Match]) -> tuple[int, int] | None:
    """The span of the header around this role word, if it is one (and not prose that mentions
    an assistant or a model)."""
    inside = next((m for m in markers if m.start() < role.start() and role.end() < m.end()), None)
    if inside is not None:
        return inside.start(), inside.end()
    line_start = prompt.rfind("\n", 0, role.start()) + 1
    before = [m for m in markers if line_start <= m.start() and m.end() <= role.start()]
    if before and role.start() - before[-1].end() <= GAP:
        start = before[-1].start()
    elif role.start() - line_start <= GAP:
        start = line_start  # a short line head: ``]~b]ai``, ``### Assistant:``
    else:
        return None
    end = role.end()
    after = MARKER.match(prompt, end)
    if after:
        return start, after.end()
    if prompt.startswith(":", end):
        return start, end + 1
    if end == len(prompt) or prompt[end] in "\r\n":
        return start, end
    return None
