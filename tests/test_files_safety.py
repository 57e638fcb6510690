"""Nothing lost, nothing injected: what the workbench writes and prints.

Writes keep a replaced file's mode, owner and group, refuse a read-only file unless told, say when a
hard link is broken or a symbolic link written through, and leave no temporary file behind when
SIGTERM or SIGHUP ends the process mid-write. Commands print a value holding a lone surrogate
(``{"a": "\\ud800"}``, which models emit and transformers returns) as its escape instead of dying,
and never pass a file's control characters to the terminal. ``check`` names a golden it cannot
read and ``check --update`` leaves it alone unless ``--force``.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from workbench.store.files import ReadOnlyError, WriteError, atomic_write, atomic_write_all

ROOT = Path(__file__).resolve().parent.parent
SURROGATE_CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "\\ud800"}}\n</tool_call><|im_end|>'


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workbench", *args], capture_output=True, cwd=cwd)


def clean(result: subprocess.CompletedProcess, code: int) -> tuple[str, str]:
    """stdout and stderr of a run that ended with ``code`` and no traceback; both valid UTF-8."""
    out, err = result.stdout.decode("utf-8"), result.stderr.decode("utf-8")
    assert result.returncode == code, out + err
    assert "Traceback" not in out + err and "Error:" not in err.split("error:")[0], err
    return out, err


def temp_files(folder: Path) -> list[Path]:
    return [p for p in folder.iterdir() if p.name.endswith(".tmp")]


# ----- finding 9: modes, owners, read-only files, links -----------------------------------------------


def test_a_read_only_file_is_refused_and_kept(tmp_path):
    target = tmp_path / "schema.json"
    target.write_text("old\n")
    target.chmod(0o444)
    with pytest.raises(ReadOnlyError, match="schema.json: is read-only"):
        atomic_write(target, "new\n")
    assert target.read_text() == "old\n" and temp_files(tmp_path) == []


def test_a_read_only_file_among_several_means_nothing_is_written(tmp_path):
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_text("a\n")
    second.write_text("b\n")
    second.chmod(0o444)
    with pytest.raises(ReadOnlyError):
        atomic_write_all([(first, "A\n"), (second, "B\n")])
    assert first.read_text() == "a\n" and second.read_text() == "b\n" and temp_files(tmp_path) == []


def test_allow_read_only_replaces_it_and_it_stays_read_only(tmp_path):
    target = tmp_path / "schema.json"
    target.write_text("old\n")
    target.chmod(0o444)
    atomic_write(target, "new\n", allow_read_only=True)
    assert target.read_text() == "new\n" and stat.S_IMODE(target.stat().st_mode) == 0o444


@pytest.mark.skipif(not hasattr(os, "chown") or os.geteuid() != 0, reason="giving a file to another user needs root")
def test_owner_group_and_mode_are_kept(tmp_path):
    target = tmp_path / "tokenizer_config.json"
    target.write_text("{}\n")
    os.chown(target, 12345, 23456)
    target.chmod(0o640)
    notices = atomic_write(target, '{"a": 1}\n')
    info = target.stat()
    assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (12345, 23456, 0o640)
    assert target.read_text() == '{"a": 1}\n' and notices == []


def test_a_new_file_gets_the_umask_mode(tmp_path):
    mask = os.umask(0o022)
    os.umask(mask)
    atomic_write(tmp_path / "new.json", "{}\n")
    assert stat.S_IMODE((tmp_path / "new.json").stat().st_mode) == 0o666 & ~mask


def test_a_hard_link_broken_is_said(tmp_path):
    target, other = tmp_path / "schema.json", tmp_path / "copy.json"
    target.write_text("old\n")
    os.link(target, other)
    notices = atomic_write(target, "new\n")
    assert target.read_text() == "new\n" and other.read_text() == "old\n"
    assert len(notices) == 1 and "hard link" in notices[0] and "schema.json" in notices[0]


def test_a_symlink_is_written_through_and_kept(tmp_path):
    real = tmp_path / "real" / "schema.json"
    real.parent.mkdir()
    real.write_text("old\n")
    real.chmod(0o600)
    link = tmp_path / "schema.json"
    link.symlink_to(real)
    notices = atomic_write(link, "new\n")
    assert link.is_symlink() and real.read_text() == "new\n" and stat.S_IMODE(real.stat().st_mode) == 0o600
    assert len(notices) == 1 and "symbolic link" in notices[0]
    assert temp_files(tmp_path) == [] and temp_files(real.parent) == []


def test_a_read_only_symlink_target_is_refused(tmp_path):
    real = tmp_path / "real.json"
    real.write_text("old\n")
    real.chmod(0o444)
    (tmp_path / "link.json").symlink_to(real)
    with pytest.raises(ReadOnlyError, match="link.json"):
        atomic_write(tmp_path / "link.json", "new\n")
    assert real.read_text() == "old\n"


def test_text_utf8_cannot_carry_is_refused_not_half_written(tmp_path):
    target = tmp_path / "golden.txt"
    target.write_text("old\n")
    with pytest.raises(WriteError, match="golden.txt: cannot write.*U\\+D800"):
        atomic_write(target, "bad \ud800\n")
    assert target.read_text() == "old\n" and temp_files(tmp_path) == []


# ----- finding 7: SIGTERM and SIGHUP while staging ---------------------------------------------------

WRITER = textwrap.dedent("""\
    import os, sys, time
    from workbench.store import files
    fsync = os.fsync
    def slow(fd):  # the moment the temporary file is full-size: tell the test, then take a while
        print("staged", flush=True)
        time.sleep(30)
        fsync(fd)
    os.fsync = slow
    files.atomic_write(sys.argv[1], "x" * 5_000_000)
    print("done", flush=True)
