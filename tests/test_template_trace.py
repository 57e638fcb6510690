"""The trace of a response_template parse (workbench/engine/template/trace.py): regions with their
delimiter and body spans, the stages of their values, and what the message does not show.

Every trace is checked for consistency (``check``): its message is ``parse_response``'s, each
region's body is the text its ``region_chunk`` events carried and its value its ``region_close``
value (from a parser run without a recorder), opener, body and closer tile each region, and on
success regions and dropped text tile the whole text. Hand-written cases check each recorded
thing; generated ones (tests/test_template_generated.py's grammar) check consistency, and a bounded
number of them the message against transformers 5.23.0.
"""

from __future__ import annotations

import pytest
from fallback_templates import QWEN3, QWEN3_5
from hypothesis import given, settings
from test_template_engine import CASES, SLOW, Raises, expected_at, one, tpl
from test_template_generated import RELEASE_EXAMPLES, SETTINGS, as_json, scenarios

from workbench.engine import MISSING
from workbench.engine.template import ResponseParser, TemplateRegexTimeout, parse_response, trace_response
from workbench.engine.template.stream import PREFIX_REQUIRED
from workbench.engine.template.trace_types import (
    AT_END,
    BY_CLOSE,
    BY_OPEN,
    EMPTY_CLOSER,
    LONGER,
    NAME_ORDER,
    NO_IMPLICIT,
    OPEN_FIRST,
    UNREAD,
)

CHATML = "<|im_start|>user\nWeather?<|im_end|>\n<|im_start|>assistant\n"
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {
    "days": {"type": "integer"}}}}}]


# ---- consistency -------------------------------------------------------------------------------


def outcome(text, template, prefix, tools, **options):
    try:
        return parse_response(text, template, prefix=prefix, tools=tools, **options)
    except Exception as exc:  # noqa: BLE001 - the error is the outcome
        return {"error": [type(exc).__name__, str(exc)]}


def evented_regions(text, template, prefix, tools, runtime=None) -> list:
    """[field, body text, value] per region, from the events of a parser without a recorder."""
    parser = ResponseParser(template, prefix=prefix, tools=tools, runtime=runtime)
    events = parser.initial_events + parser.feed(text)
    events += parser.finalize()[1]
    regions: list = []
    for event in events:
        if event["type"] == "region_open":
            regions.append([event["field"], "", MISSING])
        elif event["type"] == "region_chunk":
            regions[-1][1] += event["text"]
        else:
            regions[-1][2] = event["value"]
    return regions


def check(trace, text, template, prefix, tools=None, **options) -> None:
    expected = outcome(text, template, prefix, tools, **options)
    if trace.ok:
        assert as_json(trace.message) == as_json(expected)
    else:
        assert trace.message is None
        assert [trace.error.type, trace.error.message] == expected["error"]
    assert trace.text[trace.output_start :] == text
    if prefix:
        assert prefix[trace.prefix_tail_start :] == trace.text[: trace.output_start]
    previous_end = 0
    for index, region in enumerate(trace.regions):
        assert region.index == index
        start, end = region.body
        assert start <= end
        if region.open is not None:
            assert region.open.span[1] == start
        if region.close is not None:
            assert region.close.span[0] == end
            assert region.ended == BY_CLOSE
        assert region.span[0] >= previous_end  # in order, disjoint
        previous_end = region.span[1]
        if region.overwritten_by is not None:
            later = trace.regions[region.overwritten_by]
            assert later.index > index and later.field == region.field
    if trace.ok:
        # What the events say of each region is what the trace says.
        assert as_json([[r.field, trace.text_of(r.body), r.value] for r in trace.regions]) == as_json(
            evented_regions(text, template, prefix, tools, options.get("runtime"))
        )
        # Every character is in one region or one dropped span.
        spans = sorted([r.span for r in trace.regions] + [d.span for d in trace.dropped])
        at = 0
        for start, end in spans:
            assert start == at
            at = end
        assert at == len(trace.text)
        # The one value of a field that does not repeat is the message's (or was dropped empty).
        emptied = {e.field: e for e in trace.emptied}
        for region in trace.regions:
            if region.overwritten_by is None and not template["fields"][region.field].get("repeats"):
                if region.field in trace.message:
                    assert as_json(trace.message[region.field]) == as_json(region.value)
                else:
                    assert as_json(emptied[region.field].value) == as_json(region.value)
                    assert region.index in emptied[region.field].regions
        for field in emptied:
            assert field not in trace.message
    for tie in trace.ties:
        assert tie.candidates[0].lost_by is None
        assert all(c.match.span[0] == tie.at for c in tie.candidates)
        assert all(c.lost_by is not None for c in tie.candidates[1:])


