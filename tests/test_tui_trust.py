"""The TUI shows what the runtime gives: its analysis runs with Python's re in a separate process,
superseded runs are stopped, verdicts come from the same analysis, and every traced node lights
its text in the raw pane."""

from __future__ import annotations

import json
from pathlib import Path

from tui_helpers import ROOT, SIZE, make_app, move_to, settle
from typer.testing import CliRunner

from workbench.live.analysis import analyze
from workbench.cli.app import app as cli
from workbench.store.document import SchemaDocument
from workbench.engine.paint import GROUP, ITEM, ITEM_ALT, ITEM_GROUP, ITEM_GROUP_ALT, MATCH
from workbench.store.samples import FAILS, Sample, family_schema, is_sample_file, load
from workbench.tui.app import WorkbenchApp
from workbench.tui.screens import main as main_screen
from workbench.tui.widgets.raw_view import RawView
from workbench.live.process import AnalysisClient

CATASTROPHIC = '{"type": "object", "properties": {"a": {"type": "string", "x-regex": "(\\\\s*)*x"}}}'




def one_sample_app(tmp_path: Path, text: str, schema: Path | None = None, schema_text: str | None = None) -> WorkbenchApp:
    sample = tmp_path / "out.txt"
    sample.write_text(text, encoding="utf-8")
    if schema_text is not None:
        schema = tmp_path / "schema.json"
        schema.write_text(schema_text, encoding="utf-8")
    return WorkbenchApp(SchemaDocument.open(schema), [load(sample)])



def tree_node(app, key):
    """The first tree node (expanding as needed) whose trace node has this key."""
    tree = app.main.tree
    stack = [tree.root]
    while stack:
        node = stack.pop(0)
        if node.data is not None and node.data.key == key and node is not tree.root:
            return node
        if node.allow_expand and not node.children:
            node.expand()
            tree._fill(node)
        stack.extend(node.children)
    raise AssertionError(f"no tree node {key!r}")



def big_hermes_output(calls: int) -> str:
    parts = ["<think>\nPlanning the edits file by file.\n</think>\n\nUpdating the files now.\n"]
    for i in range(calls):
        args = {"path": f"src/module_{i}.py", "content": "def f(x):\n    return x * 2\n" * 70, "overwrite": True}
        parts.append(f"<tool_call>\n{json.dumps({'name': 'write_file', 'arguments': args})}\n</tool_call>\n")
    return "".join(parts) + "<|im_end|>"


# ----- 4, 5: superseded runs are stopped; one source for every verdict ------------------------------
async def test_typing_on_a_2_mb_output_ends_on_the_parse_not_a_timeout(tmp_path):
    text = big_hermes_output(1000)
    assert len(text) > 2_000_000
    app = one_sample_app(tmp_path, text, ROOT / "schemas" / "hermes.json")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        move_to(app.main.editor, '"assistant"', after=False)
        for i in range(20):  # about ten keys a second, not waiting for the parses
            await pilot.press("x" if i % 2 == 0 else "backspace")
            await pilot.pause(0.1)
        await settle(pilot, app)
        analysis = app.main.analysis
        assert analysis.trace is not None and analysis.trace.ok, analysis.trace.error
        assert len(analysis.trace.value["tool_calls"]) == 1000
        assert "time limit" not in str(app.main.status.render())
        assert app.main.verdicts[0] is analysis.verdict and analysis.verdict.good


async def test_a_catastrophic_pattern_fails_as_under_re_and_the_bar_agrees(tmp_path, monkeypatch):
    monkeypatch.setattr(main_screen, "TIME_LIMIT", 0.5)
    app = one_sample_app(tmp_path, " " * 50_000, schema_text=CATASTROPHIC)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        trace = app.main.analysis.trace
        assert trace.error is not None and trace.error_path == "/properties/a"
        assert "0.5 s" in str(trace.error) and "time limit" in str(trace.error)
        label = tree_node(app, "a").label.plain
        assert "time limit" in label and "found nothing" not in label
        assert app.main.verdicts[0].status == FAILS  # the sample bar says what the tree says
        assert "✗" in str(app.main.query_one("#samples").render())
        assert "Parse fails at /properties/a" in str(app.main.status.render())


