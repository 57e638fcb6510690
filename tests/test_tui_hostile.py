"""The TUI against hostile files and hurried keys, driven with Pilot: what comes from a file is shown
as plain text with its control characters as symbols (never markup, never an escape sequence the
terminal would act on), and no dialog's arrow keys lead to the destructive answer by wrapping."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from tui_helpers import ROOT, SIZE, make_app, move_to, settle

from workbench.store.document import SchemaDocument
from workbench.store.samples import discover, load
from workbench.tui.app import WorkbenchApp
from workbench.tui.screens.confirm import ConfirmScreen
from workbench.tui.screens.help import HelpScreen
from workbench.tui.screens.migration import MigrationScreen
from workbench.tui.screens.prompt import PromptScreen
from workbench.tui.stream.screen import StreamScreen

MARKUP_NAME = '[a="].txt'
LINK_NAME = "[bold red]X[@click=app.quit]Q[-].txt"
TITLE_NAME = "e\x1b]0;TITLE\x07x.txt"  # OSC 0: would set the terminal's title
SGR_KEY = "\x1b[41mK\x1b[0m"  # would paint the screen red
CSI_KEY = "c\x9b2Jd"  # C1 CSI: clears the screen on terminals that read 8-bit controls


def screen_output(app) -> tuple[str, str, list]:
    """What the app would write to the terminal now (the whole screen, toasts included), its text
    row by row, and every segment's style."""
    update = app.screen._compositor.render_full_update()
    written = update.render_segments(app.console)
    rows, styles = [], []
    for line in update.strips:
        row = ""
        for strip in line:
            for segment in strip:
                row += segment.text
                styles.append(segment.style)
        rows.append(row)
    return written, "\n".join(rows), styles


def assert_safe(app) -> str:
    """The screen holds no control character but the ones Textual writes itself, encodes as UTF-8
    and has no action link; returns its text."""
    written, text, styles = screen_output(app)
    written.encode("utf-8")  # a lone surrogate would kill the real driver here
    # Textual's own sequences are CSI (ESC [) cursor moves and colours; everything else is from a file.
    outside = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", written)
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", outside), repr(outside[:200])
    assert not re.search("[\x00-\x1f\x7f-\x9f\ud800-\udfff]", text.replace("\n", ""))
    assert not any(style is not None and style.meta.get("@click") for style in styles)
    return text


def toasts(app) -> str:
    return "\n".join(str(toast.render()) for toast in app.screen.query("Toast"))


def folder_with(workdir: Path, *names: str) -> Path:
    """The qwen3 samples, with tool_call.txt copied under each of ``names``."""
    folder = workdir / "sample_outputs" / "qwen3"
    for name in names:
        shutil.copy(folder / "tool_call.txt", folder / name)
    return folder


def schema_with_keys(workdir: Path, *keys: str) -> Path:
    schema = json.loads((workdir / "schemas" / "qwen3.json").read_text())
    for key in keys:
        schema["properties"][key] = {"const": "x"}
    path = workdir / "schemas" / "hostile.json"
    path.write_text(json.dumps(schema, indent=2))
    return path


async def dirty_main(pilot, app) -> None:
    await settle(pilot, app)
    move_to(app.main.editor, '"assistant', after=True)
    await pilot.press("Z")
    assert app.main.dirty


# ----- finding 1: dialogs ---------------------------------------------------------------------


async def test_quit_dialog_right_then_enter_keeps_working(workdir):
    app = make_app(workdir)
    async with app.run_test(size=SIZE) as pilot:
        await dirty_main(pilot, app)
        await pilot.press("ctrl+q")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ConfirmScreen) and dialog.focused.id == "no"
        await pilot.press("right")  # used to wrap round to Quit
        assert dialog.focused.id == "no"
        await pilot.press("enter")
        await pilot.pause()
        assert app.is_running and app.screen is app.main and app.main.dirty
        # Left is a deliberate move onto Quit, and does not wrap round either.
        await pilot.press("ctrl+q")
        await pilot.pause()
        await pilot.press("left", "left")
        assert app.screen.focused.id == "yes"
        await pilot.press("right", "right", "enter")
        await pilot.pause()
        assert app.is_running and app.main.dirty
        # Quit's own key quits.
        await pilot.press("ctrl+q")
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
    assert not app.is_running
    assert "assistantZ" not in (workdir / "schemas" / "qwen3.json").read_text()


