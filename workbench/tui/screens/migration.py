"""The "Migrate to a template" dialog: runs ``workbench.migration.run`` (what ``workbench migrate``
runs) in a worker, then shows its report; dismissed with True when the user opens the template."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static
from textual.worker import Worker, WorkerState

from ...files import WriteError
from ...migration import Case, MigrationRun, run
from ..plain import plain
from .confirm import move_between_buttons


class MigrationScreen(ModalScreen[bool]):
    BINDINGS = [
        Binding("escape", "dismiss(False)", "Close"),
        # Between the buttons, stopping at the ends (as in every dialog).
        Binding("left", "move(-1)", "Previous button", show=False),
        Binding("right", "move(1)", "Next button", show=False),
    ]

    def __init__(self, schema: Any, cases: list[Case], anchor: Any, anchor_source: str, out: Path) -> None:
        super().__init__()
        self.job = partial(run, schema, cases, anchor, anchor_source, out)
        self.out = out
        self.cases = len(cases)
        self.result: MigrationRun | None = None

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(plain(f"Migrating to {self.out} and comparing on {self.cases} samples…"), id="verdict", classes="question")
            with VerticalScroll(id="report"):
                yield Static(id="lines")
            with Horizontal(id="buttons"):
                yield Button("Open the template", variant="primary", id="open", disabled=True)
                yield Button("Close", id="close")

    def on_mount(self) -> None:
        self.query_one("#close", Button).focus()
        self.run_worker(self.job, name="migrate", group="migrate", thread=True, exclusive=True, exit_on_error=False)

    @on(Worker.StateChanged)
    def _done(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "migrate" or event.state not in (WorkerState.SUCCESS, WorkerState.ERROR):
            return
        verdict = self.query_one("#verdict", Label)
        if event.state == WorkerState.ERROR:
            error = event.worker.error
            why = str(error) if isinstance(error, WriteError) else f"{type(error).__name__}: {error}"
            verdict.update(plain(f"Nothing written: {why}", style="bold red"))
            return
        self.result = result = event.worker.result
        if not result.written:
            verdict.update(plain("No template written: nothing in the schema could be translated", style="bold red"))
        elif result.code == 0:
            verdict.update(plain(f"Wrote {self.out}: everything translated, every sample agrees", style="bold green"))
        else:
            untranslated = len(result.migration.untranslatable)
            differ = sum(not c.agrees for c in result.comparisons)
            verdict.update(plain(f"Wrote {self.out}: {untranslated} keys not translated, {differ} of "
                                 f"{len(result.comparisons)} samples differ (below)", style="bold yellow"))
        self.query_one("#lines", Static).update(plain("\n".join(result.lines()), keep_newlines=True))
        opener = self.query_one("#open", Button)
        opener.disabled = not result.written
        if result.written:
            opener.focus()

    def action_move(self, step: int) -> None:
        move_between_buttons(self, step)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "open")
