"""The TUI on a response_template, driven with Pilot: regions coloured per field with delimiters apart,
the traps marked, tree, raw spans, prompt and editor linked, the prompt edited and saved, goldens
of the template's own, switching formats in the editor, and the streaming view."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tui_helpers import ROOT, SIZE, make_app, move_to, settle
from typer.testing import CliRunner

from workbench.engine.paint import BODY, BODY_ALT, CAPTURE, DELIMITER, DROPPED, EMPTIED, OVERWRITTEN
from workbench.engine.template.outline import OutlineNode
from workbench.engine.template.replay import DIRTY, LATE_CLOSE
from workbench.store.samples import DIFFERS, MATCHES
from workbench.tui.screens.confirm import ConfirmScreen
from workbench.tui.stream.screen import StreamScreen
from workbench.tui.stream.flag_list import FlagList


@pytest.fixture
def tdir(workdir: Path) -> Path:
    """The qwen3 samples with the family's schema and response template."""
    shutil.copy(ROOT / "schemas" / "qwen3.template.json", workdir / "schemas" / "qwen3.template.json")
    return workdir


def template_app(tdir: Path, sample: str = "tool_call.txt"):
    return make_app(tdir, sample, schema=tdir / "schemas" / "qwen3.template.json")


def status(app) -> str:
    return str(app.main.status.render())


def kinds_at(runs, offset: int) -> set:
    return {kind for s, e, _, kind in runs if s <= offset < e}


def tree_node(app, match):
    """The first tree node (expanding as needed) whose outline node satisfies ``match``."""
    tree = app.main.tree
    stack = [tree.root]
    while stack:
        node = stack.pop(0)
        if node.data is not None and match(node.data) and node is not tree.root:
            return node
        if node.allow_expand and not node.children:
            node.expand()
            tree._fill(node)
        stack.extend(node.children)
    raise AssertionError("no such tree node")


async def test_a_template_opens_with_its_regions_coloured_and_the_prompt_shown(tdir):
    app = template_app(tdir, "parallel_calls.txt")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        main = app.main
        a = main.analysis
        assert a.format == "response_template" and a.usable and a.ok
        assert main.editor.border_title.startswith("Template · qwen3.template.json")
        assert main.prompt_editor.display and main.query_one("#releases").display
        assert "5.13 and later" in str(main.query_one("#releases").render())
        assert "vLLM 0.33 refuses it" in str(main.query_one("#releases").render())  # its content joins (docs/join-rule.md)
        text = main.raw.text
        runs = main.raw._runs
        first, second = text.index("<tool_call>"), text.rindex("<tool_call>")
        assert kinds_at(runs, first) == {DELIMITER} and kinds_at(runs, second) == {DELIMITER}
        assert kinds_at(runs, text.index('{"query"')) == {BODY}  # the arguments: the name is in the opener
        assert kinds_at(runs, text.index('{"value": 26.2')) == {BODY_ALT}  # the second region of the field
        assert CAPTURE in kinds_at(runs, text.index('search"')) and DELIMITER in kinds_at(runs, text.index('{"name": "search"'))
        fields = {field for _, _, field, _ in runs}
        assert fields == {0, 1, 2}  # thinking, tool_calls, content: one colour each
        assert isinstance(main.tree.root.data, OutlineNode)
        labels = [c.label.plain for c in main.tree.root.children]
        assert labels[0].startswith("thinking") and labels[1].startswith("tool_calls  2 regions")
        assert main.verdicts[main.current].status == MATCHES  # judged against the .template golden
        assert "parses: role, thinking, content, tool_calls" in status(app)
        assert "delimiters underlined" in str(main.raw.border_subtitle)