""")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_mid_write_leaves_no_temporary_file(tmp_path, signum):
    target = tmp_path / "tokenizer_config.json"
    target.write_text("{}\n")
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen([sys.executable, str(script), str(target)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        assert child.stdout.readline() == b"staged\n"
        assert any(p.stat().st_size == 5_000_000 for p in temp_files(tmp_path))
        child.send_signal(signum)
        child.wait(timeout=20)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    # The process ends as the signal says (not with a traceback), and the folder is as it was.
    assert child.returncode == -signum, child.stderr.read().decode()
    assert temp_files(tmp_path) == [] and target.read_text() == "{}\n"


def test_the_signal_handlers_are_put_back(tmp_path):
    before = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP)}
    atomic_write(tmp_path / "a.json", "{}\n")
    assert {s: signal.getsignal(s) for s in before} == before


# ----- finding 4: a lone surrogate in a value, control characters in names ----------------------------


@pytest.fixture
def surrogate_sample(tmp_path) -> Path:
    sample = tmp_path / "call.txt"
    sample.write_text(SURROGATE_CALL, encoding="utf-8")
    return sample


@pytest.mark.parametrize("parser", ["qwen3.json", "qwen3.template.json"])
@pytest.mark.parametrize("flags", [[], ["--trace"]])
def test_parse_prints_a_lone_surrogate_as_its_escape(surrogate_sample, parser, flags):
    before = surrogate_sample.read_bytes()
    out, _ = clean(run("parse", str(surrogate_sample), "--schema", str(ROOT / "schemas" / parser), *flags), 0)
    assert "\\ud800" in out
    value = json.loads(out)
    message = value["message"] if flags else value
    assert message["tool_calls"][0]["function"]["arguments"] == {"city": "\ud800"}
    assert surrogate_sample.read_bytes() == before


def test_parse_stream_prints_a_lone_surrogate_as_its_escape(surrogate_sample):
    out, _ = clean(run("parse", str(surrogate_sample), "--schema", str(ROOT / "schemas" / "qwen3.template.json"), "--stream"), 0)
    last = json.loads(out.splitlines()[-1])
    assert last["step"] == "message" and last["message"]["tool_calls"][0]["function"]["arguments"] == {"city": "\ud800"}


def qwen3_tree(tmp_path: Path) -> Path:
    """A checkable tree: the qwen3 schema and template with one sample, ``call``."""
    folder = tmp_path / "tree" / "sample_outputs" / "qwen3"
    folder.mkdir(parents=True)
    (tmp_path / "tree" / "schemas").mkdir()
    for name in ("qwen3.json", "qwen3.template.json"):
        shutil.copy(ROOT / "schemas" / name, tmp_path / "tree" / "schemas" / name)
    shutil.copy(ROOT / "sample_outputs" / "qwen3" / "default.prompt.txt", folder)
    shutil.copy(ROOT / "sample_outputs" / "qwen3" / "tool_call.txt", folder / "call.txt")
    for name in ("tool_call.expected.json", "tool_call.template.expected.json"):
        shutil.copy(ROOT / "sample_outputs" / "qwen3" / name, folder / name.replace("tool_call", "call"))
    return tmp_path / "tree"


@pytest.mark.parametrize("flags", [[], ["--json"], ["--update"]])
def test_check_with_a_lone_surrogate_in_a_result(tmp_path, flags):
    root = qwen3_tree(tmp_path)
    folder = root / "sample_outputs" / "qwen3"
    text = (folder / "call.txt").read_text(encoding="utf-8")
    (folder / "call.txt").write_text(text.replace('"city": "Zürich"', '"city": "\\ud800"'), encoding="utf-8")
    out, _ = clean(run("check", *flags, cwd=root), 0 if flags == ["--update"] else 1)
    if flags == ["--json"]:
        assert "\\ud800" in json.dumps(json.loads(out))
    else:
        assert "\\ud800" in out
    if flags == ["--update"]:
        golden = json.loads((folder / "call.expected.json").read_text(encoding="utf-8"))
        assert golden["tool_calls"][0]["function"]["arguments"]["city"] == "\ud800"
        clean(run("check", cwd=root), 0)  # and the golden written is the result


def test_messages_show_control_characters_in_file_names_as_symbols(tmp_path):
    sample = tmp_path / "evil\x1b]0;owned\x07.txt"
    sample.write_text("hello", encoding="utf-8")
    _, err = clean(run("parse", str(sample), "--schema", str(tmp_path / "missing\x1b[2J.json")), 2)
    assert "\x1b" not in err and "\x07" not in err and "␛" in err and len(err.strip().splitlines()) == 1


def test_reports_show_control_characters_from_files_as_symbols(tmp_path):
    schema = tmp_path / "s\x1b[31m.json"
    schema.write_text(json.dumps({"type": "object", "properties": {"a\x1b]52;c;AAAA\x07": {"type": "string"}}}))
    out, _ = clean(run("validate", str(schema)), 0)
    assert "\x1b" not in out and "\x07" not in out


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS refuses file names that are not UTF-8")
def test_a_file_name_that_is_not_utf8_is_printed_not_fatal(tmp_path):
    root = qwen3_tree(tmp_path)
    folder = root / "sample_outputs" / "qwen3"
    os.rename(folder / "call.txt", os.fsencode(folder) + b"/caf\xe9.txt")
    out, _ = clean(run("check", "--update", cwd=root), 0)
    assert "caf\\udce9" in out


# ----- finding 6: a golden check cannot read ---------------------------------------------------------

CONFLICTED = '<<<<<<< HEAD\n{"role": "assistant", "content": "a"}\n=======\n{"role": "assistant", "content": "b"}\n>>>>>>> theirs\n'


@pytest.mark.parametrize(
    "text, where",
    [(CONFLICTED, "call.expected.json:1: git conflict marker"), ('{"role": "assistant", "tool_calls": [\n', "call.expected.json:2:")],
    ids=["conflict markers", "cut short"],
)
def test_check_names_a_golden_it_cannot_read_and_update_leaves_it(tmp_path, text, where):
    root = qwen3_tree(tmp_path)
    golden = root / "sample_outputs" / "qwen3" / "call.expected.json"
    golden.write_text(text, encoding="utf-8")
    out, _ = clean(run("check", cwd=root), 1)
    assert where in out.replace("\n", "") or where in " ".join(out.split()), out
    assert "no golden" not in out

    result = json.loads(clean(run("check", "--json", cwd=root), 1)[0])
    case = next(c for r in result if r["format"] == "response_schema" for c in r["cases"])
    assert case["status"] == "unreadable golden" and where in case["difference"]

    _, err = clean(run("check", "--update", cwd=root), 1)
    assert where in err and "--force" in err
    assert golden.read_text(encoding="utf-8") == text

    clean(run("check", "--update", "--force", cwd=root), 0)
    assert json.loads(golden.read_text(encoding="utf-8"))["role"] == "assistant"
    clean(run("check", cwd=root), 0)


def test_an_error_golden_with_conflict_markers_or_nothing_is_unreadable(tmp_path):
    root = qwen3_tree(tmp_path)
    folder = root / "sample_outputs" / "qwen3"
    (folder / "call.template.expected.json").unlink()
    (folder / "call.template.expected-error.txt").write_text("")
    result = json.loads(clean(run("check", "--json", cwd=root), 1)[0])
    case = next(c for r in result if r["format"] == "response_template" for c in r["cases"])
    assert case["status"] == "unreadable golden" and "call.template.expected-error.txt:1: empty golden" in case["difference"]


def test_check_update_leaves_a_read_only_golden_unless_forced(tmp_path):
    root = qwen3_tree(tmp_path)
    golden = root / "sample_outputs" / "qwen3" / "call.expected.json"
    golden.write_text('{"role": "assistant", "content": "kept on purpose"}\n', encoding="utf-8")
    golden.chmod(0o444)
    _, err = clean(run("check", "--update", cwd=root), 1)
    assert "call.expected.json: is read-only" in err and "--force" in err
    assert "kept on purpose" in golden.read_text(encoding="utf-8")
    clean(run("check", "--update", "--force", cwd=root), 0)
    assert "kept on purpose" not in golden.read_text(encoding="utf-8")
    assert stat.S_IMODE(golden.stat().st_mode) == 0o444


def test_force_goes_with_update(tmp_path):
    clean(run("check", "--force", cwd=qwen3_tree(tmp_path)), 2)


# ----- finding 9 in the TUI: saving over a read-only schema asks ---------------------------------------


async def test_tui_save_over_a_read_only_schema_asks_and_keeps_its_mode(workdir):
    from tui_helpers import SIZE, make_app, settle

    from workbench.tui.screens.confirm import ConfirmScreen

    schema = workdir / "schemas" / "qwen3.json"
    before = schema.read_text(encoding="utf-8")
    schema.chmod(0o444)
    app = make_app(workdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        app.main.editor.insert(" ", (0, 0))
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen) and "is read-only. Replace it anyway?" in app.screen.question
        await pilot.press("escape")
        await pilot.pause()
        assert schema.read_text(encoding="utf-8") == before and app.main.dirty
        assert "Saved" not in str(app.main.status.render()) and "read-only" in str(app.main.status.render())

        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.click("#yes")
        await pilot.pause()
        assert schema.read_text(encoding="utf-8") == " " + before and not app.main.dirty
        assert stat.S_IMODE(schema.stat().st_mode) == 0o444
        assert "Saved" in str(app.main.status.render())


async def test_tui_save_says_when_a_hard_link_is_broken(workdir):
    from tui_helpers import SIZE, make_app, settle

    schema = workdir / "schemas" / "qwen3.json"
    os.link(schema, workdir / "linked.json")
    app = make_app(workdir)
    toasts: list[str] = []
    app.notify = lambda message, *args, **kwargs: toasts.append(message)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        app.main.editor.insert(" ", (0, 0))
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert any("hard link" in t for t in toasts), toasts


def test_check_update_says_when_it_breaks_a_hard_link(tmp_path):
    root = qwen3_tree(tmp_path)
    golden = root / "sample_outputs" / "qwen3" / "call.expected.json"
    golden.write_text('{"role": "assistant"}\n', encoding="utf-8")
    os.link(golden, tmp_path / "elsewhere.json")
    _, err = clean(run("check", "--update", cwd=root), 0)
    assert "note: sample_outputs/qwen3/call.expected.json had 1 other hard link" in err and len(err.splitlines()) == 1
    assert (tmp_path / "elsewhere.json").read_text(encoding="utf-8") == '{"role": "assistant"}\n'


def test_migrate_force_replaces_a_read_only_out_keeping_its_mode(tmp_path):
    root = qwen3_tree(tmp_path)
    out = root / "out.template.json"
    out.write_text("{}\n")
    out.chmod(0o444)
    _, err = clean(run("migrate", "schemas/qwen3.json", "--out", "out.template.json", cwd=root), 2)
    assert out.read_text() == "{}\n"
    run("migrate", "schemas/qwen3.json", "--out", "out.template.json", "--force", cwd=root)
    assert json.loads(out.read_text())["version"] == 1 and stat.S_IMODE(out.stat().st_mode) == 0o444


def test_check_update_does_not_remove_a_read_only_golden_of_the_other_kind(tmp_path):
    root = qwen3_tree(tmp_path)
    folder = root / "sample_outputs" / "qwen3"
    (folder / "call.expected.json").unlink()
    error_golden = folder / "call.expected-error.txt"
    error_golden.write_text("some error\n")
    error_golden.chmod(0o444)
    _, err = clean(run("check", "--update", cwd=root), 1)
    assert "call.expected-error.txt: is read-only" in err and "--force" in err
    assert error_golden.read_text() == "some error\n" and not (folder / "call.expected.json").exists()
    clean(run("check", "--update", "--force", cwd=root), 0)
    assert not error_golden.exists() and (folder / "call.expected.json").exists()
