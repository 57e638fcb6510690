"""What the TUI tests share: the app on a copy of the qwen3 samples, and waiting for it to settle."""

from __future__ import annotations

from pathlib import Path

from workbench.store.document import SchemaDocument
from workbench.store.samples import discover, load
from workbench.tui.app import WorkbenchApp

ROOT = Path(__file__).resolve().parent.parent
SIZE = (160, 45)


def make_app(workdir: Path, sample: str = "tool_call.txt", schema: Path | None = None) -> WorkbenchApp:
    """The app on ``workdir``'s qwen3 samples (see the ``workdir`` fixture), opened on ``sample``."""
    paths = discover(workdir / "sample_outputs" / "qwen3")
    start = [p.name for p in paths].index(sample)
    return WorkbenchApp(SchemaDocument.open(schema or workdir / "schemas" / "qwen3.json"), [load(p) for p in paths], start)


async def settle(pilot, app) -> None:
    """Wait until the debounced reparse and its workers have finished."""
    for _ in range(3):
        await pilot.pause(0.05)
        await app.workers.wait_for_complete()
    await pilot.pause()


def move_to(editor, needle: str, after: bool = True, start: int = 0) -> None:
    """Put the editor cursor after (or at) the first ``needle`` at or after offset ``start``."""
    text = editor.text
    offset = text.index(needle, start) + (len(needle) if after else 0)
    row = text.count("\n", 0, offset)
    editor.move_cursor((row, offset - (text.rfind("\n", 0, offset) + 1)))