async def test_reload_dialog_right_then_enter_keeps_the_edits(workdir):
    app = make_app(workdir)
    path = workdir / "schemas" / "qwen3.json"
    async with app.run_test(size=SIZE) as pilot:
        await dirty_main(pilot, app)
        path.write_text(path.read_text().replace('"assistant"', '"from-disk"'))
        app._check_disk()
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ConfirmScreen) and dialog.focused.id == "no"
        await pilot.press("right", "enter")  # used to land on Reload
        await settle(pilot, app)
        assert app.screen is app.main
        assert "assistantZ" in app.main.editor.text and app.main.dirty


async def confirm_answers(workdir, *keys: str) -> list:
    """What a "Replace it?" dialog answers to ``keys``; a key that only moves is followed by Enter,
    which answers with the focused button."""
    app = make_app(workdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        answers = []
        app.push_screen(ConfirmScreen("Replace it?", "Replace"), answers.append)
        await pilot.pause()
        await pilot.press(*keys)
        await pilot.pause()
        if app.screen is not app.main:
            await pilot.press("enter")
            await pilot.pause()
        return answers


@pytest.mark.parametrize("key", ["escape", "n", "enter", "right"])
async def test_confirm_dialog_never_destroys_on_a_key_meant_for_no(workdir, key):
    assert await confirm_answers(workdir, key) == [False]


@pytest.mark.parametrize("keys", [["y"], ["r"], ["left", "enter"], ["tab", "enter"]])
async def test_confirm_dialog_destroys_only_by_its_own_key_or_a_move(workdir, keys):
    assert await confirm_answers(workdir, *keys) == [True]


async def test_confirm_dialog_names_its_keys(workdir):
    app = make_app(workdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        app.push_screen(ConfirmScreen("Reload it?", "Reload", "Keep mine"))
        await pilot.pause()
        text = assert_safe(app)
        assert "r: Reload" in text and "Escape: Keep mine" in text


async def test_migration_dialog_arrows_do_not_wrap(workdir):
    app = make_app(workdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        app.action_migrate()
        await settle(pilot, app)
        dialog = app.screen
        assert isinstance(dialog, MigrationScreen) and dialog.focused.id == "open"
        await pilot.press("left")  # the first button: stays
        assert dialog.focused.id == "open"
        await pilot.press("right", "right")  # the last button: stays
        assert dialog.focused.id == "close"
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is app.main and "qwen3.template.json" not in app.main.editor.border_title


async def test_prompt_and_help_dialogs_cancel_with_escape(workdir):
    app = make_app(workdir)
    async with app.run_test(size=SIZE) as pilot:
        await dirty_main(pilot, app)
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen)
        await pilot.press("left", "right", "escape")  # the arrows move in the answer, nothing else
        await pilot.pause()
        assert app.screen is app.main
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        assert_safe(app)
        await pilot.press("left", "right", "escape")
        await pilot.pause()
        assert app.screen is app.main and app.is_running and app.main.dirty


# ----- finding 2: markup in names and keys ----------------------------------------------------


async def test_a_sample_named_like_markup_is_shown_literally(workdir):
    folder = folder_with(workdir, MARKUP_NAME, LINK_NAME)
    paths = discover(folder)
    start = [p.name for p in paths].index(MARKUP_NAME)
    app = WorkbenchApp(SchemaDocument.open(workdir / "schemas" / "qwen3.json"), [load(p) for p in paths], start)
    async with app.run_test(size=SIZE) as pilot:
        await dirty_main(pilot, app)
        text = assert_safe(app)
        assert MARKUP_NAME in text
        for _ in range(len(paths)):  # every sample shown in turn (f8), titles and status
            await pilot.press("f8")
            await settle(pilot, app)
            text = assert_safe(app)
            assert LINK_NAME in text and MARKUP_NAME in text  # the sample bar lists both
            if app.main.sample.name == LINK_NAME:
                assert f"Raw output · {LINK_NAME}" in text
        assert app.is_running and app.main.dirty


async def test_a_schema_key_like_markup_is_shown_literally(workdir):
    schema = schema_with_keys(workdir, '[a="]', "[@click=app.quit]Q[/]")
    app = make_app(workdir, schema=schema)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        assert app.is_running
        text = assert_safe(app)
        assert '[a="]' in text and "[@click=app.quit]Q[/]" in text  # in the status line and the tree


async def test_toasts_and_dialog_questions_show_names_literally(workdir):
    folder_with(workdir, LINK_NAME)
    app = make_app(workdir, LINK_NAME)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot, app)
        path = workdir / "sample_outputs" / "qwen3" / LINK_NAME
        path.write_text(path.read_text() + " ")
        app.main.sample.stamp = 0
        app._check_disk()  # "<name> changed on disk: reloaded"
        await settle(pilot, app)
        assert_safe(app)
        assert f"{LINK_NAME} changed on disk" in toasts(app)
        app.push_screen(ConfirmScreen(f"{LINK_NAME} exists. Replace it?", "Replace"))
        await pilot.pause()
        assert f"{LINK_NAME} exists" in assert_safe(app)


# ----- finding 3: escape sequences --------------------------------------------------------------


async def test_escape_sequences_in_names_and_keys_never_reach_the_terminal(workdir):
    folder = folder_with(workdir, TITLE_NAME, "f\x9b31m.txt")
    schema = schema_with_keys(workdir, SGR_KEY, CSI_KEY)
    paths = discover(folder)
    start = [p.name for p in paths].index(TITLE_NAME)
    app = WorkbenchApp(SchemaDocument.open(schema), [load(p) for p in paths], start)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot, app)
        text = assert_safe(app)
        assert "e␛]0;TITLE␇x.txt" in text  # the raw view's title, the sample bar
        assert "␛[41mK␛[0m" in text  # the status line and the tree
        assert "c⍰2Jd" in text and "f⍰31m.txt" in text
        await pilot.press("f8")
        await settle(pilot, app)
        assert_safe(app)
        path = folder / TITLE_NAME
        path.write_text(path.read_text() + " ")
        app.main.current = [p.name for p in paths].index(TITLE_NAME)
        app.main.sample.stamp = 0
        app._check_disk()  # a toast naming the sample
        await settle(pilot, app)
        assert_safe(app)
        assert "e␛]0;TITLE␇x.txt changed on disk" in toasts(app)


