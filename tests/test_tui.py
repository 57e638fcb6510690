"""The TUI, driven headless with Pilot: typing reparses, errors stay readable, work is never lost."""

from __future__ import annotations

import json

from tui_helpers import SIZE, make_app, move_to, settle

from workbench.store.document import SchemaDocument
from workbench.store.samples import load
from workbench.tui.app import WorkbenchApp
from workbench.tui.screens.confirm import ConfirmScreen
from workbench.tui.screens.prompt import PromptScreen
from workbench.tui.widgets.problem_list import ProblemList
from workbench.tui.widgets.raw_view import wrapped_rows






def tree_text(app) -> str:
    tree = app.main.tree
    lines = []

    def walk(node, depth=0):
        lines.append("  " * depth + node.label.plain)
        for child in node.children:
            walk(child, depth + 1)

    walk(tree.root)
    return "\n".join(lines)



async def test_opens_with_focus_in_the_editor_and_a_tree(workdir):
    app = make_app(workdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        assert app.focused is app.main.editor
        assert "get_weather" in tree_text(app)
        assert app.main.raw.text.startswith("<think>")
        assert {"thinking", "tool_calls"} <= set(app.main.analysis.fields)


async def test_typing_reparses_and_changes_tree_and_highlights(workdir):
    app = make_app(workdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        editor = app.main.editor
        runs_before = list(app.main.raw._runs)
        assert 'role  "assistant"' in tree_text(app)
        move_to(editor, '"assistant', after=True)
        await pilot.press("X", "y")
        await settle(pilot, app)
        assert 'role  "assistantXy"' in tree_text(app)
        # break the thinking regex so it no longer matches: its colour leaves the raw pane
        move_to(editor, '"x-regex": "^', after=True)
        await pilot.press("Q")
        await settle(pilot, app)
        assert "∅ x-regex found nothing" in tree_text(app)
        assert app.main.raw._runs != runs_before
        assert len(app.main.latencies) >= 2


async def test_broken_json_shows_the_error_and_keeps_the_stale_tree(workdir):
    app = make_app(workdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        good_tree = tree_text(app)
        editor = app.main.editor
        move_to(editor, '"type": "object",', after=True)
        await pilot.press("delete", "delete", "delete")  # eats the newline and indentation
        await pilot.press("}")
        await settle(pilot, app)
        status = str(app.main.status.render())
        assert "not valid JSON" in status and "line 2" in status
        assert tree_text(app) == good_tree  # the last good tree stays
        assert app.main.tree.has_class("-stale")
        assert "stale" in app.main.tree.border_title
        assert app.main.query_one(ProblemList).display
        assert editor.error_at is not None and editor.error_at[0] == 1
        assert "verdicts of the last schema without errors" in str(app.main.query_one("#samples").render())


async def test_validation_problem_is_listed_and_jumps_to_the_node(workdir):
    app = make_app(workdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        editor = app.main.editor
        move_to(editor, '"x-regex": "^\\\\s*(?!\\\\s)(?:<think>|(?=[^<]*(?:<(?!/?think>)[^<]*)*</think>))\\\\s*(?!\\\\s)((?:.*?\\\\S)??)', after=True)
        await pilot.press("(", "x", ")")  # a second unnamed group: a validation error
        await settle(pilot, app)
        problems = app.main.query_one(ProblemList)
        assert problems.display and problems.option_count >= 1
        assert "/properties/thinking/x-regex" in str(app.main.status.render())
        editor.move_cursor((0, 0))
        problems.focus()
        problems.highlighted = 0
        await pilot.press("enter")
        await pilot.pause()
        assert app.focused is editor
        assert editor.cursor_location[0] == editor.text[: editor.text.index('"x-regex": "^')].count("\n")


async def test_parse_failure_names_the_node_and_shows_its_input(workdir):
    app = make_app(workdir, "truncated_call.txt")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        status = str(app.main.status.render())
        assert "/properties/tool_calls/items/properties/function" in status
        assert "input: '{\"name\": \"run_python\"" in status


async def test_tree_cursor_lights_raw_spans_and_the_schema_node(workdir):
    app = make_app(workdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        tree = app.main.tree
        tree.focus()
        thinking = next(n for n in tree.root.children if n.data.key == "thinking")
        tree.move_cursor(thinking)
        await pilot.pause()
        text = app.main.raw.text
        assert any(text[s:e].startswith("They want the weather") for s, e in app.main.raw.selected)
        (row, _), _ = app.main.editor.node_range
        assert '"thinking"' in app.main.editor.document.get_line(row)


async def test_editor_cursor_lights_that_nodes_matches(workdir):
    app = make_app(workdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        move_to(app.main.editor, '"type": "array"', after=True)
        await pilot.pause()
        text = app.main.raw.text
        assert any(text[s:e].startswith('{"name": "get_weather"') for s, e in app.main.raw.selected)
        status = str(app.main.status.render())
        # the node's x-regex (the text after the reasoning), then its iterator's one match
        assert "/properties/tool_calls: visited 1×, 2 matches" in status
        assert "x-regex #0 0–324 '<think>⏎They want the we'…" in status
        assert "x-regex-iterator #0 175–314 '<tool_call>⏎{\"name\": \"ge'…" in status
        # On one of its x- keys: that key's matches only.
        move_to(app.main.editor, '"x-regex-iterator"', after=True)
        await pilot.pause()
        status = str(app.main.status.render())
        assert "/properties/tool_calls x-regex-iterator: visited 1×, 1 match" in status
        assert "x-regex #0" not in status


def test_wrapped_rows_split_long_lines_at_text_offsets():
    text = "abcdefghij"
    assert wrapped_rows(text, 0, 10, 4) == [0, 4, 8]
    assert wrapped_rows(text, 0, 10, 10) == [0]
    # Wide characters take two cells: a row of 5 cells holds two of them, not five.
    wide = "天気は晴れです"
    assert wrapped_rows(wide, 0, len(wide), 5) == [0, 2, 4, 6]


async def test_raw_output_wraps_long_lines_and_w_toggles_it(workdir):
    app = make_app(workdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        raw = app.main.raw
        lines = raw.text.count("\n") + 1
        width = raw.scrollable_content_region.width
        assert any(len(line) > width for line in raw.text.split("\n"))
        assert raw.wrap and raw.virtual_size.height > lines and raw.virtual_size.width == width
        # every screen row starts where the previous ended (or after its newline): no text is skipped
        rows = list(zip(raw._row_starts, raw._row_ends))
        assert "".join(raw.text[s:e] for s, e in rows) == raw.text.replace("\n", "")
        raw.focus()
        await pilot.press("w")
        await pilot.pause()
        assert not raw.wrap and raw.virtual_size.height == lines and raw.virtual_size.width > width
        await pilot.press("w")
        await pilot.pause()
        assert raw.wrap and raw.virtual_size.height > lines


async def test_samples_next_previous_and_their_verdicts(workdir):
    app = make_app(workdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        verdicts = app.main.verdicts
        assert len(verdicts) == 8 and all(v.status == "matches expected" for v in verdicts.values())
        first = app.main.sample.name
        await pilot.press("f8")
        await settle(pilot, app)
        assert app.main.sample.name != first
        assert app.main.raw.text == app.main.sample.text
        await pilot.press("shift+f8")
        await settle(pilot, app)
        assert app.main.sample.name == first
        assert "matches expected" in str(app.main.query_one("#samples").render())


async def test_save_writes_atomically_and_clears_the_mark(workdir):
    app = make_app(workdir)
    path = workdir / "schemas" / "qwen3.json"
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        move_to(app.main.editor, '"assistant', after=True)
        await pilot.press("Z")
        assert app.main.dirty and "●" in app.main.editor.border_title
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert not app.main.dirty
        assert json.loads(path.read_text())["properties"]["role"]["const"] == "assistantZ"
        assert not [p for p in path.parent.iterdir() if p.name.startswith(".")]  # no temp file left


async def test_quitting_with_unsaved_edits_asks_first(workdir):
    app = make_app(workdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        move_to(app.main.editor, '"assistant', after=True)
        await pilot.press("Z")
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("escape")  # keep working
        await pilot.pause()
        assert app.is_running and app.screen is app.main and app.main.dirty
        await pilot.press("ctrl+q")
        await pilot.pause()
        await pilot.click("#yes")
        await pilot.pause()
    assert app.return_code == 0
    assert "assistantZ" not in (workdir / "schemas" / "qwen3.json").read_text()


async def test_quitting_without_edits_does_not_ask(workdir):
    app = make_app(workdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert not app.is_running


async def test_a_schema_that_is_not_json_opens_and_is_not_overwritten(workdir):
    broken = workdir / "schemas" / "qwen3.json"
    original = '{"type": "object",\n  "properties": {,}\n}\n'
    broken.write_text(original)
    app = make_app(workdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        assert app.main.editor.text == original
        assert "line 2" in str(app.main.status.render())
        await pilot.press("ctrl+q")  # nothing typed: quits without writing
        await pilot.pause()
    assert broken.read_text() == original


async def test_a_pathological_regex_does_not_block_typing(workdir):
    folder = workdir / "sample_outputs" / "evil"
    folder.mkdir()
    (folder / "a.txt").write_text("a" * 40 + "b")
    schema = workdir / "evil.json"
    schema.write_text(json.dumps({"type": "object", "properties": {"answer": {"type": "string", "x-regex": "((?:a|aa)+)$"}}}, indent=2))
    app = WorkbenchApp(SchemaDocument.open(schema), [load(folder / "a.txt")])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.05)
        editor = app.main.editor
        move_to(editor, '"answer"', after=True)
        await pilot.press("space")  # typed while the regex runs
        await pilot.pause(0.05)
        assert '"answer" ' in editor.text  # the key was handled at once
        await settle(pilot, app)
        status = str(app.main.status.render())
        assert "time limit" in status and "/properties/answer" in status


async def test_schema_changed_on_disk_is_offered_for_reload(workdir):
    app = make_app(workdir)
    path = workdir / "schemas" / "qwen3.json"
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        changed = path.read_text().replace('"assistant"', '"from-disk"')
        path.write_text(changed)
        app._check_disk()
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.click("#yes")
        await settle(pilot, app)
        assert app.main.editor.text == changed
        assert 'role  "from-disk"' in tree_text(app)


async def test_new_schema_asks_for_a_name_on_first_save(workdir):
    sample = load(workdir / "sample_outputs" / "qwen3" / "reasoning.txt")
    app = WorkbenchApp(SchemaDocument.open(None), [sample])
    target = workdir / "mine.json"
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        assert "The user wants the sum" in tree_text(app)  # the starter schema already parses thinking
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen)
        prompt_input = app.screen.query_one("#answer")
        prompt_input.value = str(target)
        await pilot.press("enter")
        await pilot.pause()
    assert json.loads(target.read_text())["properties"]["role"] == {"const": "assistant"}


async def test_export_from_the_app_writes_the_schema(workdir):
    app = make_app(workdir)
    target = workdir / "exported.json"
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("ctrl+o")
        await pilot.pause()
        app.screen.query_one("#answer").value = str(target)
        await pilot.press("enter")
        await settle(pilot, app)
    assert json.loads(target.read_text()) == json.loads((workdir / "schemas" / "qwen3.json").read_text())


async def test_help_and_palette_list_the_actions(workdir):
    app = make_app(workdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        titles = [c.title for c in app.get_system_commands(app.screen)]
        for wanted in ("Save schema", "Export schema", "Next sample", "Previous sample", "Help", "Go to first problem"):
            assert wanted in titles
        await pilot.press("f1")
        await pilot.pause()
        assert type(app.screen).__name__ == "HelpScreen"


async def test_keys_keep_their_order_while_the_screen_is_busy(workdir):
    """Arrow keys and backspace must not overtake typed characters when a reparse is applied."""
    import time as _time

    from textual import events

    app = make_app(workdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        editor = app.main.editor
        move_to(editor, '"assistant', after=True)
        app.main.call_later(lambda: _time.sleep(0.3))  # the screen stalls, as while applying a big reparse
        for key, char in [("x", "x"), ("left", None), ("left", None), ("backspace", None), ("y", "y")]:
            editor.post_message(events.Key(key, char))
        await pilot.pause(0.6)
        line = next(l for l in editor.text.splitlines() if '"role"' in l)
        assert '"assistaytx"' in line, line


async def test_go_to_line_find_and_document_edges(workdir):
    app = make_app(workdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        editor = app.main.editor
        await pilot.press("ctrl+g")
        app.screen.query_one("#answer").value = "15"
        await pilot.press("enter")
        await pilot.pause()
        assert editor.cursor_location == (14, 0) and app.focused is editor
        await pilot.press("ctrl+f")
        app.screen.query_one("#answer").value = "x-regex-iterator"
        await pilot.press("enter")
        await pilot.pause()
        assert editor.selected_text == "x-regex-iterator"
        await pilot.press("ctrl+f", "enter")  # the last search again: wraps to the only one
        await pilot.pause()
        assert editor.selected_text == "x-regex-iterator"
        await pilot.press("ctrl+f")
        app.screen.query_one("#answer").value = "no such text"
        await pilot.press("enter")
        await pilot.pause()
        assert "is not in the schema" in str(app.main.status.render())
        await pilot.press("ctrl+end")
        assert editor.cursor_location == editor.document.end
        await pilot.press("ctrl+home")
        assert editor.cursor_location == (0, 0)
        await pilot.press("ctrl+g")
        app.screen.query_one("#answer").value = "999"
        await pilot.press("enter")
        await pilot.pause()
        assert "No line '999'" in str(app.main.status.render())
