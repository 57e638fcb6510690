"""The TUI's file handling, driven with Pilot: nothing is replaced without asking, an open sample is
never written over, errors name the file and stay on screen, and goldens are written from the
current result."""

from __future__ import annotations

import json
from pathlib import Path

from tui_helpers import SIZE, make_app, settle

from workbench.store.document import STARTER_SCHEMA, SchemaDocument
from workbench.tui.app import WorkbenchApp
from workbench.tui.screens.confirm import ConfirmScreen
from workbench.tui.screens.help import HelpScreen
from workbench.tui.screens.prompt import PromptScreen






def status(app) -> str:
    return str(app.main.status.render())


def is_error(app) -> bool:
    return app.main.status.has_class("-error")


async def answer_prompt(pilot, app, text: str) -> None:
    assert isinstance(app.screen, PromptScreen)
    app.screen.query_one("#answer").value = text
    await pilot.press("enter")
    await pilot.pause()


async def save_as(pilot, app, target: Path) -> None:
    app.action_save_as()
    await pilot.pause()
    await answer_prompt(pilot, app, str(target))


async def export_to(pilot, app, target: Path) -> None:
    await pilot.press("ctrl+o")
    await pilot.pause()
    await answer_prompt(pilot, app, str(target))


def record_toasts(app) -> list[str]:
    toasts: list[str] = []
    app.notify = lambda message, *args, **kwargs: toasts.append(message)
    return toasts


# ----- save as ------------------------------------------------------------------------------


async def test_save_as_onto_an_existing_file_asks_first(workdir):
    app = make_app(workdir)
    other = workdir / "other.json"
    other.write_text("keep me\n")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await save_as(pilot, app, other)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert other.read_text() == "keep me\n"
        assert app.document.path == workdir / "schemas" / "qwen3.json"

        await save_as(pilot, app, other)
        await pilot.click("#yes")
        await pilot.pause()
        assert other.read_text() == app.main.editor.text
        assert app.document.path == other


async def test_save_as_to_a_new_file_or_its_own_file_does_not_ask(workdir):
    app = make_app(workdir)
    own = workdir / "schemas" / "qwen3.json"
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await save_as(pilot, app, own)
        assert app.screen is app.main and app.document.path == own
        await save_as(pilot, app, workdir / "new.json")
        assert app.screen is app.main
        assert (workdir / "new.json").read_text() == app.main.editor.text
        await save_as(pilot, app, own)  # no longer the file being edited: that one asks
        assert isinstance(app.screen, ConfirmScreen)


async def test_save_as_refuses_an_open_sample_even_if_the_user_would_agree(workdir):
    app = make_app(workdir)
    samples = workdir / "sample_outputs" / "qwen3"
    before = {p.name: p.read_bytes() for p in samples.iterdir()}
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        for name in ("tool_call.txt", "reasoning.txt"):  # the one shown, and another open one
            await save_as(pilot, app, samples / name)
            assert app.screen is app.main  # refused outright: no question to say yes to
            assert is_error(app) and name in status(app) and "open sample" in status(app)
    assert {p.name: p.read_bytes() for p in samples.iterdir()} == before


async def test_a_failed_save_names_the_file_not_a_temporary_one(workdir):
    app = make_app(workdir)
    target = workdir / "missing" / "s.json"
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await save_as(pilot, app, target)
        await pilot.pause()
        assert is_error(app)
        assert str(target) in status(app) and ".tmp" not in status(app)
        assert app.document.path == workdir / "schemas" / "qwen3.json"


