"""An error nothing expected closes the app; the user's unsaved edits must outlive it."""

from __future__ import annotations

import pytest
from tui_helpers import SIZE, make_app, settle


class Boom(RuntimeError):
    pass


async def test_an_unexpected_error_keeps_the_unsaved_edits_in_new_files(workdir):
    schema = workdir / "schemas" / "qwen3.json"
    saved = schema.read_text(encoding="utf-8")
    app = make_app(workdir)
    with pytest.raises(Boom):  # Pilot re-raises the app's error when the test leaves
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, app)
            editor = app.main.editor
            editor.move_cursor((0, 0))
            editor.insert(" ")
            await pilot.pause()

            def fail() -> None:
                raise Boom("a bug")

            app.call_later(fail)
            await pilot.pause()
    assert app.return_code == 1
    assert schema.read_text(encoding="utf-8") == saved  # the file itself untouched
    kept = sorted(schema.parent.glob("qwen3.json.unsaved-*"))
    assert len(kept) == 1 and kept[0].read_text(encoding="utf-8") == " " + saved
    assert app.rescued == [f"unsaved edits of {schema} kept in {kept[0]}"]


async def test_without_edits_nothing_is_written(workdir):
    app = make_app(workdir)
    with pytest.raises(Boom):
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, app)

            def fail() -> None:
                raise Boom("a bug")

            app.call_later(fail)
            await pilot.pause()
    assert app.rescued == []
    assert not list((workdir / "schemas").glob("*.unsaved-*"))


def test_a_rescue_never_replaces_a_file(tmp_path):
    from workbench.tui.rescue import rescue

    target = tmp_path / "s.json"
    first = rescue([(target, "one")], now=0)
    second = rescue([(target, "two")], now=0)
    files = sorted(p.read_text() for p in tmp_path.glob("s.json.unsaved-*"))
    assert files == ["one", "two"] and first != second


def test_open_says_where_the_edits_went_and_exits_with_the_apps_code(monkeypatch, tmp_path):
    from typer.testing import CliRunner

    import workbench.tui.app
    from workbench.cli.app import app

    class Crashed:
        rescued = ["unsaved edits of s.json kept in s.json.unsaved-1"]
        return_code = 1

        def __init__(self, *args, **kwargs):
            pass

        def run(self):
            pass

    monkeypatch.setattr(workbench.tui.app, "WorkbenchApp", Crashed)
    sample = tmp_path / "a.txt"
    sample.write_text("hello", encoding="utf-8")
    result = CliRunner().invoke(app, ["open", str(sample)])
    assert result.exit_code == 1
    assert "unsaved edits of s.json kept in s.json.unsaved-1" in result.stderr


async def test_closing_the_terminal_keeps_the_unsaved_edits(workdir):
    """SIGHUP (the terminal closed) or SIGTERM: the edits are kept in a new file and the app ends
    with the signal's exit code."""
    import os
    import signal

    schema = workdir / "schemas" / "qwen3.json"
    saved = schema.read_text(encoding="utf-8")
    app = make_app(workdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        app.main.editor.move_cursor((0, 0))
        app.main.editor.insert(" ")
        await pilot.pause()
        # The app must hold SIGHUP before it is sent: unheld, it would end the test run itself.
        assert signal.SIGHUP in app._signals
        os.kill(os.getpid(), signal.SIGHUP)  # delivered to the app's event loop
        await pilot.pause(0.2)
    assert app.return_code == 128 + signal.SIGHUP
    kept = sorted(schema.parent.glob("qwen3.json.unsaved-*"))
    assert len(kept) == 1 and kept[0].read_text(encoding="utf-8") == " " + saved
    assert schema.read_text(encoding="utf-8") == saved
    # the handler went with the app: nothing is left to remove
    import asyncio

    assert asyncio.get_running_loop().remove_signal_handler(signal.SIGHUP) is False
