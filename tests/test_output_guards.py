"""Where a command writes: never over a device or FIFO, never over one of its inputs by any name
(another spelling, a symlink, a hard link), and text from a chat template shown as typed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.store.files import InputError, WriteError, atomic_write, check_outputs

ROOT = Path(__file__).resolve().parent.parent
QWEN = ROOT / "schemas" / "qwen3.json"
SAMPLES = ROOT / "sample_outputs" / "qwen3"


def run(*args, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workbench", *map(str, args)], capture_output=True, text=True,
                          encoding="utf-8", stdin=subprocess.DEVNULL, cwd=cwd or ROOT, timeout=120)


def test_a_fifo_is_never_replaced_even_with_force(tmp_path):
    fifo = tmp_path / "out.json"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="not a regular file"):
        check_outputs([fifo], force=True)
    with pytest.raises(WriteError, match="not a regular file"):
        atomic_write(fifo, "{}")
    result = run("export", QWEN, "-o", fifo, "--force")
    assert result.returncode == 2 and "not a regular file" in result.stderr, result.stderr
    assert fifo.is_fifo()


def test_a_hard_link_to_an_input_is_the_input(tmp_path):
    schema = tmp_path / "schema.json"
    shutil.copy(QWEN, schema)
    link = tmp_path / "other-name.json"
    os.link(schema, link)
    with pytest.raises(InputError, match="is one of this command's inputs"):
        check_outputs([link], [schema], force=True)
    result = run("export", schema, "-o", link, "--force")
    assert result.returncode == 2 and "is one of this command's inputs" in result.stderr, result.stderr
    assert os.stat(link).st_ino == os.stat(schema).st_ino  # the link is not split


def test_migrate_never_writes_over_a_sample_or_a_prompt_even_with_force(tmp_path):
    samples = tmp_path / "qwen3"
    shutil.copytree(SAMPLES, samples)
    schema = tmp_path / "schema.json"
    shutil.copy(QWEN, schema)
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("<|im_start|>assistant\n", encoding="utf-8")
    for out, extra in [(samples / "plain_answer.txt", []), (samples / "default.prompt.txt", []),
                       (prompt, ["--prefix-file", prompt])]:
        before = out.read_bytes()
        result = run("migrate", schema, "-o", out, "--force", "--samples", samples, *extra)
        assert result.returncode == 2 and "is one of this command's inputs" in result.stderr, result.stderr
        assert out.read_bytes() == before


def test_a_chat_templates_error_holding_markup_is_shown_as_typed(tmp_path):
    chat = tmp_path / "mk.jinja"
    chat.write_text('{{ raise_exception("A[bold]B[/]C [link=https://x]L[/link] oops [/] bad") }}', encoding="utf-8")
    result = run("roundtrip", "--chat-template", chat, "--schema", QWEN)
    assert "Traceback" not in result.stderr + result.stdout, result.stderr
    # It renders no probe at all: unusable input, said in one sentence (issue 23's exit codes).
    assert result.returncode == 2
    assert "A[bold]B[/]C" in result.stderr and "[link=https://x]L[/link]" in result.stderr  # not consumed as markup


def test_export_says_when_it_breaks_a_hard_link_or_writes_through_a_symlink(tmp_path):
    out = tmp_path / "out.json"
    out.write_text("{}", encoding="utf-8")
    twin = tmp_path / "twin.json"
    os.link(out, twin)
    result = run("export", QWEN, "-o", out, "--force")
    assert result.returncode == 0, result.stderr
    assert "hard link" in result.stderr
    real = tmp_path / "real"
    real.mkdir()
    (real / "cfg.json").write_text('{"a": 1}', encoding="utf-8")
    tok = tmp_path / "tok"
    tok.mkdir()
    (tok / "tokenizer_config.json").symlink_to(real / "cfg.json")
    result = run("export", ROOT / "schemas" / "qwen3.template.json", "--tokenizer-dir", tok)
    assert result.returncode == 0, result.stderr
    assert (tok / "tokenizer_config.json").is_symlink()
    assert "cfg.json" in result.stderr and "note:" in result.stderr


def test_a_number_past_pythons_digit_limit_is_named_with_its_line(tmp_path):
    schema = tmp_path / "big.json"
    schema.write_text('{\n  "a": ' + "1" * 5000 + "\n}", encoding="utf-8")
    result = run("validate", schema)
    assert result.returncode == 1 and f"{schema}:2:8: invalid JSON: a number of 5,000 digits" in result.stderr, result.stderr
    assert "sys.set_int_max_str_digits" not in result.stderr


def test_a_prompt_file_is_named_as_a_prompt(tmp_path):
    fifo = tmp_path / "p.fifo"
    os.mkfifo(fifo)
    result = run("parse", SAMPLES / "tool_call.txt", "--schema", ROOT / "schemas" / "qwen3.template.json", "--prefix-file", fifo)
    assert result.returncode == 2 and "not read as a prompt file" in result.stderr, result.stderr


def test_a_folder_whose_only_samples_are_not_regular_files_names_them(tmp_path):
    os.mkfifo(tmp_path / "a.txt")
    (tmp_path / "b.txt").mkdir()
    result = run("open", tmp_path)
    assert result.returncode == 2, result.stderr
    assert "no sample files" in result.stderr and "not regular files, so not read: a.txt, b.txt" in result.stderr
