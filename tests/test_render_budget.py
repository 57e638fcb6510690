"""Untrusted chat templates render under a budget (time, output, memory) in a child process, for
`roundtrip`, `draft` and `open --chat-template`; the text is what `render_chat` gives; `--var`
refuses the names the render keeps; `draft` and `roundtrip --write-samples` never write over their
inputs or twice to one path; `open --chat-template` removes its probe folder."""

from __future__ import annotations

import io
import os
import sys
import tempfile
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from workbench.cli.app import app
from workbench.engine.chat_template import ChatTemplateError, render_chat
from workbench.engine.chat_template.roundtrip import PROBES, USER_TURN, roundtrip, tools_for

try:  # imported here so that the tests of the CLI run (and fail) on a workbench without them
    from workbench.cli.output import ProgressLine
    from workbench.engine.chat_template import ChatRenderer, RenderBudget, RenderOverBudget, SandboxedRenderer
except ImportError:
    pass

ROOT = Path(__file__).resolve().parent.parent
CHAT = Path(__file__).parent / "chat_templates"
TEMPLATE = ROOT / "schemas" / "qwen3.template.json"

# The templates of the issue: hours of loops, gigabytes of memory, and text without end.
LOOPS = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"
STRFTIME = "{{ strftime_now('%Y' * 10**8) }}"
MULTIPLY = "{{ 'x' * 10**10 }}"
ENDLESS = "{% for i in range(100000) %}{{ 'x' * 100 }}{% endfor %}"
ANSWER = {"role": "assistant", "content": "Hi."}


class _NoTui:
    def __init__(self, *args, **kwargs):
        raise AssertionError("the TUI started")


@pytest.fixture(autouse=True)
def no_tui(monkeypatch):
    """`open` must stop before its TUI here; where it would not, the test fails instead of waiting."""
    import workbench.tui.app

    monkeypatch.setattr(workbench.tui.app, "WorkbenchApp", _NoTui)


def run(*args):
    result = CliRunner().invoke(app, [*map(str, args)])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result


def hostile(tmp_path: Path, source: str, name: str = "hostile.jinja") -> Path:
    path = tmp_path / name
    path.write_text(source, encoding="utf-8")
    return path


def commands(chat: Path, *extra) -> dict[str, tuple]:
    """The three commands that render a chat template, each with ``extra`` arguments."""
    return {
        "roundtrip": ("roundtrip", "--chat-template", chat, "--template", TEMPLATE, *extra),
        "draft": ("draft", "--chat-template", chat, *extra),
        "open": ("open", "--chat-template", chat, "--schema", TEMPLATE, *extra),
    }


# --- the budget (finding 14) ---------------------------------------------------------------------


@pytest.mark.parametrize("command", ["roundtrip", "draft", "open"])
def test_a_template_that_loops_for_hours_is_stopped_at_the_render_timeout(command, tmp_path):
    chat = hostile(tmp_path, LOOPS)
    started = time.monotonic()
    result = run(*commands(chat, "--render-timeout", "0.5")[command])
    assert time.monotonic() - started < 15
    assert result.exit_code == 2, result.output
    assert result.stderr == (f"error: {chat}: the chat template did not finish rendering within 0.5 s, so it was stopped "
                             "(--render-timeout SECONDS sets the time a command's renders may take together)\n")


# The memory cap is RLIMIT_AS above the child's size, read from /proc: Linux only.
LINUX_ONLY = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the memory cap needs Linux")


@LINUX_ONLY
@pytest.mark.parametrize("source", [STRFTIME, MULTIPLY], ids=["strftime", "multiply"])
def test_a_template_that_asks_for_gigabytes_is_stopped_by_the_memory_cap(source, tmp_path):
    chat = hostile(tmp_path, source)
    for command in commands(chat).values():
        result = run(*command)
        assert result.exit_code == 2, result.output
        assert result.stderr.startswith(f"error: {chat}: rendering the chat template needed more than 256 MiB of memory")
        assert result.stderr.endswith(", so it was stopped\n") and "Traceback" not in result.output


def test_a_template_that_writes_without_end_is_stopped_at_the_output_cap(tmp_path):
    chat = hostile(tmp_path, ENDLESS)
    for command in commands(chat).values():
        result = run(*command)
        assert result.exit_code == 2, result.output
        assert result.stderr == f"error: {chat}: a render of the chat template passed 1,000,000 characters, so it was stopped\n"


