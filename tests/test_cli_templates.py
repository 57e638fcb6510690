"""`workbench parse` and `validate` on response templates: what transformers gives in its newest
supported release (5.24.0, the `newest_oracle` fixture), which the CLI runs unless told otherwise.

The templates are the runtime's own fallbacks (docs/response-template.md#fallback-templates); the outputs and prompts
are written here in each family's format. Every result is compared with the runtime itself.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fallback_templates import GEMMA4, QWEN3, QWEN3_5
from typer.testing import CliRunner

from workbench.cli.app import app

CHATML_PROMPT = "<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>user\nWeather in Paris?<|im_end|>\n<|im_start|>assistant\n"
GEMMA_PROMPT = "<bos><|turn>user\nWeather in Paris?<turn|>\n<|turn>model\n"
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {
    "city": {"type": "string"}, "days": {"type": "integer"}, "metric": {"type": "boolean"}}}}}]

CASES = [
    ("qwen3 thinking prefilled, call", QWEN3, CHATML_PROMPT + "<think>\n",
     'The user wants the weather.\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call><|im_end|>'),
    ("qwen3 answer after reasoning", QWEN3, CHATML_PROMPT,
     "<think>\nShort.\n</think>\n\nIt is sunny in Paris today.<|im_end|>"),
    ("qwen3 two calls, text before", QWEN3, CHATML_PROMPT,
     'Let me check.\n<tool_call>\n{"name": "a", "arguments": {}}\n</tool_call>\n<tool_call>\n{"name": "b", "arguments": {"x": [1, 2]}}\n</tool_call><|im_end|>'),
    ("qwen3.5 xml call with typed parameters", QWEN3_5, CHATML_PROMPT + "<think>\n",
     "Checking.\n</think>\n\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
     "<parameter=days>\n3\n</parameter>\n<parameter=metric>\ntrue\n</parameter>\n</function>\n</tool_call><|im_end|>"),
    ("gemma4 thought and call", GEMMA4, GEMMA_PROMPT,
     '<|channel>thought\nNeed the tool.<channel|><|tool_call>call:get_weather{city:<|"|>Paris<|"|>,days:3}<tool_call|>'),
    ("gemma4 plain answer", GEMMA4, GEMMA_PROMPT, "Sunny, 21 °C.<turn|>"),
    ("qwen3 unterminated json call", QWEN3, CHATML_PROMPT, '<tool_call>\n{"name": "a", "arguments": {'),
]


def run(*args: str):
    return CliRunner().invoke(app, list(args))


def files(tmp_path: Path, template, prompt: str, output: str) -> tuple[Path, Path, Path]:
    t, p, o = tmp_path / "template.json", tmp_path / "prompt.txt", tmp_path / "out.txt"
    t.write_text(json.dumps(template), encoding="utf-8")
    p.write_text(prompt, encoding="utf-8")
    o.write_text(output, encoding="utf-8")
    return t, p, o


@pytest.mark.parametrize("tools", [None, TOOLS], ids=["no tools", "tools"])
@pytest.mark.parametrize("name, template, prompt, output", CASES, ids=[c[0] for c in CASES])
def test_parse_gives_what_the_runtime_gives(tmp_path, newest_oracle, name, template, prompt, output, tools):
    t, p, o = files(tmp_path, template, prompt, output)
    args = ["parse", str(o), "--schema", str(t), "--prefix-file", str(p)]
    if tools is not None:
        (tmp_path / "tools.json").write_text(json.dumps(tools), encoding="utf-8")
        args += ["--tools", str(tmp_path / "tools.json")]
    result = run(*args)
    expected = newest_oracle.parse(output, template, prefix=prompt, tools=tools)
    assert "is a response_template" in result.stderr
    if expected[0] == "value":
        assert result.exit_code == 0, result.stderr
        assert json.dumps(json.loads(result.stdout)) == json.dumps(expected[1])
    else:
        assert result.exit_code == 1
        # One line on stderr: the runtime's message with its line breaks as spaces.
        assert " ".join(f"{expected[1]}: {expected[2]}".splitlines()) in result.stderr


@pytest.mark.parametrize("chunk", [1, 4, 7])
@pytest.mark.parametrize("name, template, prompt, output", CASES[:-1], ids=[c[0] for c in CASES[:-1]])
def test_stream_gives_the_runtimes_events(tmp_path, newest_oracle, name, template, prompt, output, chunk):
    t, p, o = files(tmp_path, template, prompt, output)
    result = run("parse", str(o), "--schema", str(t), "--prefix-file", str(p), "--stream", "--chunk", str(chunk))
    assert result.exit_code == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    chunks = [output[i : i + chunk] for i in range(0, len(output), chunk)]
    expected = newest_oracle.stream(chunks, template, prefix=prompt)
    assert expected["error"] is None
    assert lines[0] == {"step": "initial", "events": expected["initial_events"]}
    assert [line["events"] for line in lines[1:-2]] == expected["events"]
    assert [line["chunk"] for line in lines[1:-2]] == chunks
    assert lines[-2] == {"step": "finalize", "events": expected["final_events"]}
    assert json.dumps(lines[-1]["message"]) == json.dumps(expected["message"])


@pytest.mark.parametrize("name, template, prompt, output", CASES, ids=[c[0] for c in CASES])
def test_trace_gives_the_message_of_the_plain_parse_with_its_regions(tmp_path, name, template, prompt, output):
    t, p, o = files(tmp_path, template, prompt, output)
    plain = run("parse", str(o), "--schema", str(t), "--prefix-file", str(p))
    traced = run("parse", str(o), "--schema", str(t), "--prefix-file", str(p), "--trace")
    assert traced.exit_code == plain.exit_code and traced.stderr == plain.stderr
    shown = json.loads(traced.stdout)
    if plain.exit_code == 0:
        assert shown["message"] == json.loads(plain.stdout) and shown["error"] is None
    else:
        assert shown["message"] is None
        assert f"{shown['error']['type']}: " in plain.stderr and shown["error"]["fields"] == ["tool_calls"]
    trace = shown["trace"]
    text = trace["prefix_tail"] + output
    assert prompt.endswith(trace["prefix_tail"]) and trace["prefix_tail_start"] == len(prompt) - len(trace["prefix_tail"])
    assert trace["regions"], "every case has a region"
    for region in trace["regions"]:
        for delimiter in (region.get("open"), region.get("close")):
            if delimiter is not None:
                start, end = delimiter["span"]
                assert text[start:end] == delimiter["text"]


def test_trace_and_stream_are_one_or_the_other(tmp_path):
    t, p, o = files(tmp_path, QWEN3, CHATML_PROMPT, "Hi<|im_end|>")
    result = run("parse", str(o), "--schema", str(t), "--trace", "--stream")
    assert result.exit_code == 2 and "--trace or --stream" in result.stderr


def test_a_prompt_beside_the_sample_is_used_and_none_means_prefix_empty(tmp_path, newest_oracle):
    output = "I should greet</think>\n\nHello!<|im_end|>"
    t, p, o = files(tmp_path, QWEN3, CHATML_PROMPT + "<think>\n", output)
    p.rename(tmp_path / "out.prompt.txt")
    beside = run("parse", str(o), "--schema", str(t))
    assert json.loads(beside.stdout) == newest_oracle.parse(output, QWEN3, prefix=CHATML_PROMPT + "<think>\n")[1]
    (tmp_path / "out.prompt.txt").unlink()
    none = run("parse", str(o), "--schema", str(t))
    assert 'prefix=""' in none.stderr
    assert json.loads(none.stdout) == newest_oracle.parse(output, QWEN3, prefix="")[1]


def test_a_template_the_runtime_rejects_is_unusable_with_its_message(tmp_path):
    bad = dict(QWEN3, fields={"x": {"open": "a", "type": "string"}})
    t, _, o = files(tmp_path, bad, "", "a")
    result = run("parse", str(o), "--schema", str(t))
    assert result.exit_code == 2
    assert "Field 'x': unknown keys ['type']" in result.stderr
    validated = run("validate", str(t))
    assert validated.exit_code == 1 and "Field 'x': unknown keys ['type']" in validated.stdout


def test_schema_options_are_refused_for_schemas(tmp_path):
    root = Path(__file__).resolve().parent.parent
    result = run("parse", str(root / "sample_outputs/qwen3/tool_call.txt"), "--stream")
    assert result.exit_code == 2 and "for response templates" in result.stderr


def test_validate_states_the_release_range_and_what_narrows_it(tmp_path):
    t, _, _ = files(tmp_path, QWEN3, "", "")
    plain = run("validate", str(t))
    assert plain.exit_code == 0
    assert "response_template: read by transformers 5.13 and later" in plain.stdout
    assert "same result" not in plain.stdout
    narrowed = json.loads(json.dumps(QWEN3))
    narrowed["fields"]["content"].update(repeats=True, join="")
    narrowed["fields"]["tool_calls"]["transform"] = {"type": "function", "function": {"name": "{content.name}"}}
    narrowed["defaults"]["tool_calls"] = []
    t.write_text(json.dumps(narrowed), encoding="utf-8")
    result = run("validate", str(t))
    assert result.exit_code == 0
    assert "same result on transformers 5.21 and later" in result.stdout
    assert "/fields/content/join: 'join' exists from 5.16" in result.stdout
    assert "/fields/tool_calls/transform/function/name: the dotted placeholder {content.name}" in result.stdout
    assert "/defaults/tool_calls: before 5.21" in result.stdout
    root = Path(__file__).resolve().parent.parent
    schema = run("validate", str(root / "schemas/gemma4.json"))
    assert "response_schema: read by transformers 5.3–5.14" in schema.stdout
    assert "same result on transformers 5.5–5.14 only" in schema.stdout


def test_parse_with_tools_says_which_releases_take_them(tmp_path):
    t, p, o = files(tmp_path, QWEN3, CHATML_PROMPT, '<tool_call>\n{"name": "get_weather", "arguments": {"days": "3"}}\n</tool_call>')
    (tmp_path / "tools.json").write_text(json.dumps(TOOLS), encoding="utf-8")
    result = run("parse", str(o), "--schema", str(t), "--prefix-file", str(p), "--tools", str(tmp_path / "tools.json"))
    assert result.exit_code == 0, result.stderr
    assert "tools= exists from 5.15" in result.stderr and "from 5.20" in result.stderr
    assert json.loads(result.stdout)["tool_calls"][0]["function"]["arguments"] == {"days": 3}


def test_validate_notes_a_reasoning_field_serve_does_not_show(tmp_path):
    renamed = json.loads(json.dumps(QWEN3))
    renamed["fields"]["my_thoughts"] = renamed["fields"].pop("reasoning_content")
    t, _, _ = files(tmp_path, renamed, "", "")
    result = run("validate", str(t))
    assert result.exit_code == 0
    assert "note: /fields/my_thoughts: `transformers serve` shows reasoning only from a field named" in result.stdout
    t.write_text(json.dumps(QWEN3), encoding="utf-8")
    assert "`transformers serve` shows reasoning" not in run("validate", str(t)).stdout