async def test_the_raw_view_shows_c1_and_bidi_controls_one_cell_each(workdir):
    folder = workdir / "sample_outputs" / "qwen3"
    (folder / "c1.txt").write_text("a\x9b2Jb\u202ec\x1bd\n")
    app = make_app(workdir, "c1.txt")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        text = assert_safe(app)
        assert "a⍰2Jb⍰c␛d" in text


# ----- finding 4: a lone surrogate in a value ------------------------------------------------------


async def test_a_lone_surrogate_value_is_shown_and_written_as_golden(workdir):
    folder = workdir / "sample_outputs" / "qwen3"
    raw = (folder / "tool_call.txt").read_text().replace('"Zürich"', '"\\ud800"')
    (folder / "surrogate.txt").write_text(raw)
    app = make_app(workdir, "surrogate.txt")
    async with app.run_test(size=SIZE) as pilot:
        await dirty_main(pilot, app)
        await pilot.press("backspace")  # the schema as it was: a result worth keeping
        await settle(pilot, app)
        value = app.main.analysis.value
        assert value["tool_calls"][0]["function"]["arguments"]["city"] == "\ud800"
        assert "\\ud800" in assert_safe(app)  # the tree shows the escape
        app.action_write_golden()
        await settle(pilot, app)
        assert app.is_running
        golden = folder / "surrogate.expected.json"
        assert json.loads(golden.read_text(encoding="utf-8")) == value
        assert_safe(app)
        move_to(app.main.editor, '"arguments"', after=False)  # the status line lists its matches
        await settle(pilot, app)
        assert_safe(app)


