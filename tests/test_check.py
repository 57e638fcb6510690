"""workbench check: the table, --json, exit codes, samples without goldens, --update."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workbench", "check", *args], capture_output=True, text=True, encoding="utf-8", cwd=cwd)


def tree(tmp_path: Path, family: str = "qwen3") -> Path:
    shutil.copytree(ROOT / "sample_outputs" / family, tmp_path / "sample_outputs" / family)
    (tmp_path / "schemas").mkdir()
    shutil.copy(ROOT / "schemas" / f"{family}.json", tmp_path / "schemas" / f"{family}.json")
    return tmp_path


CASES = len(list((ROOT / "sample_outputs" / "qwen3").glob("*.txt"))) - len(
    list((ROOT / "sample_outputs" / "qwen3").glob("*.expected-error.txt"))
)


def test_passing_tree(tmp_path):
    result = run(cwd=tree(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "qwen3" in result.stdout and f"{CASES}/{CASES}" in result.stdout and "1 of 1 families pass" in result.stdout


def test_a_difference_is_shown_as_a_path_and_fails(tmp_path):
    root = tree(tmp_path)
    golden = root / "sample_outputs" / "qwen3" / "tool_call.expected.json"
    value = json.loads(golden.read_text())
    value["tool_calls"][0]["function"]["arguments"]["city"] = "Bern"
    golden.write_text(json.dumps(value))
    result = run("--json", cwd=root)
    assert result.returncode == 1
    family = json.loads(result.stdout)[0]
    assert family["ok"] is False and family["passed"] == CASES - 1
    case = next(c for c in family["cases"] if c["case"] == "tool_call")
    assert case["status"] == "fail"
    assert case["difference"] == '/tool_calls/0/function/arguments/city: expected "Bern", got "Zürich"'


def test_a_sample_without_golden_is_reported_not_passed(tmp_path):
    root = tree(tmp_path)
    (root / "sample_outputs" / "qwen3" / "new_case.txt").write_text("Hello!<|im_end|>")
    result = run(cwd=root)
    assert result.returncode == 1
    assert "no golden" in result.stdout and "new_case" in result.stdout


def test_update_writes_goldens_from_current_results(tmp_path):
    root = tree(tmp_path)
    folder = root / "sample_outputs" / "qwen3"
    (folder / "new_case.txt").write_text("Hello!<|im_end|>")
    (folder / "truncated_call.expected-error.txt").unlink()
    result = run("--update", cwd=root)
    assert result.returncode == 0
    assert json.loads((folder / "new_case.expected.json").read_text()) == {"role": "assistant", "content": "Hello!"}
    assert (folder / "truncated_call.expected-error.txt").read_text().strip() == "could not parse its contents as JSON"
    assert run(cwd=root).returncode == 0


def test_update_writes_the_phrase_both_runtimes_share_for_a_cut_off_call(tmp_path):
    """A raw-text call cut off before its end tag fails at call_cut_off_before_end_tag; the golden
    keeps the part of the message transformers words the same way, so test_goldens can match it."""
    root = tree(tmp_path, "step3")
    golden = root / "sample_outputs" / "step3" / "truncated_call.expected-error.txt"
    golden.unlink()
    assert run("--update", cwd=root).returncode == 0
    assert golden.read_text().strip() == "not a valid integer: ''"


def test_missing_or_broken_schema_is_an_error_row(tmp_path):
    root = tree(tmp_path)
    (root / "schemas" / "qwen3.json").write_text("{oops")
    result = run(cwd=root)
    assert result.returncode == 1 and "invalid JSON" in result.stdout
    assert run("nowhere", "sample_outputs", cwd=root).returncode == 2
