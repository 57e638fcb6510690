"""The schema's problems (syntax error, validation errors and warnings), each jumping to its node."""

from __future__ import annotations

from rich.text import Text
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from ...engine.problems import NOTE
from ...engine.problems import ERROR, Problem
from ...engine.pointer import display
from ..plain import plain, shown, visible


class ProblemList(OptionList):
    class Picked(Message):
        """The user chose a problem: jump to ``pointer`` (or to ``at`` for a syntax error)."""

        def __init__(self, pointer: str | None, at: tuple[int, int] | None) -> None:
            super().__init__()
            self.pointer, self.at = pointer, at

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._targets: list[tuple[str | None, tuple[int, int] | None]] = []
        self._notes: list[bool] = []  # per entry: only a note on releases, not a problem to fix

    def show(self, problems: list[Problem], syntax_error: str | None = None, syntax_at=None) -> None:
        self.clear_options()
        self._targets = []
        self._notes = []
        if syntax_error:
            self.add_option(Option(plain("error  " + syntax_error, style="bold red")))
            self._targets.append((None, syntax_at))
            self._notes.append(False)
        for p in problems:
            style = "red" if p.severity == ERROR else "cyan" if p.severity == NOTE else "yellow"
            label = Text(f"{p.severity:<8}", style=f"bold {style}")
            label.append(visible(display(p.path)), style="bold")
            label.append("  " + visible(p.message))
            self.add_option(Option(shown(label, keep_newlines=False)))  # keys and messages quote the schema
            self._targets.append((p.path, None))
            self._notes.append(p.severity == NOTE)
        self.display = bool(self._targets)

    def first_problem(self) -> int | None:
        """The first entry that is a problem (an error or a warning), not a note on releases."""
        return next((i for i, note in enumerate(self._notes) if not note), None)

    def target(self, index: int) -> tuple[str | None, tuple[int, int] | None]:
        """Where problem ``index`` points: a schema pointer, or a (row, column) for a syntax error."""
        return self._targets[index]

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        pointer, at = self._targets[event.option_index]
        self.post_message(self.Picked(pointer, at))
