"""The second oracle itself (tests/template_oracle.py): transformers' response_template engine, each
release (5.23.0, 5.24.0) run in its own environment, reproduces docs/response-template.md#a-worked-example
and #load-errors."""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path

import pytest
import template_oracle_server
from template_oracle import (
    NEWEST,
    RELEASES,
    TRANSFORMERS_VERSION,
    OracleTimeout,
    OracleUnavailable,
    Release,
    TemplateOracle,
    _build,
    _is_built,
    env_dir,
    full_version,
    oracle_releases,
    requirements,
    runtime_of,
    session_oracle,
)

# docs/response-template.md#a-worked-example: the SmolLM3 / ChatML template.
SMOL = {
    "version": 1,
    "defaults": {"role": "assistant"},
    "start_anchor": "<|im_start|>assistant\n",
    "fields": {
        "reasoning_content": {"open": "<think>", "close": "</think>", "content": "text"},
        "tool_calls": {
            "open": "<tool_call>",
            "close": "</tool_call>",
            "repeats": True,
            "content": "json",
            "transform": {"type": "function", "function": "{content}"},
        },
        "content": {"close": "<|im_end|>", "content": "text"},
    },
}

# The worked example's messages on 5.23.0, line for line (json.dumps of the message: exact text, key order included).
SMOL_OUTPUTS = [
    ("Hello there!<|im_end|>", '{"role": "assistant", "content": "Hello there!"}'),
    (
        "<think>\nLet me think.\n</think>\n\nThe answer is 4.<|im_end|>",
        '{"role": "assistant", "reasoning_content": "Let me think.", "content": "The answer is 4."}',
    ),
    (
        (
            '<think>use tools</think>\n<tool_call>{"name": "a", "arguments": {"x": 1}}</tool_call>'
            '<tool_call>{"name": "b", "arguments": {}}</tool_call><|im_end|>'
        ),
        (
            '{"role": "assistant", "reasoning_content": "use tools", "tool_calls": [{"type": "function", "function": '
            '{"name": "a", "arguments": {"x": 1}}}, {"type": "function", "function": {"name": "b", "arguments": {}}}]}'
        ),
    ),
    ("", '{"role": "assistant"}'),
    ("<think>unfinished", '{"role": "assistant", "reasoning_content": "unfinished"}'),
]

# A streaming transcript of the worked example: the prompt ends with `<|im_start|>assistant\n<think>\n`.
PROMPT = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n"
TRANSCRIPT = [
    ("I should", '[{"type": "region_chunk", "field": "reasoning_content", "text": "I should", "dirty": false}]'),
    (" greet</th", '[{"type": "region_chunk", "field": "reasoning_content", "text": " greet", "dirty": false}]'),
    (
        "ink>\n\nHel",
        (
            '[{"type": "region_close", "field": "reasoning_content", "value": "I should greet"}, {"type": "region_open", '
            '"field": "content"}, {"type": "region_chunk", "field": "content", "text": "\\n\\nHel", "dirty": false}]'
        ),
    ),
    ("lo!", '[{"type": "region_chunk", "field": "content", "text": "lo!", "dirty": false}]'),
    (
        '<tool_call>{"name": "f", ',
        (
            '[{"type": "region_close", "field": "content", "value": "Hello!"}, {"type": "region_open", "field": '
            '"tool_calls"}, {"type": "region_chunk", "field": "tool_calls", "text": "{\\"name\\": \\"f\\", ", "dirty": true}]'
        ),
    ),
    (
        '"arguments": {}}</tool_call>',
        (
            '[{"type": "region_chunk", "field": "tool_calls", "text": "\\"arguments\\": {}}", "dirty": true}, {"type": '
            '"region_close", "field": "tool_calls", "value": {"type": "function", "function": {"name": "f", "arguments": {}}}}]'
        ),
    ),
    ("<|im_", "[]"),
    ("end|>", "[]"),
]
TRANSCRIPT_INITIAL = (
    '[{"type": "region_open", "field": "reasoning_content"}, '
    '{"type": "region_chunk", "field": "reasoning_content", "text": "\\n", "dirty": false}]'
)
TRANSCRIPT_MESSAGE = (
    '{"role": "assistant", "reasoning_content": "I should greet", "content": "Hello!", '
    '"tool_calls": [{"type": "function", "function": {"name": "f", "arguments": {}}}]}'
)


