"""Generated differential tests: random schemas and outputs, ours against transformers 5.14.1.

Schemas are drawn from every key the runtime understands, with realistic regexes, markers and
JSON, and with the malformed shapes users write by mistake, so both values and errors are compared.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oracle import assert_agrees

EXAMPLES = int(os.environ.get("WORKBENCH_HYPOTHESIS_EXAMPLES", "2500"))
SETTINGS = settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True
)

TOKENS = [
    "<think>", "</think>", "<tool_call>", "</tool_call>", "<|im_end|>", "\n", " ", "  ", "a", "b", "ab",
    "é", "日本", "1", "42", "-7", "2.5", "true", "false", "null", "{", "}", "[", "]", '"', ":", ",", "=",
    "<p=k>", "<p=n>", "</p>", "k=v", "n=3", '{"a": 1}', '{"name": "f", "arguments": {"x": 1, "y": "é"}}',
    "[1, 2]", '["a", {"b": true}]', "{a:<|\"|>x<|\"|>,n:2}", "[TOOL_CALLS]", "x", "xx",
]
TEXTS = st.one_of(
    st.lists(st.sampled_from(TOKENS), max_size=14).map("".join),
    st.text(max_size=20),
)

GROUP_REGEXES = [
    r"<think>(.*?)</think>", r"(?:<think>)?(?P<thinking>.*?)</think>\s*(?P<content>.*)", r"<tool_call>(.*?)</tool_call>",
    r"(\d+)", r"(-?\d+(?:\.\d+)?)", r"(\{.*\})", r"(\[.*?\])", r"(?P<a>a+)(?P<b>b+)?", r"(.*)", r"(a)?b",
    r"(?P<key>\w+)=(?P<value>\w*)", r"<p=(?P<key>\w+)>(?P<value>.*?)</p>", r"(a)(b)", r"ab", r"(x*)",
    r"(?:(?P<n>\d)|(?P<w>[a-z]))", r"([^<]+)", r"(true|false|null)", r'("[^"]*")', r"(.)", r"^(.*?)$",
    r"(?P<k>\w)=(?P<v>\w)", r"\[TOOL_CALLS\](.*)", r"(?i)(TRUE|FALSE)", r"(\w+)\s*$", r"(unclosed",
    r"([[:alpha:]]+)", r"(a{,2})", r"(x{e<=1})", r"([]a])", r"(\S+)", r"(?P<content>.+)",
]
KV_REGEXES = [r"<p=(?P<key>\w+)>(?P<value>.*?)</p>", r"(?P<key>\w+)=(?P<value>\w*)", r"(?P<key>\w)", r"(\w)=(\w)"]
SUBSTITUTIONS = [
    ["\n", " "], ["<think>", ""], [r"(\d)", r"<\1>"], ["a", r"\g<0>\g<0>"], ["x*", "-"], [r"(z)", r"\2"],
    ['<\\|"\\|>', '"'], [r"\s+", " "], ["(?P<w>b)", r"[\g<w>]"], ["é", "e"],
]
PARSER_ARGS = [
    {}, {"allow_non_json": True}, {"transform": "a"}, {"transform": "[0]"}, {"transform": "length(@)"},
    {"transform": "keys(@)"}, {"transform": "arguments"}, {"transform": "[*].b"}, {"allow_non_json": True, "transform": "@"},
    {"transform": "a[?"},
]
TYPES = ["object", "array", "string", "integer", "number", "boolean", "any", None, None, "null"]
NAMES = ["a", "b", "content", "thinking", "key", "value", "k", "v", "n", "w", "name", "arguments", "x"]
CONSTS = st.sampled_from(["assistant", "function", 0, 1.5, None, True, [1], {"z": 1}])


def chance(draw, percent: int) -> bool:
    return draw(st.integers(0, 99)) < percent


@st.composite
def schema_nodes(draw, depth: int = 0):
    node: dict = {}
    node_type = draw(st.sampled_from(TYPES if depth < 3 else ["string", "integer", "number", "boolean", "any", None]))
    if node_type is not None:
        node["type"] = node_type
    if chance(draw, 6):
        node["const"] = draw(CONSTS)
    if chance(draw, 8):
        node["default"] = draw(CONSTS)
    if chance(draw, 12):
        node["x-regex-substitutions"] = draw(st.lists(st.sampled_from(SUBSTITUTIONS), min_size=1, max_size=2))
    if chance(draw, 45):
        node["x-regex"] = draw(st.sampled_from(GROUP_REGEXES))
    if chance(draw, 40 if node_type == "array" else 4):
        node["x-regex-iterator"] = draw(st.sampled_from(GROUP_REGEXES))
    if chance(draw, 35 if node_type == "object" else 3):
        node["x-regex-key-value"] = draw(st.sampled_from(KV_REGEXES))
    if chance(draw, 30):
        node["x-parser"] = draw(st.sampled_from(["json", "json", "gemma4-tool-call", "yaml"]))
        if chance(draw, 50):
            node["x-parser-args"] = draw(st.sampled_from(PARSER_ARGS))
    if node_type == "object" or (node_type is None and chance(draw, 10)):
        if chance(draw, 85):
            names = draw(st.lists(st.sampled_from(NAMES), max_size=3, unique=True))
            node["properties"] = {name: draw(schema_nodes(depth + 1)) for name in names}
        if chance(draw, 30):
            node["additionalProperties"] = draw(
                st.one_of(st.booleans(), st.just({}), schema_nodes(depth + 1))
            )
        if chance(draw, 20):
            node["required"] = draw(st.lists(st.sampled_from(NAMES), max_size=2))
    elif node_type == "array":
        if chance(draw, 80):
            node["items"] = draw(schema_nodes(depth + 1))
        elif chance(draw, 80):
            node["prefixItems"] = draw(st.lists(schema_nodes(depth + 1), min_size=1, max_size=3))
    return node


@SETTINGS
@given(text=TEXTS, schema=schema_nodes())
def test_generated_schemas_agree(text, schema):
    assert_agrees(text, schema)


REGEX_ATOMS = [
    "a", "b", ".", "\\d", "\\w", "\\s", "[a-c]", "[]a]", "[^]b]", "[[:alpha:]]", "[[]", "{", "}", "{2}",
    "{,2}", "{1,}", "{e<=1}", "*", "+", "?", "*?", "|", "(?:a|b)", "^", "$", "\\b", "x", "é", "(?i:A)",
    "\\{", "\\[", "-", ",", "\\S", "\\W", "\\D", "\\B", "[\\d\\s]", "[^\\w]", "[\\S]", "(?a:\\w)",
]


@SETTINGS
@given(
    atoms=st.lists(st.sampled_from(REGEX_ATOMS), min_size=1, max_size=6),
    text=st.lists(
        st.sampled_from(["a", "b", "x", "{", "}", "[", "]", ":", "é", "A", " ", "1", ",", "\x1f", "²", "\u0301", "٣", "\u2028"]),
        max_size=12,
    ).map("".join),
)
def test_generated_regexes_match_like_re(atoms, text):
    """Patterns built from the constructs where regex dialects disagree: transformers' reading (re's) wins."""
    pattern = "(" + "".join(atoms) + ")"
    assert_agrees(text, {"type": "array", "x-regex-iterator": pattern, "items": {"type": "string"}})
    assert_agrees(text, {"type": "string", "x-regex-substitutions": [[pattern, "<\\1>"]]})


JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), st.floats(allow_nan=False, width=32), st.text(max_size=8)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(NAMES), inner, max_size=3)),
    max_leaves=6,
)
ARGUMENTS = st.dictionaries(st.sampled_from(NAMES), JSON_VALUES, max_size=4)
CALL_NAMES = st.sampled_from(["get_weather", "search", "run_python", "x"])


@st.composite
def model_outputs(draw):
    """A reasoning block, an answer and tool calls in the shapes chat models emit (maybe cut off)."""
    import json

    parts = []
    if chance(draw, 60):
        opening = "" if chance(draw, 25) else "<think>"
        parts.append(f"{opening}\n{draw(st.text(max_size=15))}\n</think>\n\n")
    if chance(draw, 70):
        parts.append(draw(st.text(max_size=20)))
    for _ in range(draw(st.integers(0, 3))):
        name, args = draw(CALL_NAMES), draw(ARGUMENTS)
        style = draw(st.sampled_from(["json", "xml", "kv"]))
        if style == "json":
            body = json.dumps({"name": name, "arguments": args}, ensure_ascii=chance(draw, 50))
        elif style == "xml":
            body = f"<function={name}>" + "".join(f"<p={k}>{json.dumps(v)}</p>" for k, v in args.items())
        else:
            body = f"{name} " + " ".join(f"{k}={v}" for k, v in args.items())
        parts.append(f"<tool_call>\n{body}\n</tool_call>\n")
    text = "".join(parts) + ("<|im_end|>" if chance(draw, 50) else "")
    if chance(draw, 15):
        text = text[: draw(st.integers(0, len(text)))]  # max tokens reached
    return text


@st.composite
def model_schemas(draw):
    """Variations on the schemas people write for such outputs."""
    item_type = draw(st.sampled_from(["any", "string", "integer", "number", "boolean", None]))
    arguments = draw(st.sampled_from([
        {"type": "object", "additionalProperties": {"type": item_type} if item_type else {}},
        {"type": "object", "x-regex-key-value": r"<p=(?P<key>\w+)>(?P<value>.*?)</p>", "additionalProperties": {"x-parser": "json"}},
        {"type": "object", "x-regex-key-value": r"(?P<key>\w+)=(?P<value>\S*)"},
        {"type": "object", "properties": {"x": {"type": item_type}}, "additionalProperties": draw(st.booleans())},
        {"type": "object", "required": ["a"]},
        {},
    ]))
    function = draw(st.sampled_from([
        {"type": "object", "x-parser": "json", "properties": {"name": {"type": "string"}, "arguments": arguments}},
        {"type": "object", "x-parser": "json", "x-parser-args": {"transform": "{name: name, arguments: arguments}"},
         "properties": {"name": {"type": "string"}, "arguments": arguments}},
        {"type": "object", "properties": {"name": {"type": "string", "x-regex": r"<function=(\w+)>"},
                                          "arguments": dict(arguments, **{"x-regex": r"<function=\w+>(.*)"})}},
        {"type": "object", "properties": {"name": {"type": "string", "x-regex": r"^(\w+)"},
                                          "arguments": dict(arguments, **{"x-regex": r"^\w+ (.*)"})}},
        {"type": "object", "x-parser": "json", "x-parser-args": {"allow_non_json": True}, "properties": {"name": {"type": "string"}}},
    ]))
    tool_calls = {
        "type": "array",
        "x-regex-iterator": draw(st.sampled_from([r"<tool_call>\s*(.*?)\s*</tool_call>", r"<tool_call>\n(.*?)(?:\n</tool_call>|$)"])),
        "items": {"type": "object", "properties": {"type": {"const": "function"}, "function": function}},
    }
    if chance(draw, 30):
        tool_calls["x-regex"] = r"((?:<tool_call>.*)+)"
    properties = {"role": {"const": "assistant"}, "thinking": {"type": "string"}, "content": {"type": "string"}, "tool_calls": tool_calls}
    if chance(draw, 50):
        properties["thinking"]["x-regex"] = draw(st.sampled_from([r"<think>\n?(.*?)\n?</think>", r"^(?:<think>)?(.*?)</think>"]))
        properties["content"]["x-regex"] = draw(st.sampled_from([r"(?:</think>\s*)?(.+?)\s*(?:<tool_call>|<\|im_end\|>|$)", r"^(?!<think>)(.+?)(?:<tool_call>|$)"]))
        schema = {"type": "object", "properties": properties}
    else:
        schema = {
            "type": "object",
            "x-regex": r"^(?:(?:<think>)?\n?(?P<thinking>.*?)\n?</think>)?\s*(?P<content>.*?)\s*(?P<tool_calls><tool_call>.*?)?(?:<\|im_end\|>)?$",
            "properties": properties,
        }
        properties["tool_calls"] = {k: v for k, v in tool_calls.items() if k != "x-regex"}
    if chance(draw, 20):
        schema["required"] = ["content"]
    return schema


@SETTINGS
@given(text=model_outputs(), schema=model_schemas())
def test_model_like_outputs_agree(text, schema):
    assert_agrees(text, schema)
