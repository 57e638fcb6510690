"""The help screen: what the panes show and every key."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

from ...engine.releases import NEWEST, OLDEST, span

ABOUT = f"""\
# workbench

**Schema** (left): edit the response schema (or response template: a file with `fields`); every
edit reparses the sample. **Raw output** (top right): each top-level field has its colour; whole
matches are faint, capture groups strong and underlined, iterator matches alternate shades; plain
text matched nothing. **Parse tree** (bottom right): what the schema gives, node by node; ✗ marks
the node that failed, ∅ a regex that found nothing.

Move the tree cursor to light up that node's spans in the raw output and its text in the
schema; put the editor cursor in a schema node to light up everything it matched.

**Response templates.** The raw output colours each field's regions (one colour per field, its
regions in two alternating shades); openers and closers are faint, bold and underlined, an
opener's named groups stronger. The traps are marked: ⚠ *dropped* text (struck through on red:
no region took it), ⚠ *overwritten* regions (struck through: a later region of the field replaced
the value), ⚠ *emptied* values (amber: dropped from the message at the end for being empty),
⚠ *left open* (orange: where a closer was expected when the text ended). The tree lists each
field's regions with their opener, body, parsed → transformed → cast value and closer, and the
same notes. Under the editor: what transformers raises when it loads the template, and which
releases give this result. **Prompt** (above the raw output): the prompt the sample is parsed
with (`prefix=`, from `<case>.prompt.txt` or the folder's `default.prompt.txt`); only its tail,
after the last start anchor (underlined), is parsed, and a region that opens there is coloured.
Edit it to see the result change; ctrl+s in the prompt pane saves it as `<case>.prompt.txt`.
**ctrl+t** opens the streaming view: the output fed to `ResponseParser` in chunks, call by call,
with the events, the message a client builds from them, and flags for what a streaming client
suffers from (a delimiter's text leaking into a field, dirty chunks, a close that comes only at
`finalize()`, a streamed result that differs from the one-shot one).
**ctrl+r** picks the transformers release the workbench behaves as (any of {span(OLDEST, NEWEST)}; the newest
by default, or `workbench open --runtime VERSION`), named on the line under the editor; the sample
is parsed again as that release parses it. A sample marked ⇄ in the sample bar gives different
results in different releases (every release is run on every sample to find out).

The editor keeps its own editing keys: `ctrl+a` / `ctrl+e` start / end of line,
`ctrl+k` / `ctrl+u` delete to the end / start of the line, `ctrl+w` delete a word, `ctrl+z` /
`ctrl+y` undo / redo, `f6` / `f7` select the line / everything. No workbench key takes one of them.

| key | action |
| --- | --- |
"""


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,f1,q", "dismiss", "Close")]

    def __init__(self, keys: list[tuple[str, str]], stream_keys: list[tuple[str, str]] | None = None) -> None:
        super().__init__()
        self.keys = keys
        self.stream_keys = stream_keys or []

    def compose(self) -> ComposeResult:
        rows = "".join(f"| `{key}` | {description} |\n" for key, description in self.keys)
        stream = ""
        if self.stream_keys:
            stream = "\n**In the streaming view:**\n\n| key | action |\n| --- | --- |\n" + "".join(
                f"| `{key}` | {description} |\n" for key, description in self.stream_keys
            )
        with VerticalScroll(classes="dialog help"):
            yield Markdown(ABOUT + rows + stream + "\nCtrl+P opens the command palette, with every action.\n")