def test_the_tuis_analysis_agrees_with_workbench_parse_on_every_shipped_sample_and_a_catastrophic_one(tmp_path):
    runner = CliRunner()
    client = AnalysisClient()
    spaces = tmp_path / "spaces.txt"
    spaces.write_text(" " * 50_000, encoding="utf-8")
    catastrophic = tmp_path / "catastrophic.json"
    catastrophic.write_text(CATASTROPHIC, encoding="utf-8")
    cases = [(p, family_schema(p)) for p in sorted((ROOT / "sample_outputs").glob("*/*.txt"))
             if is_sample_file(p) and family_schema(p) is not None]  # template-only families: the next test
    cases.append((spaces, catastrophic))
    try:
        client.set_samples({str(p): Sample(p, p.read_text(encoding="utf-8")) for p, _ in cases})
        for generation, (sample, schema) in enumerate(cases):
            got = client.analyze(generation, schema.read_text(encoding="utf-8"), str(sample), 2.0, lambda: False)
            cli_result = runner.invoke(cli, ["parse", str(sample), "--schema", str(schema), "--trace"])
            printed = json.loads(cli_result.stdout)
            assert json.dumps(got.trace.value) == json.dumps(printed["message"]), sample
            if printed["error"] is None:
                assert got.trace.ok and cli_result.exit_code == 0, sample
            else:
                assert got.trace.error_path == (printed["error"]["path"] if printed["error"]["path"] != "/" else ""), sample
                assert type(got.trace.error).__name__ in cli_result.stderr or got.trace.error.message.split(":")[0] in printed["error"]["message"]
    finally:
        client.close()


def test_a_superseded_run_is_stopped_and_the_process_keeps_serving(tmp_path):
    client = AnalysisClient()
    try:
        client.set_samples({"s": Sample(tmp_path / "s.txt", " " * 50_000 + "y")})
        slow = '{"type": "object", "properties": {"a": {"type": "string", "x-regex": "(\\\\s*)*x"}}}'
        fast = '{"type": "object", "properties": {"a": {"type": "string", "x-regex": "(y)"}}}'
        assert client.analyze(1, slow, "s", 30.0, lambda: True) is None  # the UI moved on at once
        got = client.analyze(2, fast, "s", 30.0, lambda: False)  # interrupts run 1: no 30 s wait
        assert got.trace.value == {"a": "y"}
        assert client.restarts == 0
    finally:
        client.close()


# ----- 7: every node lights its text; an empty match is a visible mark --------------------------------
async def test_every_traced_node_lights_its_span(workdir):
    app = make_app(workdir, "tool_call.txt")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        text = app.main.raw.text
        for key, expected in [("function", None), ("name", "get_weather"), ("city", "Zürich"), ("date", "2026-11-23"),
                              ("units", "metric"), ("hourly", "false")]:
            app.main.tree.move_cursor(tree_node(app, key))
            await pilot.pause()
            selected = app.main.raw.selected
            assert selected, f"{key} lights nothing"
            if expected is not None:
                assert expected in [text[s:e] for s, e in selected], (key, [text[s:e] for s, e in selected])
        assert (234, 240) in app.main.raw.selected or text[234:240] == "Zürich"


