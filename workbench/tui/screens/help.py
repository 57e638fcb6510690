"""The help screen: what the panes show and every key."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

ABOUT = """\
# workbench

**Schema** (left): edit the response schema; every edit reparses the sample.
**Raw output** (top right): each top-level field has its colour; whole matches are faint,
capture groups strong and underlined, iterator matches alternate shades; plain text matched
nothing. **Parse tree** (bottom right): what the schema gives, node by node; ✗ marks the node
that failed, ∅ a regex that found nothing.

Move the tree cursor to light up that node's spans in the raw output and its text in the
schema; put the editor cursor in a schema node to light up everything it matched.

The schema editor keeps its own editing keys: `ctrl+a` / `ctrl+e` start / end of line,
`ctrl+k` / `ctrl+u` delete to the end / start of the line, `ctrl+w` delete a word, `ctrl+z` /
`ctrl+y` undo / redo, `f6` / `f7` select the line / everything. No workbench key takes one of them.

| key | action |
| --- | --- |
"""


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,f1,q", "dismiss", "Close")]

    def __init__(self, keys: list[tuple[str, str]]) -> None:
        super().__init__()
        self.keys = keys

    def compose(self) -> ComposeResult:
        rows = "".join(f"| `{key}` | {description} |\n" for key, description in self.keys)
        with VerticalScroll(classes="dialog help"):
            yield Markdown(ABOUT + rows + "\nCtrl+P opens the command palette, with every action.\n")