def test_reports_its_version(release, release_oracle):
    assert release_oracle.version() == release.version
    info = release_oracle.info()
    assert info["regex"] >= "2025.10.22"  # chat_parsing's own floor
    assert Path(info["executable"]).parent.parent == env_dir(release.version)  # the environment ensure_env() built


def test_template_oracle_is_the_first_template_release(template_oracle):
    assert template_oracle.version() == TRANSFORMERS_VERSION == list(RELEASES)[0] == "5.23.0"


@pytest.mark.parametrize(("text", "expected"), SMOL_OUTPUTS, ids=["plain", "thinking", "tools", "empty", "unclosed"])
def test_smol_examples(release_oracle, text, expected):
    outcome = release_oracle.parse(text, SMOL)
    assert outcome[0] == "value", outcome
    assert json.dumps(outcome[1]) == expected


def test_streaming_transcript_event_for_event(release_oracle):
    run = release_oracle.stream([chunk for chunk, _ in TRANSCRIPT], SMOL, prefix=PROMPT, after=["x"])
    assert json.dumps(run["initial_events"]) == TRANSCRIPT_INITIAL
    assert [json.dumps(events) for events in run["events"]] == [expected for _, expected in TRANSCRIPT]
    assert json.dumps(run["message"]) == TRANSCRIPT_MESSAGE
    assert run["final_events"] == []
    # feed after finalize -> RuntimeError: ResponseParser already finalized (docs/response-template.md#streaming, #load-errors)
    assert run["after"] == []
    assert run["error"] == {
        "type": "RuntimeError",
        "message": "ResponseParser already finalized",
        "step": "after",
        "index": 0,
    }


def test_streaming_equals_one_shot(release_oracle):
    text = "".join(chunk for chunk, _ in TRANSCRIPT)
    run = release_oracle.stream([text], SMOL, prefix=PROMPT)
    assert run["error"] is None
    assert release_oracle.parse(text, SMOL, prefix=PROMPT) == ("value", run["message"])


def test_finalize_twice(release_oracle):
    run = release_oracle.stream(["hi"], SMOL, after=[None])
    assert run["message"] == {"role": "assistant", "content": "hi"}
    assert run["error"] == {
        "type": "RuntimeError",
        "message": "ResponseParser already finalized",
        "step": "after",
        "index": 0,
    }


@pytest.mark.parametrize(
    ("template", "error"),
    [
        ({**SMOL, "version": 2}, ("ValueError", "Unsupported response_template version: 2")),
        ([SMOL], ("ValueError", "response_template must be a dict, got list")),
        ({**SMOL, "properties": {}}, ("ValueError", "Unknown keys in response_template: ['properties']")),
        (
            {**SMOL, "fields": {"x": {"open": "<x>", "type": "string"}}},
            ("ValueError", "Field 'x': unknown keys ['type']"),
        ),
    ],
    ids=["version", "not-a-dict", "unknown-key", "unknown-field-key"],
)
def test_load_errors(release_oracle, template, error):
    """docs/response-template.md#load-errors: every load error is a ValueError, raised when the parser is built."""
    assert release_oracle.parse("hi", template) == ("error", *error)
    run = release_oracle.stream(["hi"], template)
    assert run["error"] == {"type": error[0], "message": error[1], "step": "construct", "index": None}
    assert run["initial_events"] is None and run["events"] == [] and run["message"] is None


def test_errors_name_their_step(release_oracle):
    required = {**SMOL, "fields": {**SMOL["fields"], "answer": {"open": "<a>", "close": "</a>", "optional": False}}}
    run = release_oracle.stream(["hi"], required)
    assert run["events"] == [
        [
            {"type": "region_open", "field": "content"},
            {"type": "region_chunk", "field": "content", "text": "hi", "dirty": False},
        ]
    ]
    assert run["error"] == {
        "type": "ValueError",
        "message": "Required response_template fields missing from parsed output: ['answer']",
        "step": "finalize",
        "index": None,
    }
    # A content-parser error comes from the feed() that closes the region (docs/response-template.md#streaming).
    run = release_oracle.stream(["<tool_call>{bad", "}</tool_call>"], SMOL)
    assert run["error"]["type"] == "ValueError"
    assert run["error"]["message"].startswith("json parser could not parse region as JSON.")
    assert (run["error"]["step"], run["error"]["index"], len(run["events"])) == ("feed", 1, 1)
    # prefix=None is passed on: transformers refuses it (docs/response-template.md#finding-regions, #load-errors).
    kind, name, message = release_oracle.parse("hi", SMOL, prefix=None)
    assert (kind, name) == ("error", "ValueError") and 'pass `prefix=""` to opt out' in message
    # A KeyError's message is str(exc), as a traceback prints it.
    broken = {**SMOL, "fields": {"x": {"open": "<x>", "close": "</x>", "transform": "{nope}"}}}
    assert release_oracle.parse("<x>1</x>", broken) == (
        "error",
        "KeyError",
        "\"transform placeholder '{nope}' is not defined. Available: ['content']\"",
    )


