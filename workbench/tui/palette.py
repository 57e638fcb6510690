"""Colours for the raw pane: one hue per top-level field, one strength per kind of span."""

from __future__ import annotations

from functools import lru_cache

from rich.style import Style
from textual.color import Color

from ..engine.paint import (
    BODY, BODY_ALT, CAPTURE, DELIMITER, DROPPED, EMPTIED, FLAGGED, HELD, LEFT_OPEN, OVERWRITTEN, UNFED, GROUP, ITEM, ITEM_ALT, ITEM_GROUP, ITEM_GROUP_ALT, MATCH, NO_FIELD, PAIR, PAIR_GROUP, SELECTED, EMPTY, SUBSTITUTION, VALUE, VALUE_ALT,
)

FIELD_COLOURS = ["#4f8fd8", "#e0913a", "#5faf5f", "#b07ad8", "#d8c24f", "#4fb8b8", "#d86f8f", "#8f9f4f"]
NEUTRAL = "#8a8a8a"
BACKGROUND = Color.parse("#1e1e1e")
# How much of the field colour shows through, per kind: whole matches faintly, groups strongly,
# iterator matches (and what they hand on) in two alternating shades.
STRENGTH = {
    SUBSTITUTION: 0.18, MATCH: 0.2, GROUP: 0.3, ITEM: 0.34, ITEM_ALT: 0.14, ITEM_GROUP: 0.46, ITEM_GROUP_ALT: 0.26,
    PAIR: 0.22, PAIR_GROUP: 0.4, VALUE: 0.55, VALUE_ALT: 0.36,
    # A template's regions: bodies strong (two shades), delimiters faint, bold and underlined.
    BODY: 0.42, BODY_ALT: 0.26, DELIMITER: 0.16, CAPTURE: 0.4, OVERWRITTEN: 0.14,
}
# The line each stage draws under or through its text, so stages stay apart where shades are close.
_LINES = {
    GROUP: {"underline": True}, SUBSTITUTION: {"strike": True}, PAIR_GROUP: {"overline": True},
    DELIMITER: {"underline": True, "bold": True}, CAPTURE: {"underline": True, "bold": True},
    OVERWRITTEN: {"strike": True, "color": "#9a9a9a"},
}
# The traps of a template, in colours of their own so they show whatever the field's colour; and
# the streaming replay's text held back, not fed yet, or shown wrongly.
TRAPS = {
    DROPPED: Style(bgcolor="#5c1f1f", color="#d8a8a8", strike=True),
    EMPTIED: Style(bgcolor="#5a4a00", italic=True),
    LEFT_OPEN: Style(bgcolor="#b35900", color="#ffffff", bold=True),
    HELD: Style(bgcolor="#4d4d00", underline=True),
    UNFED: Style(color="#5f5f5f"),
    FLAGGED: Style(bgcolor="#a01830", color="#ffffff", bold=True),
}
MARK = Style(bgcolor="#ff5fd7", color="#000000", bold=True)  # an empty match, on the character after it


def field_colour(field: int) -> str:
    return NEUTRAL if field == NO_FIELD else FIELD_COLOURS[field % len(FIELD_COLOURS)]


@lru_cache(maxsize=256)
def style_for(field: int, kind: str) -> Style:
    if kind == SELECTED:
        return Style(bgcolor="#f0f0f0", color="#000000", bold=True)
    if kind == EMPTY:
        return MARK
    if kind in TRAPS:
        return TRAPS[kind]
    colour = Color.parse(field_colour(field))
    background = BACKGROUND.blend(colour, STRENGTH[kind])
    return Style(bgcolor=background.rich_color, **_LINES.get(kind, {}))
