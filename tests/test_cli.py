"""The CLI contract: output, exit codes and messages for good and bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


ROOT = Path(__file__).resolve().parent.parent
QWEN = ROOT / "schemas" / "qwen3.json"
SAMPLES = ROOT / "sample_outputs" / "qwen3"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "workbench", *args], capture_output=True, text=True, encoding="utf-8", cwd=ROOT
    )


def assert_clean_failure(result: subprocess.CompletedProcess, code: int, *phrases: str) -> None:
    assert result.returncode == code, result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    for phrase in phrases:
        assert phrase in result.stderr


def test_parse_prints_the_message_with_unicode_kept():
    result = run("parse", str(SAMPLES / "tool_call.txt"), "--schema", str(QWEN))
    assert result.returncode == 0, result.stderr
    assert result.stdout == (SAMPLES / "tool_call.expected.json").read_text(encoding="utf-8")
    assert "Zürich" in result.stdout and '\n  "role"' in result.stdout


def test_parse_failure_names_the_node_on_one_line():
    result = run("parse", str(SAMPLES / "truncated_call.txt"), "--schema", str(QWEN))
    assert_clean_failure(result, 1, "/properties/tool_calls/items/properties/function", "could not parse its contents as JSON")
    assert result.stdout == ""
    # Which format was read, then the error on one line.
    assert result.stderr.strip().splitlines()[0].endswith("qwen3.json is a response_schema")
    assert len(result.stderr.strip().splitlines()) == 2


def test_parse_trace_gives_spans(tmp_path):
    sample = SAMPLES / "tool_call.txt"
    result = run("parse", str(sample), "--schema", str(QWEN), "--trace")
    assert result.returncode == 0
    out = json.loads(result.stdout)
    text = sample.read_text(encoding="utf-8")
    node = out["trace"]["children"][3]["children"][0]["children"][1]  # tool_calls / item 0 / function
    assert node["path"] == "/properties/tool_calls/items/properties/function"
    start, end = node["span"]
    assert json.loads(text[start:end])["name"] == "get_weather"
    assert out["message"]["tool_calls"][0]["function"]["arguments"]["city"] == "Zürich"


def test_missing_files_are_unusable(tmp_path):
    assert_clean_failure(run("parse", str(tmp_path / "nope.txt"), "--schema", str(QWEN)), 2, "nope.txt", "no such sample")
    assert_clean_failure(run("parse", str(SAMPLES / "tool_call.txt"), "--schema", str(tmp_path / "s.json")), 2, "no such schema")
    assert_clean_failure(run("validate", str(tmp_path / "s.json")), 2, "no such schema")


def test_schema_with_bad_json_names_line_and_column(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{\n  "type": "object",\n  "properties": {,}\n}\n')
    assert_clean_failure(run("parse", str(SAMPLES / "tool_call.txt"), "--schema", str(bad)), 2, "bad.json:3:18", "invalid JSON")
    assert_clean_failure(run("validate", str(bad)), 1, "bad.json:3:18")


def test_sample_that_is_not_utf8(tmp_path):
    sample = tmp_path / "latin1.txt"
    sample.write_bytes("line one\ncaf\u00e9".encode("latin-1"))
    assert_clean_failure(run("parse", str(sample), "--schema", str(QWEN)), 2, "latin1.txt:2:4", "not UTF-8")


def test_parse_refuses_a_schema_with_validation_errors(tmp_path):
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps({"type": "object", "properties": {"content": {"type": "string", "x-regex": "(a)(b)"}}}))
    result = run("parse", str(SAMPLES / "plain_answer.txt"), "--schema", str(schema))
    assert_clean_failure(result, 2, "/properties/content/x-regex", "2 unnamed groups")


def test_parse_passes_a_schema_with_only_warnings(tmp_path):
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps({"type": "object", "x-regexp": "typo", "properties": {"content": {"type": "string"}}}))
    result = run("parse", str(SAMPLES / "plain_answer.txt"), "--schema", str(schema))
    assert result.returncode == 0
    assert "warning: /x-regexp" in result.stderr
    assert json.loads(result.stdout)["content"].startswith("Ljubljana")


def test_validate_ok_and_problems(tmp_path):
    good = run("validate", str(QWEN))
    assert good.returncode == 0 and good.stdout.startswith("ok\n")
    assert f"{QWEN}: response_schema: read by transformers 5.3–5.14" in good.stdout
    bad = tmp_path / "s.json"
    bad.write_text(json.dumps({
        "type": "object",
        "properties": {
            "a": {"type": "string", "x-regex": "(unclosed"},
            "b": {"type": "strng"},
            "c": {"type": "object", "x-regex-key-value": "(?P<key>\\w+)"},
        },
    }))
    result = run("validate", str(bad))
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert any("/properties/a/x-regex" in l and "offset 0" in l for l in lines)
    assert any("/properties/b/type" in l and "unknown type" in l for l in lines)
    assert any("/properties/c/x-regex-key-value" in l and "'value'" in l for l in lines)


def test_usage_errors_exit_2(tmp_path):
    result = run("parse")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    # Outside sample_outputs/<family>/ there is no schema to guess: say so, naming the sample.
    sample = tmp_path / "out.txt"
    sample.write_text("hello")
    assert_clean_failure(run("parse", str(sample)), 2, "out.txt", "give --schema")


def test_parse_finds_the_family_schema_as_open_does():
    result = run("parse", str(SAMPLES / "tool_call.txt"))
    assert result.returncode == 0, result.stderr
    assert result.stdout == (SAMPLES / "tool_call.expected.json").read_text(encoding="utf-8")


def test_parse_names_a_missing_sample_before_looking_for_its_schema(tmp_path):
    assert_clean_failure(run("parse", str(tmp_path / "nope.txt")), 2, "nope.txt", "no such sample")


def test_validate_reports_a_schema_that_is_not_json_with_exit_1_as_the_readme_says(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert_clean_failure(run("validate", str(bad)), 1, "bad.json:1:2", "invalid JSON")
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    exit_codes = readme[readme.index("Exit codes:"):]
    assert "`validate` found errors (a schema that is not JSON is one" in exit_codes
