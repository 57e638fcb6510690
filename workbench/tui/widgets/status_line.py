"""The status line: the one thing the user should know now (an error first)."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static


class StatusLine(Static):
    DEFAULT_CSS = """
    StatusLine { height: auto; max-height: 3; padding: 0 1; background: $panel; }
    StatusLine.-error { background: $error 30%; }
    StatusLine.-warning { background: $warning 20%; }
    """

    def say(self, message: str | Text, level: str = "info") -> None:
        self.set_class(level == "error", "-error")
        self.set_class(level == "warning", "-warning")
        self.update(message)
