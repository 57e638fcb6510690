"""Colours for the raw pane: one hue per top-level field, one strength per kind of span."""

from __future__ import annotations

from functools import lru_cache

from rich.style import Style
from textual.color import Color

from ..engine.highlights import GROUP, ITEM, ITEM_ALT, MATCH, NO_FIELD, SELECTED, VALUE

FIELD_COLOURS = ["#4f8fd8", "#e0913a", "#5faf5f", "#b07ad8", "#d8c24f", "#4fb8b8", "#d86f8f", "#8f9f4f"]
NEUTRAL = "#8a8a8a"
BACKGROUND = Color.parse("#1e1e1e")
# How much of the field colour shows through, per kind: whole matches faintly, groups strongly.
STRENGTH = {MATCH: 0.22, ITEM: 0.3, ITEM_ALT: 0.16, VALUE: 0.42, GROUP: 0.55}


def field_colour(field: int) -> str:
    return NEUTRAL if field == NO_FIELD else FIELD_COLOURS[field % len(FIELD_COLOURS)]


@lru_cache(maxsize=256)
def style_for(field: int, kind: str) -> Style:
    if kind == SELECTED:
        return Style(bgcolor="#f0f0f0", color="#000000", bold=True)
    colour = Color.parse(field_colour(field))
    background = BACKGROUND.blend(colour, STRENGTH[kind])
    return Style(bgcolor=background.rich_color, underline=kind == GROUP)