async def test_the_traps_are_marked_in_the_raw_pane_and_the_tree(tdir):
    # content segments split by tool calls: the first is overwritten, the last ("\n") emptied;
    # with no implicit field the text outside regions is dropped.
    sample = tdir / "sample_outputs" / "qwen3" / "split.txt"
    sample.write_text('Let me check.<tool_call>\n{"name": "a", "arguments": {}}\n</tool_call>\n\nAnd more.<tool_call>{"name": "b", "arguments": {}}</tool_call>\n', encoding="utf-8")
    template = tdir / "schemas" / "plain.template.json"
    template.write_text(json.dumps({"start_anchor": "<|im_start|>assistant\n", "fields": {
        "tool_calls": {"open": "<tool_call>", "close": "</tool_call>", "repeats": True, "content": "json"},
        "content": {"close": "<|im_end|>"}}}, indent=2), encoding="utf-8")
    app = make_app(tdir, "split.txt", schema=template)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        main = app.main
        text, runs = main.raw.text, main.raw._runs
        assert kinds_at(runs, text.index("Let me")) == {OVERWRITTEN}
        assert kinds_at(runs, text.index("And more")) == {OVERWRITTEN}
        assert kinds_at(runs, len(text) - 1) == {EMPTIED}
        legend = str(main.raw.border_subtitle)
        assert "⚠ overwritten" in legend and "⚠ emptied" in legend
        content = tree_node(app, lambda n: n.key == ("field", "content"))
        assert "empty" in content.label.plain and "⚠" in content.label.plain
        first = tree_node(app, lambda n: n.key == ("region", 0))
        assert "overwritten by #2" in first.label.plain
        # The line break that was the emptied value is drawn, so the trap shows.
        row, _ = main.raw.location(len(text) - 1)
        main.raw.scroll_to(y=row, animate=False)
        await pilot.pause()
        strip = main.raw.render_line(row - main.raw.scroll_offset.y)
        assert "⏎" in "".join(segment.text for segment in strip)
        # Now drop the implicit field: the text outside the calls is thrown away, and said so.
        main.editor.load_text(json.dumps({"start_anchor": "x", "fields": {
            "tool_calls": {"open": "<tool_call>", "close": "</tool_call>", "repeats": True, "content": "json"}}}))
        await settle(pilot, app)
        runs = main.raw._runs
        assert kinds_at(runs, text.index("Let me")) == {DROPPED}
        dropped = tree_node(app, lambda n: n.key == ("dropped",))
        assert "3 spans" in dropped.label.plain


async def test_tree_raw_prompt_and_editor_are_linked(tdir):
    app = template_app(tdir, "reasoning_prewritten.txt")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        main = app.main
        prompt = main.prompt.text
        think = prompt.index("<think>")
        # The tree cursor on the thinking region lights its text in the output and in the prompt,
        # and its field in the editor.
        region = tree_node(app, lambda n: n.key == ("region", 0))
        main.tree.move_cursor(region)
        await pilot.pause()
        text = main.raw.text
        assert [text[s:e] for s, e in main.raw.selected][0].startswith("Okay, the user asks")
        assert main.prompt_editor._selected == [(think, len(prompt))]
        (row, _), _ = main.editor.node_range
        assert '"thinking"' in main.editor.document.get_line(row)
        # The opener's line lights the opener, in the prompt, where the region opened.
        opener = tree_node(app, lambda n: n.key == "open" and n.path == "/fields/thinking/open_pattern")
        main.tree.move_cursor(opener)
        await pilot.pause()
        assert main.raw.selected == [] and main.prompt_editor._selected == [(think, think + 7)]
        # The editor cursor in a field lights its regions; on its closer key, only the closers.
        move_to(main.editor, '"content": {', after=False)
        await pilot.pause()
        assert [text[s:e] for s, e in main.raw.selected][0].startswith("Yes")  # the whitespace after </think> is its closer's
        assert "/fields/content: 1 region" in status(app)
        move_to(main.editor, '"close_pattern": "</think>', after=False)
        await pilot.pause()
        assert [text[s:e] for s, e in main.raw.selected] == ["</think>\n\n"]
        assert "/fields/thinking close_pattern: 1 closer" in status(app)
        # The start anchor lights its match in the prompt.
        move_to(main.editor, '"start_anchor"', after=True)
        await pilot.pause()
        assert main.prompt_editor._selected == [(prompt.rindex("<|im_start|>assistant"), think)]


async def test_editing_the_prompt_changes_the_result_and_saving_asks_before_replacing(tdir):
    app = template_app(tdir, "reasoning_prewritten.txt")
    folder = tdir / "sample_outputs" / "qwen3"
    prompt_file = folder / "reasoning_prewritten.prompt.txt"
    on_disk = prompt_file.read_text(encoding="utf-8")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        main = app.main
        assert "thinking" in main.analysis.value
        main.prompt_editor.focus()
        main.set_prompt(on_disk.removesuffix("<think>\n"))  # the pre-written <think> gone
        await settle(pilot, app)
        assert "thinking" not in main.analysis.value
        assert main.analysis.value["content"].startswith("Okay, the user asks")
        assert main.verdicts[main.current].status == DIFFERS
        assert main.prompt_editor.border_title.endswith("●")
        await pilot.press("ctrl+s")  # in the prompt pane: saves the prompt, asking first
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot, app)
        assert prompt_file.read_text(encoding="utf-8") == on_disk.removesuffix("<think>\n")
        assert not main.prompt_editor.border_title.endswith("●")
        assert main.document.saved_text == main.editor.text  # the template was not written
        # Clearing the prompt parses with prefix="".
        main.set_prompt("")
        await settle(pilot, app)
        assert main.analysis.prompt == "" and main.analysis.trace.anchor_found is None


