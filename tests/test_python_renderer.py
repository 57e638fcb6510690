"""``--renderer FILE.py:FUNC --trust-renderer`` (issue 23): a model whose chat format is a Python
encoder, not a Jinja template. Its code runs only when the user says so, and then only in the
renderer's child process under the render budget; ``roundtrip``, ``draft`` and ``new`` work
through it as through a chat template."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from workbench.cli.app import app
from workbench.engine.chat_template import ChatTemplateError, RenderBudget, RenderOverBudget
from workbench.engine.chat_template.python_renderer import PythonRenderer
from workbench.engine.chat_template.roundtrip import PROBES

RENDERERS = Path(__file__).parent / "renderers"
DSML = f"{RENDERERS / 'dsml.py'}:encode"
HOSTILE = RENDERERS / "hostile.py"
RAISES_LINE = next(i for i, line in enumerate(HOSTILE.read_text().splitlines(), 1) if "RAISES_LINE" in line)


def invoke(*args) -> object:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    return result


@pytest.fixture
def marker(tmp_path, monkeypatch) -> Path:
    """Where the hostile file writes the id of each process that imports it."""
    path = tmp_path / "imported-by"
    monkeypatch.setenv("WORKBENCH_TEST_MARKER", str(path))
    return path


def test_the_renderer_does_not_run_without_trust(marker):
    for command in (["roundtrip", "--template", "schemas/qwen3.template.json"], ["draft"]):
        result = invoke(*command, "--renderer", f"{HOSTILE}:spins")
        assert result.exit_code == 2
        assert "--trust-renderer" in result.output and "hostile.py" in result.output
    assert not marker.exists()  # the file was never imported, anywhere


def test_the_renderer_runs_in_a_child_process_only(marker):
    with PythonRenderer(HOSTILE, "raises") as renderer:
        with pytest.raises(ChatTemplateError) as raised:
            renderer.render([{"role": "user", "content": "hi"}])
    assert raised.value.line == RAISES_LINE and "KeyError" in raised.value.message
    pids = marker.read_text().split()
    assert pids and str(os.getpid()) not in pids
    assert not any(name.startswith("workbench_renderer_") for name in sys.modules)


def test_the_drafted_parsers_of_a_dsml_renderer_round_trip(tmp_path):
    out, schema_out = tmp_path / "dsml.template.json", tmp_path / "dsml.json"
    result = invoke("draft", "--renderer", DSML, "--trust-renderer", "-o", out, "--schema-out", schema_out, "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert any("function_calls" in line and 'string="false"' in line for line in report["findings"]), report["findings"]
    for side in ("roundtrip", "schema_roundtrip"):
        assert [r["probe"] for r in report[side] if r["differences"]] == [], report[side]
    # the typed argument (string="false") and the string one both come back, in the probe's own values
    parallel = next(r for r in report["roundtrip"] if r["probe"] == "parallel_calls")
    assert parallel["parsed"]["tool_calls"] == [
        {"type": "function", "function": call["function"]} for call in PROBES["parallel_calls"]["tool_calls"]
    ]
    both = invoke("roundtrip", "--renderer", DSML, "--trust-renderer", "--schema", schema_out, "--template", out)
    assert both.exit_code == 0, both.output
    assert "schema: 7 probes: no difference" in both.output and "template: 7 probes: no difference" in both.output


def test_a_renderer_variable_reaches_the_function():
    # thinking=false: the prompt pre-writes the closer, and the draft reads that as an empty reasoning block
    result = invoke("draft", "--renderer", DSML, "--trust-renderer", "--var", "thinking=false", "--json")
    assert result.exit_code == 0, result.output
    assert "prefill '</think>'" in " ".join(json.loads(result.stdout)["findings"])


def test_new_makes_a_family_from_a_renderer(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = invoke("new", "dsmlx", "--renderer", DSML, "--trust-renderer", "--no-open")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "schemas" / "dsmlx.template.json").is_file() and (tmp_path / "schemas" / "dsmlx.json").is_file()
    assert "1 of 1 templates pass" in result.output


@pytest.mark.parametrize("function, words", [
    ("spins", "did not finish rendering within 1 s"),
    ("hoards", "more than"),
    ("raises", f"line {RAISES_LINE}: KeyError"),
    ("not_text", "returned list, not the rendered text"),
    ("absent", "defines no function 'absent'; it has: escapes, hoards, not_text, raises, spins"),
])
def test_a_misbehaving_renderer_is_unusable_input_said_in_one_line(function, words):
    result = invoke("roundtrip", "--renderer", f"{HOSTILE}:{function}", "--trust-renderer", "--render-timeout", "1",
                    "--template", "schemas/qwen3.template.json")
    assert result.exit_code == 2, result.output
    assert words in result.output and "hostile.py" in result.output, result.output


@pytest.mark.parametrize("args, words", [
    (["--renderer", "encoding.py"], "expected FILE.py:FUNCTION"),
    (["--renderer", "missing.py:encode", "--trust-renderer"], "no such renderer file"),
    (["--renderer", DSML, "--trust-renderer", "--chat-template", "tests/chat_templates/qwen3.jinja"], "--chat-template SRC or --renderer"),
    ([], "--chat-template SRC or --renderer"),
    (["--chat-template", "tests/chat_templates/qwen3.jinja", "--trust-renderer"], "--trust-renderer goes with --renderer"),
    (["--renderer", DSML, "--trust-renderer", "--var", "colour=1"], "has no parameter 'colour'"),
])
def test_bad_renderer_options_are_said(args, words):
    result = invoke("roundtrip", "--template", "schemas/qwen3.template.json", *args)
    assert result.exit_code == 2 and words in result.output, result.output


def test_the_budget_stops_a_renderer_in_process_too():
    with PythonRenderer(HOSTILE, "spins", budget=RenderBudget(seconds=0.5)) as renderer:
        with pytest.raises(RenderOverBudget):
            renderer.render([{"role": "user", "content": "hi"}])


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _in_group(pgid: int, field: int = 2) -> list[int]:
    """Processes running in process group ``pgid`` (``field`` 3: in session ``pgid``)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[field]) == pgid and fields[0] != "Z":
                found.append(int(entry.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
def test_a_renderer_cannot_raise_its_limits_or_leave_a_process_behind():
    """The hard limits are the budget's, so the renderer cannot lift them; what it starts is in the
    child's process group, killed with it when the renderer closes."""
    import resource
    import time

    budget = RenderBudget(seconds=3)
    with PythonRenderer(HOSTILE, "escapes", budget=budget) as renderer:
        got = renderer.render([{"role": "user", "content": "hi"}])
        memory, cpu, group, started, forked = map(int, got.split())
        child = renderer._pid
        assert group == child and group != os.getpgrp()  # a group of its own
        assert cpu == 3 + 2  # the budget's CPU seconds (and 2 more), not unlimited
        assert memory != resource.RLIM_INFINITY and memory < 2**40
        assert _alive(started) and _alive(forked)
    deadline = time.monotonic() + 5
    while (_in_group(group) or _alive(started) or _alive(forked)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _in_group(group) and not _alive(started) and not _alive(forked)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
def test_no_process_of_a_renderer_is_left_after_the_command(tmp_path):
    """Through the CLI too: the round trip's renders end, and nothing the renderer started runs on."""
    import time

    session = lambda: set(_in_group(os.getsid(0), 3))  # noqa: E731 - the renderer's child has a group, not a session, of its own
    before = session()
    result = invoke("roundtrip", "--renderer", f"{HOSTILE}:escapes", "--trust-renderer", "--render-timeout", "3",
                    "--template", "schemas/qwen3.template.json")
    assert result.exit_code in (0, 1, 2), result.output
    deadline = time.monotonic() + 5
    while session() - before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not session() - before
