"""`--runtime VERSION` on the commands, and the release matrix in `validate` and `check`.

The template here uses a close_pattern's named group in its transform: transformers 5.24 fills it
in, 5.13–5.23 raise KeyError when the closer matches (releases.CHANGES "close_captures").
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from workbench.cli.app import app
from workbench.engine.releases import UnknownRelease
from workbench.formats.runtime_choice import RuntimeRefused, runtime_for, runtimes_for_both, schema_runtime
from workbench.engine.versions import SCHEMA, TEMPLATE

ROOT = Path(__file__).resolve().parent.parent

CLOSE_CAPTURES = {
    "version": 1,
    "start_anchor": "<|assistant|>",
    "fields": {
        "tool_calls": {
            "open": "<call>", "close_pattern": "</call:(?P<name>\\w+)>", "content": "json", "repeats": True,
            "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}},
        },
        "content": {"content": "text"},
    },
}
CALL = 'Hi <call>{"a": 1}</call:get_weather>'
KEY_ERROR = "KeyError: \"transform placeholder '{name}' is not defined. Available: ['content']\""


def run(*args: str):
    return CliRunner().invoke(app, [str(a) for a in args])


def write_demo_family(root: Path) -> Path:
    """A repository layout under ``root``: schemas/demo.template.json and sample_outputs/demo/ (one
    sample that splits, one that does not), with the prompt."""
    (root / "schemas").mkdir(parents=True)
    (root / "schemas" / "demo.template.json").write_text(json.dumps(CLOSE_CAPTURES, indent=2), encoding="utf-8")
    folder = root / "sample_outputs" / "demo"
    folder.mkdir(parents=True)
    (folder / "call.txt").write_text(CALL, encoding="utf-8")
    (folder / "plain.txt").write_text("Just text", encoding="utf-8")
    (folder / "default.prompt.txt").write_text("<|user|>hi<|assistant|>", encoding="utf-8")
    return root


@pytest.fixture
def family(tmp_path: Path) -> Path:
    return write_demo_family(tmp_path)


# ----- the one place a --runtime is read -------------------------------------------------------
def test_runtime_for_a_template_is_the_release():
    assert str(runtime_for(TEMPLATE, None)) == "5.24"
    assert str(runtime_for(TEMPLATE, "5.23.0").release) == "5.23"
    with pytest.raises(UnknownRelease, match="no response_template engine"):
        runtime_for(TEMPLATE, "5.12")


def test_runtime_for_a_schema_is_5_3_to_5_14():
    assert str(schema_runtime()) == "5.14"
    assert str(runtime_for(SCHEMA, "5.3")) == "5.3" and runtime_for(SCHEMA, "5.3").release is None
    with pytest.raises(RuntimeRefused, match="transformers 5.15 and later do not read response_schema"):
        runtime_for(SCHEMA, "5.15")
    with pytest.raises(RuntimeRefused, match="does not load response_schema"):
        runtime_for(SCHEMA, "5.2")
    with pytest.raises(UnknownRelease, match="newer than the newest"):
        runtime_for(SCHEMA, "5.25")
    gemma = json.loads((ROOT / "schemas" / "gemma4.json").read_text(encoding="utf-8"))
    with pytest.raises(RuntimeRefused, match="gemma4-tool-call parser exists from 5.5"):
        runtime_for(SCHEMA, "5.4", gemma)
    assert str(runtime_for(SCHEMA, "5.5", gemma)) == "5.5"


def test_runtimes_for_both_leave_out_the_format_a_release_does_not_read():
    runtimes, notes = runtimes_for_both("5.20")
    assert set(runtimes) == {TEMPLATE} and "response schemas not checked" in notes[0]
    runtimes, notes = runtimes_for_both("5.10")
    assert set(runtimes) == {SCHEMA} and "response templates not checked" in notes[0]
    runtimes, notes = runtimes_for_both("5.14")
    assert set(runtimes) == {SCHEMA, TEMPLATE} and not notes
    with pytest.raises(UnknownRelease, match="reads neither"):
        runtimes_for_both("5.2")


# ----- parse ---------------------------------------------------------------------------------------
def test_parse_runtime_5_23_raises_what_5_23_raises(family):
    sample, template = family / "sample_outputs" / "demo" / "call.txt", family / "schemas" / "demo.template.json"
    newest = run("parse", sample, "--schema", template)
    assert newest.exit_code == 0, newest.stderr
    assert json.loads(newest.stdout)["tool_calls"][0]["function"]["name"] == "get_weather"
    older = run("parse", sample, "--schema", template, "--runtime", "5.23")
    assert older.exit_code == 1 and older.stdout == ""
    assert older.stderr.strip().endswith(KEY_ERROR)
    assert "run as transformers 5.23" in older.stderr
    assert run("parse", sample, "--schema", template, "--runtime", "5.24").stdout == newest.stdout


@pytest.mark.parametrize("flag", ["--stream", "--trace"])
def test_parse_stream_and_trace_take_the_runtime(family, flag):
    sample, template = family / "sample_outputs" / "demo" / "call.txt", family / "schemas" / "demo.template.json"
    assert run("parse", sample, "--schema", template, flag).exit_code == 0
    older = run("parse", sample, "--schema", template, flag, "--runtime", "5.23")
    assert older.exit_code == 1 and "KeyError" in older.stderr


@pytest.mark.parametrize("value, says", [
    ("5.12", "--runtime 5.12: transformers 5.12 has no response_template engine (it exists from 5.13)"),
    ("5.25", "--runtime 5.25: transformers 5.25 is newer than the newest release the workbench knows (5.24)"),
    ("abc", "--runtime abc: 'abc' is not a transformers release (write it as 5.23 or 5.23.0)"),
])
@pytest.mark.parametrize("command", ["parse", "validate", "check", "open"])
def test_a_bad_runtime_is_one_line_and_exit_2(family, command, value, says):
    template = family / "schemas" / "demo.template.json"
    args = {
        "parse": ["parse", family / "sample_outputs" / "demo" / "call.txt", "--schema", template],
        "validate": ["validate", template],
        "check": ["check", family / "schemas", family / "sample_outputs"],
        "open": ["open", family / "sample_outputs" / "demo" / "call.txt", "--schema", template],
    }[command]
    result = run(*args, "--runtime", value)
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    if command == "check" and value == "5.12":  # 5.12 reads schemas: the templates are left out, and no schema is here
        assert lines == ["note: response templates not checked: transformers 5.12 has no response_template engine "
                         "(it exists from 5.13)",
                         "error: --runtime 5.12: nothing to check: no family has a parser that transformers 5.12 reads"]
        return
    assert lines == [f"error: {says}" + ("; see the README on adding a release" if value == "5.25" else "")]
    assert "Traceback" not in result.output


def test_check_runtime_5_12_checks_only_schemas():
    result = run("check", ROOT / "schemas", ROOT / "sample_outputs", "--family", "qwen3", "--runtime", "5.12")
    assert result.exit_code == 0, result.stdout
    assert "note: response templates not checked: transformers 5.12 has no response_template engine" in result.stderr
    assert "1 of 1 schemas pass (as transformers 5.12)" in result.stdout and "templates pass" not in result.stdout


@pytest.mark.parametrize("command", ["parse", "validate"])
def test_a_schema_refuses_5_15_and_later(command):
    sample = ROOT / "sample_outputs" / "qwen3" / "tool_call.txt"
    args = ["parse", sample] if command == "parse" else ["validate", ROOT / "schemas" / "qwen3.json"]
    result = run(*args, "--runtime", "5.15")
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        "error: --runtime 5.15: transformers 5.15 and later do not read response_schema (5.3–5.14 do): give "
        "--runtime 5.3–5.14 for a schema, or migrate it to a response_template ('workbench migrate')"
    ]
    ok = run(*args, "--runtime", "5.10")
    assert ok.exit_code == 0, ok.stderr


# ----- validate and check: the release matrix ------------------------------------------------------
def test_validate_prints_the_release_matrix_of_the_family_samples(family):
    result = run("validate", family / "schemas" / "demo.template.json")
    assert result.exit_code == 0  # a split is information, not an error
    lines = result.stdout.splitlines()
    assert any(line.endswith("releases: the result depends on the release for 1 of 2 samples") for line in lines)
    split = next(line for line in lines if "call.txt:" in line)
    assert f"5.13–5.23: {KEY_ERROR}; 5.24: " in split and split.endswith("(differs at /)")


def test_validate_samples_option(family, tmp_path):
    template = family / "schemas" / "demo.template.json"
    result = run("validate", template, "--samples", family / "sample_outputs" / "demo" / "plain.txt")
    assert result.exit_code == 0
    assert any(line.endswith("releases: 5.13–5.24 give the same result on its 1 sample") for line in result.stdout.splitlines())
    missing = run("validate", template, "--samples", tmp_path / "nowhere")
    assert missing.exit_code == 2 and "no such sample file" in missing.stderr


def test_validate_runtime_loads_as_that_release(family, tmp_path):
    """'join' exists from 5.16: 5.15 refuses the template."""
    template = dict(CLOSE_CAPTURES, fields={"thinking": {"open": "<t>", "close": "</t>", "repeats": True, "join": ""},
                                            "content": {"content": "text"}})
    path = tmp_path / "t.json"
    path.write_text(json.dumps(template), encoding="utf-8")
    assert run("validate", path).exit_code == 0
    assert run("validate", path, "--runtime", "5.16").exit_code == 0
    older = run("validate", path, "--runtime", "5.15")
    assert older.exit_code == 1 and "join" in older.stdout and older.stdout.splitlines()[0].endswith("(transformers 5.15)")


def test_check_prints_the_matrix_and_keeps_its_exit_code(family):
    text = run("check", family / "schemas", family / "sample_outputs")
    assert "demo: releases: the result depends on the release for 1 of 2 samples" in text.stdout
    assert "(as transformers 5.24)" in text.stdout
    as_json = run("check", family / "schemas", family / "sample_outputs", "--json")
    (entry,) = json.loads(as_json.stdout)
    assert entry["runtime"] == "5.24"
    assert entry["releases"]["same"] is False
    (split,) = entry["releases"]["splits"]
    assert split["sample"] == "call.txt" and split["where"] == "differs at /"
    assert [part["releases"] for part in split["parts"]] == ["5.13–5.23", "5.24"]
    assert split["parts"][0]["error"] == KEY_ERROR and split["parts"][1]["value"]["tool_calls"]
    # No goldens here, so both runs fail the same way: the split changes nothing.
    assert text.exit_code == as_json.exit_code == 1


def test_check_runtime_judges_goldens_as_that_release(family):
    folder = family / "sample_outputs" / "demo"
    (folder / "call.template.expected-error.txt").write_text("transform placeholder '{name}' is not defined\n", encoding="utf-8")
    (folder / "plain.template.expected.json").write_text(json.dumps({"content": "Just text"}), encoding="utf-8")
    assert run("check", family / "schemas", family / "sample_outputs", "--runtime", "5.23").exit_code == 0
    assert run("check", family / "schemas", family / "sample_outputs").exit_code == 1


def test_shipped_templates_agree_across_releases():
    result = run("check", ROOT / "schemas", ROOT / "sample_outputs", "--family", "qwen3")
    assert result.exit_code == 0, result.stdout
    # qwen3's content joins its segments, which 5.16 brought: the releases before it refuse the template
    # once, for loading, and those that load it agree on every sample.
    assert "qwen3:   loading the template: 5.13–5.15: Field 'content': unknown keys ['join']" in result.stdout
    assert "qwen3: releases: 5.16–5.24 (where it loads) give the same result on its 8 samples" in result.stdout


def test_linear_does_not_take_a_runtime():
    result = run("check", ROOT / "schemas", ROOT / "sample_outputs", "--linear", "--runtime", "5.23")
    assert result.exit_code == 2 and "--runtime does not go with --linear" in result.stderr


# ----- roundtrip and draft ----------------------------------------------------------------------------
def test_roundtrip_and_draft_take_the_runtime():
    chat = ROOT / "tests" / "chat_templates" / "channels.jinja"
    refused = run("roundtrip", "--chat-template", chat, "--schema", ROOT / "schemas" / "qwen3.json", "--runtime", "5.20")
    assert refused.exit_code == 2 and "5.15 and later do not read response_schema" in refused.stderr
    older = run("draft", "--chat-template", chat, "--runtime", "5.13")
    assert older.exit_code == 0, older.stderr
    assert run("draft", "--chat-template", chat, "--runtime", "5.9").stderr.strip() == (
        "error: --runtime 5.9: transformers 5.9 has no response_template engine (it exists from 5.13)")
    assert run("roundtrip", "--chat-template", chat, "--template", ROOT / "schemas" / "gpt_oss.template.json",
               "--runtime", "5.23").exit_code in (0, 1)


def test_check_update_does_not_write_an_older_releases_results_into_the_goldens(family):
    result = run("check", family / "schemas", family / "sample_outputs", "--update", "--runtime", "5.23")
    assert result.exit_code == 2 and "--update writes goldens" in result.output and "wrote" not in result.output