async def test_the_prompt_pane_says_the_prefill_and_warns_when_the_anchor_takes_it_in(tdir):
    app = template_app(tdir, "reasoning_prewritten.txt")  # its prompt ends "<|im_start|>assistant\n<think>\n"
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        main = app.main
        said = str(main.prompt_editor.border_subtitle)
        assert said == "parsed: the 8 characters after the start anchor · prefill '<think>⏎'"
        # An anchor that ends after the prefill's <think>: the thinking region has no opener.
        template = json.loads(main.editor.text)
        template["start_anchor"] = "<|im_start|>assistant\n<think>\n"
        main.editor.load_text(json.dumps(template, indent=2))
        await settle(pilot, app)
        said = str(main.prompt_editor.border_subtitle)
        assert said.startswith("it ends with the start anchor: no tail to parse · ⚠ the start anchor takes in the prefill '<think>⏎'")
        assert "the tail the parser reads does not hold it" in said


async def test_a_new_prompt_file_is_written_for_a_sample_on_the_folder_default(tdir):
    app = template_app(tdir, "reasoning.txt")
    target = tdir / "sample_outputs" / "qwen3" / "reasoning.prompt.txt"
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        main = app.main
        assert "default.prompt.txt" in main.prompt_editor.border_title
        main.set_prompt(main.prompt.text + "<think>\n")
        await settle(pilot, app)
        app.action_save_prompt()
        await pilot.pause()
        assert app.screen is main  # nothing to replace: no question
        assert target.read_text(encoding="utf-8").endswith("<|im_start|>assistant\n<think>\n")
        assert "reasoning.prompt.txt" in main.prompt_editor.border_title


async def test_write_result_as_golden_writes_the_templates_golden(tdir):
    folder = tdir / "sample_outputs" / "qwen3"
    golden = folder / "tool_call.template.expected.json"
    want = golden.read_text(encoding="utf-8")
    golden.unlink()
    schema_golden = (folder / "tool_call.expected.json").read_text(encoding="utf-8")
    app = template_app(tdir, "tool_call.txt")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        app.action_write_golden()
        await settle(pilot, app)
        assert golden.read_text(encoding="utf-8") == want
        assert (folder / "tool_call.expected.json").read_text(encoding="utf-8") == schema_golden
        assert app.main.verdicts[app.main.current].status == MATCHES


async def test_pasting_a_template_over_a_schema_switches_the_panes(tdir):
    app = make_app(tdir, "reasoning_prewritten.txt")  # the schema
    template = (tdir / "schemas" / "qwen3.template.json").read_text(encoding="utf-8")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        main = app.main
        schema = main.editor.text
        assert main.format == "response_schema" and not main.prompt_editor.display
        main.editor.load_text(template)
        await settle(pilot, app)
        assert main.format == "response_template" and main.prompt_editor.display
        assert main.editor.border_title.startswith("Template")
        assert isinstance(main.tree.root.data, OutlineNode)
        assert main.verdicts[main.current].status == MATCHES
        assert main.check_action("stream", ()) is True
        main.editor.load_text(schema)
        await settle(pilot, app)
        assert main.format == "response_schema" and not main.prompt_editor.display
        assert main.analysis.trace is not None and main.verdicts[main.current].status == MATCHES
        assert main.check_action("stream", ()) is False


