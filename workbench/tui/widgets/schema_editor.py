"""The schema editor: a JSON TextArea that can mark one node's range and an error position."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.widgets import TextArea

from ..plain import editor_line

Location = tuple[int, int]

# Past this many characters the editor shows the text uncoloured: tree-sitter's highlight query and
# Rich's per-span styling take minutes on a pasted 200,000-character nested array, freezing the app.
# Shipped schemas are under 40,000 characters.
HIGHLIGHT_LIMIT = 100_000

_NODE_STYLE = Style(bgcolor="#3a3d5c")
_ERROR_STYLE = Style(bgcolor="#8b1e1e", color="#ffffff", bold=True)


def _json_language() -> str | None:
    """JSON highlighting needs tree-sitter; without it the editor still works, uncoloured."""
    try:
        import tree_sitter_json  # noqa: F401
    except ImportError:
        return None
    return "json"


class SchemaEditor(TextArea):
    # Regexes run long: wrapped, a whole x-regex is readable without scrolling sideways.
    # alt+z is the usual "toggle word wrap" key and no TextArea editing key.
    BINDINGS = [
        Binding("alt+z", "toggle_wrap", "Wrap"),
        # TextArea has no document start/end keys; these are the usual ones, free in a terminal.
        Binding("ctrl+home", "document_edge(False)", "Start of schema", show=False),
        Binding("ctrl+end", "document_edge(True)", "End of schema", show=False),
    ]

    def __init__(self, text: str = "", *, id: str | None = None) -> None:
        super().__init__(
            text, language=_json_language(), theme="monokai", soft_wrap=True, tab_behavior="indent",
            show_line_numbers=True, id=id,
        )
        self.node_range: tuple[Location, Location] | None = None
        self.error_at: Location | None = None

    def _build_highlight_map(self) -> None:
        # TextArea (textual 8.2.8) rebuilds its highlights here after every edit; skipped for a
        # document too large to colour without freezing (HIGHLIGHT_LIMIT).
        if sum(len(line) + 1 for line in self.document.lines) > HIGHLIGHT_LIMIT:
            self._line_cache.clear()
            self._highlights.clear()
            return
        super()._build_highlight_map()

    async def _on_key(self, event: events.Key) -> None:
        # Textual resolves a widget's own key bindings (arrows, backspace, ...) only after the key
        # has bubbled through every ancestor's message queue, while typed characters are inserted
        # at once. When the screen is busy applying a reparse, a fast "x, backspace, y" would land
        # as "xy" and a late backspace. Running our own bindings here keeps keys in typed order.
        bindings = self._bindings.key_to_bindings.get(event.key)
        if bindings and not self.read_only:
            event.stop()
            event.prevent_default()
            self._restart_blink()
            await self.run_action(bindings[0].action)
            return
        await super()._on_key(event)

    def mark_node(self, span: tuple[Location, Location] | None, scroll: bool = True) -> None:
        """Shade the text of the schema node the user is looking at elsewhere."""
        if span == self.node_range:
            return
        self.node_range = span
        self._repaint()
        if span is not None and scroll:
            # Screen rows, not document rows: with soft wrap one line may take several.
            _, row = self.wrapped_document.location_to_offset(span[0])
            top = self.scroll_offset.y
            if not top <= row < top + self.size.height - 1:
                self.scroll_to(y=max(0, row - 2), animate=False)

    def action_toggle_wrap(self) -> None:
        self.soft_wrap = not self.soft_wrap
        self.scroll_cursor_visible()

    def action_document_edge(self, end: bool) -> None:
        self.move_cursor(self.document.end if end else (0, 0), center=True)

    def go_to_line(self, line: int) -> bool:
        """Put the cursor at the start of a 1-based line; False if there is no such line."""
        if not 1 <= line <= self.document.line_count:
            return False
        self.move_cursor((line - 1, 0), center=True)
        return True

    def find(self, needle: str) -> bool:
        """Select the next occurrence of ``needle`` after the cursor, wrapping to the top; False if
        there is none."""
        text = self.text
        offset = self.document.get_index_from_location(self.selection.end)
        at = text.find(needle, offset)
        if at < 0:
            at = text.find(needle)
        if at < 0 or not needle:
            return False
        start = self.document.get_location_from_index(at)
        end = self.document.get_location_from_index(at + len(needle))
        self.select_range(start, end, center=True)
        return True

    def select_range(self, start: Location, end: Location, center: bool = False) -> None:
        self.move_cursor(start)
        self.move_cursor(end, select=True, center=center)

    def mark_error(self, at: Location | None) -> None:
        if at != self.error_at:
            self.error_at = at
            self._repaint()

    def _repaint(self) -> None:
        # TextArea caches rendered lines by its own state only; our marks are not part of the key.
        self._line_cache.clear()
        self.refresh()

    def get_line(self, line_index: int) -> Text:
        line = editor_line(self.document.get_line(line_index))
        if self.node_range is not None:
            (r0, c0), (r1, c1) = self.node_range
            if r0 <= line_index <= r1:
                start = c0 if line_index == r0 else 0
                end = c1 if line_index == r1 else len(line)
                line.stylize(_NODE_STYLE, start, max(end, start + 1) if line_index == r0 == r1 else end)
        if self.error_at is not None and self.error_at[0] == line_index:
            column = self.error_at[1]
            if column >= len(line):
                line.append(" ")
            line.stylize(_ERROR_STYLE, column, column + 1)
        return line