async def test_an_empty_match_shows_as_a_mark(workdir):
    # A content node that reads the raw text directly (the shipped one substitutes first, so its
    # match is in the substituted text): between </think> and the call it matches nothing.
    path = workdir / "schemas" / "qwen3.json"
    schema = json.loads(path.read_text(encoding="utf-8"))
    schema["properties"]["content"] = {"type": "string", "x-regex": r"</think>\s*(.*?)\s*(?:<tool_call>|<\|im_end\|>)"}
    path.write_text(json.dumps(schema), encoding="utf-8")
    app = make_app(workdir, "tool_call.txt")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        node = tree_node(app, "content")
        assert node.data.value == ""
        app.main.tree.move_cursor(node)
        await pilot.pause()
        raw: RawView = app.main.raw
        empty = [(s, e) for s, e in raw.selected if s == e]
        assert empty, raw.selected
        row, _ = raw.location(empty[0][0])
        raw.scroll_to(y=row, animate=False)
        await pilot.pause()
        strip = raw.render_line(row - raw.scroll_offset.y)
        from workbench.tui.palette import MARK

        assert any(segment.style == MARK for segment in strip), "the empty match is drawn nowhere"


# ----- 8: each regex stage's matches are told apart --------------------------------------------------
async def test_regex_stages_are_told_apart_and_the_editor_key_lights_its_own_matches(workdir):
    app = make_app(workdir, "parallel_calls.txt")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        text = app.main.raw.text
        kinds_at = {}
        for start, end, field, kind in app.main.analysis.runs:
            for i in range(start, end):
                kinds_at[i] = kind
        first, second = text.index('{"name": "search"'), text.index('{"name": "convert_units"')
        first_tag, second_tag = text.index("<tool_call>"), text.rindex("<tool_call>")
        assert kinds_at[first_tag] in (ITEM, ITEM_GROUP) and kinds_at[second_tag] in (ITEM_ALT, ITEM_GROUP_ALT)
        assert kinds_at[first_tag] != kinds_at[second_tag]  # neighbouring iterator matches alternate
        assert kinds_at[text.index("<|im_end|>")] in (GROUP, MATCH)  # the x-regex's own span, apart
        assert kinds_at[first] != kinds_at[second]

        move_to(app.main.editor, '"x-regex-iterator"', after=False)
        await pilot.pause()
        lit = [text[s:e] for s, e in app.main.raw.selected]
        assert any(t.startswith("<tool_call>") for t in lit) and not any(t.endswith("<|im_end|>") for t in lit)
        move_to(app.main.editor, '"x-regex"', after=False, start=app.main.editor.text.index('"tool_calls"'))
        await pilot.pause()
        lit = [text[s:e] for s, e in app.main.raw.selected]
        assert any(t.endswith("<|im_end|>") for t in lit)  # the x-regex match runs to the end


# ----- F9 jumps to the failing node ------------------------------------------------------------------
async def test_f9_jumps_to_the_node_where_the_parse_fails(workdir):
    app = make_app(workdir, "truncated_call.txt")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        trace = app.main.analysis.trace
        assert not trace.ok
        await pilot.press("f9")
        await pilot.pause(0.1)
        positions = app.main.analysis.positions
        start, end = positions.range_of(trace.error_path)
        assert start <= app.main.editor.cursor_location <= end
        assert app.main.tree.cursor_node.data.error is not None


def test_a_process_that_stops_answering_is_replaced(tmp_path):
    import os
    import signal

    client = AnalysisClient()
    try:
        client.set_samples({"s": Sample(tmp_path / "s.txt", "hello")})
        schema = '{"type": "object", "properties": {"a": {"type": "string", "x-regex": "(h)"}}}'
        assert client.analyze(1, schema, "s", 0.2, lambda: False).trace.value == {"a": "h"}
        os.kill(client._process.pid, signal.SIGSTOP)  # deaf to its own time limit, as a hung C call would be
        gave_up = client.analyze(2, schema, "s", 0.2, lambda: False)
        assert gave_up.trace is None and "killed after" in gave_up.hung and "0.2 s time limit" in gave_up.hung
        assert client.restarts == 1
        assert client.analyze(3, schema, "s", 0.2, lambda: False).trace.value == {"a": "h"}  # a new process
    finally:
        client.close()


