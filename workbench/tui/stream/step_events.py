"""The streaming replay's current call: what was fed, the events it gave, what it holds back."""

from __future__ import annotations

import json

from rich.text import Text
from textual.widgets import Static

from ...engine.preview import preview
from ...engine.template.replay import FEED, FINALIZE, INITIAL, Replay
from ..palette import field_colour
from ..plain import shown, visible


def _quoted(text: str, limit: int = 60) -> str:
    shown = json.dumps(text[:limit], ensure_ascii=False)
    return shown + ("…" if len(text) > limit else "")


class StepEvents(Static):
    def show(self, replay: Replay, step: int, buffer: str, colours: dict) -> None:
        s = replay.steps[step]
        text = Text()
        if s.call == INITIAL:
            text.append("initial_events", style="bold")
            text.append(f"  the prompt tail {_quoted(replay.prefix_tail)}\n", style="dim")
        elif s.call == FEED:
            start, end = s.fed
            text.append(f"feed({_quoted(buffer[start:end])})", style="bold")
            text.append(f"  output {start - replay.output_start}–{end - replay.output_start}\n", style="dim")
        else:
            text.append("finalize()\n", style="bold")
        if s.error:
            text.append(f"raised {visible(s.error.splitlines()[0][:200])}\n", style="bold red")
        if not s.events and not s.error:
            text.append("  no events\n", style="dim")
        for event in s.events:
            kind, name = event["type"], event["field"]
            colour = field_colour(colours.get(name, -1))
            text.append(f"  {kind.removeprefix('region_'):<6} ", style="bold")
            text.append(visible(str(name)), style=f"bold {colour}")
            if kind == "region_chunk":
                text.append(" " + _quoted(event["text"]))
                if event["dirty"]:
                    text.append("  dirty", style="bold cyan")
            elif kind == "region_close":
                text.append(" → " + preview(event["value"], 80), style="green")
            text.append("\n")
        held_from = s.read
        fed_to = s.fed[1] if s.fed else held_from
        if s.call != FINALIZE and fed_to > held_from:
            text.append("held back ", style="bold yellow")
            text.append(_quoted(buffer[held_from:fed_to]) + ": it may start a delimiter\n", style="yellow")
        if s.call == FINALIZE and replay.message is not None:
            text.append("message ", style="bold")
            text.append(preview(replay.message, 400), style="green")
        self.update(shown(text))  # field names, fed text and values from the files
