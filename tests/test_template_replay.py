"""The streaming replay (engine/template/replay.py): the calls and events ``workbench parse
--stream`` gives, each event placed in the text, the message a client builds from them, and the
flags for what a streaming client suffers from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.engine.template import ResponseParser, parse_response
from workbench.engine.template.replay import (
    DIFFERENCE,
    DIRTY,
    FEED,
    FINALIZE,
    INITIAL,
    LATE_CLOSE,
    LEAK,
    SHOWN_THEN_OVERWRITTEN,
    assemble,
    replay,
)
from workbench.store.samples import discover, load

ROOT = Path(__file__).resolve().parent.parent
QWEN3 = json.loads((ROOT / "schemas" / "qwen3.template.json").read_text(encoding="utf-8"))
SAMPLES = discover(ROOT / "sample_outputs" / "qwen3")
CHATML = {
    "start_anchor": "<|im_start|>assistant\n",
    "fields": {
        "thinking": {"open": "<think>", "close": "</think>"},
        "tool_calls": {"open": "<tool_call>", "close": "</tool_call>", "repeats": True, "content": "json"},
        "content": {"close": "<|im_end|>"},
    },
}


def plain_stream(text: str, template, prefix: str, chunk: int) -> list:
    """What `workbench parse --stream` prints: each call's events, from a parser with no recorder."""
    parser = ResponseParser(template, prefix=prefix)
    calls = [parser.initial_events]
    for at in range(0, len(text), chunk):
        calls.append(parser.feed(text[at : at + chunk]))
    message, events = parser.finalize()
    return calls + [events, message]


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
@pytest.mark.parametrize("chunk", [1, 4, 7])
def test_the_replay_gives_the_plain_streams_events_and_places_each_in_the_text(path, chunk):
    sample = load(path)
    prompt, _ = sample.prompt()
    result = replay(sample.text, QWEN3, prefix=prompt, chunk=chunk)
    expected = plain_stream(sample.text, QWEN3, prompt, chunk) if "truncated" not in path.name else None
    assert [s.call for s in result.steps[:2]] == [INITIAL, FEED]
    buffer = result.prefix_tail + sample.text
    if expected is not None:
        assert [s.events for s in result.steps] == expected[:-1]
        assert result.message == expected[-1] == parse_response(sample.text, QWEN3, prefix=prompt)
        assert result.steps[-1].call == FINALIZE
    for step in result.steps:
        for event, span in zip(step.events, step.spans):
            if event["type"] == "region_chunk":
                assert buffer[span[0] : span[1]] == event["text"]
        if step.call == FEED:
            assert step.fed[1] - step.fed[0] <= chunk and step.read <= step.fed[1]
    assert result.same_as_oneshot
    assert not [f for f in result.flags if f.kind in (LEAK, DIFFERENCE)]


def test_a_client_assembles_the_values_the_events_carry():
    sample = load(ROOT / "sample_outputs" / "qwen3" / "parallel_calls.txt")
    prompt, _ = sample.prompt()
    result = replay(sample.text, QWEN3, prefix=prompt, chunk=5)
    parts = assemble(result, len(result.steps) - 1)
    assert [p.field for p in parts if p.closed] == ["thinking", "content", "tool_calls", "tool_calls"]
    assert [p.value for p in parts if p.field == "tool_calls"] == result.message["tool_calls"]
    middle = assemble(result, 20)
    assert middle and not middle[-1].closed  # mid-stream: the last region is still streaming
    assert middle[-1].text and sample.text.find(middle[-1].text.strip()) >= 0


def test_dirty_chunks_are_flagged_once_per_field():
    sample = load(ROOT / "sample_outputs" / "qwen3" / "parallel_calls.txt")
    result = replay(sample.text, QWEN3, prefix=sample.prompt()[0])
    dirty = [f for f in result.flags if f.kind == DIRTY]
    assert len(dirty) == 1 and dirty[0].field == "tool_calls" and "2 regions" in dirty[0].message
    first_dirty = next(i for i, s in enumerate(result.steps) if any(e.get("dirty") for e in s.events))
    assert dirty[0].step == first_dirty


def test_a_regex_closer_at_the_very_end_closes_only_at_finalize_and_a_literal_one_at_once():
    text = "Hello there.<|im_end|>"
    regex = {"start_anchor": "x", "fields": {"content": {"close_pattern": "\\s*<\\|im_end\\|>"}}}
    late = replay(text, regex, chunk=4)
    flags = [f for f in late.flags if f.kind == LATE_CLOSE]
    assert len(flags) == 1 and flags[0].step == len(late.steps) - 1 and flags[0].span == (12, 22)
    assert any(e["type"] == "region_close" for e in late.steps[-1].events)
    literal = replay(text, {"start_anchor": "x", "fields": {"content": {"close": "<|im_end|>"}}}, chunk=4)
    assert not [f for f in literal.flags if f.kind == LATE_CLOSE]
    assert not any(e["type"] == "region_close" for e in literal.steps[-1].events)


def test_a_marker_leaking_into_the_text_and_the_difference_are_flagged():
    # `$` matches before a final line break: mid-stream, "ANSWER:" at the end of "ANSWER:\n" is an
    # opener, so what follows streams into answer; with the whole text, the opener is the later
    # "ANSWER:" at the very end, and the streamed text was part of it and of the content.
    template = {"start_anchor": "x", "fields": {"answer": {"open_pattern": "ANSWER:$"}, "content": {"close": "<|end|>"}}}
    text = "ANSWER:\nsee ANSWER:"
    # 5.24 holds such a match back until the text that decides it has arrived: nothing leaks.
    assert not [f for f in replay(text, template, chunk=8).flags if f.kind == LEAK]
    result = replay(text, template, chunk=8, runtime="5.23")
    leaks = [f for f in result.flags if f.kind == LEAK]
    assert any("part of answer's opener" in f.message for f in leaks), [f.message for f in leaks]
    assert any("gives it to content" in f.message for f in leaks)
    assert [f for f in result.flags if f.kind == DIFFERENCE]
    assert not result.same_as_oneshot
    assert result.message != result.oneshot_message


def test_text_shown_then_overwritten_is_flagged():
    text = 'Let me look.<tool_call>{"a": 1}</tool_call>\n'
    result = replay(text, CHATML, chunk=6)
    flags = [f for f in result.flags if f.kind == SHOWN_THEN_OVERWRITTEN]
    assert len(flags) == 1 and flags[0].field == "content" and "'Let me look.'" in flags[0].message
    assert result.message == {"tool_calls": [{"a": 1}]}


def test_an_error_ends_the_replay_at_its_call():
    sample = load(ROOT / "sample_outputs" / "qwen3" / "truncated_call.txt")
    result = replay(sample.text, QWEN3, prefix=sample.prompt()[0], chunk=4)
    assert result.message is None and result.error.startswith("ValueError: json parser")
    assert result.steps[-1].error == result.error and result.same_as_oneshot


def test_a_long_output_raises_the_chunk_to_keep_the_replay_bounded():
    text = "x" * 1000 + "<|im_end|>"
    result = replay(text, CHATML, chunk=1, max_steps=100)
    assert result.asked == 1 and result.chunk == 11 and len(result.steps) == 2 + 92