async def test_save_as_a_folder_is_refused(workdir):
    app = make_app(workdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await save_as(pilot, app, workdir / "schemas")
        assert app.screen is app.main
        assert is_error(app) and "is a folder" in status(app)


# ----- export -------------------------------------------------------------------------------


async def test_export_onto_an_existing_json_asks_first_and_toasts_once(workdir):
    app = make_app(workdir)
    target = workdir / "exported.json"
    target.write_text("old\n")
    toasts = record_toasts(app)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await export_to(pilot, app, target)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("escape")
        await settle(pilot, app)
        assert target.read_text() == "old\n" and toasts == []

        await export_to(pilot, app, target)
        await pilot.click("#yes")
        await settle(pilot, app)
        assert json.loads(target.read_text()) == json.loads((workdir / "schemas" / "qwen3.json").read_text())
        assert len(toasts) == 1, toasts
        assert f"Exported to {target}" in status(app)


async def test_export_refuses_an_open_sample(workdir):
    app = make_app(workdir)
    sample = workdir / "sample_outputs" / "qwen3" / "plain_answer.txt"
    before = sample.read_bytes()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await export_to(pilot, app, sample)
        await settle(pilot, app)
        assert app.screen is app.main
        assert is_error(app) and "plain_answer.txt" in status(app)
    assert sample.read_bytes() == before


async def test_a_refused_export_stays_in_the_status_line_naming_the_file(workdir):
    app = make_app(workdir)
    target = workdir / "missing" / "out.json"
    toasts = record_toasts(app)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await export_to(pilot, app, target)
        await settle(pilot, app)
        assert is_error(app) and "nothing written" in status(app)
        assert str(target.parent) in status(app) and ".tmp" not in status(app)
        assert len(toasts) == 1
    assert not target.parent.exists()


# ----- keys and dialogs -----------------------------------------------------------------------


async def test_ctrl_e_is_the_editors_end_of_line_and_ctrl_o_exports(workdir):
    app = make_app(workdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        editor = app.main.editor
        editor.move_cursor((1, 0))
        await pilot.press("ctrl+e")
        await pilot.pause()
        assert app.screen is app.main
        assert editor.cursor_location == (1, len(editor.document.get_line(1)))
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen)


async def test_app_keys_do_not_shadow_the_editors_keys():
    from textual.widgets import TextArea

    editor_keys = {key for b in TextArea.BINDINGS for key in b.key.split(",")}
    app_keys = {key for b in WorkbenchApp.BINDINGS for key in b.key.split(",")}
    assert not editor_keys & app_keys


async def test_ctrl_q_twice_shows_one_dialog(workdir):
    app = make_app(workdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        editor = app.main.editor
        editor.move_cursor((1, 0))
        await pilot.press("x")
        await pilot.press("ctrl+q")
        await pilot.pause()
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert sum(isinstance(s, ConfirmScreen) for s in app.screen_stack) == 1
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is app.main and app.is_running


async def test_save_and_export_keys_wait_while_a_dialog_is_open(workdir):
    app = make_app(workdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("ctrl+o")
        await pilot.pause()
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert sum(isinstance(s, PromptScreen) for s in app.screen_stack) == 1


async def test_left_and_right_move_between_dialog_buttons(workdir):
    app = make_app(workdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("x")
        await pilot.press("ctrl+q")
        await pilot.pause()
        dialog = app.screen
        assert dialog.focused.id == "no"
        await pilot.press("left")
        assert dialog.focused.id == "yes"
        await pilot.press("right")
        assert dialog.focused.id == "no"
        await pilot.press("left", "enter")
        await pilot.pause()
    assert not app.is_running


async def test_the_editor_wraps_long_lines_and_alt_z_toggles_it(workdir):
    schema = workdir / "long.json"
    regex = "<answer>" + "(?:x|y)" * 40 + "(.*)</answer>"
    schema.write_text(json.dumps({"type": "object", "properties": {"content": {"type": "string", "x-regex": regex}}}, indent=2))
    app = make_app(workdir, schema=schema)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        editor = app.main.editor
        assert editor.soft_wrap
        assert editor.wrapped_document.height > editor.document.line_count  # the regex line wraps
        assert editor.virtual_size.width <= editor.content_region.width
        await pilot.press("alt+z")
        await pilot.pause()
        assert not editor.soft_wrap
        assert editor.virtual_size.width > editor.content_region.width
        await pilot.press("alt+z")
        assert editor.soft_wrap



async def test_a_marked_node_below_wrapped_lines_is_scrolled_into_view(workdir):
    schema = workdir / "many.json"
    regex = "<answer>" + "(?:x|y)" * 40 + "(.*)</answer>"
    lines = [f'    "field{i}": {json.dumps({"type": "string", "x-regex": regex})}' for i in range(30)]
    schema.write_text('{\n  "type": "object",\n  "properties": {\n' + ",\n".join(lines) + "\n  }\n}\n")
    app = make_app(workdir, schema=schema)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        editor = app.main.editor
        row = editor.text.splitlines().index(next(l for l in editor.text.splitlines() if '"field25"' in l))
        # The document row is on screen, but with every line above it wrapped the node is not.
        assert row < editor.size.height - 1
        editor.mark_node(((row, 4), (row, 12)))
        await pilot.pause()
        _, visual = editor.wrapped_document.location_to_offset((row, 4))
        top = editor.scroll_offset.y
        assert top <= visual < top + editor.size.height

async def test_help_lists_the_keys(workdir):
    app = make_app(workdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        keys = dict(app.screen.keys)
        assert keys["ctrl+o"] == "Export" and keys["alt+z"] == "Wrap"
        assert "ctrl+e" not in keys


# ----- opening --------------------------------------------------------------------------------


async def test_an_empty_schema_file_opens_as_the_starter(workdir):
    empty = workdir / "empty.json"
    empty.write_bytes(b"")
    assert SchemaDocument.open(empty).saved_text == STARTER_SCHEMA
    app = make_app(workdir, "reasoning.txt", schema=empty)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        assert app.main.editor.text == STARTER_SCHEMA
        assert not is_error(app)
        assert app.main.analysis.trace is not None and app.main.analysis.trace.ok
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert empty.read_text() == STARTER_SCHEMA


# ----- goldens --------------------------------------------------------------------------------


async def run_golden(pilot, app) -> None:
    app.action_write_golden()
    await pilot.pause()


async def test_write_golden_for_a_parsing_sample(workdir):
    folder = workdir / "sample_outputs" / "qwen3"
    golden = folder / "tool_call.expected.json"
    want = golden.read_text(encoding="utf-8")
    golden.unlink()
    app = make_app(workdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        assert "Write result as golden" in [c.title for c in app.get_system_commands(app.main)]
        await run_golden(pilot, app)
        assert app.screen is app.main  # a new golden: nothing to ask
        assert "tool_call.expected.json" in status(app)
    assert golden.read_text(encoding="utf-8") == want  # the goldens' own style, byte for byte


async def test_write_golden_asks_before_replacing_and_removes_the_other_kind(workdir):
    folder = workdir / "sample_outputs" / "qwen3"
    error_golden = folder / "truncated_call.expected-error.txt"
    value_golden = folder / "truncated_call.expected.json"
    value_golden.write_text('{"stale": true}\n')
    app = make_app(workdir, "truncated_call.txt")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await run_golden(pilot, app)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert value_golden.exists() and error_golden.read_text() == "could not parse its contents as JSON\n"

        await run_golden(pilot, app)
        await pilot.click("#yes")
        await pilot.pause()
        assert not value_golden.exists()
        message = app.main.analysis.trace.error.message
        assert error_golden.read_text(encoding="utf-8") == message + "\n"
        assert "removed truncated_call.expected.json" in status(app)


async def test_write_golden_that_is_already_current_changes_nothing(workdir):
    golden = workdir / "sample_outputs" / "qwen3" / "tool_call.expected.json"
    stamp = golden.stat().st_mtime_ns
    app = make_app(workdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await run_golden(pilot, app)
        assert app.screen is app.main and "already holds" in status(app)
    assert golden.stat().st_mtime_ns == stamp


async def test_write_golden_refuses_while_the_schema_has_errors(workdir):
    folder = workdir / "sample_outputs" / "qwen3"
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    app = make_app(workdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        app.main.editor.load_text("{not json")
        await settle(pilot, app)
        await run_golden(pilot, app)
        assert app.screen is app.main
        assert is_error(app) and "No golden written" in status(app)
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before

