"""The raw output, read-only, with every matched span coloured.

A Line API widget: only the visible lines are rendered, so a 2 MB output scrolls and repaints as
fast as a small one (a TextArea would re-highlight the whole text on every change). Long lines
are wrapped by default (most model outputs hold a whole JSON call on one line); ``w`` switches
to horizontal scrolling.
"""

from __future__ import annotations

import bisect
import re

from rich.cells import get_character_cell_size
from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ...engine.paint import DROPPED, EMPTIED, EMPTY, FLAGGED, HELD, LEFT_OPEN, OVERWRITTEN, SELECTED, Paint, flatten
from ...engine.visible import C1_SYMBOL, TEXT_TABLE
from ..palette import MARK, style_for

# Control characters (C0, DEL, C1, bidi, line separators) shown as visible symbols, one cell
# each, so columns stay text offsets; a lone surrogate (a file read as UTF-8 has none, but a text
# given to show may) is one symbol too rather than the escape visible() writes.
_VISIBLE = {**TEXT_TABLE, **{cp: C1_SYMBOL for cp in range(0xD800, 0xE000)}}
_PLAIN = Style()
# Kinds that mark text as a trap: a line break they cover is drawn (as ⏎), or whitespace-only text
# such as a value emptied for being "\n" would not show at all.
_SHOWN_BREAKS = {DROPPED, EMPTIED, LEFT_OPEN, OVERWRITTEN, HELD, FLAGGED}


def wrapped_rows(text: str, start: int, end: int, width: int) -> list[int]:
    """Where each screen row of the line text[start:end] starts, at most ``width`` cells a row.
    Written by hand because Rich's wrapping works on words and would renumber offsets; here a
    row boundary must be a text offset so spans map to rows by bisection."""
    if end - start <= width or width < 1:
        return [start]
    line = text[start:end]
    if line.isascii():  # one cell per character (control characters are drawn as one cell too)
        return list(range(start, end, width))
    rows, used, plain = [start], 0, 0  # plain: where the stretch of ASCII characters (one cell each) begins
    for m in _NOT_ASCII.finditer(line):
        i = m.start()
        used = _plain_stretch(rows, start, plain, i, used, width)
        ch = line[i]
        cells = 1 if ord(ch) in _VISIBLE else get_character_cell_size(ch)
        if used + cells > width:
            rows.append(start + i)
            used = 0
        used += cells
        plain = i + 1
    _plain_stretch(rows, start, plain, len(line), used, width)
    return rows


_NOT_ASCII = re.compile(r"[^\x00-\x7f]")


def _plain_stretch(rows: list[int], start: int, begin: int, end: int, used: int, width: int) -> int:
    """wrapped_rows over line[begin:end], all one cell a character, the row so far holding
    ``used`` cells: the row starts it adds, and the cells the last row then holds."""
    if end <= begin:
        return used
    breaks = range(begin + max(0, width - used), end, width)
    if not breaks:
        return used + end - begin
    rows.extend(start + b for b in breaks)
    return end - breaks[-1]


