"""The message as a streaming client builds it from the events so far: one line per region, its
text as streamed, and its value once region_close gave it."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from ...engine.preview import preview
from ...engine.template.replay import Part
from ...engine.spans import MISSING
from ..palette import field_colour
from ..plain import shown, visible


class ClientMessage(Static):
    def show(self, parts: list[Part], colours: dict, final: dict | None = None) -> None:
        text = Text()
        if not parts:
            text.append("nothing yet", style="dim")
        for part in parts:
            text.append(visible(str(part.field)), style=f"bold {field_colour(colours.get(part.field, -1))}")
            if part.closed:
                text.append(" ✓ ", style="green")
                text.append(preview(part.value if part.value is not MISSING else None, 70), style="green")
            else:
                text.append(" ▌ streaming ", style="yellow")
                text.append(preview(part.text, 70), style="dim" if part.dirty else "")
                if part.dirty:
                    text.append("  (dirty: raw markup)", style="cyan")
            text.append("\n")
        if final is not None:
            text.append("finalize() gives ", style="bold")
            text.append(preview(final, 400), style="green")
        self.update(shown(text))  # field names and values from the files
