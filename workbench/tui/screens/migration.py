"""The "Migrate to a template" dialog: runs what ``workbench migrate`` runs (``workbench.jobs.migration``)
in a worker, then shows its report; dismissed with True when the user opens the template.

The comparison on the samples parses them, and a regex that backtracks too much holds the GIL for
as long as it runs: it runs in a child process (``workbench.live.child``), on whose main thread the
engine's time limits hold, while the worker only waits. The dialog stays responsive; closing it
kills the child, and so does the wall-clock limit (``budget``) if the parses still do not end."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static
from textual.worker import Worker, WorkerState, get_current_worker

from ...live import child
from ...formats import DEFAULT_TIME_LIMIT
from ...store.files import WriteError
from ...jobs.migration import Case, MigrationRun, compare_cases, write_template
from ..plain import plain
from .confirm import move_between_buttons


STARTUP = 30.0  # seconds for the child process to start and the parses' own work, on a loaded machine


def budget(cases: int) -> float:
    """How long the comparison on ``cases`` samples may take before it is stopped: two parses a
    sample, each ended by the engine's time limit at the latest, and the time to start."""
    return STARTUP + 2 * DEFAULT_TIME_LIMIT * cases


class MigrationScreen(ModalScreen[bool]):
    BINDINGS = [
        Binding("escape", "dismiss(False)", "Close"),
        Binding("o", "open_template", "Open the template", show=False),  # its own key, as in every dialog
        # Between the buttons, stopping at the ends (as in every dialog).
        Binding("left", "move(-1)", "Previous button", show=False),
        Binding("right", "move(1)", "Next button", show=False),
    ]

    def __init__(self, schema: Any, cases: list[Case], anchor: Any, anchor_source: str, out: Path) -> None:
        super().__init__()
        self.schema, self.cases = schema, cases
        self.start_anchor, self.anchor_source = anchor, anchor_source  # (Widget.anchor is a method)
        self.out = out
        self.result: MigrationRun | None = None

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(plain(f"Migrating to {self.out} and comparing on {len(self.cases)} samples…"), id="verdict", classes="question")
            with VerticalScroll(id="report"):
                yield Static(id="lines")
            with Horizontal(id="buttons"):
                yield Button("Open the template", variant="primary", id="open", disabled=True)
                yield Button("Close", id="close")

    def on_mount(self) -> None:
        self.query_one("#close", Button).focus()
        self.run_worker(self._migrate, name="migrate", group="migrate", thread=True, exclusive=True, exit_on_error=False)

    def _migrate(self) -> MigrationRun:
        """In the worker's thread: translate and write here, compare in a child process."""
        worker = get_current_worker()
        result = write_template(self.schema, self.start_anchor, self.anchor_source, self.out, samples_given=bool(self.cases))
        if not result.written or not self.cases:
            return result
        seconds = budget(len(self.cases))
        try:
            result.comparisons = child.call(compare_cases, self.cases, self.schema, result.migration.template,
                                            timeout=seconds, cancelled=lambda: worker.is_cancelled)
        except child.ChildTimeout:
            result.stopped = (f"stopped after {seconds:g} s: a parse did not end (a regex may backtrack "
                              "too much on a sample)")
        except (child.ChildFailed, OSError) as exc:  # the template is written: say so, and why there is no comparison
            result.stopped = f"the comparison failed: {exc}"
        return result

    @on(Worker.StateChanged)
    def _done(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "migrate" or event.state not in (WorkerState.SUCCESS, WorkerState.ERROR):
            return
        if event.worker.is_cancelled:
            return  # the dialog was closed: its child process is already gone
        verdict = self.query_one("#verdict", Label)
        if event.state == WorkerState.ERROR:
            error = event.worker.error
            why = str(error) if isinstance(error, WriteError) else f"{type(error).__name__}: {error}"
            verdict.update(plain(f"Nothing written: {why}", style="bold red"))
            return
        self.result = result = event.worker.result
        if not result.written:
            verdict.update(plain("No template written: nothing in the schema could be translated", style="bold red"))
        elif result.stopped is not None:
            verdict.update(plain(f"Wrote {self.out}, but not compared on the samples: {result.stopped}", style="bold red"))
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

    def action_open_template(self) -> None:
        if not self.query_one("#open", Button).disabled:  # only once the template is written
            self.dismiss(True)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "open")
