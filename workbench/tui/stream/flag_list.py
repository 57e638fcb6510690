"""The streaming replay's flags: what a streaming client suffers from, each jumping to its call."""

from __future__ import annotations

from rich.text import Text
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from ...engine.template.replay import DIFFERENCE, DIRTY, LATE_CLOSE, LEAK, SHOWN_THEN_OVERWRITTEN, Flag
from ..plain import shown, visible

_STYLE = {LEAK: "bold red", DIFFERENCE: "bold red", LATE_CLOSE: "yellow", DIRTY: "cyan", SHOWN_THEN_OVERWRITTEN: "yellow"}


class FlagList(OptionList):
    class Picked(Message):
        """The user chose a flag: show its call."""

        def __init__(self, flag: Flag) -> None:
            super().__init__()
            self.flag = flag

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._flags: list[Flag] = []
        self._shown: tuple = ()

    def show(self, flags: list[Flag], step: int) -> None:
        """Every flag; those the replay has reached by ``step`` bright, the call's own marked."""
        key = (id(flags), tuple(f.step <= step for f in flags), tuple(f.step == step for f in flags))
        if key == self._shown:
            return
        self._shown = key
        highlighted = self.highlighted
        self._flags = flags
        self.clear_options()
        if not flags:
            self.add_option(Option(Text("no flags: a client sees what the one-shot parse gives", style="dim"), disabled=True))
            return
        for flag in flags:
            reached = flag.step <= step
            label = Text("▶ " if flag.step == step else "  ", style="bold")
            label.append(f"{flag.step:>4} ", style="dim")
            label.append(f"{flag.kind:<11}", style=_STYLE.get(flag.kind, "bold") if reached else "dim")
            label.append(" " + visible(flag.message), style="" if reached else "dim")
            self.add_option(Option(shown(label, keep_newlines=False)))  # messages quote the output
        if highlighted is not None and highlighted < len(flags):
            self.highlighted = highlighted

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if self._flags:
            self.post_message(self.Picked(self._flags[event.option_index]))