def test_render_timeout_must_be_a_positive_number(tmp_path):
    for value in ("0", "-1", "nan", "inf"):
        result = run(*commands(CHAT / "hermes.jinja", "--render-timeout", value)["roundtrip"])
        assert result.exit_code == 2 and "expected a positive number of seconds" in result.stderr, (value, result.output)


@LINUX_ONLY
def test_the_budget_in_the_engine_and_the_child_is_gone_after_it():
    small = RenderBudget(seconds=0.5, max_chars=1000, memory=64 * 2**20)
    with SandboxedRenderer("{{ 'y' * 10**8 }}", budget=small) as renderer:  # 100 MB: past a 64 MiB cap
        with pytest.raises(RenderOverBudget) as caught:
            renderer.render([USER_TURN])
        assert caught.value.kind == "memory" and caught.value.line == 1
    renderer = SandboxedRenderer("{{ 'y' * 1001 }}", budget=small)
    with pytest.raises(RenderOverBudget, match="passed 1,000 characters"):
        renderer.render([USER_TURN])
    renderer = SandboxedRenderer(LOOPS, budget=small)
    renderer.check()
    pid = renderer._pid
    with pytest.raises(RenderOverBudget, match="within 0.5 s"):
        renderer.render([USER_TURN])
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # killed and reaped
    assert renderer.used >= 0.5


def test_the_time_budget_is_shared_by_a_commands_renders():
    """Renders that each fit in the time budget do not, together."""
    slow = "{% for i in range(20000) %}{% for j in range(100) %}{% endfor %}{% endfor %}{{ messages | length }}"
    with SandboxedRenderer(slow, budget=RenderBudget(seconds=1.0)) as renderer:
        started = time.perf_counter()
        renderer.render([USER_TURN])
        one = time.perf_counter() - started
        if one > 0.5:
            pytest.skip(f"one render took {one:.2f} s on this machine")
        with pytest.raises(RenderOverBudget, match="within 1 s"):
            for n in range(2, 2 + int(2 / one) + 2):
                renderer.render([USER_TURN] * n)


def test_the_sandbox_renders_what_render_chat_renders():
    """The child runs the same code: every test template, every probe, byte for byte, errors too
    (the renders themselves are checked against transformers in test_chat_template_render.py)."""
    for path in sorted(CHAT.glob("*.jinja")):
        source = path.read_text(encoding="utf-8")
        for variables in ({}, {"enable_thinking": True}):
            with SandboxedRenderer(source, {"eos_token": "</s>"}, variables) as sandboxed:
                for message in PROBES.values():
                    for conversation, gen in (([USER_TURN], True), ([USER_TURN, message], False)):
                        tools = tools_for(message)
                        try:
                            expected = ("value", render_chat(source, conversation, tools=tools, add_generation_prompt=gen,
                                                             special_tokens={"eos_token": "</s>"}, **variables))
                        except ChatTemplateError as exc:
                            expected = ("error", str(exc))
                        try:
                            got = ("value", sandboxed.render(conversation, tools=tools, add_generation_prompt=gen))
                        except ChatTemplateError as exc:
                            got = ("error", str(exc))
                        assert got == expected, (path.stem, variables, conversation[-1])


def test_a_templates_own_errors_stay_errors_of_the_template(tmp_path):
    with SandboxedRenderer("a\n{{ raise_exception('no') }}") as renderer:
        with pytest.raises(ChatTemplateError, match=r"^line 2: the template raised: no$"):
            renderer.render([USER_TURN])
        assert renderer._pid is not None  # the child goes on
    broken = hostile(tmp_path, "{% for m in messages %}\n{{ m.content }\n", "broken.jinja")
    for command in commands(broken).values():
        result = run(*command)
        assert result.exit_code == 2 and f"{broken}: line 2: template syntax error" in result.stderr, result.output


