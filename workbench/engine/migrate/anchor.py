"""The ``start_anchor`` of a migrated template, read off the prompts the samples were made with.

A template needs ``start_anchor``: where, in the prompt it is given as ``prefix=``, the assistant's
message begins (docs/response-template.md#finding-regions). A schema has nothing like it; it is the chat
template's assistant header, and the prompts show it. Each prompt's header is found by the engine's
one rule for what a generation prompt pre-writes (``engine.prefill``): text after the header (a
prefilled ``<think>``) is the prefill, left out of the anchor on purpose, since the template parses
it from the prompt's tail. The anchors of several prompts are kept in order without repeats, and
one that starts with another is dropped (the shorter is found wherever the longer is).
"""

from __future__ import annotations

from ..prefill import split_prefill


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
    """The assistant header of one prompt (``engine.prefill``'s rule), or None."""
    split = split_prefill(prompt)
    return split.header if split is not None else None
