"""The trace: every raw span holds exactly what its node received; matches point at the right text."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given

import workbench
from workbench.engine.schema import trace_tree as tr

from test_engine_generated import SETTINGS, model_outputs, model_schemas

ROOT = Path(__file__).resolve().parent.parent
QWEN = json.loads((ROOT / "schemas" / "qwen3.json").read_text())


def check_spans(text: str, result: workbench.Trace) -> None:
    result.locate_all()
    for node in result.nodes():
        if node.input_kind == tr.RAW:
            start, end = node.span
            assert 0 <= start <= end <= len(text)
            assert node.source_span == node.span
        if node.source_span is not None:
            assert 0 <= node.source_span[0] <= node.source_span[1] <= len(text)
        for match in node.matches:
            if match.span is None:
                continue
            start, end = match.span
            assert node.span is not None and node.span[0] <= start <= end <= node.span[1] or match.key == "x-regex-substitutions"
            for group in match.groups:
                if group.span is not None:
                    assert start <= group.span[0] <= group.span[1] <= end


def received(text: str, node: tr.TraceNode) -> str:
    start, end = node.span
    return text[start:end]


def test_raw_spans_hold_what_each_node_received():
    text = (ROOT / "sample_outputs" / "qwen3" / "parallel_calls.txt").read_text(encoding="utf-8")
    result = workbench.trace(text, QWEN)
    assert result.ok
    check_spans(text, result)
    thinking = result.nodes_at("/properties/thinking")[0]
    assert thinking.matches[0].key == "x-regex"
    group = thinking.matches[0].groups[0]
    assert text[group.span[0]:group.span[1]] == result.value["thinking"]
    calls = result.nodes_at("/properties/tool_calls")[0]
    # the x-regex skips the reasoning; the iterator then finds each call in what it kept
    assert [m.key for m in calls.matches] == ["x-regex", "x-regex-iterator", "x-regex-iterator"]
    after_reasoning = calls.matches[0].groups[0].span
    items = result.nodes_at("/properties/tool_calls/items")
    assert [n.key for n in items] == [0, 1]
    for item, match in zip(items, calls.matches[1:]):
        assert after_reasoning[0] <= match.span[0] <= match.span[1] <= after_reasoning[1]
        assert item.span == match.groups[0].span
        assert json.loads(received(text, item))["name"] in ("search", "convert_units")


def test_json_values_get_their_own_spans():
    text = (ROOT / "sample_outputs" / "qwen3" / "parallel_calls.txt").read_text(encoding="utf-8")
    result = workbench.trace(text, QWEN).locate_all()
    names = result.nodes_at("/properties/tool_calls/items/properties/function/properties/name")
    assert [received(text, n) for n in names] == ["search", "convert_units"]
    assert all(n.input_kind == tr.RAW for n in names)
    arguments = result.nodes_at("/properties/tool_calls/items/properties/function/properties/arguments")
    assert arguments[1].input_kind == tr.JSON
    start, end = arguments[1].source_span
    assert json.loads(text[start:end]) == result.value["tool_calls"][1]["function"]["arguments"]
    values = [n for n in result.nodes() if n.path.endswith("/arguments/additionalProperties")]
    by_key = {n.key: n for n in values}
    start, end = by_key["options"].source_span
    assert json.loads(text[start:end]) == {"round": True, "notation": None}
    start, end = by_key["value"].source_span
    assert text[start:end] == "26.2"


def test_a_guard_transform_keeps_json_spans_and_a_reshaping_one_drops_them():
    """`name && @ || {...}` hands back the very object it was given (the shipped schemas guard
    against nameless calls this way), so its members still point at the raw text; a transform that
    builds a new object leaves nothing to point at."""
    text = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
    guarded = {"type": "object", "x-regex": "<tool_call>(.*)</tool_call>", "x-parser": "json",
               "x-parser-args": {"transform": "name && @ || {arguments: arguments}"},
               "properties": {"name": {"type": "string"}}, "required": ["name"]}
    result = workbench.trace(text, guarded).locate_all()
    assert result.ok
    name = result.nodes_at("/properties/name")[0]
    assert name.input_kind == tr.RAW and received(text, name) == "get_weather"
    reshaped = dict(guarded, **{"x-parser-args": {"transform": "{name: name, arguments: arguments}"}})
    result = workbench.trace(text, reshaped).locate_all()
    assert result.value["name"] == "get_weather"
    assert result.nodes_at("/properties/name")[0].span is None
    failed = workbench.trace(text.replace('"get_weather"', "null"), guarded)
    assert not failed.ok and "/properties/name" not in str(failed.error) and "name" in str(failed.error)


def test_key_value_spans():
    text = "<f=w><p=city>Zürich</p><p=days>3</p></f>"
    schema = {"type": "object", "x-regex": "<f=\\w+>(.*)</f>", "x-regex-key-value": "<p=(?P<key>\\w+)>(?P<value>.*?)</p>",
              "properties": {"days": {"type": "integer"}}}
    result = workbench.trace(text, schema)
    assert result.value == {"days": 3, "city": "Zürich"}
    node = result.root
    kv = [m for m in node.matches if m.key == "x-regex-key-value"]
    assert [text[m.span[0]:m.span[1]] for m in kv] == ["<p=city>Zürich</p>", "<p=days>3</p>"]
    assert {text[g.span[0]:g.span[1]] for m in kv for g in m.groups} == {"city", "Zürich", "days", "3"}
    children = {c.key: c for c in node.children}
    assert received(text, children["days"]) == "3" and received(text, children["city"]) == "Zürich"


def test_rewritten_content_points_at_nearest_raw_span():
    text = "noise [a-b-c] noise"
    schema = {"type": "object", "x-regex": "\\[(.*?)\\]", "x-regex-substitutions": [["-", "+"]],
              "properties": {"v": {"type": "string"}}}
    result = workbench.trace(text, schema)
    child = result.root.children[0]
    assert child.input_kind == tr.DERIVED and child.span is None
    assert child.source_span == (0, len(text))
    subs = [m for m in result.root.matches if m.key == "x-regex-substitutions"]
    assert [text[m.span[0]:m.span[1]] for m in subs] == ["-", "-"]
    regex_match = [m for m in result.root.matches if m.key == "x-regex"][0]
    assert regex_match.span is None and regex_match.relative == (6, 13)


def test_failure_is_recorded_at_the_node_with_its_path():
    text = (ROOT / "sample_outputs" / "qwen3" / "truncated_call.txt").read_text(encoding="utf-8")
    result = workbench.trace(text, QWEN)
    assert not result.ok
    assert result.error_path == "/properties/tool_calls/items/properties/function"
    failing = [n for n in result.nodes() if n.error]
    assert [n.path for n in failing] == [result.error_path]
    assert "could not parse its contents as JSON" in failing[0].error
    # what was parsed before the failure stays in the tree
    assert result.nodes_at("/properties/thinking")[0].value.startswith("I should run")


def test_no_match_is_marked():
    result = workbench.trace("plain", QWEN)
    node = result.nodes_at("/properties/tool_calls")[0]
    assert node.no_match == "x-regex-iterator" and node.value is None


@SETTINGS
@given(text=model_outputs(), schema=model_schemas())
def test_generated_traces_have_consistent_spans(text, schema):
    result = workbench.trace(text, schema)
    check_spans(text, result)
    for node in result.nodes():
        if node.input_kind == tr.RAW and node.value is not tr.MISSING and node.schema.get("type") == "string" and not any(
            k.startswith("x-") for k in node.schema
        ):
            assert received(text, node) == node.value
