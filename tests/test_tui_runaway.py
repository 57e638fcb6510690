"""A regex that backtracks for hours, in the TUI's one-off parses (the migration's comparison on the
samples, an export's check with transformers): they run in a child process, so the app keeps
answering keys, the engine's time limit holds there, a parse without one is killed at a deadline,
and nothing is left behind (no child process, no staged folder)."""

from __future__ import annotations

import json
import os
import tempfile
import warnings
from pathlib import Path

import pytest
from tui_helpers import SIZE, make_app, settle

from workbench.live import child
from workbench.store.document import SchemaDocument
from workbench.store.samples import discover, load
from workbench.tui import app as app_module
from workbench.tui.app import WorkbenchApp
from workbench.tui.screens import migration as migration_screen
from workbench.tui.screens.migration import MigrationScreen
from workbench.tui.screens.prompt import PromptScreen

# The review's case: role, thinking, and content behind a regex with 2^40 ways to fail on the sample.
SCHEMA = {
    "type": "object",
    "properties": {
        "role": {"const": "assistant"},
        "thinking": {"type": "string", "x-regex": "<think>(.*?)</think>"},
        "content": {"type": "string", "x-regex": "^((?:a|a)+)+$"},
    },
}
HOPELESS = "a" * 40 + "!"
ANCHOR = "<|im_start|>assistant\\n"


@pytest.fixture
def private_tmp(tmp_path, monkeypatch) -> Path:
    """Temporary folders (the staged copy of a tokenizer folder, the children's TMPDIR) go here, to
    be counted; other programs' /tmp/workbench-verify-* do not count."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def runaway_app(tmp_path: Path, samples: int = 1) -> WorkbenchApp:
    schema = tmp_path / "c2.json"
    schema.write_text(json.dumps(SCHEMA, indent=2) + "\n", encoding="utf-8")
    folder = tmp_path / "smp"
    folder.mkdir()
    for i in range(samples):
        (folder / f"s{i}.txt").write_text(HOPELESS, encoding="utf-8")
    return WorkbenchApp(SchemaDocument.open(schema), [load(p) for p in discover(folder)], 0)


async def wait_until(pilot, condition, seconds: float = 90.0) -> None:
    """A bounded wait (generous: the machine may be loaded), checking as the app runs."""
    for _ in range(int(seconds / 0.1)):
        if condition():
            return
        await pilot.pause(0.1)
    raise AssertionError(f"still not so after {seconds:g} s")


async def start_migration(pilot, app) -> MigrationScreen:
    app.action_migrate()
    await pilot.pause()
    assert isinstance(app.screen, PromptScreen)  # the samples have no prompts: the anchor is asked for
    app.screen.query_one("#answer").value = ANCHOR
    await pilot.press("enter")
    await pilot.pause()
    assert isinstance(app.screen, MigrationScreen)
    return app.screen


async def test_migrate_reports_the_engines_time_limit_on_a_runaway_regex(tmp_path, private_tmp):
    """The comparison runs on a child's main thread, where the engine's time limit stops the parse
    as in `workbench migrate`: the dialog shows the timeout, and no child is left."""
    app = runaway_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        dialog = await start_migration(pilot, app)
        await wait_until(pilot, lambda: dialog.result is not None)
        result = dialog.result
        assert result.written and result.stopped is None and (tmp_path / "c2.template.json").exists()
        [comparison] = result.comparisons
        assert comparison.schema.failed and comparison.schema.error.startswith("RegexTimeout: ")
        shown = str(dialog.query_one("#lines").render())
        assert "the schema fails (RegexTimeout" in shown and "stopped after" in shown
        assert child.live() == []
    assert list(private_tmp.iterdir()) == []


async def test_the_app_answers_keys_while_migrating_and_closing_the_dialog_kills_the_child(tmp_path, private_tmp):
    """Twenty samples, each a 2-second timeout: the child runs for most of a minute. Escape is
    handled meanwhile (with the parse in a thread of the app it waited for the GIL), the dialog
    closes, and its child is killed at once rather than left to finish."""
    app = runaway_app(tmp_path, samples=20)
    async with app.run_test(size=SIZE) as pilot:
        # Not settled first: the sample bar's verdicts take the analysis process as long.
        await pilot.pause(0.2)
        dialog = await start_migration(pilot, app)
        await wait_until(pilot, lambda: child.live() != [])  # the comparison is running
        [pid] = child.live()
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is app.main and dialog.result is None
        await wait_until(pilot, lambda: child.live() == [], seconds=20)  # killed, not 40 s of parses later
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)  # reaped, not a zombie
    assert list(private_tmp.iterdir()) == []


async def test_migrate_stops_the_comparison_at_its_deadline_and_says_so(tmp_path, private_tmp, monkeypatch):
    """Past its wall-clock limit (here shorter than the engine's time limit, so the parse cannot
    have ended first) the child is killed: the template is written, and the dialog says the
    samples were not compared, and why."""
    monkeypatch.setattr(migration_screen, "budget", lambda cases: 0.5)
    app = runaway_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        dialog = await start_migration(pilot, app)
        await wait_until(pilot, lambda: dialog.result is not None)
        result = dialog.result
        assert result.written and result.comparisons == [] and result.code == 1
        assert result.stopped.startswith("stopped after 0.5 s: a parse did not end")
        verdict = str(dialog.query_one("#verdict").render())
        assert verdict.startswith(f"Wrote {tmp_path / 'c2.template.json'}, but not compared on the samples: stopped after 0.5 s")
        assert "samples: not compared: stopped after 0.5 s" in str(dialog.query_one("#lines").render())
        assert not dialog.query_one("#open").disabled  # the template is there to open
        assert child.live() == []
    assert list(private_tmp.iterdir()) == []


# ----- export into a tokenizer folder --------------------------------------------------------------


def tokenizer_folder(where: Path) -> Path:
    """A tiny local tokenizer transformers loads (as tests/test_export.py builds one)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from tokenizers import Tokenizer, models, pre_tokenizers
        from transformers import PreTrainedTokenizerFast

    backend = Tokenizer(models.WordLevel({"[UNK]": 0, "<|im_end|>": 1, "hello": 2}, unk_token="[UNK]"))
    backend.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend, unk_token="[UNK]", eos_token="<|im_end|>")
    folder = where / "tok"
    tokenizer.save_pretrained(folder)
    return folder