def test_tools_cast_arguments(release_oracle):
    tools = [
        {
            "type": "function",
            "function": {
                "name": "f",
                "parameters": {
                    "type": "object",
                    "properties": {"n": {"type": "integer"}, "x": {"type": "number"}, "b": {"type": "boolean"}},
                },
            },
        }
    ]
    text = '<tool_call>{"name": "f", "arguments": {"n": "007", "x": "2.5", "b": "true", "s": "7"}}</tool_call>'
    outcome = release_oracle.parse(text, SMOL, tools=tools)
    arguments = outcome[1]["tool_calls"][0]["function"]["arguments"]
    assert arguments == {"n": 7, "x": 2.5, "b": True, "s": "7"}
    assert type(arguments["n"]) is int and type(arguments["x"]) is float


def test_values_cross_faithfully(release_oracle):
    floats = {
        "version": 1,
        "start_anchor": "S",
        "fields": {
            "j": {"open": "<j>", "close": "</j>", "content": "json"},
            "f": {"open": "<f>", "close": "</f>", "content": "float", "repeats": True},
            "content": {"content": "text"},
        },
    }
    kind, value = release_oracle.parse("<j>[NaN, Infinity, -Infinity, 1, 1.0, -0.0]</j><f>inf</f><f>-0</f>", floats)
    assert kind == "value"
    nan, inf, ninf, one, one_f, zero = value["j"]
    assert math.isnan(nan) and inf == math.inf and ninf == -math.inf
    assert type(one) is int and type(one_f) is float
    assert math.copysign(1, zero) == -1
    assert value["f"] == [math.inf, -0.0] and math.copysign(1, value["f"][1]) == -1
    # lone surrogates and other non-ASCII text come back as they went
    text = "caf\u00e9 \ud83d \U0001f600"
    assert release_oracle.parse(text, floats) == ("value", {"content": text})


def test_inputs_json_cannot_carry_are_refused(release_oracle):
    with pytest.raises(TypeError, match="tuple"):
        release_oracle.parse("hi", {**SMOL, "start_anchor": ("a", "b")})
    with pytest.raises(TypeError, match="dict key 1"):
        release_oracle.parse("hi", {**SMOL, "fields": {1: {}}})
    with pytest.raises(TypeError):
        release_oracle.stream([b"hi"], SMOL)


def test_server_flags_results_json_cannot_carry():
    """The server reports such a value (with where it is) instead of sending a converted one."""

    class Name(str):
        pass

    check = template_oracle_server.check_plain
    check({"a": [1, 2.5, float("nan"), -0.0, None, True, "x"]})
    for value, where in [
        ((1, 2), "$: builtins.tuple"),
        ({1: "a"}, "$: dict key 1"),
        ({"a": [{"b": {1, 2}}]}, "$['a'][0]['b']: builtins.set"),
        ([Name("x")], "$[0]: test_template_oracle."),
    ]:
        with pytest.raises(template_oracle_server.Unencodable, match="^" + re.escape(where)):
            check(value)


def test_timeout_stops_the_server_and_the_next_call_restarts_it(template_oracle):
    """The client's own machinery, the same for every release: tried on one (3 s)."""
    catastrophic = {"start_anchor": "S", "fields": {"x": {"open_pattern": "(a|aa)+$", "transform": "{content}"}}}
    with TemplateOracle(template_oracle.python, version=template_oracle.release, timeout=1.0) as oracle:
        with pytest.raises(OracleTimeout, match="no answer to parse within 1 s"):
            oracle.parse("a" * 60 + "b", catastrophic)
        assert oracle.parse("hi", SMOL) == ("value", {"role": "assistant", "content": "hi"})


