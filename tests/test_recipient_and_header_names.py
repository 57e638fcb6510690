"""How a call's name written in a message header comes back (never_silently_wrong, issue 24):
gpt_oss reads a recipient name up to its real end (a name with spaces comes back as written, a
last word `json`/`code` before `<|` is the content type) and fails on a call cut before its
`<|message|>`; inkling's template keeps the header's name visible when a call block cannot be
read as a call (cut before its `"name"` is written)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from oracle import RAISED, assert_agrees
from workbench.engine.template import parse_response as template_parse

SCHEMAS = Path(__file__).resolve().parent.parent / "schemas"


def _load(name: str) -> dict:
    return json.loads((SCHEMAS / name).read_text(encoding="utf-8"))


HEAD = "<|channel|>analysis<|message|>Look it up.<|end|><|start|>assistant"
CALLS = [
    ('<|channel|>commentary to=functions.get_time <|constrain|>json<|message|>{"tz":"CET"}<|call|>', "get_time"),
    ('<|channel|>commentary to=functions.get_time json<|message|>{"tz":"CET"}<|call|>', "get_time"),
    ('<|channel|>commentary to=functions.bad name! <|constrain|>json<|message|>{"tz":"CET"}<|call|>', "bad name!"),
    (' to=functions.bad name!<|channel|>commentary json<|message|>{"tz":"CET"}<|call|>', "bad name!"),
]


@pytest.mark.parametrize("call, name", CALLS)
def test_gpt_oss_recipient_name_comes_back_as_written(call: str, name: str):
    want = [{"type": "function", "function": {"name": name, "arguments": {"tz": "CET"}}}]
    assert assert_agrees(HEAD + call, _load("gpt_oss.json"))["tool_calls"] == want
    assert template_parse(HEAD + call, _load("gpt_oss.template.json"), prefix="")["tool_calls"] == want


@pytest.mark.parametrize("cut", ["<|", "<|constrain|>", "<|constrain|>json<|"])
def test_gpt_oss_call_cut_before_its_message_fails(cut: str):
    text = HEAD + "<|channel|>commentary to=functions.get_time " + cut
    assert assert_agrees(text, _load("gpt_oss.json")) is RAISED
    with pytest.raises(Exception):
        template_parse(text, _load("gpt_oss.template.json"), prefix="")


@pytest.mark.parametrize("text", [
    '<|message_model|>get_weather<|content_invoke_tool_json|>{"args":{"city":"Seoul"',
    'get_weather<|content_invoke_tool_json|>{"name": "get_w',
    "get_weather<|",
])
def test_inkling_template_keeps_the_header_name_of_an_unreadable_call_visible(text: str):
    got = template_parse(text, _load("inkling.template.json"), prefix="<|message_model|>")
    assert not got.get("tool_calls")
    assert "get_weather" in (got.get("content") or "")