def test_a_conversation_is_rendered_once_per_command():
    renderer = ChatRenderer((CHAT / "qwen3.jinja").read_text(encoding="utf-8"))
    statuses = []
    renderer.progress = statuses.append
    first = roundtrip(renderer, lambda output, prompt: {"role": "assistant", "content": output})
    rendered = renderer.renders  # a prompt without tools is the same for three probes: rendered once
    assert rendered == len(statuses) < 2 * len(PROBES) and statuses[0] == f"probe 1/{len(PROBES)} (plain_answer)"
    again = roundtrip(renderer, lambda output, prompt: {"role": "assistant", "content": output})
    assert renderer.renders == rendered and [r.output for r in again] == [r.output for r in first]


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_open_shows_which_probe_renders_before_the_tui_starts(tmp_path, monkeypatch):
    from workbench.cli.open import _probe_samples
    from workbench.store.document import SchemaDocument

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setenv("COLUMNS", "300")  # a line wider than the terminal is cut to fit
    _probe_samples(CHAT / "thinking_chatml.jinja", SchemaDocument.open(TEMPLATE), [], tmp_path)
    shown = terminal.getvalue().split("\r\x1b[K")
    assert shown[1] == f"rendering {CHAT / 'thinking_chatml.jinja'}: probe 1/{len(PROBES)} (plain_answer) …"
    assert len(shown) == len(PROBES) + 2 and shown[-1] == ""  # a line per probe, then erased


def test_a_progress_line_on_a_terminal_only():
    terminal, log = Terminal(), io.StringIO()
    for stream in (terminal, log):
        with ProgressLine("rendering t.jinja: ", stream) as line:
            line("probe 3/7 (one_call)")
            line("probe 3/7 (one_call)")  # the same text is not written again
    assert terminal.getvalue() == "\r\x1b[Krendering t.jinja: probe 3/7 (one_call) …\r\x1b[K"
    assert log.getvalue() == ""


def test_a_progress_line_fits_the_terminal(monkeypatch):
    monkeypatch.setenv("COLUMNS", "20")
    terminal = Terminal()
    ProgressLine("rendering \x1b[31mred.jinja: ", terminal)("probe 1/7 (plain_answer)")
    assert terminal.getvalue() == "\r\x1b[K" + "rendering ␛[31mred…"  # 19 columns, control characters shown


# --- --var names the render keeps (finding 11) ---------------------------------------------------


@pytest.mark.parametrize("command", ["roundtrip", "draft", "open"])
@pytest.mark.parametrize("name", ["messages", "tools", "add_generation_prompt", "documents", "tokenize"])
def test_a_var_the_render_sets_itself_is_refused_by_name(command, name):
    result = run(*commands(CHAT / "hermes.jinja", "--var", f"{name}=[]")[command])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"error: --var {name}: {name!r} cannot be a template variable: the render sets "
                                    "messages, tools, documents, add_generation_prompt itself, and conversation, ")
    assert result.stderr.count("\n") == 1


def test_variables_named_like_the_engines_own_arguments_reach_the_template():
    source = "{{ source }}/{{ special_tokens }}/{{ probes }}/{{ parse }}{% for m in messages %}{{ m.content }}{% endfor %}"
    results = roundtrip(source, lambda output, prompt: ANSWER, variables={"source": 1, "special_tokens": 2, "probes": 3, "parse": 4})
    assert results[0].prompt.startswith("1/2/3/4")
    with pytest.raises(ChatTemplateError, match="'tokenize' cannot be a template variable"):
        render_chat(source, [USER_TURN], tokenize=False)


# --- outputs (finding 5) -------------------------------------------------------------------------


def test_draft_never_writes_over_its_chat_template_even_with_force(tmp_path):
    chat = tmp_path / "chat.jinja"
    chat.write_text((CHAT / "hermes.jinja").read_text(encoding="utf-8"), encoding="utf-8")
    before = chat.read_bytes()
    for args in (("-o", chat, "--force"), ("--schema-out", chat, "--force"), ("-o", tmp_path / "x.json", "--schema-out", chat, "--force")):
        result = run("draft", "--chat-template", chat, *args)
        assert result.exit_code == 2 and f"{chat}: is one of this command's inputs" in result.stderr, result.output
        assert chat.read_bytes() == before and not (tmp_path / "x.json").exists()
    folder = tmp_path / "tok"
    folder.mkdir()
    (folder / "chat_template.jinja").write_bytes(before)
    (folder / "tokenizer_config.json").write_text('{"eos_token": "</s>"}', encoding="utf-8")
    result = run("draft", "--chat-template", folder, "--schema-out", folder / "tokenizer_config.json", "--force")
    assert result.exit_code == 2 and "is one of this command's inputs" in result.stderr
    assert (folder / "tokenizer_config.json").read_text(encoding="utf-8") == '{"eos_token": "</s>"}'


