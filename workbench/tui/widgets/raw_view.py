"""The raw output, read-only, with every matched span coloured.

A Line API widget: only the visible lines are rendered, so a 2 MB output scrolls and repaints as
fast as a small one (a TextArea would re-highlight the whole text on every change).
"""

from __future__ import annotations

import bisect
import re

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ...engine.highlights import SELECTED, Paint, flatten
from ..palette import style_for

# Control characters shown as visible symbols, one cell each, so columns stay text offsets.
_VISIBLE = {i: chr(0x2400 + i) for i in range(32) if i != 10}
_VISIBLE[9] = "→"
_VISIBLE[127] = "␡"
_PLAIN = Style()


class RawView(ScrollView, can_focus=True):
    """Shows ``text`` with ``runs`` (disjoint paints) and a selection layer on top."""

    DEFAULT_CSS = "RawView { background: $surface; }"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.text = ""
        self._line_starts: list[int] = [0]
        self._runs: list[Paint] = []
        self._run_ends: list[int] = []
        self._base_runs: list[Paint] = []
        self.selected: list[tuple[int, int]] = []

    def set_text(self, text: str) -> None:
        self.text = text
        self._line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        widths = [b - a for a, b in zip(self._line_starts, self._line_starts[1:] + [len(text) + 1])]
        self.virtual_size = Size(max(widths, default=0) + 1, len(self._line_starts))
        self.set_runs([])

    def set_runs(self, runs: list[Paint]) -> None:
        self._base_runs = runs
        self._compose_runs()

    def select(self, spans: list[tuple[int, int]], scroll: bool = True) -> None:
        """Highlight these spans above the field colours (what the user picked elsewhere)."""
        self.selected = [s for s in spans if s[1] >= s[0]]
        self._compose_runs()
        if scroll and self.selected:
            self.scroll_to_offset(min(s for s, _ in self.selected))

    def _compose_runs(self) -> None:
        runs = self._base_runs
        if self.selected:
            runs = flatten(runs + [Paint(s, e, -1, SELECTED) for s, e in self.selected])
        self._runs = runs
        self._run_ends = [r.end for r in runs]
        self.refresh()

    def location(self, offset: int) -> tuple[int, int]:
        row = bisect.bisect_right(self._line_starts, offset) - 1
        return row, offset - self._line_starts[row]

    def scroll_to_offset(self, offset: int) -> None:
        row, column = self.location(offset)
        width, height = self.size
        x = 0 if column < width - 4 else column - width // 3
        self.scroll_to(x=x, y=max(0, row - height // 3), animate=False)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        row = scroll_y + y
        width = self.size.width
        if row >= len(self._line_starts):
            return Strip.blank(width)
        start = self._line_starts[row]
        end = self._line_starts[row + 1] - 1 if row + 1 < len(self._line_starts) else len(self.text)
        segments = []
        position = start
        i = bisect.bisect_right(self._run_ends, start)
        while position < end:
            run = self._runs[i] if i < len(self._runs) else None
            if run is None or run.start >= end:
                segments.append(Segment(self.text[position:end].translate(_VISIBLE), _PLAIN))
                break
            if run.start > position:
                segments.append(Segment(self.text[position:run.start].translate(_VISIBLE), _PLAIN))
                position = run.start
            stop = min(run.end, end)
            segments.append(Segment(self.text[position:stop].translate(_VISIBLE), style_for(run.field, run.kind)))
            position = stop
            i += 1
        return Strip(segments).crop_extend(scroll_x, scroll_x + width, _PLAIN)
