"""Every command against a table of hostile inputs: one sentence, the documented exit code, nothing
changed on disk, and nothing from the file reaching the terminal raw.

Each row puts one hostile file in one role of one command (the sample of `parse`, the schema of
`validate`, the chat template of `draft`, ...), the other inputs being good ones. The expected exit
code is the README's: 2 for input the workbench cannot use, 1 where the input is usable but the
parser fails on it (or `validate` finds errors), 0 where it is fine (a CRLF or BOM sample is a
model's output like any other). Commands run as a user runs them, in a subprocess, each with a
deadline: a hang fails the row.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
QWEN_SCHEMA = ROOT / "schemas" / "qwen3.json"
QWEN_TEMPLATE = ROOT / "schemas" / "qwen3.template.json"
QWEN_SAMPLE = ROOT / "sample_outputs" / "qwen3" / "tool_call.txt"
CHAT_TEMPLATE = ROOT / "tests" / "chat_templates" / "hermes.jinja"
DEADLINE = 90  # seconds per command: generous for a loaded machine, far below a hang

DEEP = "[" * 100_000 + "]" * 100_000
# Characters a terminal would act on if a message carried them raw (ESC, BEL, CSI as C1).
RAW_CONTROLS = ("\x1b", "\x07", "\x9b")


def _good_sample() -> bytes:
    return QWEN_SAMPLE.read_bytes()


# Each kind: how to make it at a path (None: the path stays missing, or is a special file).
def _make(kind: str, path: Path, good: bytes) -> Path:
    if kind == "missing":
        return path
    if kind == "directory":
        path.mkdir()
        return path
    if kind == "fifo":
        os.mkfifo(path)
        return path
    if kind == "dev_zero":
        return Path("/dev/zero")
    data = {
        "empty": b"",
        "not_utf8": b"\xff\xfe\x00not text\x80",
        "bom": b"\xef\xbb\xbf" + good,
        "crlf": good.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"),
        "deep_json": DEEP.encode(),
        "truncated_json": good[: max(1, len(good) // 2)],
        # A call whose argument is a lone surrogate, as models do write: a value UTF-8 cannot carry.
        "surrogate": b'<tool_call>\n{"name": "f", "arguments": {"a": "\\ud800"}}\n</tool_call>',
    }[kind]
    path.write_bytes(data)
    return path


@dataclass(frozen=True)
class Row:
    command: str  # what the row runs, for the test id
    role: str  # which input is hostile
    kind: str
    expect: frozenset[int]
    suffix: str = ".json"

    @property
    def id(self) -> str:
        return f"{self.command}-{self.role}-{self.kind}"


def _rows() -> list[Row]:
    rows: list[Row] = []
    unusable = frozenset({2})
    # A sample is a model's output: odd text is still text, and the parser's verdict decides.
    for kind, expect in [
        ("missing", unusable), ("directory", unusable), ("fifo", unusable), ("dev_zero", unusable),
        ("not_utf8", unusable), ("empty", frozenset({0, 1})), ("bom", frozenset({0, 1})), ("crlf", frozenset({0, 1})),
        ("surrogate", frozenset({0})),
    ]:
        rows.append(Row("parse", "sample", kind, expect, ".txt"))
        rows.append(Row("parse-template", "sample", kind, expect, ".txt"))
    for command in ("parse-trace", "parse-template-trace", "parse-template-stream"):
        rows.append(Row(command, "sample", "surrogate", frozenset({0}), ".txt"))
    rows.append(Row("open", "sample", "fifo", unusable, ".txt"))
    rows.append(Row("open", "sample", "directory", unusable, ".txt"))  # a folder without samples
    rows.append(Row("open", "sample", "not_utf8", unusable, ".txt"))
    rows.append(Row("open", "sample", "dev_zero", unusable, ".txt"))
    # A schema or template that cannot be read or is not JSON: `validate` reports JSON that does not
    # parse as its error (exit 1, as the README says); every other command cannot use it (2). JSON
    # nested deeper than anything reads is unusable everywhere. `open` opens a missing, empty or
    # broken schema on purpose (a new file; the editor shows where the JSON breaks): no rows there.
    for kind in ("missing", "directory", "fifo", "not_utf8", "empty", "deep_json", "truncated_json"):
        not_json = kind in ("empty", "truncated_json")
        rows.append(Row("validate", "schema", kind, frozenset({1}) if not_json else unusable))
        for command in ("parse", "export", "migrate"):
            rows.append(Row(command, "schema", kind, unusable))
        if kind in ("directory", "fifo", "not_utf8", "deep_json"):
            rows.append(Row("open", "schema", kind, unusable))
    for kind in ("bom", "crlf"):  # still JSON: any verdict but a crash
        for command in ("validate", "parse", "export"):
            rows.append(Row(command, "schema", kind, frozenset({0, 1, 2})))
    for kind in ("missing", "directory", "not_utf8", "deep_json", "truncated_json"):
        rows.append(Row("parse-template", "tools", kind, unusable))
    for kind in ("missing", "directory", "fifo", "not_utf8", "empty", "deep_json", "truncated_json"):
        rows.append(Row("export-tokenizer-dir", "tokenizer_config", kind, unusable))
    # A golden that cannot be read fails the check (exit 1), named; it is never taken for a missing
    # one, and --update leaves it alone.
    for kind in ("not_utf8", "deep_json", "truncated_json", "fifo"):
        rows.append(Row("check", "golden", kind, frozenset({1})))
        rows.append(Row("check-update", "golden", kind, frozenset({1})))
    for kind in ("missing", "directory", "fifo", "not_utf8"):
        rows.append(Row("roundtrip", "chat_template", kind, unusable, ".jinja"))
        rows.append(Row("draft", "chat_template", kind, unusable, ".jinja"))
    # An empty chat template renders nothing: no draft can be read off it. (Its round trip reports
    # that the template drops every probe; that verdict is the round trip's to give.)
    rows.append(Row("draft", "chat_template", "empty", unusable, ".jinja"))
    rows.append(Row("roundtrip", "chat_template", "empty", frozenset({0, 1, 2}), ".jinja"))
    rows.append(Row("roundtrip", "chat_template_json", "deep_json", unusable))
    return rows


ROWS = _rows()


def _tree(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` by path, with its content's hash (special files by kind)."""
    seen = {}
    for path in sorted(folder.rglob("*")):
        rel = str(path.relative_to(folder))
        if path.is_symlink():
            seen[rel] = "link:" + os.readlink(path)
        elif path.is_fifo():
            seen[rel] = "fifo"
        elif path.is_dir():
            seen[rel] = "dir"
        else:
            seen[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return seen


def _setup(row: Row, tmp: Path) -> tuple[list[str], list[str]]:
    """The command line for ``row`` inside ``tmp``, and the outputs it may write (relative to tmp)."""
    good_schema = QWEN_SCHEMA.read_bytes()
    hostile_name = "in\x1b]0;TITLE\x07put" + row.suffix  # the name itself must not reach the terminal raw
    if row.role == "sample":
        sample = _make(row.kind, tmp / hostile_name, _good_sample())
        shutil.copy(QWEN_SCHEMA, tmp / "schema.json")
        shutil.copy(QWEN_TEMPLATE, tmp / "template.json")
        extra = {"trace": ["--trace"], "stream": ["--stream"]}.get(row.command.rsplit("-", 1)[-1], [])
        if row.command.startswith("parse-template"):
            return ["parse", str(sample), "--schema", str(tmp / "template.json"), "--prefix", "", *extra], []
        if row.command.startswith("parse"):
            return ["parse", str(sample), "--schema", str(tmp / "schema.json"), *extra], []
        return ["open", str(sample), "--schema", str(tmp / "schema.json")], []
    if row.role == "schema":
        schema = _make(row.kind, tmp / hostile_name, good_schema)
        shutil.copy(QWEN_SAMPLE, tmp / "sample.txt")
        return {
            "validate": (["validate", str(schema)], []),
            "parse": (["parse", str(tmp / "sample.txt"), "--schema", str(schema)], []),
            "export": (["export", str(schema), "-o", str(tmp / "out.json")], ["out.json"]),
            "migrate": (["migrate", str(schema), "-o", str(tmp / "out.template.json"), "--samples", str(tmp / "sample.txt")], ["out.template.json"]),
            "open": (["open", str(tmp / "sample.txt"), "--schema", str(schema)], []),
        }[row.command]
    if row.role == "tools":
        tools = _make(row.kind, tmp / hostile_name, b'[{"type": "function", "function": {"name": "f", "parameters": {}}}]')
        shutil.copy(QWEN_TEMPLATE, tmp / "template.json")
        shutil.copy(QWEN_SAMPLE, tmp / "sample.txt")
        return ["parse", str(tmp / "sample.txt"), "--schema", str(tmp / "template.json"), "--prefix", "", "--tools", str(tools)], []
    if row.role == "tokenizer_config":
        folder = tmp / "tok"
        folder.mkdir()
        _make(row.kind, folder / "tokenizer_config.json", b'{"model_max_length": 8}')
        shutil.copy(QWEN_SCHEMA, tmp / "schema.json")
        return ["export", str(tmp / "schema.json"), "--tokenizer-dir", str(folder)], []
    if row.role == "golden":
        (tmp / "schemas").mkdir()
        shutil.copy(QWEN_SCHEMA, tmp / "schemas" / "qwen3.json")
        family = tmp / "samples" / "qwen3"
        family.mkdir(parents=True)
        shutil.copy(QWEN_SAMPLE, family / "tool_call.txt")
        good_golden = QWEN_SAMPLE.with_name("tool_call.expected.json").read_bytes()
        _make(row.kind, family / "tool_call.expected.json", good_golden)
        update = ["--update"] if row.command == "check-update" else []
        return ["check", str(tmp / "schemas"), str(tmp / "samples"), *update], []
    if row.role == "chat_template":
        source = _make(row.kind, tmp / hostile_name, CHAT_TEMPLATE.read_bytes())
        shutil.copy(QWEN_TEMPLATE, tmp / "template.json")
        if row.command == "roundtrip":
            return ["roundtrip", "--chat-template", str(source), "--template", str(tmp / "template.json")], []
        return ["draft", "--chat-template", str(source), "-o", str(tmp / "drafted.json")], ["drafted.json"]
    if row.role == "chat_template_json":
        folder = tmp / "tok"
        folder.mkdir()
        _make(row.kind, folder / "chat_template.json", b"{}")
        shutil.copy(QWEN_TEMPLATE, tmp / "template.json")
        return ["roundtrip", "--chat-template", str(folder), "--template", str(tmp / "template.json")], []
    raise AssertionError(row)


@dataclass
class Outcome:
    code: int | None
    stdout: str
    stderr: str
    before: dict[str, str]
    after: dict[str, str]
    outputs: list[str]


def _run(row: Row, tmp: Path) -> Outcome:
    args, outputs = _setup(row, tmp)
    before = _tree(tmp)
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    try:
        done = subprocess.run(
            [sys.executable, "-m", "workbench", *args], capture_output=True, cwd=tmp, env=env,
            stdin=subprocess.DEVNULL, timeout=DEADLINE,
        )
        code, out, err = done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired as exc:
        code, out, err = None, exc.stdout or b"", exc.stderr or b""
    try:  # what a command prints is always UTF-8, whatever the file held
        out.decode("utf-8"), err.decode("utf-8")
    except UnicodeDecodeError as exc:
        err += f"\n[test: output is not UTF-8: {exc}]".encode()
        code = -1
    return Outcome(code, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), before, _tree(tmp), outputs)


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory) -> dict[str, Outcome]:
    """All rows, run a few at a time: each is a separate process, mostly waiting on start-up."""
    def one(row: Row) -> tuple[str, Outcome]:
        return row.id, _run(row, tmp_path_factory.mktemp(row.id.replace("/", "_")))

    with ThreadPoolExecutor(max_workers=3) as pool:
        return dict(pool.map(one, ROWS))


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_hostile_input(row: Row, outcomes: dict[str, Outcome]) -> None:
    got = outcomes[row.id]
    shown = f"exit {got.code}\nstdout: {got.stdout[-2000:]}\nstderr: {got.stderr[-2000:]}"
    assert got.code is not None, f"no answer within {DEADLINE} s\n{shown}"
    assert "Traceback" not in got.stdout + got.stderr, shown
    assert got.code in row.expect, shown
    # One sentence for the user when the input is refused, naming what was wrong.
    if got.code == 2:
        assert got.stderr.strip(), shown
    if row.kind == "surrogate":  # the value is printed as its escape, never dropped or crashed on
        assert "\\ud800" in got.stdout, shown
    for control in RAW_CONTROLS:
        assert control not in got.stderr, f"a raw control character reached stderr\n{shown}"
    # Inputs unchanged (--update may rewrite goldens it read, never one it could not read); on exit 2
    # nothing written at all, otherwise only the declared outputs.
    for name, digest in got.before.items():
        if row.command == "check-update" and name.startswith("samples/") and row.role != "golden":
            continue
        assert got.after.get(name) == digest, f"{name!r} changed\n{shown}"
    new = set(got.after) - set(got.before)
    allowed = set() if got.code == 2 else set(got.outputs)
    assert new <= allowed, f"wrote {sorted(new - allowed)}\n{shown}"
