"""The status line: the one thing the user should know now (an error first)."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from ..plain import shown


class StatusLine(Static):
    DEFAULT_CSS = """
    StatusLine { height: auto; max-height: 3; padding: 0 1; background: $panel; }
    StatusLine.-error { background: $error 30%; }
    StatusLine.-warning { background: $warning 20%; }
    """

    def say(self, message: str | Text, level: str = "info") -> None:
        """Show ``message``: a string is one line of plain text (it names files, keys and errors,
        so it is never read as markup); a Text keeps its styles and its lines."""
        self.set_class(level == "error", "-error")
        self.set_class(level == "warning", "-warning")
        self.update(shown(message, keep_newlines=not isinstance(message, str)))