def test_a_process_that_dies_is_reported_and_replaced(tmp_path):
    import os
    import signal

    import pytest

    client = AnalysisClient()
    try:
        client.set_samples({"s": Sample(tmp_path / "s.txt", "hello")})
        schema = '{"type": "object", "properties": {"a": {"type": "string", "x-regex": "(h)"}}}'
        client.analyze(1, schema, "s", 2.0, lambda: False)
        client.verdicts(1, lambda: False)
        slow = '{"type": "object", "properties": {"a": {"type": "string", "x-regex": "(\\\\s*)*x"}}}'
        client.set_samples({"s": Sample(tmp_path / "s.txt", " " * 40)})
        pid = client._process.pid
        import threading

        threading.Timer(0.3, os.kill, (pid, signal.SIGKILL)).start()
        with pytest.raises(RuntimeError, match="ended unexpectedly"):
            client.analyze(2, slow, "s", 30.0, lambda: False)
        assert client.analyze(3, schema, "s", 2.0, lambda: False).trace.value == {}  # a new process: " " * 40 has no h
        assert client.restarts == 1
    finally:
        client.close()


def test_the_tuis_analysis_agrees_with_workbench_parse_on_every_shipped_template(tmp_path):
    """Every schemas/<family>.template.json on every sample of its family, with the sample's prompt:
    the TUI's analysis process gives the message (or error) ``workbench parse --trace`` prints,
    and the same regions."""
    from families import TEMPLATE_SUFFIX

    runner = CliRunner()
    client = AnalysisClient()
    cases = []
    for template in sorted((ROOT / "schemas").glob(f"*{TEMPLATE_SUFFIX}")):
        folder = ROOT / "sample_outputs" / template.name.removesuffix(TEMPLATE_SUFFIX)
        cases += [(p, template) for p in sorted(folder.glob("*.txt")) if is_sample_file(p)]
    assert any(t.name == "qwen3.template.json" for _, t in cases)
    try:
        samples = {str(p): load(p) for p, _ in cases}
        client.set_samples(samples, {key: s.prompt()[0] for key, s in samples.items()})
        for generation, (sample, template) in enumerate(cases):
            prompt, _ = samples[str(sample)].prompt()
            got = client.analyze(generation, template.read_text(encoding="utf-8"), str(sample), 2.0, lambda: False, prefix=prompt)
            cli_result = runner.invoke(cli, ["parse", str(sample), "--schema", str(template), "--trace"])
            printed = json.loads(cli_result.stdout)
            where = f"{template.name} on {sample.parent.name}/{sample.name}"
            assert got.format == "response_template" and got.trace is not None, where
            found = got.trace
            assert json.dumps(found.message) == json.dumps(printed["message"]), where
            assert found.error_dict() == printed["error"], where
            assert [[r.field, list(r.span)] for r in found.regions] == [
                [r["field"], [r.get("open", {"span": r["body"]})["span"][0], r.get("close", {"span": r["body"]})["span"][1]]]
                for r in printed["trace"]["regions"]
            ], where
            assert found.text[: found.output_start] == printed["trace"]["prefix_tail"], where
            assert (cli_result.exit_code == 0) == (printed["error"] is None), where
            # The tree is built on the UI's side from the trace sent: as the engine builds it in one go.
            direct = analyze(template.read_text(encoding="utf-8"), samples[str(sample)].text, prefix=prompt)
            assert _tree(got.root) == _tree(direct.root), where
    finally:
        client.close()


def _tree(root) -> list:
    return [
        (node.key, node.name, node.path, node.text, node.note, node.error, node.spans, json.dumps(node.value, default=repr))
        for node in root.walk()
    ]


async def test_a_template_opened_in_the_tui_runs_as_a_template(tmp_path):
    template = '{"start_anchor": "<|im_start|>assistant\\n", "fields": {"content": {"close": "<|im_end|>"}}}'
    app = one_sample_app(tmp_path, "Hello<|im_end|>", schema_text=template)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        analysis = app.main.analysis
        assert analysis.format == "response_template" and analysis.trace is not None
        assert analysis.value == {"content": "Hello"} and analysis.problems == []
        assert "parses: content" in str(app.main.status.render())