def test_draft_never_writes_two_outputs_to_one_path(tmp_path):
    out = tmp_path / "A"
    result = run("draft", "--chat-template", CHAT / "hermes.jinja", "-o", out, "--schema-out", out)
    assert result.exit_code == 2 and "named twice as an output" in result.stderr and "wrote" not in result.stderr
    assert not out.exists()


def test_draft_writes_nothing_when_the_render_overruns_the_budget(tmp_path):
    chat = hostile(tmp_path, ENDLESS)
    result = run("draft", "--chat-template", chat, "-o", tmp_path / "t.json", "--schema-out", tmp_path / "s.json")
    assert result.exit_code == 2 and not (tmp_path / "t.json").exists() and not (tmp_path / "s.json").exists()


def test_write_samples_never_writes_over_an_input(tmp_path):
    folder = tmp_path / "samples"
    folder.mkdir()
    chat = folder / "plain_answer.txt"  # the chat template, where the plain answer's output would go
    chat.write_text((CHAT / "thinking_chatml.jinja").read_text(encoding="utf-8"), encoding="utf-8")
    before = chat.read_bytes()
    result = run("roundtrip", "--chat-template", chat, "--template", TEMPLATE, "--write-samples", folder, "--force")
    assert result.exit_code == 2 and f"{chat}: is one of this command's inputs" in result.stderr, result.output
    assert chat.read_bytes() == before and sorted(p.name for p in folder.iterdir()) == ["plain_answer.txt"]
    parser = folder / "one_call.template.expected.json"  # the parser, where a golden would go
    parser.write_bytes(TEMPLATE.read_bytes())
    result = run("roundtrip", "--chat-template", CHAT / "thinking_chatml.jinja", "--template", parser, "--write-samples", folder, "--force")
    assert result.exit_code == 2 and f"{parser}: is one of this command's inputs" in result.stderr, result.output
    assert parser.read_bytes() == TEMPLATE.read_bytes()


# --- open's probe folder (finding 15) ------------------------------------------------------------


class _App:
    """Stands in for the TUI: records the probe files it was given, then does what ``outcome`` says."""

    seen: list[Path] = []
    outcome: Exception | None = None
    rescued: list[str] = []
    return_code = 0

    def __init__(self, document, samples, tools=None, runtime=None):
        _App.seen = [s.path for s in samples]

    def run(self):
        assert _App.seen and all(p.is_file() for p in _App.seen)
        if _App.outcome is not None:
            raise _App.outcome


@pytest.mark.parametrize("outcome", [None, RuntimeError("the app failed")], ids=["exits", "raises"])
def test_open_removes_its_probe_folder_when_the_app_ends(outcome, tmp_path, monkeypatch):
    import workbench.tui.app

    monkeypatch.setattr(workbench.tui.app, "WorkbenchApp", _App)
    monkeypatch.setattr(_App, "outcome", outcome)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    result = CliRunner().invoke(app, ["open", "--chat-template", str(CHAT / "thinking_chatml.jinja"), "--schema", str(TEMPLATE)])
    assert (result.exception is outcome) if outcome else result.exit_code == 0, result.output
    assert len(_App.seen) == len(PROBES) and _App.seen[0].parent.name.startswith("workbench-probes-")
    assert not _App.seen[0].parent.exists() and list(tmp_path.iterdir()) == []


def test_open_removes_its_probe_folder_when_the_probes_cannot_render(tmp_path, monkeypatch):
    chat = hostile(tmp_path, ENDLESS)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    result = run("open", "--chat-template", chat, "--schema", TEMPLATE)
    assert result.exit_code == 2 and list(scratch.iterdir()) == []


def test_a_child_that_dies_is_said_to_have_died():
    import signal

    renderer = SandboxedRenderer("{{ messages | length }}")
    assert renderer.render([USER_TURN]) == "1"
    os.kill(renderer._pid, signal.SIGSEGV)
    with pytest.raises(RenderOverBudget, match=r"ended unexpectedly \(signal SIGSEGV\)"):
        renderer.render([USER_TURN, USER_TURN])
    assert renderer._pid is None


def test_a_renderer_nobody_closed_takes_its_child_with_it():
    import gc

    renderer = SandboxedRenderer("{{ messages | length }}")
    renderer.check()
    pid = renderer._pid
    del renderer
    gc.collect()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
