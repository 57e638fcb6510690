"""A template parse in the vocabulary the panes share (engine/template/highlights.py and
outline.py, analysis.py): colour runs with delimiters apart from bodies and the traps on top, the
tree with its notes, the spans an editor position stands for, and where a load error points."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.live.analysis import analyze
from workbench.engine.problems import NOTE
from workbench.formats.template import load_error_pointer, template_problems
from workbench.engine import ERROR
from workbench.engine.paint import (
    BODY, BODY_ALT, CAPTURE, DELIMITER, DROPPED, EMPTIED, LEFT_OPEN, NO_FIELD, OVERWRITTEN,
)
from workbench.engine.template import load_template, trace_response
from workbench.engine.template.highlights import anchor_span, template_runs
from workbench.engine.preview import preview
from workbench.engine.template.outline import failure_pointer, outline, spans_at
from workbench.engine.spans import MISSING

ROOT = Path(__file__).resolve().parent.parent

CHATML = {
    "start_anchor": "<|im_start|>assistant\n",
    "defaults": {"role": "assistant"},
    "fields": {
        "thinking": {"open": "<think>", "close": "</think>"},
        "tool_calls": {"open_pattern": "<tool_call>(?P<n>\\d*)", "close": "</tool_call>", "repeats": True, "content": "json",
                       "transform": {"type": "function", "id": "{n}", "function": "{content}"}},
        "content": {"close": "<|im_end|>"},
    },
}
NO_IMPLICIT = {"start_anchor": "<|assistant|>", "fields": {
    "thinking": {"open": "<think>", "close": "</think>"}, "answer": {"open": "<answer>", "close": "</answer>"}}}


def kinds_over(runs, start: int, end: int) -> set:
    return {kind for s, e, _, kind in runs if s < end and e > start}


def test_regions_are_coloured_per_field_with_delimiters_apart_and_repeats_alternating():
    text = '<think>plan</think><tool_call>7{"a": 1}</tool_call><tool_call>{"b": 2}</tool_call>done<|im_end|>'
    found = trace_response(text, CHATML, prefix="")
    fields, runs, prompt_runs = template_runs(found)
    assert fields == ["thinking", "tool_calls", "content"] and prompt_runs == []
    assert (0, 7, 0, DELIMITER) in runs and (7, 11, 0, BODY) in runs and (11, 19, 0, DELIMITER) in runs
    first, second = text.index('{"a"'), text.index('{"b"')
    assert kinds_over(runs, first, first + 1) == {BODY} and kinds_over(runs, second, second + 1) == {BODY_ALT}
    seven = text.index("7")
    assert (seven, seven + 1, 1, CAPTURE) in runs  # the opener's named group, stronger than the opener
    done = text.index("done")
    assert (done, done + 4, 2, BODY) in runs


def test_the_traps_show_on_top_of_the_field_colours():
    # Text outside every region with no implicit field is dropped; a region the text ends in is left open.
    found = trace_response("Sure! <think>hmm</think> stray <answer>42", NO_IMPLICIT, prefix="")
    _, runs, _ = template_runs(found)
    assert (0, 6, NO_FIELD, DROPPED) in runs and (24, 31, NO_FIELD, DROPPED) in runs
    assert kinds_over(runs, 31, 39) == {LEFT_OPEN} and kinds_over(runs, 40, 41) == {LEFT_OPEN}  # opener, and where the closer was due
    # An implicit segment overwritten by a later one, and the later one emptied at the end.
    text = '<think>plan</think>Answer<tool_call>{"a": 1}</tool_call>\n<tool_call>{}</tool_call>'
    found = trace_response(text, CHATML, prefix="")
    _, runs, _ = template_runs(found)
    answer = text.index("Answer")
    assert kinds_over(runs, answer, answer + 6) == {OVERWRITTEN}
    newline = text.index("\n")
    assert kinds_over(runs, newline, newline + 1) == {EMPTIED}


def test_a_region_opened_in_the_prompt_is_coloured_in_the_prompt():
    prompt = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n"
    found = trace_response("hmm</think>Hello<|im_end|>", CHATML, prefix=prompt)
    fields, runs, prompt_runs = template_runs(found)
    tail = prompt.index("<think>")
    assert (tail, tail + 7, 0, DELIMITER) in prompt_runs and (tail + 7, tail + 8, 0, BODY) in prompt_runs
    assert runs[0] == (0, 3, 0, BODY)  # the body goes on in the output
    assert anchor_span(found, prompt) == (prompt.index("<|im_start|>assistant"), tail)


def test_the_outline_lists_fields_regions_stages_and_notes():
    text = '<think>plan</think>Answer<tool_call>3{"a": 1}</tool_call>\n<tool_call>{}</tool_call>'
    found = trace_response(text, CHATML, prefix="")
    root = outline(found)
    names = [n.name for n in root.children]
    assert names == ["thinking", "tool_calls", "content", "role"]
    content = root.children[2]
    assert content.note and "empty" in content.note
    first, second = content.children
    assert "overwritten by #3" in first.note and "empty" in second.note
    call = root.children[1].children[0]
    parts = {c.key: c for c in call.children}
    assert parts["parsed"].value == {"a": 1}
    assert parts["transformed"].value == {"type": "function", "id": "3", "function": {"a": 1}}
    assert parts["open"].children[0].name == "{n}" and parts["open"].children[0].value == "3"
    assert parts["close"].path == "/fields/tool_calls/close" and parts["close"].spans == ((45, 57),)
    assert parts["open"].path == "/fields/tool_calls/open_pattern" and parts["body"].spans == ((37, 45),)
    assert root.children[3].value == "assistant" and root.children[3].text == "default"


def test_the_outline_names_the_failure_and_where_to_look():
    found = trace_response("<tool_call>{not json</tool_call>", CHATML, prefix="")
    root = outline(found)
    assert root.error.startswith("ValueError: json parser could not parse region as JSON")
    calls = root.children[1]
    assert calls.error and calls.children[0].error
    assert failure_pointer(found) == "/fields/tool_calls/content"
    cut = trace_response("<answer>x", {**NO_IMPLICIT, "fields": {**NO_IMPLICIT["fields"], "thinking": {"open": "<think>", "optional": False}}}, prefix="")
    assert failure_pointer(cut) == "/fields/thinking/optional"


def test_dropped_text_and_an_anchor_not_found_are_notes_in_the_outline():
    found = trace_response("Sure! <answer>42</answer>", NO_IMPLICIT, prefix="no anchor here")
    root = outline(found)
    dropped = next(n for n in root.children if n.name == "dropped text")
    # The whole prompt is the tail: its text, and the output's before the first region, are dropped.
    assert [c.name for c in dropped.children] == ["'no anchor hereSure! '"]
    assert "no implicit field" in dropped.children[0].note
    prompt = next(n for n in root.children if n.name == "prompt tail")
    assert "anchor is not in the prompt" in prompt.note


def test_an_editor_position_lights_the_regions_or_one_part_of_them():
    text = "<think>a</think>x<think>b</think>"
    found = trace_response(text, CHATML, prefix="")
    assert spans_at(found, "/fields/thinking").spans == [(0, 16), (17, 33)]
    assert spans_at(found, "/fields/thinking/open").spans == [(0, 7), (17, 24)]
    assert spans_at(found, "/fields/thinking/close").spans == [(8, 16), (25, 33)]
    assert spans_at(found, "/fields/thinking/content").spans == [(7, 8), (24, 25)]
    assert spans_at(found, "/defaults/role").spans == []
    assert spans_at(found, "/start_anchor") is None


@pytest.mark.parametrize("template, pointer", [
    ({"start_anchor": "a", "fields": {"x": {"open": "<x>", "type": "string"}}}, "/fields/x/type"),
    ({"start_anchor": "a", "fields": {"x": {"open": "<x>", "open_pattern": "<x>"}}}, "/fields/x/open_pattern"),
    ({"start_anchor": "a", "fields": {"x": {"open_pattern": "(", "close": "y"}}}, "/fields/x/open_pattern"),
    ({"start_anchor": "a", "fields": {"x": {"open": "<x>", "content": "yaml"}}}, "/fields/x/content"),
    ({"start_anchor": "a", "fields": {"x": {"open": "<x>", "join": ","}}}, "/fields/x/join"),
    ({"start_anchor": "a", "fields": {"x": {"open": "<x>", "transform": "a {content}"}}}, "/fields/x/transform"),
    ({"start_anchor": "a", "fields": {"x": {"open_pattern": "(?P<n>x)"}}}, "/fields/x/open_pattern"),
    ({"start_anchor": "a", "fields": {"x": {}, "y": {}}}, "/fields/y"),
    ({"start_anchor": "a", "fields": {}}, "/fields"),
    ({"fields": {"x": {}}}, "/start_anchor"),
    ({"start_anchor": "a", "fields": {"x": {}}, "properties": {}}, "/properties"),
])
def test_a_load_error_points_at_its_key(template, pointer):
    with pytest.raises(ValueError) as raised:
        load_template(template)
    assert load_error_pointer(template, str(raised.value)) == pointer


def test_template_problems_are_the_load_error_and_the_release_notes():
    problems, releases = template_problems({"start_anchor": "a", "fields": {"x": {"open": 3}}})
    assert [(p.path, p.severity) for p in problems] == [("/fields/x/open", ERROR)]
    problems, releases = template_problems({"start_anchor": "a", "fields": {"x": {"open": "<", "repeats": True, "join": ""}}})
    # 'join' narrows the releases; and vLLM serves no field named x
    assert [(p.path, p.severity) for p in problems] == [("/fields/x/join", NOTE), ("/fields/x", NOTE)]
    assert problems[1].message.startswith("vLLM 0.33 refuses it: ")
    assert releases.same[0] == (5, 16)
    assert releases.served is False


def test_analyze_gives_a_template_the_shared_vocabulary():
    template = (ROOT / "schemas" / "qwen3.template.json").read_text(encoding="utf-8")
    sample = ROOT / "sample_outputs" / "qwen3" / "reasoning_prewritten.txt"
    prompt = (ROOT / "sample_outputs" / "qwen3" / "reasoning_prewritten.prompt.txt").read_text(encoding="utf-8")
    a = analyze(template, sample.read_text(encoding="utf-8"), prefix=prompt)
    assert a.format == "response_template" and a.usable and a.ok and a.errors == []
    assert a.value == json.loads(sample.with_name("reasoning_prewritten.template.expected.json").read_text(encoding="utf-8"))
    assert a.root is a.tree and a.fields[:1] == ["thinking"]
    thinking = a.root.children[0].children[0]
    output, in_prompt = a.spans_of(thinking)
    assert output[0][0] == 0 and in_prompt == [(prompt.index("<think>"), len(prompt))]
    lit = a.lit_at("/fields/thinking/open")
    assert lit.mark == "/fields/thinking" and lit.output == [] and lit.prompt == [(prompt.index("<think>"), prompt.index("<think>") + 7)]
    anchor = a.lit_at("/start_anchor")
    assert anchor.prompt == [a.anchor] and a.anchor[1] == prompt.index("<think>")
    assert a.lit_at("/defaults").output == [] and a.failure() is None
    assert thinking.value is not MISSING


def test_a_preview_is_the_values_json_cut_short_without_encoding_all_of_it():
    calls = [{"type": "function", "function": {"name": f"f{i}", "arguments": {"i": i}}} for i in range(100_000)]
    shown = preview(calls)
    assert len(shown) == 60 and shown == json.dumps(calls[:3], ensure_ascii=False)[:59] + "…"
    assert preview({"a": "é"}) == '{"a": "é"}'
    assert preview({1j: 2}).startswith("{1j: 2}")  # not JSON: its repr, shortened
