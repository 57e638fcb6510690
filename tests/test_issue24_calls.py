"""Issue 24: tool-call defects found by running other projects' parser tests on the shipped parsers.

Each case is one output, read by the family's schema (ours and transformers 5.14.1 must agree) and by
its template (ours and each transformers release must agree), and what each must give: the calls
with their names and arguments and the content (nothing lost, nothing moved silently), or an error
(for a schema, one naming the node given).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from oracle import RAISED, run_oracle, run_ours_with_error, same
from workbench.engine.template import parse_response as template_parse

ROOT = Path(__file__).resolve().parent.parent


def calls(*items, content=None):
    """The message expected: calls as (name, arguments) pairs, and content (None: no content key or "")."""
    return {"calls": [list(i) for i in items], "content": content}


def raises(node=None):
    """An error; for a schema, its message names ``node`` (a JSON pointer fragment)."""
    return {"raises": node}


KIMI = "<|im_assistant|>assistant<|im_middle|>"
GRANITE = "<|start_of_role|>assistant<|end_of_role|>"
DSV31 = "<｜Assistant｜></think>"  # thinking off: the reply is content
STEP3 = "<|BOT|>assistant\n"
MINIMAX_MISNAMED = ('<minimax:tool_call>\n<invoke name="bad name!">\n<parameter name="city">Paris</parameter>\n'
                    '</invoke>\n</minimax:tool_call>')
STEP3_CALL = "I'll edit it.<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>"
STEP3_PARAMS = (
    '<steptml:parameter name="path">a.py</steptml:parameter>\n'
    '<steptml:parameter name="old">    if x:</steptml:parameter>\n'
    '<steptml:parameter name="new">    if x is not None:\n        </steptml:parameter>\n'
    '<steptml:parameter name="count"> 3 </steptml:parameter>\n'
)
STEP3_ARGS = {"path": "a.py", "old": "    if x:", "new": "    if x is not None:\n        ", "count": 3}
STEP3_END = "</steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜><|EOT|>"

# (case id, family, prompt for the template, output, schema expectation, template expectation)
CASES = [
    # 2. hermes: a complete call at the very end without </tool_call> is read; one missing its outer } is not.
    ("hermes/unclosed_call_at_end", "hermes", "",
     'Sure.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}',
     calls(("get_weather", {"city": "Paris"}), content="Sure."),
     calls(("get_weather", {"city": "Paris"}), content="Sure.")),
    ("hermes/unclosed_call_at_end_nested", "hermes", "",
     '<tool_call>\n{"name": "f", "arguments": {"a": {"b": [1, {"c": 2}]}}}\n',
     calls(("f", {"a": {"b": [1, {"c": 2}]}})),
     calls(("f", {"a": {"b": [1, {"c": 2}]}}))),
    ("hermes/outer_brace_missing_at_end", "hermes", "",
     'Sure.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}',
     raises("tool_calls/items/properties/function"), raises()),
    ("hermes/outer_brace_missing_nested_at_end", "hermes", "",
     '<tool_call>\n{"name": "f", "arguments": {"a": {"b": 1}}',
     raises("tool_calls/items/properties/function"), raises()),
    # 3. hermes: arguments as a JSON-encoded string never come back as a string.
    ("hermes/arguments_json_string", "hermes", "",
     '<tool_call>\n{"name": "get_config", "arguments": "{\\"param\\": \\"max_connections\\"}"}\n</tool_call><|im_end|>',
     raises("function/properties/arguments"), raises()),
    ("hermes/arguments_json_string_function_tag", "hermes", "",
     '<function=get_config>"{\\"param\\": \\"max_connections\\"}"</function><|im_end|>',
     raises("function/properties/arguments"), raises()),
    # 24-nsw: a misnamed call (a name with a space) comes back with its name as written, never cut to
    # its first word (glm45/glm47: "bad"; minimax_m2's schema: no name at all).
    ("glm45/misnamed_call", "glm45", "",
     'Checking.\n<tool_call>bad name!\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call><|observation|>',
     calls(("bad name!", {"city": "Paris"}), content="Checking."),
     calls(("bad name!", {"city": "Paris"}), content="Checking.")),
    ("glm47/misnamed_call_glued", "glm47", "",
     '<tool_call>bad name!<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>'
     '<tool_call>get_time<arg_key>tz</arg_key><arg_value>CET</arg_value></tool_call><|observation|>',
     calls(("bad name!", {"city": "Paris"}), ("get_time", {"tz": "CET"})),
     calls(("bad name!", {"city": "Paris"}), ("get_time", {"tz": "CET"}))),
    ("minimax_m2/misnamed_call", "minimax_m2", "",
     '</think>\n\n' + MINIMAX_MISNAMED + '[e~[',
     calls(("bad name!", {"city": "Paris"})),
     calls(content='</think>\n\n' + MINIMAX_MISNAMED)),  # the template's opener does not take it: visible
    ("minimax_m2/misnamed_call_single_quotes", "minimax_m2", "",
     '</think>\n\n' + MINIMAX_MISNAMED.replace('"bad name!"', "'bad name!'") + '[e~[',
     calls(("bad name!", {"city": "Paris"})),
     calls(content='</think>\n\n' + MINIMAX_MISNAMED.replace('"bad name!"', "'bad name!'"))),
    # an unquoted name with a space is not read at all: the schema fails at `function` (it gave a
    # call whose `function` is null), the template leaves it as text.
    ("minimax_m2/unquoted_name_with_space", "minimax_m2", "",
     '</think>\n\n' + MINIMAX_MISNAMED.replace('"bad name!"', "bad name!") + '[e~[',
     raises("tool_calls/items/properties/function"),
     calls(content='</think>\n\n' + MINIMAX_MISNAMED.replace('"bad name!"', "bad name!"))),
    # 24-nsw: arguments written as a JSON string fail in the ernie45 and lfm2 templates too (they came
    # back as a string); the schemas already failed on them.
    ("ernie45/arguments_json_string", "ernie45", "",
     '<tool_call>\n{"name": "get_config", "arguments": "{\\"param\\": \\"max_connections\\"}"}\n</tool_call>\n<|im_end|>',
     raises("function/properties/arguments"), raises()),
    ("lfm2/arguments_json_string", "lfm2", "",
     '<|tool_call_start|>[{"name": "get_config", "arguments": "{\\"param\\": \\"max_connections\\"}"}]<|tool_call_end|><|im_end|>',
     raises("function/properties/arguments"), raises()),
    ("lfm2/second_call_arguments_json_string", "lfm2", "",
     '<|tool_call_start|>[{"name": "f", "arguments": {"a": 1}}, '
     '{"name": "get_config", "arguments": "{\\"param\\": \\"max_connections\\"}"}]<|tool_call_end|><|im_end|>',
     raises("function/properties/arguments"), raises()),
    # 7. kimi_k2: a call's name is a tool-like name, or the parse fails (the schema naming the node,
    # the template with its undefined `{name}` placeholder); never a call named "invalid.0" or "0".
    ("kimi_k2/name_with_counter_dot", "kimi_k2", KIMI,
     'Checking.<|tool_calls_section_begin|><|tool_call_begin|>functions.invalid.0<|tool_call_argument_begin|>{"a": 1}<|tool_call_end|><|tool_calls_section_end|><|im_end|>',
     raises("function/properties/call_name_not_a_tool_name"), raises()),
    ("kimi_k2/bare_counter_id", "kimi_k2", KIMI,
     'Checking.<|tool_calls_section_begin|><|tool_call_begin|>0<|tool_call_argument_begin|>{"a": 1}<|tool_call_end|><|tool_calls_section_end|><|im_end|>',
     raises("function/properties/call_name_not_a_tool_name"), raises()),
    ("kimi_k2/tool_like_names", "kimi_k2", KIMI,
     'Checking.<|tool_calls_section_begin|><|tool_call_begin|>functions.get-weather_2:0<|tool_call_argument_begin|>{"a": 1}<|tool_call_end|>'
     '<|tool_call_begin|>lookup:1<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|><|im_end|>',
     calls(("get-weather_2", {"a": 1}), ("lookup", {}), content="Checking."),
     calls(("get-weather_2", {"a": 1}), ("lookup", {}), content="Checking.")),
    # 6. qwen3_coder: a <parameter= inside a value ends the parameter before it (as vLLM and llama.cpp).
    ("qwen3_coder/parameter_end_tag_missing", "qwen3_coder", "",
     "Let me check.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nDallas\n<parameter=state>\nTX\n</parameter>\n"
     "</function>\n</tool_call><|im_end|>",
     calls(("get_weather", {"city": "Dallas", "state": "TX"}), content="Let me check."),
     calls(("get_weather", {"city": "Dallas", "state": "TX"}), content="Let me check.")),
    ("qwen3_coder/last_parameter_end_tag_missing", "qwen3_coder", "",
     "<tool_call>\n<function=get_weather>\n<parameter=city>\nDallas\n</parameter>\n<parameter=state>\nTX\n"
     "<parameter=unit>\nF\n</function>\n</tool_call><|im_end|>",
     calls(("get_weather", {"city": "Dallas", "state": "TX", "unit": "F"})),
     calls(("get_weather", {"city": "Dallas", "state": "TX", "unit": "F"}))),
    ("qwen3_coder/end_tag_inside_value_kept", "qwen3_coder", "",
     "<tool_call>\n<function=write>\n<parameter=code>\nx = '</parameter>'\n</parameter>\n<parameter=n>\n3\n</parameter>\n"
     "</function>\n</tool_call><|im_end|>",
     calls(("write", {"code": "x = '</parameter>'", "n": 3})),
     calls(("write", {"code": "x = '</parameter>'", "n": 3}))),
    # 5. granite3: text on a line after the calls is kept as content, the calls are read.
    ("granite3/text_after_array", "granite3", GRANITE,
     "<|tool_call|> [{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Boston\"}}]\nI'll get that information.<|end_of_text|>",
     calls(("get_weather", {"city": "Boston"}), content="I'll get that information."),
     calls(("get_weather", {"city": "Boston"}), content="I'll get that information.")),
    ("granite3/text_after_per_call_objects", "granite3", GRANITE,
     "<|tool_call|> {\"name\": \"a\", \"arguments\": {\"x\": {\"y\": 1}}}\n<|tool_call|> {\"arguments\": {}, \"name\": \"b\"}\nDone.",
     calls(("a", {"x": {"y": 1}}), ("b", {}), content="Done."),
     calls(("a", {"x": {"y": 1}}), ("b", {}), content="Done.")),
    # Text on the same line as the array's end cannot be told from a string holding "] b": it still fails.
    ("granite3/text_after_array_same_line", "granite3", GRANITE,
     '<|tool_call|>[{"name": "a", "arguments": {"x": "[1] b"}}] and more<|end_of_text|>',
     raises("tool_calls"), raises()),
    # 4. deepseek_v3_1: an unfinished or malformed tool-call section fails (the schema naming the node) or
    # is read; the sentence before it is never lost.
    ("deepseek_v3_1/section_cut_off_after_name", "deepseek_v3_1", DSV31,
     "Let me look that up.<｜tool▁calls▁begin｜>get_weather",
     raises("tool_calls/items/properties/tool_calls_section_without_calls"), raises()),
    ("deepseek_v3_1/section_cut_off_empty", "deepseek_v3_1", DSV31,
     "Let me look that up.<｜tool▁calls▁begin｜>",
     raises("tool_calls/items/properties/tool_calls_section_without_calls"), raises()),
    ("deepseek_v3_1/section_without_call_markers", "deepseek_v3_1", DSV31,
     'Let me look that up.<｜tool▁calls▁begin｜>get_weather<｜tool▁sep｜>{"city": "Paris"}<｜tool▁calls▁end｜><｜end▁of▁sentence｜>',
     calls(("get_weather", {"city": "Paris"}), content="Let me look that up."),
     calls(("get_weather", {"city": "Paris"}), content="Let me look that up.")),
    ("deepseek_v3_1/call_cut_off_after_name", "deepseek_v3_1", DSV31,
     "Let me look that up.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather",
     raises("function/properties/call_cut_off_before_arguments"), raises()),
    ("deepseek_v3_1/second_call_cut_off_after_name", "deepseek_v3_1", DSV31,
     "Let me look that up.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>a<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁call▁begin｜>b",
     raises("function/properties/call_cut_off_before_arguments"), raises()),
    ("deepseek_v3_1/section_with_spaces", "deepseek_v3_1", DSV31,
     'Let me look that up.<｜tool▁calls▁begin｜>\n  <｜tool▁call▁begin｜> a <｜tool▁sep｜> {"x": 1} <｜tool▁call▁end｜>\n<｜tool▁calls▁end｜><｜end▁of▁sentence｜>',
     calls(("a", {"x": 1}), content="Let me look that up."),
     calls(("a", {"x": 1}), content="Let me look that up.")),
    # 10. step3: the header variant `function<｜tool_sep｜>NAME` before `<steptml:invoke>` is read (a name
    # on the invoke tag too must be the same); string values keep their spaces (exact-match edit tools).
    ("step3/header_name_invoke_without_name", "step3", STEP3,
     STEP3_CALL + "edit_file\n<steptml:invoke>\n" + STEP3_PARAMS + STEP3_END,
     calls(("edit_file", STEP3_ARGS), content="I'll edit it."),
     calls(("edit_file", STEP3_ARGS), content="I'll edit it.")),
    ("step3/header_name_and_invoke_name", "step3", STEP3,
     STEP3_CALL + 'edit_file\n<steptml:invoke name="edit_file">\n' + STEP3_PARAMS + STEP3_END,
     calls(("edit_file", STEP3_ARGS), content="I'll edit it."),
     calls(("edit_file", STEP3_ARGS), content="I'll edit it.")),
    ("step3/header_name_differs_from_invoke_name", "step3", STEP3,
     STEP3_CALL + 'edit_file\n<steptml:invoke name="other">\n' + STEP3_PARAMS + STEP3_END,
     raises("tool_calls/items/properties/function"), raises()),
    ("step3/values_keep_their_spaces", "step3", STEP3,
     STEP3_CALL + '<steptml:invoke name="edit_file">\n' + STEP3_PARAMS + STEP3_END,
     calls(("edit_file", STEP3_ARGS), content="I'll edit it."),
     calls(("edit_file", STEP3_ARGS), content="I'll edit it.")),
]


def _ids(cases):
    return [c[0] for c in cases]


def _check(value, want, error=None) -> list[str]:
    if "raises" in want:
        if value is not RAISED:
            return [f"expected an error, got {json.dumps(value, ensure_ascii=False)[:300]}"]
        if want["raises"] and error is not None and want["raises"] not in str(error):
            return [f"the error does not name {want['raises']}: {str(error)[:300]}"]
        return []
    if value is RAISED:
        return [f"expected a message, got an error: {str(error)[:300]}"]
    problems = []
    got = [[c["function"]["name"], c["function"]["arguments"]] for c in value.get("tool_calls") or []]
    if got != want["calls"]:
        problems.append(f"calls {got!r} != {want['calls']!r}")
    if (value.get("content") or None) != want["content"]:
        problems.append(f"content {value.get('content')!r} != {want['content']!r}")
    return problems


@pytest.mark.parametrize("case", CASES, ids=_ids(CASES))
def test_schema(case):
    _, family, _, text, want, _ = case
    schema = json.loads((ROOT / "schemas" / f"{family}.json").read_text(encoding="utf-8"))
    ours, error = run_ours_with_error(text, schema)
    assert same(ours, run_oracle(text, schema)), "differs from transformers 5.14.1"
    problems = _check(ours, want, error)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("case", CASES, ids=_ids(CASES))
def test_template(case, release, release_oracle):
    _, family, prompt, text, _, want = case
    template = json.loads((ROOT / "schemas" / f"{family}.template.json").read_text(encoding="utf-8"))
    try:
        ours, error = template_parse(text, template, prefix=prompt, runtime=release.runtime), None
        mine = ("value", ours)
    except Exception as exc:  # noqa: BLE001 - the runtime's own error, compared below
        ours, error, mine = RAISED, exc, ("error", type(exc).__name__)
    theirs = release_oracle.parse(text, template, prefix=prompt)
    assert mine == tuple(theirs[:2]), f"differs from transformers {release.version}: {mine} vs {theirs}"
    problems = _check(ours, want, error)
    assert not problems, "\n".join(problems)