def traced(text, template, prefix="", tools=None, **options):
    trace = trace_response(text, template, prefix=prefix, tools=tools, **options)
    check(trace, text, template, prefix, tools, **options)
    return trace


# ---- hand-written: each thing the trace records --------------------------------------------------


def test_spans_of_opener_body_and_closer_with_a_body_from_the_prompt_into_the_output(release, release_oracle):
    prompt = CHATML + "<think>\n"
    output = "Sunny?\n</think>\n\nIt is sunny.<|im_end|>"
    trace = traced(output, QWEN3, prompt, runtime=release.runtime)
    assert release_oracle.parse(output, QWEN3, prompt) == ("value", trace.message)
    assert trace.text == "<think>\n" + output and trace.output_start == 8
    assert trace.prefix_tail_start == len(CHATML) and trace.anchor_found
    think, answer = trace.regions
    assert think.field == "reasoning_content" and think.open.key == "/fields/reasoning_content/open"
    assert think.open.span == (0, 7) and trace.text_of(think.body) == "\nSunny?\n"
    assert trace.prefix_span(think.body) == (len(CHATML) + 7, len(CHATML) + 8)  # the "\n" in the prompt
    assert trace.output_span(think.body) == (0, 7)  # "Sunny?\n" in the output
    assert trace.output_span(think.open.span) is None and trace.prefix_span(think.close.span) is None
    assert trace.text_of(think.close.span) == "</think>" and think.ended == BY_CLOSE
    assert think.parsed == "Sunny?" and think.value == "Sunny?"
    assert answer.open is None and trace.text_of(answer.body) == "\n\nIt is sunny."
    assert trace.text_of(answer.close.span) == "<|im_end|>" and answer.close.key == "/fields/content/close_pattern"
    assert answer.parsed == "It is sunny." and not answer.left_open


def test_captures_and_the_three_stages_of_a_value(release, release_oracle):
    output = "<tool_call>\n<function=get_weather>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>"
    trace = traced(output, QWEN3_5, tools=TOOLS, runtime=release.runtime)
    assert release_oracle.parse(output, QWEN3_5, "", TOOLS) == ("value", trace.message)
    (call,) = trace.regions
    assert call.captures == {"name": "get_weather"}
    (name,) = call.open.groups
    assert name.name == "name" and trace.text_of(name.span) == "get_weather"
    assert call.parsed == {"days": "3"}
    assert call.transformed == {"type": "function", "function": {"name": "get_weather", "arguments": {"days": "3"}}}
    assert call.cast == {"type": "function", "function": {"name": "get_weather", "arguments": {"days": 3}}}
    assert call.value is call.cast and trace.message["tool_calls"] == [call.cast]
    shown = trace.to_dict()["regions"][0]
    assert shown["open"]["groups"] == {"name": list(name.span)} and shown["captures"] == {"name": "get_weather"}
    assert shown["parsed"] == call.parsed and shown["transformed"] == call.transformed and shown["cast"] == call.cast


def test_text_outside_explicit_regions_is_dropped_without_an_implicit_field(release, release_oracle):
    template = one()
    output = "hello <x>kept</x> bye"
    trace = traced(output, template, runtime=release.runtime)
    assert release_oracle.parse(output, template, "") == ("value", {"x": "kept"})
    assert [(trace.text_of(d.span), d.reason) for d in trace.dropped] == [("hello ", NO_IMPLICIT), (" bye", NO_IMPLICIT)]
    # Streaming's hold-back cuts " bye" where "<" might start an opener; the trace keeps one span.
    trace = traced("a<b", template, runtime=release.runtime)
    assert [(trace.text_of(d.span), d.reason) for d in trace.dropped] == [("a<b", NO_IMPLICIT)]


