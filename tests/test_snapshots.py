"""Pictures of the main screen on a shipped sample (pytest-textual-snapshot; Textual is pinned).

Regenerate after an intended change with: python -m pytest tests/test_snapshots.py --snapshot-update
"""

from __future__ import annotations

from pathlib import Path

from workbench.store.document import SchemaDocument
from workbench.store.samples import discover, load
from workbench.tui.app import WorkbenchApp

ROOT = Path(__file__).resolve().parent.parent
SIZE = (150, 42)


def shipped_app(sample: str) -> WorkbenchApp:
    # Relative paths keep the picture the same on every machine.
    folder = Path("sample_outputs/qwen3")
    paths = discover(ROOT / folder)
    samples = [load(p) for p in paths]
    for s in samples:
        s.path = folder / s.path.name
    app = WorkbenchApp(SchemaDocument.open(ROOT / "schemas" / "qwen3.json"), samples, [p.name for p in paths].index(sample))
    app.document.path = Path("schemas/qwen3.json")
    return app


async def _settle(pilot) -> None:
    pilot.app.main.editor.cursor_blink = False
    for _ in range(3):
        await pilot.pause(0.05)
        await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def test_main_screen(snap_compare):
    assert snap_compare(shipped_app("parallel_calls.txt"), terminal_size=SIZE, run_before=_settle)


def test_main_screen_with_a_failing_sample(snap_compare):
    assert snap_compare(shipped_app("truncated_call.txt"), terminal_size=SIZE, run_before=_settle)


# The qwen3 response template as the pictures show it (kept here, so that work on the shipped file
# does not change them).
QWEN3_TEMPLATE = """\
{
  "version": 1,
  "defaults": {"role": "assistant"},
  "start_anchor": "<|im_start|>assistant\\n",
  "fields": {
    "thinking": {"open": "<think>", "close": "</think>", "content": "text"},
    "tool_calls": {
      "open_pattern": "\\\\s*<tool_call>",
      "close": "</tool_call>",
      "repeats": true,
      "content": "json",
      "transform": {"type": "function", "function": "{content}"}
    },
    "content": {"close_pattern": "\\\\s*<\\\\|im_end\\\\|>", "content": "text"}
  }
}
"""


def template_app(sample: str) -> WorkbenchApp:
    app = shipped_app(sample)
    app.document = SchemaDocument(Path("schemas/qwen3.template.json"), QWEN3_TEMPLATE)
    return app


def test_main_screen_with_a_template_and_a_prompt(snap_compare):
    # reasoning_prewritten: the prompt pre-writes <think>, so the thinking region opens in the prompt.
    assert snap_compare(template_app("reasoning_prewritten.txt"), terminal_size=SIZE, run_before=_settle)


def test_streaming_view(snap_compare):
    async def run_before(pilot) -> None:
        await _settle(pilot)
        await pilot.press("ctrl+t")
        await _settle(pilot)
        for _ in range(48):  # into the tool call: its chunks are dirty
            await pilot.press("right")
        await pilot.pause()

    assert snap_compare(template_app("tool_call.txt"), terminal_size=SIZE, run_before=run_before)