async def test_export_into_a_folder_stops_a_check_whose_parse_never_ends(tmp_path, private_tmp, monkeypatch):
    """transformers' parse_response has no time limit: on this sample it would run for hours. The
    check runs in a child that is killed at the deadline; the export is refused, saying why, the
    folder keeps every byte, the staged copy is gone, and the app answered keys meanwhile."""
    pytest.importorskip("transformers")
    folder = tokenizer_folder(tmp_path)
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    monkeypatch.setattr(app_module, "EXPORT_BUDGET", 5.0)
    app = runaway_app(tmp_path)
    toasts: list[str] = []
    app.notify = lambda message, *args, **kwargs: toasts.append(message)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await export_into(pilot, app, folder)
        await wait_until(pilot, lambda: child.live() != [] or toasts)
        await pilot.press("f1")  # a key, while the check runs
        await pilot.pause()
        assert app.screen is not app.main  # the help screen opened
        await pilot.press("escape")
        await wait_until(pilot, lambda: toasts)
        status = str(app.main.status.render())
        assert status.startswith("Export refused, nothing written: the check with transformers did not finish within 5 s "
                                 "and was stopped"), status
        assert toasts == [status]
        assert child.live() == []
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    assert list(private_tmp.iterdir()) == []  # neither the staged folder nor the child's TMPDIR


async def export_into(pilot, app, folder: Path) -> None:
    """ctrl+o, the folder as the answer, Enter."""
    await pilot.press("ctrl+o")
    await pilot.pause()
    app.screen.query_one("#answer").value = str(folder)
    await pilot.press("enter")


async def test_export_into_a_folder_still_verifies_and_writes(workdir, private_tmp):
    """The check's answer comes back from its child: the qwen3 schema is verified on the open
    sample and written into the folder's config."""
    pytest.importorskip("transformers")
    folder = tokenizer_folder(workdir)
    app = make_app(workdir)
    toasts: list[str] = []
    app.notify = lambda message, *args, **kwargs: toasts.append(message)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await export_into(pilot, app, folder)
        await wait_until(pilot, lambda: toasts)
        assert str(app.main.status.render()) == f"Exported into {folder / 'tokenizer_config.json'}"
        assert "parse_response on the sample agrees with the workbench" in toasts[0]
        # One release checked (the one installed here), said, with the command that checks every range.
        import shlex

        import transformers

        command = shlex.join(["workbench", "export", str(workdir / "schemas" / "qwen3.json"), "--tokenizer-dir", str(folder),
                              "--verify"])
        assert (f"checked with one release only, transformers {transformers.__version__}, the one installed here; to check "
                f"every release range: {command}") in toasts[0].splitlines()
        assert child.live() == []
    config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert config["response_schema"] == json.loads((workdir / "schemas" / "qwen3.json").read_text(encoding="utf-8"))
    assert list(private_tmp.iterdir()) == []
