"""The TUI behaves as one transformers release (``open --runtime``, ctrl+r picks another) and marks
the samples whose result depends on the release. Driven with Pilot.

The template uses a close_pattern's named group in its transform: 5.24 fills it in, 5.13–5.23
raise KeyError when the closer matches (releases.CHANGES "close_captures")."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_cli_runtime import write_demo_family
from tui_helpers import SIZE, settle
from typer.testing import CliRunner

from workbench.store.document import SchemaDocument
from workbench.engine.releases import NEWEST, Release
from workbench.store.samples import discover, load
from workbench.tui.app import WorkbenchApp
from workbench.tui.screens.help import HelpScreen
from workbench.tui.screens.release import ReleaseScreen
from workbench.tui.widgets.sample_bar import SPLIT_MARK


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    return write_demo_family(tmp_path / "demo")  # beside the workdir fixture's copy, which a test may use too


def demo_app(demo: Path, runtime=None) -> WorkbenchApp:
    paths = discover(demo / "sample_outputs" / "demo")
    return WorkbenchApp(SchemaDocument.open(demo / "schemas" / "demo.template.json"), [load(p) for p in paths], 0,
                        runtime=runtime)


def release_line(app) -> str:
    return str(app.main.query_one("#releases").render())


def bar(app) -> str:
    return str(app.main.query_one("#samples").render())


async def test_open_at_5_23_then_switch_to_5_24_changes_the_parse(demo):
    app = demo_app(demo, "5.23")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        main = app.main
        assert main.runtime == Release((5, 23))
        assert "as transformers 5.23 (ctrl+r)" in release_line(app)
        failure = main.analysis.failure()
        assert failure is not None and "KeyError" in failure.message and "'{name}' is not defined" in failure.message
        await pilot.press("ctrl+r")
        await pilot.pause()
        picker = app.screen
        assert isinstance(picker, ReleaseScreen)
        await pilot.press("up", "enter")  # the picker opens on 5.23; 5.24 is the row above
        await settle(pilot, app)
        assert app.screen is main and main.runtime == NEWEST
        assert "as transformers 5.24 (ctrl+r)" in release_line(app)
        assert main.analysis.ok
        assert main.analysis.value["tool_calls"][0]["function"]["name"] == "get_weather"
        assert "Behaving as transformers 5.24" in str(main.status.render())
        # Escape leaves the release as it is.
        await pilot.press("ctrl+r")
        await pilot.pause()
        await pilot.press("down", "escape")
        await settle(pilot, app)
        assert main.runtime == NEWEST


async def test_the_default_is_the_newest_and_any_release_can_be_picked(demo):
    app = demo_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        assert app.main.runtime == NEWEST and "as transformers 5.24" in release_line(app)
        await pilot.press("ctrl+r")
        await pilot.pause()
        picker = app.screen
        assert [str(r) for r in picker.releases] == [f"5.{minor}" for minor in range(24, 12, -1)]
        await pilot.press("end", "enter")
        await settle(pilot, app)
        assert app.main.runtime == Release((5, 13)) and "as transformers 5.13" in release_line(app)
        assert not app.main.analysis.ok


async def test_a_sample_whose_result_depends_on_the_release_is_marked(demo):
    app = demo_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        main = app.main
        assert set(main.splits) == {0}  # call.txt; plain.txt parses alike everywhere
        assert "5.13–5.23: KeyError · 5.24: parses" in main.splits[0]
        shown = bar(app)
        assert f"call.txt {SPLIT_MARK}" in shown and f"plain.txt {SPLIT_MARK}" not in shown
        assert "depends on the release" in shown
        await pilot.press("f8")  # plain.txt: still marked in the bar, not described
        await settle(pilot, app)
        assert f"call.txt {SPLIT_MARK}" in bar(app) and "depends on the release" not in bar(app)


async def test_the_streaming_view_replays_as_the_chosen_release(demo):
    app = demo_app(demo, "5.23")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        app.main.action_stream()
        await settle(pilot, app)
        screen = app.screen
        assert screen.source.runtime == "5.23"
        assert screen.replay is not None and screen.replay.error is not None and "KeyError" in str(screen.replay.error)


async def test_ctrl_r_is_in_the_help_and_only_for_templates(demo, workdir):
    app = demo_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen) and ("ctrl+r", "Release") in app.screen.keys
    from tui_helpers import make_app

    schema_app = make_app(workdir)
    async with schema_app.run_test(size=SIZE) as pilot:
        await settle(pilot, schema_app)
        await pilot.press("ctrl+r")  # off for a schema, as ctrl+t is
        await pilot.pause()
        assert schema_app.screen is schema_app.main
        schema_app.main.action_pick_release()  # from the palette
        await pilot.pause()
        assert schema_app.screen is schema_app.main and "release picker is for response templates" in str(
            schema_app.main.status.render())


def test_open_runtime_starts_the_app_there(demo, workdir, monkeypatch):
    from workbench.cli.app import app as cli
    from workbench.tui import app as tui_app

    opened = {}
    monkeypatch.setattr(tui_app.WorkbenchApp, "run", lambda self: opened.update(runtime=self.runtime))
    sample = demo / "sample_outputs" / "demo" / "call.txt"
    result = CliRunner().invoke(cli, ["open", str(sample), "--template", "--runtime", "5.23"])
    assert result.exit_code == 0, result.output
    assert opened["runtime"] == Release((5, 23))
    assert CliRunner().invoke(cli, ["open", str(sample), "--template"]).exit_code == 0 and opened["runtime"] == NEWEST
    schema_sample = workdir / "sample_outputs" / "qwen3" / "tool_call.txt"
    refused = CliRunner().invoke(cli, ["open", str(schema_sample), "--runtime", "5.20"])
    assert refused.exit_code == 2 and "5.15 and later do not read response_schema" in refused.stderr
    assert CliRunner().invoke(cli, ["open", str(schema_sample), "--runtime", "5.10"]).exit_code == 0
    assert opened["runtime"] == NEWEST  # a schema's release: templates pasted later run as the newest