def test_an_implicit_segment_overwritten_by_a_later_one_and_the_empty_value_dropped(release, release_oracle):
    output = 'Answer<tool_call>\n{"name": "a", "arguments": {}}\n</tool_call>\n'
    trace = traced(output, QWEN3, runtime=release.runtime)
    assert release_oracle.parse(output, QWEN3, "") == ("value", trace.message)
    assert "content" not in trace.message
    answer, call, tail = trace.regions
    assert answer.field == tail.field == "content" and call.field == "tool_calls"
    assert trace.text_of(answer.body) == "Answer" and answer.ended == BY_OPEN and answer.overwritten_by == tail.index
    assert trace.text_of(tail.body) == "\n" and tail.ended == AT_END and tail.left_open
    assert [(e.field, e.value, e.regions) for e in trace.emptied] == [("content", "", [tail.index])]
    assert trace.to_dict()["emptied"] == [{"field": "content", "value": "", "regions": [2]}]


def test_a_repeated_field_overwrites_nothing_and_defaults_are_never_emptied():
    template = tpl({"x": {"open": "<x>", "close": "</x>", "repeats": True}, "y": {"open": "<y>", "close": "</y>"}},
                   defaults={"y": ""})
    trace = traced("<x>a</x><x>b</x><y> </y>", template)
    assert [r.overwritten_by for r in trace.regions] == [None, None, None]
    assert trace.message == {"y": "", "x": ["a", "b"]} and trace.emptied == []


def test_a_region_the_text_ends_inside_is_left_open_only_if_its_field_has_a_closer(release, release_oracle):
    trace = traced("<think>unfinished", QWEN3, runtime=release.runtime)
    (think,) = trace.regions
    assert think.ended == AT_END and think.left_open and think.close is None
    assert trace.to_dict()["regions"][0]["left_open"] is True
    template = tpl({"x": {"open": "<x>"}})  # no closer: it runs to the end by design
    trace = traced("<x>all of it", template, runtime=release.runtime)
    assert trace.regions[0].ended == AT_END and not trace.regions[0].left_open
    assert release_oracle.parse("<x>all of it", template, "") == ("value", trace.message)


@pytest.mark.parametrize(
    "fields, text, winner, rule",
    [
        ({"a": {"open": "<", "close": ">"}, "b": {"open": "<<", "close": ">"}}, "<<x>", "b", LONGER),
        ({"a": {"open": "X", "close": "Y"}, "c": {"close": "X"}}, "hiXaY", "a", OPEN_FIRST),
        ({"b": {"open": "<a>", "close": "</a>"}, "a": {"open": "<a>", "close": "</a>"}}, "<a>x</a>", "a", NAME_ORDER),
    ],
    ids=["longer match", "opener before closer", "field name order"],
)
def test_the_tie_break_between_delimiters_at_one_place(release, release_oracle, fields, text, winner, rule):
    template = tpl(fields)
    trace = traced(text, template, runtime=release.runtime)
    assert release_oracle.parse(text, template, "") == ("value", trace.message)
    (tie,) = trace.ties
    assert tie.rule == rule and tie.candidates[0].field == winner
    assert [c.lost_by for c in tie.candidates] == [None, rule]
    assert trace.to_dict()["ties"][0]["rule"] == rule


def test_a_closer_on_an_empty_region_and_text_the_runtime_never_reads(release, release_oracle):
    output = "<think>x</think><|im_end|>"
    trace = traced(output, QWEN3, runtime=release.runtime)
    assert release_oracle.parse(output, QWEN3, "") == ("value", trace.message)
    assert [(trace.text_of(d.span), d.reason) for d in trace.dropped] == [("<|im_end|>", EMPTY_CLOSER)]
    template = tpl({"c": {"close_pattern": "(?=!)", "repeats": True}})
    trace = traced("ab!cd", template, runtime=release.runtime)
    assert release_oracle.parse("ab!cd", template, "") == ("value", trace.message) == ("value", {"c": ["ab"]})
    assert [(trace.text_of(d.span), d.reason) for d in trace.dropped] == [("!cd", UNREAD)]


