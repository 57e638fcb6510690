"""Pick the transformers release the workbench behaves as, for a response template: every release
from 5.13 to 5.24, each with the run of releases that behave alike and what its run changed."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from ...engine.releases import CHANGES, Release, all_releases, behaviours, span


def _run_of(release: Release) -> tuple[Release, Release]:
    return next((first, last) for first, last in behaviours() if first <= release <= last)


def describe(release: Release) -> Text:
    """One row: the release, the releases that behave as it does, and what their run brought."""
    first, last = _run_of(release)
    text = Text(f"{release}", style="bold")
    text.append(f"   behaves as {span(first, last)}", style="dim")
    brought = [change.label for change in CHANGES if change.since == first.minor]
    if brought:
        names = ", ".join(brought[:2]) + (f", +{len(brought) - 2}" if len(brought) > 2 else "")
        text.append(f" · new in {first}: {names}", style="dim italic")
    return text


class ReleaseScreen(ModalScreen[Release | None]):
    BINDINGS = [Binding("escape,ctrl+r", "dismiss(None)", "Cancel")]

    def __init__(self, current: Release) -> None:
        super().__init__()
        self.current = current
        self.releases = list(reversed(all_releases()))  # newest first: the default on top

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Behave as transformers:", classes="question")
            options = []
            for release in self.releases:
                row = describe(release)
                if release == self.current:
                    row.append("  ● now", style="bold green")
                options.append(Option(row, id=str(release)))
            yield OptionList(*options, id="releases-list")
            yield Label("Enter to pick, Escape to cancel", classes="hint")

    def on_mount(self) -> None:
        picker = self.query_one(OptionList)
        picker.highlighted = self.releases.index(self.current)
        picker.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.releases[event.option_index])