def test_stamp_decides_whether_to_rebuild(tmp_path):
    wanted = {"format": 1, "transformers": "5.23.0"}
    assert not _is_built(tmp_path, wanted)  # no stamp
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "python").touch()
    (tmp_path / "oracle-stamp.json").write_text(json.dumps({**wanted, "built_in_s": 20.0}))
    assert _is_built(tmp_path, wanted)
    assert not _is_built(tmp_path, {**wanted, "transformers": "5.22.0"})
    (tmp_path / "oracle-stamp.json").write_text("{trunc")
    assert not _is_built(tmp_path, wanted)


def test_never_deletes_a_folder_that_is_not_its_environment(tmp_path):
    (tmp_path / "notes.txt").write_text("keep me")
    with pytest.raises(OracleUnavailable, match="not a virtual environment: not touching it"):
        _build(tmp_path, sys.executable, {}, log=lambda message: None)
    assert (tmp_path / "notes.txt").read_text() == "keep me"


def test_unbuildable_environment_fails_unless_allowed(monkeypatch, tmp_path):
    monkeypatch.setenv("WORKBENCH_ORACLE_DIR", str(tmp_path / "env"))
    monkeypatch.setenv("WORKBENCH_ORACLE_PYTHON", str(tmp_path / "no-such-python"))
    monkeypatch.delenv("WORKBENCH_ALLOW_NO_ORACLE", raising=False)
    with pytest.raises(pytest.fail.Exception, match="could not be built"):
        next(session_oracle())
    monkeypatch.setenv("WORKBENCH_ALLOW_NO_ORACLE", "1")
    with pytest.raises(pytest.skip.Exception, match="WORKBENCH_ALLOW_NO_ORACLE=1"):
        next(session_oracle())


def test_pins_per_release_and_a_release_without_a_row():
    assert list(RELEASES)[:2] == ["5.23.0", "5.24.0"] and NEWEST == list(RELEASES)[-1]
    assert list(RELEASES) == sorted(RELEASES, key=lambda v: tuple(map(int, v.split("."))))  # oldest first
    for version, pins in RELEASES.items():
        assert pins[0] == f"transformers=={version}" and requirements(version) == pins
        assert len({pin.split("==")[0].lower() for pin in pins}) == len(pins)  # one pin a package
    assert requirements("9.0.0") == ("transformers==9.0.0", *RELEASES[NEWEST][1:])


def test_release_names():
    assert [full_version(name) for name in ("5.24", "5.24.0", " 5.23 ", "5.25", "6.0.1")] == [
        "5.24.0", "5.24.0", "5.23.0", "5.25.0", "6.0.1"]
    assert [runtime_of(version) for version in RELEASES][:2] == ["5.23", "5.24"]
    for bad in ("", "5", "five.two", "5.24.0.1", "v5.24", "5.24.x"):
        with pytest.raises(ValueError, match="not a release"):
            full_version(bad)


def test_where_each_release_lives(monkeypatch, tmp_path):
    root = Path(__file__).resolve().parent.parent / ".oracles"
    for name in ("WORKBENCH_ORACLE_DIR", "WORKBENCH_ORACLES"):
        monkeypatch.delenv(name, raising=False)
    assert env_dir("5.24.0") == root / "transformers-5.24.0" and env_dir() == root / "transformers-5.23.0"
    monkeypatch.setenv("WORKBENCH_ORACLES", str(tmp_path))
    assert env_dir("5.23.0") == tmp_path / "transformers-5.23.0" and env_dir("5.25.0") == tmp_path / "transformers-5.25.0"
    monkeypatch.setenv("WORKBENCH_ORACLE_DIR", str(tmp_path / "old"))  # the older setting: 5.23.0 only
    assert env_dir("5.23.0") == tmp_path / "old" and env_dir("5.24.0") == tmp_path / "transformers-5.24.0"


def test_which_releases_the_differential_suites_run(monkeypatch):
    monkeypatch.delenv("WORKBENCH_NEW_RELEASE", raising=False)
    assert oracle_releases()[:2] == [Release("5.23.0", "5.23"), Release("5.24.0", "5.24")]
    assert [str(release) for release in oracle_releases()] == [runtime_of(version) for version in RELEASES]
    monkeypatch.setenv("WORKBENCH_NEW_RELEASE", "9.1")
    assert oracle_releases() == [Release("9.1.0", None)] and str(oracle_releases()[0]) == "9.1.0-new"