def test_an_error_mid_parse_keeps_the_regions_before_it(release, release_oracle):
    output = '<think>ok</think><tool_call>{"name": </tool_call>after'
    trace = traced(output, QWEN3, runtime=release.runtime)
    expected = release_oracle.parse(output, QWEN3, "")
    assert expected[0] == "error" and (trace.error.type, trace.error.message) == expected[1:]
    assert trace.error.fields == ["tool_calls"] and trace.error.region == 1
    think, call = trace.regions
    assert think.value == "ok" and call.ended == BY_CLOSE and call.parsed is MISSING
    assert trace.text_of(call.body) == '{"name": '
    assert trace.to_dict()["regions"][1]["close"]["text"] == "</tool_call>"


def test_a_transform_error_keeps_the_parsed_value():
    template = one(content="json", transform={"k": "{v}"}, transform_each=True)
    trace = traced('<x>{"v": 1}</x>', template)
    assert trace.error.type == "ValueError" and trace.error.fields == ["x"]
    assert trace.regions[0].parsed == {"v": 1} and trace.regions[0].transformed is MISSING


def test_a_missing_required_field_names_it_and_a_timeout_names_its_field():
    template = tpl({"x": {"open": "<x>", "close": "</x>", "optional": False}, "c": {}})
    trace = traced("no x here", template)
    assert trace.error.fields == ["x"] and trace.error.region is None
    assert trace.regions[0].value == "no x here"
    template = tpl({"c": {"close_pattern": SLOW}})
    trace = traced("a" * 40, template, time_limit=0.05)
    assert isinstance(trace.error.exception, TemplateRegexTimeout) and trace.error.fields == ["c"]


def test_errors_before_any_text_is_read_are_raised_as_parse_response_raises_them():
    with pytest.raises(ValueError) as caught:
        trace_response("x", QWEN3, prefix=None)
    assert str(caught.value) == PREFIX_REQUIRED
    with pytest.raises(ValueError, match="unknown keys"):
        trace_response("x", tpl({"x": {"type": "string"}}), prefix="")


@pytest.mark.parametrize("case", list(CASES))
def test_every_hand_written_engine_case_traces_to_its_result(case):
    template, text, prefix, tools, expected = CASES[case]
    expected = expected_at(expected, "5.24")  # a trace runs the newest release unless told otherwise
    try:
        trace = traced(text, template, prefix, tools)
    except Exception as exc:  # noqa: BLE001 - raised before any text is read: a bad template or call
        assert isinstance(expected, Raises) and (type(exc), str(exc)) == (expected.kind, expected.message)
        return
    if isinstance(expected, Raises):
        assert (trace.error.type, trace.error.message) == (expected.kind.__name__, expected.message)
    else:
        assert as_json(trace.message) == as_json(expected)


# ---- generated ----------------------------------------------------------------------------------


def traced_or_refused(text, template, prefix, tools, runtime=None):
    """The checked trace, or None for a generated template the runtime refuses to load (then
    ``parse_response`` refuses it too, with the same error)."""
    try:
        return traced(text, template, prefix, tools, runtime=runtime)
    except ValueError as exc:
        assert outcome(text, template, prefix, tools, runtime=runtime) == {"error": ["ValueError", str(exc)]}
        return None


@SETTINGS
@given(scenarios())
def test_generated_traces_are_consistent(scenario):
    template, prefix, text, _chunks, tools = scenario
    traced_or_refused(text, template, prefix, tools)


@settings(SETTINGS, max_examples=min(RELEASE_EXAMPLES, 60))
@given(scenario=scenarios())
def test_generated_trace_messages_equal_the_runtime(release, release_oracle, scenario):
    template, prefix, text, _chunks, tools = scenario
    trace = traced_or_refused(text, template, prefix, tools, runtime=release.runtime)
    if trace is None or (not trace.ok and "loop here forever" in trace.error.message):
        return  # refused at load, or the runtime would never return (test_template_generated.py)
    expected = release_oracle.parse(text, template, prefix, tools)
    if trace.ok:
        assert expected[0] == "value" and as_json(expected[1]) == as_json(trace.message)
    else:
        assert expected == ("error", trace.error.type, trace.error.message)
