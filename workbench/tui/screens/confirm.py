"""A yes/no question (Textual's documented ModalScreen[bool] pattern) whose safe answer is the easy
one: focus starts on it, and Enter there, Escape or ``n`` answer no. The destructive answer takes
its own key (the first letter of its label, such as q for Quit or r for Reload, or ``y``) or a
deliberate move onto it: the arrows move between the buttons and stop at the ends, so Right from
the safe button (the right-hand one) stays there rather than wrapping round to the other."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Label

from ..plain import plain


def move_between_buttons(screen: Screen, step: int) -> None:
    """Focus the enabled button ``step`` places from the focused one, stopping at the first and
    the last (never wrapping round); from elsewhere, the first or the last button."""
    buttons = [b for b in screen.query(Button) if not b.disabled]
    if not buttons:
        return
    if screen.focused in buttons:
        at = buttons.index(screen.focused) + step
    else:
        at = 0 if step < 0 else len(buttons) - 1
    buttons[max(0, min(len(buttons) - 1, at))].focus()


class ConfirmScreen(ModalScreen[bool]):
    BINDINGS = [
        Binding("escape,n", "dismiss(False)", "Cancel"),
        Binding("y", "dismiss(True)", "Yes", show=False),
        # The buttons sit side by side, so the arrows that point at them move between them.
        Binding("left", "move(-1)", "Previous button", show=False),
        Binding("right", "move(1)", "Next button", show=False),
    ]

    def __init__(self, question: str, yes: str = "Yes", no: str = "Cancel") -> None:
        super().__init__()
        self.question, self.yes, self.no = question, yes, no
        letter = yes[:1].lower()
        # The yes answer's own key: its first letter, unless the other answer (or n) starts so.
        self.yes_key = letter if letter.isalpha() and letter not in ("n", no[:1].lower()) else "y"

    def compose(self) -> ComposeResult:
        with Grid(classes="dialog"):
            yield Label(plain(self.question, keep_newlines=True), classes="question")
            yield Button(self.yes, variant="error", id="yes")
            yield Button(self.no, variant="primary", id="no")
            yield Label(f"{self.yes_key}: {self.yes} · Escape: {self.no} · ←/→: move", classes="hint")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def action_move(self, step: int) -> None:
        move_between_buttons(self, step)

    def on_key(self, event: events.Key) -> None:
        if event.key == self.yes_key:
            event.stop()
            self.dismiss(True)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")
