"""workbench check: the table, --json, exit codes, samples without goldens, --update."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from workbench.store.samples import is_sample_file

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workbench", "check", *args], capture_output=True, text=True, encoding="utf-8", cwd=cwd)


def tree(tmp_path: Path, family: str = "qwen3", template: bool = False) -> Path:
    shutil.copytree(ROOT / "sample_outputs" / family, tmp_path / "sample_outputs" / family)
    (tmp_path / "schemas").mkdir()
    shutil.copy(ROOT / "schemas" / f"{family}.json", tmp_path / "schemas" / f"{family}.json")
    if template:
        shutil.copy(ROOT / "schemas" / f"{family}.template.json", tmp_path / "schemas" / f"{family}.template.json")
    return tmp_path


CASES = len([p for p in (ROOT / "sample_outputs" / "qwen3").iterdir() if is_sample_file(p)])


def test_passing_tree(tmp_path):
    result = run(cwd=tree(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "qwen3" in result.stdout and f"{CASES}/{CASES}" in result.stdout and "1 of 1 schemas pass" in result.stdout
    assert "none" in result.stdout  # the template column: this tree has no template


def test_schema_and_template_side_by_side_with_where_they_disagree(tmp_path):
    result = run(cwd=tree(tmp_path, template=True))
    assert result.returncode == 0, result.stdout + result.stderr
    row = next(line for line in result.stdout.splitlines() if line.startswith("qwen3"))
    assert row.count(f"pass {CASES}/{CASES}") == 2
    # The schema keeps an empty content where the template drops it (docs/response-template.md#empty-values-are-dropped).
    assert "differ;" in row
    assert "1 of 1 schemas pass" in result.stdout and "1 of 1 templates pass" in result.stdout


def test_a_template_difference_fails_with_its_format_named(tmp_path):
    root = tree(tmp_path, template=True)
    golden = root / "sample_outputs" / "qwen3" / "tool_call.template.expected.json"
    value = json.loads(golden.read_text())
    value["thinking"] = "something else"
    golden.write_text(json.dumps(value))
    result = run("--json", cwd=root)
    assert result.returncode == 1
    by_format = {r["format"]: r for r in json.loads(result.stdout)}
    assert by_format["response_schema"]["ok"] is True and by_format["response_template"]["ok"] is False
    case = next(c for c in by_format["response_template"]["cases"] if c["case"] == "tool_call")
    assert case["difference"].startswith('/thinking: expected "something else"')


def test_a_template_parses_each_case_with_its_prompt(tmp_path):
    """Without its prompt (which ends with a pre-written <think>), the case's reasoning is content."""
    root = tree(tmp_path, template=True)
    assert run(cwd=root).returncode == 0
    (root / "sample_outputs" / "qwen3" / "reasoning_prewritten.prompt.txt").unlink()
    result = run("--json", cwd=root)
    assert result.returncode == 1
    template = next(r for r in json.loads(result.stdout) if r["format"] == "response_template")
    case = next(c for c in template["cases"] if c["case"] == "reasoning_prewritten")
    assert case["status"] == "fail"


def test_update_writes_template_goldens_beside_the_schema_goldens(tmp_path):
    root = tree(tmp_path, template=True)
    folder = root / "sample_outputs" / "qwen3"
    (folder / "tool_call.template.expected.json").unlink()
    (folder / "truncated_call.template.expected-error.txt").unlink()
    assert run("--update", cwd=root).returncode == 0
    assert "content" not in json.loads((folder / "tool_call.template.expected.json").read_text())
    assert (folder / "truncated_call.template.expected-error.txt").read_text().startswith("json parser could not parse region as JSON")
    assert json.loads((folder / "tool_call.expected.json").read_text())["content"] == ""  # the schema's, untouched
    assert run(cwd=root).returncode == 0


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


def _qwen3_with(tmp_path: Path, *names: str) -> Path:
    """schemas/qwen3.json and samples/qwen3/ holding ``names`` copied from the shipped samples."""
    (tmp_path / "schemas").mkdir()
    shutil.copy(ROOT / "schemas" / "qwen3.json", tmp_path / "schemas" / "qwen3.json")
    family = tmp_path / "samples" / "qwen3"
    family.mkdir(parents=True)
    for name in names:
        shutil.copy(ROOT / "sample_outputs" / "qwen3" / name, family / name)
    return family


def test_the_table_names_an_unreadable_golden_before_a_missing_one(tmp_path):
    """The row shows the worst news: a golden that cannot be read, not the missing golden of the
    sample listed before it."""
    family = _qwen3_with(tmp_path, "plain_answer.txt", "tool_call.txt")
    (family / "tool_call.expected.json").write_text("<<<<<<< HEAD\n", encoding="utf-8")
    result = run("schemas", "samples", cwd=tmp_path)
    assert result.returncode == 1
    assert "bad golden 0/2" in result.stdout and "tool_call: " in result.stdout and "conflict marker" in result.stdout


def test_two_goldens_for_one_sample_are_named_not_picked(tmp_path):
    family = _qwen3_with(tmp_path, "tool_call.txt", "tool_call.expected.json")
    (family / "tool_call.expected-error.txt").write_text("could not parse\n", encoding="utf-8")
    result = run("schemas", "samples", cwd=tmp_path)
    assert result.returncode == 1 and "two goldens for one sample" in result.stdout, result.stdout
