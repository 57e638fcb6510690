"""The ``start_anchor`` of a migrated template, read off the prompts the samples were made with.

A template needs ``start_anchor``: where, in the prompt it is given as ``prefix=``, the assistant's
message begins (docs/response-template.md#finding-regions). A schema has nothing like it; it is the chat
template's assistant header, and the prompts show it. The rule, per prompt:

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

Text the prompt has after the header (a prefilled ``<think>``) is left out on purpose: the
template parses it from the prompt's tail. The anchors of several prompts are kept in order
without repeats, and one that starts with another is dropped (the shorter is found wherever the
longer is). A marker is ``<...>`` without spaces or ``[UPPER_CASE]``/``[/UPPER_CASE]``.
"""

from __future__ import annotations

import re

ROLE = re.compile(r"assistant|model|chatbot|\bai\b", re.IGNORECASE)
MARKER = re.compile(r"<[^<>\s]{1,80}>|\[/?[A-Z][A-Z_]*\]")
NEWLINES = re.compile(r"(?:\r?\n)+")
GAP = 12  # at most this much text between a marker and its role word (``ai name=``)


def derive_start_anchor(prompts: list[str]) -> str | list[str] | None:
    """One anchor for every prompt (a string), several (a list, which a template accepts), or
    None when no prompt shows a header."""
    found: list[str] = []
    for prompt in prompts:
        anchor = header_of(prompt)
        if anchor and anchor not in found:
            found.append(anchor)
    found = [a for a in found if not any(b != a and a.startswith(b) for b in found)]
    if not found:
        return None
    return found[0] if len(found) == 1 else found


def header_of(prompt: str) -> str | None:
    """The assistant header of one prompt (the rule in the module docstring), or None."""
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
    return prompt[start:end] or None


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
