"""Text from files, made fit for the screen: plain text (never Textual markup) with every control
character as a visible symbol (engine/visible.py).

File names, schema keys, values, paths and error texts come from strangers. Passed to Textual as a
string, ``[`` starts markup (a name like ``[a="].txt`` raises MarkupError and ends the app; one
like ``[@click=app.quit]Q[/]`` becomes a live link); written to the terminal as they are, escape
sequences set its title or paint it. So every widget that shows such text takes it as a Rich
``Text`` built here.
"""

from __future__ import annotations

from rich.text import Text
from textual.markup import escape

from ..engine.visible import TEXT_TABLE, needs_showing, visible


def plain(text: str, style: str = "", keep_newlines: bool = False) -> Text:
    """``text`` as plain text with its control characters visible (line feeds too, unless
    ``keep_newlines``: a one-line label stays one line)."""
    return Text(visible(text, keep_newlines), style=style)


def shown(message: str | Text, keep_newlines: bool = True) -> Text:
    """A message for a widget: a string as plain text, never markup; a ``Text`` with its styles
    kept and its characters made visible. Line feeds stay by default (a message may have lines)."""
    if isinstance(message, str):
        return plain(message, keep_newlines=keep_newlines)
    if not needs_showing(message.plain, keep_newlines):
        return message
    # Cut at every style boundary, so each piece has one set of styles over all of it; a piece's
    # text may grow (a lone surrogate becomes its escape), so the spans are laid again.
    cuts = sorted({offset for span in message.spans for offset in (span.start, span.end)})
    result = Text(style=message.style, justify=message.justify, no_wrap=message.no_wrap, end=message.end)
    for piece in message.divide(cuts):
        start = len(result)
        result.append(visible(piece.plain, keep_newlines))
        for span in piece.spans:
            result.stylize(span.style, start, len(result))
    return result


def editor_line(line: str) -> Text:
    """A line of an editor (a TextArea) with its control characters as symbols, one for one, so
    the editor's highlights keep their offsets (TextArea's own line drops some and shows the rest
    raw)."""
    return Text(line.translate(TEXT_TABLE), end="", no_wrap=True)


def markup_safe(text: str) -> str:
    """For the few places Textual reads only markup (the command palette's help): visible, escaped."""
    return escape(visible(text))