async def test_a_template_load_error_is_listed_at_its_key(tdir):
    app = template_app(tdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        main = app.main
        move_to(main.editor, '"content": "json"', after=False)
        main.editor.insert('"nope": 1, ')
        await settle(pilot, app)
        assert main.query_one("#problems").display
        first = main.analysis.errors[0]
        assert first.path == "/fields/tool_calls/nope" and "unknown keys ['nope']" in first.message
        assert "Template error at /fields/tool_calls/nope" in status(app)
        assert main.tree.has_class("-stale") and "template has errors" in main.tree.border_title
        await pilot.press("f9")  # the first problem: the editor goes to the key
        await pilot.pause()
        row, _ = main.editor.cursor_location
        assert '"nope"' in main.editor.document.get_line(row)


async def test_the_streaming_view_steps_through_the_calls_and_flags(tdir):
    app = template_app(tdir, "tool_call.txt")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("ctrl+t")
        await settle(pilot, app)
        screen = app.screen
        assert isinstance(screen, StreamScreen) and screen.replay is not None
        assert screen.step == 0 and screen.replay.chunk == 4
        await pilot.press("right", "right", "right")
        await pilot.pause()
        assert screen.step == 3
        title = str(screen.query_one("#stream-title").render())
        assert "call 3/" in title and "streamed = one-shot ✓" in title
        await pilot.press("left")
        await pilot.pause()
        assert screen.step == 2
        flags = screen.replay.flags
        assert [f.kind for f in flags] == [DIRTY]
        await pilot.press("f9")  # the next flag's call
        await pilot.pause()
        assert screen.step == flags[0].step
        assert "dirty" in str(screen.query_one("StepEvents").render())
        message = str(screen.query_one("ClientMessage").render())
        assert "thinking ✓" in message and "tool_calls ▌ streaming" in message
        await pilot.press("end")
        await pilot.pause()
        assert "finalize() gives" in str(screen.query_one("ClientMessage").render())
        await pilot.press("plus")  # a bigger chunk: fewer calls
        await settle(pilot, app)
        assert screen.replay.chunk == 6
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is app.main


async def test_the_streaming_view_flags_a_close_that_waits_for_finalize(tdir):
    app = template_app(tdir, "plain_answer.txt")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        app.main.action_stream()
        await settle(pilot, app)
        screen = app.screen
        flags = screen.replay.flags
        assert [f.kind for f in flags] == [LATE_CLOSE]
        flag_list = screen.query_one(FlagList)
        flag_list.focus()
        flag_list.highlighted = 0
        await pilot.press("enter")
        await pilot.pause()
        assert screen.step == len(screen.replay.steps) - 1
        assert "finalize()" in str(screen.query_one("StepEvents").render())


async def test_the_streaming_view_is_for_templates_only(workdir):
    app = make_app(workdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        app.main.action_stream()
        await pilot.pause()
        assert app.screen is app.main and "response_schema" in status(app)


def test_open_with_template_takes_the_familys_template(tdir, monkeypatch):
    from workbench.cli.app import app as cli
    from workbench.tui import app as tui_app

    opened = {}
    monkeypatch.setattr(tui_app.WorkbenchApp, "run", lambda self: opened.update(doc=self.document, tools=self.tools))
    sample = tdir / "sample_outputs" / "qwen3" / "reasoning_prewritten.txt"
    result = CliRunner().invoke(cli, ["open", str(sample), "--template"])
    assert result.exit_code == 0, result.output
    assert opened["doc"].path == (tdir / "schemas" / "qwen3.template.json").resolve()
    (tdir / "schemas" / "qwen3.template.json").unlink()
    result = CliRunner().invoke(cli, ["open", str(sample), "--template"])
    assert result.exit_code == 0 and '"fields"' in opened["doc"].saved_text  # a starter, saved there
    assert opened["doc"].path.name == "qwen3.template.json"
    result = CliRunner().invoke(cli, ["open", str(sample), "--template", "--schema", str(sample)])
    assert result.exit_code == 2 and "not both" in result.output


async def test_a_prompt_changed_on_disk_is_reloaded_unless_it_is_being_edited(tdir):
    app = template_app(tdir, "reasoning_prewritten.txt")
    prompt_file = tdir / "sample_outputs" / "qwen3" / "reasoning_prewritten.prompt.txt"
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        main = app.main
        prompt_file.write_text(prompt_file.read_text(encoding="utf-8").removesuffix("<think>\n"), encoding="utf-8")
        app._check_disk()
        await settle(pilot, app)
        assert main.prompt_editor.text == main.prompt.text and not main.prompt.text.endswith("<think>\n")
        assert "thinking" not in main.analysis.value
        main.set_prompt(main.prompt.text + "<think>\n")  # an edit: the file's next change waits
        await settle(pilot, app)
        prompt_file.write_text("changed again", encoding="utf-8")
        app._check_disk()
        await pilot.pause()
        assert main.prompt.text.endswith("<think>\n") and main.prompt.dirty


async def test_f9_passes_over_release_notes_to_where_the_parse_fails(tdir):
    template = tdir / "schemas" / "joined.template.json"
    template.write_text(json.dumps({"start_anchor": "x", "fields": {
        "content": {"close": "<|im_end|>", "repeats": True, "join": ""},
        "tool_calls": {"open": "<tool_call>", "close": "</tool_call>", "content": "json"}}}, indent=2), encoding="utf-8")
    app = make_app(tdir, "truncated_call.txt", schema=template)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        main = app.main
        # 'join' narrows the releases, and on content vLLM refuses it (each at its key)
        assert [(p.severity, p.path) for p in main.analysis.problems] == [
            ("note", "/fields/content/join"), ("note", "/fields/content/join")]
        assert main.analysis.problems[1].message.startswith("vLLM 0.33 refuses it: ")
        assert "5.16 and later" in str(main.query_one("#releases").render())
        assert "vLLM 0.33 refuses it" in str(main.query_one("#releases").render())
        assert not main.analysis.ok
        await pilot.press("f9")
        await pilot.pause(0.1)
        row, _ = main.editor.cursor_location
        assert main.editor.document.get_line(row).strip() == '"content": "json"'  # the parser that failed
        assert main.tree.cursor_node.data.error is not None


async def wait_for_migration(pilot, app):
    from workbench.tui.screens.migration import MigrationScreen

    for _ in range(100):
        await pilot.pause(0.1)
        screen = app.screen
        if isinstance(screen, MigrationScreen) and screen.result is not None:
            return screen
    raise AssertionError(f"no migration report; screen {app.screen}")


async def test_migrate_writes_the_template_beside_the_schema_reports_and_opens_it(workdir):
    app = make_app(workdir, "tool_call.txt")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        app.action_migrate()
        screen = await wait_for_migration(pilot, app)
        target = workdir / "schemas" / "qwen3.template.json"
        result = screen.result
        assert result.written and target.exists() and json.loads(target.read_text()) == result.migration.template
        assert result.anchor == "<|im_start|>assistant\n"  # read off the samples' prompts
        shown = str(screen.query_one("#lines").render())
        # What could not be translated is named with its schema path, as `workbench migrate` prints it.
        assert "untranslatable (" in shown and "/properties/" in shown and "samples: " in shown
        assert len(result.comparisons) == len(app.main.samples)
        await pilot.click("#open")
        await settle(pilot, app)
        assert app.main.format == "response_template" and app.document.path == target
        assert app.main.editor.text == target.read_text()
        assert app.main.analysis.trace is not None


async def test_migrate_asks_before_replacing_a_template_and_refuses_a_template(tdir):
    target = tdir / "schemas" / "qwen3.template.json"
    before = target.read_text()
    app = make_app(tdir, "tool_call.txt")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        app.action_migrate()
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("escape")  # keep the existing template
        await settle(pilot, app)
        assert target.read_text() == before and app.screen is app.main
    app = template_app(tdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        app.action_migrate()
        await pilot.pause()
        assert app.screen is app.main and "already a response template" in status(app)


async def test_a_field_with_hundreds_of_regions_shows_them_a_page_at_a_time(tdir):
    """Thousands of calls would hold every keystroke while the tree adds a row per call: a field
    shows its regions a page at a time, a "more" row shows the next page, and f9 still reaches a
    failing call past the first page."""
    call = '<tool_call>\n{{"name": "f", "arguments": {{"i": {}}}}}\n</tool_call>\n'
    calls = [call.format(i) for i in range(250)]
    calls[230] = '<tool_call>\n{"name": "f", "arguments": {"i": }}\n</tool_call>\n'
    (tdir / "sample_outputs" / "qwen3" / "many_calls.txt").write_text("<think>\nr\n</think>\n\n" + "".join(calls), encoding="utf-8")
    app = template_app(tdir, "many_calls.txt")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        tree = app.main.tree
        field = tree_node(app, lambda n: n.key == ("field", "tool_calls"))
        field.expand()
        await pilot.pause()
        rows = field.children
        # The parse stops at the broken call: the field has 231 regions.
        assert len(rows) == 101 and rows[-1].data is None and rows[-1].label.plain.startswith("⋯ 131 more")
        regions = field.data.children
        assert len(regions) == 231 and [r.data for r in rows[:100]] == regions[:100]
        tree.move_cursor(rows[-1])
        await pilot.pause()
        tree.action_select_cursor()
        await pilot.pause()
        rows = field.children
        assert len(rows) == 201 and rows[100].data is regions[100] and rows[-1].label.plain.startswith("⋯ 31 more")
        assert tree.cursor_node is rows[100]  # the cursor stays where the "more" row was
        tree.move_cursor(rows[150])
        await pilot.pause()
        tree.shown_root = None  # the next tree is drawn afresh, as after an edit that changed its shape
        tree.show(app.main.analysis.root)
        await pilot.pause()
        assert tree.cursor_node.data.key == regions[150].key  # its page is shown again for the cursor
        field = tree.cursor_node.parent
        assert len(field.children) == 201 and field.children[-1].label.plain.startswith("⋯ 31 more")  # whole pages
        regions = field.data.children
        app.main.action_first_problem()
        await pilot.pause()
        failing = tree.cursor_node
        assert failing.data is regions[230] and failing.data.error
        assert failing.parent is field and field.children[-1] is failing  # shown up to it
