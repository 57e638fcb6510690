"""The prompt a response_template parses the sample with (``prefix=``): editable, and coloured.

The parser reads only the prompt's tail, after the last match of the start anchor: the text
before it is dimmed, the anchor underlined, and the tail coloured like the raw output, so a
region that opens in the prompt (a pre-written ``<think>``) shows where it starts. Colours are
drawn only while the text is the one the shown result was parsed with.
"""

from __future__ import annotations

import bisect
from typing import Any

from rich.style import Style
from rich.text import Text
from textual.widgets import TextArea

from ...engine.paint import SELECTED
from ...engine.prefill import prefill_note
from ...store.prompts import PromptDocument
from ..palette import style_for
from ..plain import editor_line, plain

Span = tuple[int, int]
_HEAD = Style(dim=True)
_ANCHOR = Style(underline=True, bold=True, color="#e0e0e0")


class PromptEditor(TextArea):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", soft_wrap=True, tab_behavior="focus", show_line_numbers=False, id=id)
        self._painted: str | None = None  # the text the colours belong to
        self._line_starts: list[int] = [0]
        self._runs: list[tuple] = []
        self._head_end = 0
        self._anchor: Span | None = None
        self._selected: list[Span] = []

    def load(self, text: str) -> None:
        """Show a new prompt (another sample's), scrolled to its end, where the tail is."""
        self.load_text(text)
        self.move_cursor(self.document.end)
        self.scroll_cursor_visible()
        self._painted = None
        self._repaint()

    def describe(self, prompt: PromptDocument, found: Any) -> None:
        """Title: where the prompt comes from, edited or not; subtitle: what the parse read of it
        (``found``: the shown result, if it was parsed with this very text)."""
        self.border_title = plain(f"Prompt · {prompt.name}{' ●' if prompt.dirty else ''}")
        if prompt.error:
            self.border_subtitle = plain(f"unreadable: {prompt.error}")
            return
        if found is None:
            self.border_subtitle = ""
            return
        if found.anchor_found is False:
            said = "start anchor not found: the whole prompt is parsed"
        elif not prompt.text:
            said = 'empty: prefix=""'
        elif found.output_start == 0:
            said = "it ends with the start anchor: no tail to parse"
        else:
            tail = found.output_start
            said = f"parsed: the {tail} character{'s' if tail != 1 else ''} after the start anchor"
        # The tail starts where the anchor's last match ends; the engine's rule says whether
        # that is past the header, in the prefill (the words are the engine's, so the CLI can
        # say the same).
        note = prefill_note(prompt.text, found.prefix_tail_start if found.anchor_found else None)
        self.border_subtitle = plain(f"{said} · {note}" if note else said)

    def show_result(self, prompt: str, runs: list[tuple], head_end: int, anchor: Span | None) -> None:
        """Colours for ``prompt``: ``runs`` in its offsets, the tail starting at ``head_end``."""
        self._painted = prompt
        self._line_starts = [0] + [i + 1 for i, ch in enumerate(prompt) if ch == "\n"]
        self._runs, self._head_end, self._anchor = runs, head_end, anchor
        self._repaint()

    def forget_result(self) -> None:
        self._painted = None
        self._repaint()

    def select_spans(self, spans: list[Span]) -> None:
        """Light these spans (what the user points at in the tree or the template)."""
        if spans != self._selected:
            self._selected = spans
            self._repaint()
            if spans and self._painted is not None:
                self.scroll_to(y=max(0, self._row_of(spans[0][0]) - 1), animate=False)

    def _row_of(self, offset: int) -> int:
        row = bisect.bisect_right(self._line_starts, offset) - 1
        _, y = self.wrapped_document.location_to_offset((row, offset - self._line_starts[row]))
        return y

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        # An edit: the colours are of the text before it until the next result (the event goes on
        # to the screen, which reparses).
        if self._painted is not None and self._painted != self.text:
            self._painted = None
            self._repaint()

    def _repaint(self) -> None:
        self._line_cache.clear()  # TextArea caches lines by its own state only
        self.refresh()

    def get_line(self, line_index: int) -> Text:
        line = editor_line(self.document.get_line(line_index))
        if self._painted is None or line_index >= len(self._line_starts):
            return line
        start = self._line_starts[line_index]
        end = start + len(line.plain)
        if start < self._head_end:
            line.stylize(_HEAD, 0, min(end, self._head_end) - start)
        for run_start, run_end, field, kind in self._runs:
            if run_end > start and run_start < end:
                line.stylize(style_for(field, kind), max(run_start, start) - start, min(run_end, end) - start)
        if self._anchor is not None and self._anchor[1] > start and self._anchor[0] < end:
            line.stylize(_ANCHOR, max(self._anchor[0], start) - start, min(self._anchor[1], end) - start)
        for s, e in self._selected:
            if e > start and s < end or (s == e and start <= s <= end):
                line.stylize(style_for(-1, SELECTED), max(s, start) - start, max(min(e, end), max(s, start) + 1) - start)
        return line