async def test_a_lone_surrogate_value_in_the_streaming_view(workdir):
    shutil.copy(ROOT / "schemas" / "qwen3.template.json", workdir / "schemas" / "qwen3.template.json")
    folder = workdir / "sample_outputs" / "qwen3"
    raw = (folder / "tool_call.txt").read_text().replace('"Zürich"', '"\\ud800\x9b"')
    (folder / "surrogate.txt").write_text(raw)
    app = make_app(workdir, "surrogate.txt", schema=workdir / "schemas" / "qwen3.template.json")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        assert_safe(app)
        await pilot.press("ctrl+t")
        await settle(pilot, app)
        screen = app.screen
        assert isinstance(screen, StreamScreen) and screen.replay is not None
        for step in range(0, len(screen.replay.steps), 7):  # every few calls, the events and the message
            screen.show_step(step)
            await pilot.pause()
            assert_safe(app)
        await pilot.press("end")
        await pilot.pause()
        assert "\\ud800⍰" in assert_safe(app)
        assert app.is_running


async def test_control_characters_in_the_editors_are_shown_as_symbols(workdir):
    schema = workdir / "schemas" / "qwen3.json"
    schema.write_text(schema.read_text().replace("{", "{\x1b[41m\x07", 1))  # not JSON any more: shown as it is
    app = make_app(workdir, schema=schema)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        assert "{␛[41m␇" in assert_safe(app)


async def test_control_characters_in_the_prompt_are_shown_as_symbols(workdir):
    shutil.copy(ROOT / "schemas" / "qwen3.template.json", workdir / "schemas" / "qwen3.template.json")
    folder = workdir / "sample_outputs" / "qwen3"
    (folder / "tool_call.prompt.txt").write_text("<|im_start|>user\nhi\x1b]0;TITLE\x07 \x9b2J<|im_end|>\n<|im_start|>assistant\n")
    app = make_app(workdir, "tool_call.txt", schema=workdir / "schemas" / "qwen3.template.json")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        assert "hi␛]0;TITLE␇ ⍰2J" in assert_safe(app)


async def test_json_nested_past_what_json_reads_pasted_in_the_editor(workdir):
    """Pasting JSON nested 100,000 deep keeps the app running and says what is wrong; the last
    good tree stays."""
    app = make_app(workdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        app.main.editor.text = "[" * 100_000 + "]" * 100_000
        await settle(pilot, app)
        await settle(pilot, app)
        assert app.is_running
        assert "stale" in str(app.main.tree.border_title)
        # Shown uncoloured: colouring it took minutes of the app's one thread.
        assert not app.main.editor._highlights
        app.main.editor.text = '{"type": "object"}'
        await settle(pilot, app)
        assert app.main.editor._highlights  # an ordinary schema is coloured again


def test_a_schema_file_nested_past_what_json_reads_is_guessed_without_crashing():
    """A schema reloaded from disk (changed by another editor) may be anything: guessing its
    format must not raise, the analysis then names the problem."""
    from workbench.formats import format_of_text as format_guess

    assert format_guess("[" * 100_000 + "]" * 100_000) == "response_schema"


async def test_migration_dialog_opens_the_template_by_its_own_key(workdir):
    app = make_app(workdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        app.action_migrate()
        await settle(pilot, app)
        assert isinstance(app.screen, MigrationScreen)
        app.screen.query_one("#close").focus()
        await pilot.press("o")
        await settle(pilot, app)
        assert app.screen is app.main and "qwen3.template.json" in str(app.main.editor.border_title)


async def test_the_release_line_never_shows_a_field_name_and_decides_vllm_by_its_rules():
    """A field named like escape sequences plus the words of a good verdict: vLLM refuses the
    template (not a field it serves), the line says so, and no ESC reaches the screen."""
    from textual.app import App

    from workbench.formats.template import template_problems
    from workbench.tui.widgets.release_line import ReleaseLine

    name = "\x1b[2J\x1b]0;pwned\x1b\\ can serve it"
    _, releases = template_problems({"start_anchor": "@", "fields": {name: {}}})
    assert releases.served is False

    class One(App):
        def compose(self):
            yield ReleaseLine()

    app = One()
    async with app.run_test() as pilot:
        line = app.query_one(ReleaseLine)
        line.show(releases)
        await pilot.pause()
        shown = str(line.render())
        assert "vLLM 0.33 refuses it" in shown and "can serve it" not in shown
        assert "\x1b" not in shown
