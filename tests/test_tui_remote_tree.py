"""A large trace stays in the analysis process: the tree shows its top at once, and a node's
children cross only when the user opens it (workbench/remote_tree.py)."""

from __future__ import annotations

from tui_helpers import ROOT, SIZE, settle

from workbench.store.document import SchemaDocument
from workbench.formats.remote_tree import LARGE_TRACE, RemoteNode
from workbench.store.samples import load
from workbench.tui.app import WorkbenchApp


def big_app(tmp_path) -> WorkbenchApp:
    unit = (ROOT / "sample_outputs" / "functiongemma" / "parallel_calls.txt").read_text(encoding="utf-8")
    sample = tmp_path / "big.txt"
    sample.write_text(unit * 1000, encoding="utf-8")  # about 80,000 trace nodes
    return WorkbenchApp(SchemaDocument.open(ROOT / "schemas" / "functiongemma.json"), [load(sample)])


async def wait_for(pilot, ready, tries: int = 500) -> None:
    for _ in range(tries):
        if ready():
            return
        await pilot.pause(0.02)
    raise AssertionError("the tree never showed it")


async def test_opening_a_node_of_a_large_trace_fetches_and_shows_its_children(tmp_path):
    app = big_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        main, tree = app.main, app.main.tree
        analysis = main.analysis
        assert analysis.remote is not None and analysis.ok  # kept in the analysis process
        assert len(analysis.value["tool_calls"]) == 3000  # the value crossed whole
        calls = next(row for row in tree.root.children if row.data.key == "tool_calls")
        assert isinstance(calls.data, RemoteNode) and calls.data.count == 3000
        assert calls.data.loaded is None and not calls.children  # nothing of it has crossed yet

        calls.expand()
        await pilot.pause()
        await wait_for(pilot, lambda: calls.children and calls.children[0].data is not None)
        rows = calls.children
        assert [row.data.key for row in rows[:3]] == [0, 1, 2]
        assert len(rows) == 101 and rows[-1].label.plain.startswith("⋯ 2900 more")  # a page at a time, as before
        assert all(isinstance(row.data, RemoteNode) and row.data.loaded is None for row in rows[:100])

        first = rows[0]
        first.expand()
        await pilot.pause()
        await wait_for(pilot, lambda: first.children and first.children[0].data is not None)
        keys = [row.data.key for row in first.children]
        assert "function" in keys
        function = first.children[keys.index("function")]
        function.expand()
        await wait_for(pilot, lambda: function.children and function.children[0].data is not None)
        name = next(row for row in function.children if row.data.key == "name")
        assert "get_current_weather" in name.label.plain  # the leaf's value, in its line

        # The spans a node stands for come from the analysis process too.
        tree.move_cursor(name)
        await wait_for(pilot, lambda: main.raw.selected)
        assert [main.sample.text[s:e] for s, e in main.raw.selected] == ["get_current_weather"]


async def test_a_large_trace_keeps_what_the_user_opened_across_an_edit(tmp_path):
    app = big_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        tree = app.main.tree
        calls = next(row for row in tree.root.children if row.data.key == "tool_calls")
        calls.expand()
        await wait_for(pilot, lambda: calls.children and calls.children[0].data is not None)
        tree.move_cursor(calls.children[5])
        await pilot.pause()
        before = app.main.analysis
        app.main.reparse()
        await wait_for(pilot, lambda: app.main.analysis is not before)
        await settle(pilot, app)
        calls = next(row for row in tree.root.children if row.data.key == "tool_calls")
        assert calls.is_expanded and calls.children[0].data is not None  # its children came with the reply
        # the cursor goes back once the tree is rebuilt, a message later: waited for, not one pause (flaky under load)
        await wait_for(pilot, lambda: tree.cursor_node is not None and getattr(tree.cursor_node.data, "key", None) == 5)
        assert tree.cursor_node.parent is calls


async def test_f9_reaches_the_failing_node_of_a_large_trace(tmp_path):
    """The way to the failure comes with the first reply: f9 needs no round trip."""
    folder = ROOT / "sample_outputs" / "functiongemma"
    sample = tmp_path / "big.txt"
    sample.write_text((folder / "parallel_calls.txt").read_text(encoding="utf-8") * 1000
                      + (folder / "truncated_call.txt").read_text(encoding="utf-8"), encoding="utf-8")
    app = WorkbenchApp(SchemaDocument.open(ROOT / "schemas" / "functiongemma.json"), [load(sample)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        main = app.main
        assert main.analysis.remote is not None and not main.analysis.ok
        assert main.analysis.failure() is not None
        await pilot.press("f9")
        await pilot.pause(0.1)
        cursor = main.tree.cursor_node
        assert cursor.data is not None and cursor.data.error is not None
        assert "Parse fails" in str(main.status.render())


def test_the_sample_is_large_enough():
    unit = (ROOT / "sample_outputs" / "functiongemma" / "parallel_calls.txt").read_text(encoding="utf-8")
    from workbench.live.analysis import analyze

    analysis = analyze((ROOT / "schemas" / "functiongemma.json").read_text(encoding="utf-8"), unit * 1000)
    assert sum(1 for _ in analysis.trace.root.walk()) > LARGE_TRACE