class RawView(ScrollView, can_focus=True):
    """Shows ``text`` with ``runs`` (disjoint paints) and a selection layer on top."""

    DEFAULT_CSS = "RawView { background: $surface; }"
    BINDINGS = [Binding("w", "toggle_wrap", "Wrap")]

    # set_text and on_resize lay the rows out; the watcher only serves later toggles.
    wrap: reactive[bool] = reactive(True, init=False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.text = ""
        self._line_starts: list[int] = [0]
        # Screen rows: where each starts and ends in the text (a line, or a piece of a wrapped one).
        self._row_starts: list[int] = [0]
        self._row_ends: list[int] = [0]
        self._wrapped_at = 0  # the width the rows were wrapped for (0: not wrapped)
        self._runs: list[Paint] = []  # the field colours: disjoint, sorted
        self._run_ends: list[int] = []
        self._selection: list[Paint] = []  # what the user picked: disjoint, sorted, drawn on top
        self._selection_ends: list[int] = []
        self.selected: list[tuple[int, int]] = []
        self._line_end_marks: set[int] = set()  # empty matches at a line's end: drawn past it

    def set_text(self, text: str) -> None:
        self.text = text
        self._line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self._layout()
        self.set_runs([])
        self.select([], scroll=False)

    def _line_end(self, line: int) -> int:
        return self._line_starts[line + 1] - 1 if line + 1 < len(self._line_starts) else len(self.text)

    def _layout(self) -> None:
        """Split the lines into screen rows for the current width (or one row a line)."""
        starts, ends = self._line_starts, [self._line_end(i) for i in range(len(self._line_starts))]
        width = self.scrollable_content_region.width
        if self.wrap and width > 0:
            row_starts: list[int] = []
            row_ends: list[int] = []
            for start, end in zip(starts, ends):
                rows = wrapped_rows(self.text, start, end, width)
                row_starts += rows
                row_ends += rows[1:] + [end]
            self._row_starts, self._row_ends, self._wrapped_at = row_starts, row_ends, width
            self.virtual_size = Size(width, len(row_starts))
        else:
            self._row_starts, self._row_ends, self._wrapped_at = list(starts), ends, 0
            self.virtual_size = Size(max((e - s for s, e in zip(starts, ends)), default=0) + 1, len(starts))
        self.refresh()

    def watch_wrap(self) -> None:
        anchor = self._row_starts[min(self.scroll_offset.y, len(self._row_starts) - 1)]
        self._layout()
        self.scroll_to_offset(anchor, top=True)

    def action_toggle_wrap(self) -> None:
        self.wrap = not self.wrap

    def on_resize(self) -> None:
        if self.wrap and self.scrollable_content_region.width != self._wrapped_at:
            self._layout()

    def set_runs(self, runs: list[Paint]) -> None:
        self._runs = runs
        self._run_ends = [r[1] for r in runs]
        self.refresh()

    def select(self, spans: list[tuple[int, int]], scroll: bool = True) -> None:
        """Highlight these spans above the field colours (what the user picked elsewhere). An empty
        span (an empty match) is marked on the character after it, or past the end of its line."""
        self.selected = [s for s in spans if s[1] >= s[0]]
        text = self.text
        self._line_end_marks = {s for s, e in self.selected if s == e and (s == len(text) or text[s] == "\n")}
        # A layer of its own, merged with the field colours only on the rows drawn: re-flattening
        # the ~10,000 runs of a large output on every cursor move would cost tens of milliseconds.
        layer = [Paint(s, e, -1, SELECTED) for s, e in self.selected if e > s]
        layer += [Paint(s, s + 1, -1, EMPTY) for s, e in self.selected if s == e and s not in self._line_end_marks]
        self._selection = flatten(layer)
        self._selection_ends = [r[1] for r in self._selection]
        self.refresh()
        if scroll and self.selected:
            self.scroll_to_offset(min(s for s, _ in self.selected))

    def _runs_between(self, start: int, end: int) -> list[tuple]:
        """The runs to draw on text[start:end]: the field colours, with the selection on top."""
        runs = _clipped(self._runs, self._run_ends, start, end)
        if self._selection:
            selected = _clipped(self._selection, self._selection_ends, start, end)
            if selected:
                runs = flatten(runs + selected)
        return runs

    def location(self, offset: int) -> tuple[int, int]:
        """The screen row and column (in characters) where a text offset is drawn."""
        row = bisect.bisect_right(self._row_starts, offset) - 1
        return row, offset - self._row_starts[row]

    def scroll_to_offset(self, offset: int, top: bool = False) -> None:
        row, column = self.location(offset)
        width, height = self.size
        x = 0 if self._wrapped_at or column < width - 4 else column - width // 3
        self.scroll_to(x=x, y=row if top else max(0, row - height // 3), animate=False)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        row = scroll_y + y
        width = self.size.width
        if row >= len(self._row_starts):
            return Strip.blank(width)
        start, row_end = self._row_starts[row], self._row_ends[row]
        # A character is at least one cell: an unwrapped 2 MB line is cut to what can show.
        end = min(row_end, start + scroll_x + width)
        segments = []
        position = start
        for run_start, run_end, field, kind in self._runs_between(start, end):
            if run_start > position:
                segments.append(Segment(self.text[position:run_start].translate(_VISIBLE), _PLAIN))
            segments.append(Segment(self.text[run_start:run_end].translate(_VISIBLE), style_for(field, kind)))
            position = run_end
        if position < end:
            segments.append(Segment(self.text[position:end].translate(_VISIBLE), _PLAIN))
        last_row_of_line = end == row_end and (row + 1 >= len(self._row_starts) or self._row_starts[row + 1] > end)
        if end in self._line_end_marks and last_row_of_line:
            segments.append(Segment("▏", MARK))
        elif last_row_of_line and end < len(self.text):
            covering = _clipped(self._runs, self._run_ends, end, end + 1)
            if covering and covering[0][3] in _SHOWN_BREAKS:
                segments.append(Segment("⏎", style_for(covering[0][2], covering[0][3])))
        return Strip(segments).crop_extend(scroll_x, scroll_x + width, _PLAIN)


def _clipped(runs: list, ends: list[int], start: int, end: int) -> list[tuple]:
    """The disjoint sorted runs that overlap text[start:end], cut to it."""
    out = []
    for i in range(bisect.bisect_right(ends, start), len(runs)):
        run_start, run_end, field, kind = runs[i]
        if run_start >= end:
            break
        out.append((max(run_start, start), min(run_end, end), field, kind))
    return out
