"""``workbench migrate``: response schema -> response template (docs/response-template.md#translating-a-schema).

Three kinds of test: each translation rule on a small schema (the template it must give), the
report of what cannot be translated (with its JSON pointers), and differential checks that the
migrated template gives, on small outputs, the message the schema gives (both engines are tested
against their runtimes elsewhere, so comparing the two is enough). Then the command itself: exit
codes 0/1/2 in a subprocess, and every shipped schema run on its samples.
"""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from workbench.cli.app import app
from workbench.engine.migrate import ABSENT, compare_sample, derive_start_anchor, differences, header_of, migrate
from workbench.engine.template import load_template, parse_response as template_parse

ROOT = Path(__file__).resolve().parent.parent
ANCHOR = "<|im_start|>assistant\n"

# SmolLM3 / ChatML style, without substitutions, with a plain {type:'function', function:@} transform.
SMOLLM = {
    "type": "object",
    "properties": {
        "role": {"const": "assistant"},
        "thinking": {"type": "string", "x-regex": r"<think>\s*((?:.*?\S)??)\s*(?:</think>|$)"},
        "content": {
            "type": "string",
            "x-regex": r"^(?:\s*<think>.*?(?:</think>|$))?\s*((?:.*?\S)??)\s*(?:<tool_call>|<\|im_end\|>|$)",
        },
        "tool_calls": {
            "type": "array",
            "x-regex-iterator": r"<tool_call>\s*((?:.*?\S)??)\s*(?:</tool_call>|$)",
            "items": {"type": "object", "x-parser": "json", "x-parser-args": {"transform": "{type: 'function', function: @}"}},
        },
    },
}

SMOLLM_OUTPUTS = [
    "Hello there!<|im_end|>",
    "  Hello there!  ",
    "<think>\nLet me think.\n</think>\n\nThe answer is 4.<|im_end|>",
    '<think>use tools</think>\n<tool_call>{"name": "a", "arguments": {"x": 1}}</tool_call>\n'
    '<tool_call>{"name": "b", "arguments": {}}</tool_call><|im_end|>',
    'Let me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n<|im_end|>',
    '<tool_call>{"name": "f", "arguments": {}}</tool_call>',
    "<think>unfinished",
    "",
    '<tool_call>{"name": "f", "arguments": {"x": ',
]


def obj(**properties):
    return {"type": "object", "properties": properties}


def field_of(schema, name="f", anchor=ANCHOR):
    migration = migrate(schema, anchor)
    assert migration.template is not None, migration.untranslatable
    load_template(migration.template)
    return migration.template["fields"][name], migration


def paths(migration):
    return [item.path for item in migration.untranslatable]


# ----- the translation rules, one by one ------------------------------------------------------------------


def test_literal_delimiters_become_open_and_close():
    spec, migration = field_of(obj(f={"type": "string", "x-regex": r"<think>\s*((?:.*?\S)??)\s*(?:</think>|$)"}))
    assert spec == {"open": "<think>", "close": "</think>", "content": "text"}
    assert migration.untranslatable == []


def test_an_untrimmed_group_keeps_its_whitespace():
    spec, _ = field_of(obj(f={"type": "string", "x-regex": r"<a>(.*?)</a>"}))
    assert spec == {"open": "<a>", "close": "</a>", "content": "text", "content_args": {"strip": False}}


def test_delimiters_that_are_not_literal_become_patterns():
    spec, _ = field_of(
        obj(f={"type": "string", "x-regex": r"(?:^|<\|start\|>assistant)<\|channel\|>final<\|message\|>(.*?)(?:<\|return\|>|<\|end\|>|$)"})
    )
    assert spec["open_pattern"] == r"(?:^|<\|start\|>assistant)<\|channel\|>final<\|message\|>"
    assert spec["close"] == ["<|return|>", "<|end|>"]


def test_an_opener_of_literal_alternatives_is_a_literal_list():
    spec, _ = field_of(obj(f={"type": "string", "x-regex": r"(?:<answer>|<final>)(.*?)</answer>"}))
    assert spec["open"] == ["<answer>", "<final>"]


def test_the_leftover_property_becomes_the_implicit_field():
    template = migrate(SMOLLM, ANCHOR).template
    content = template["fields"]["content"]
    assert "open" not in content and "open_pattern" not in content
    # <tool_call> is the tool_calls field's opener, so it is no closer of the leftover text; the
    # whitespace between regions must not reopen it (and overwrite it), so openers take it in
    # (bounded: a leading unbounded repeat is quadratic in transformers' partial search).
    assert content["close_pattern"] == r"\s{0,64}(?:<\|im_end\|>|$)"
    assert template["fields"]["tool_calls"]["open_pattern"] == r"\s{0,64}<tool_call>"
    assert template["defaults"] == {"role": "assistant", "content": ""}  # the regex matches even empty text


def test_iterator_becomes_a_repeated_field_and_json_with_a_function_transform():
    spec = migrate(SMOLLM, ANCHOR).template["fields"]["tool_calls"]
    assert spec["repeats"] is True
    assert spec["content"] == "json"
    assert spec["transform"] == {"type": "function", "function": "{content}"}


def test_smollm_schema_translates_completely():
    migration = migrate(SMOLLM, ANCHOR)
    assert migration.untranslatable == []
    assert migration.template["start_anchor"] == ANCHOR
    assert "/properties/tool_calls/items/x-parser-args/transform" in migration.translated


def test_allow_non_json_becomes_a_content_arg():
    spec, _ = field_of(
        obj(f={"type": "object", "x-regex": r"<j>\s*((?:.*?\S)??)\s*</j>", "x-parser": "json", "x-parser-args": {"allow_non_json": True}})
    )
    assert spec["content"] == "json" and spec["content_args"] == {"allow_non_json": True}


def test_projection_becomes_transform_each_with_the_items_consts():
    schema = obj(
        tool_calls={
            "type": "array",
            "x-regex": r"<\|START_ACTION\|>\s*((?:.*?\S)??)\s*(?:<\|END_ACTION\|>|$)",
            "x-parser": "json",
            "x-parser-args": {"transform": "[*].{function: {name: tool_name, arguments: parameters}}"},
            "items": {"type": "object", "properties": {"type": {"const": "function"}, "function": {"type": "object"}}},
        }
    )
    spec, migration = field_of(schema, "tool_calls")
    assert spec["transform_each"] is True
    assert spec["transform"] == {"type": "function", "function": {"name": "{tool_name}", "arguments": "{parameters}"}}
    assert migration.untranslatable == []
    text = '<|START_ACTION|>[{"tool_name": "a", "parameters": {"q": 1}}, {"tool_name": "b", "parameters": {}}]<|END_ACTION|>'
    assert compare_sample("c", text, schema, migration.template, "").agrees


def test_key_value_becomes_xml_inline_with_a_value_parser():
    schema = obj(
        f={
            "type": "object",
            "x-regex": r"<args>(.*?)</args>",
            "x-regex-key-value": r"<(?P<key>\w+)>(?P<value>.*?)</(?P=key)>".replace("(?P=key)", r"\w+"),
            "additionalProperties": {"x-parser": "json", "x-parser-args": {"allow_non_json": True}},
        }
    )
    spec, migration = field_of(schema)
    assert spec["content"] == "xml-inline"
    assert spec["content_args"]["tag_pattern"] == schema["properties"]["f"]["x-regex-key-value"]
    assert spec["content_args"]["value_parser"] == {"name": "json", "args": {"allow_non_json": True}}
    assert migration.untranslatable == []
    text = "<args><a>1</a><b>hi there</b></args>"
    assert compare_sample("kv", text, schema, migration.template, "").agrees


def test_gemma4_parser_becomes_the_json_dialect():
    spec, _ = field_of(obj(f={"type": "object", "x-regex": r"<\|tool_call>(.*?)<tool_call\|>", "x-parser": "gemma4-tool-call"}))
    assert spec["content"] == "json"
    assert spec["content_args"] == {"unquoted_keys": True, "string_delims": [['<|"|>', '<|"|>']]}


def test_const_role_becomes_defaults():
    migration = migrate(obj(role={"const": "assistant"}, f={"type": "string", "x-regex": "<a>(.*?)</a>"}), ANCHOR)
    assert migration.template["defaults"] == {"role": "assistant"}


def test_name_from_the_opening_delimiter_becomes_a_named_group_and_transform():
    # Gemma 4: the function name sits in the item's opener, the arguments are the rest of it.
    schema = obj(
        tool_calls={
            "type": "array",
            "x-regex-iterator": r"<\|tool_call>(.*?)(?:<tool_call\|>|$)",
            "items": obj(
                type={"const": "function"},
                function={
                    "type": "object",
                    "x-regex": r"^\s*call:(?P<name>\w+)\s*(?P<arguments>\{(?:.*?\S)??)\s*$",
                    "properties": {"arguments": {"x-parser": "gemma4-tool-call"}},
                },
            ),
        }
    )
    spec, migration = field_of(schema, "tool_calls")
    assert spec["open_pattern"] == r"<\|tool_call>\s*call:(?P<name>\w+)\s*(?=\{)"
    assert spec["transform"] == {"type": "function", "function": {"arguments": "{content}", "name": "{name}"}}
    assert migration.untranslatable == []
    text = '<|tool_call>call:set_timer{minutes:25,label:<|"|>tea, green<|"|>}<tool_call|><|tool_call>call:ping {}<tool_call|>'
    assert compare_sample("g", text, schema, migration.template, "").agrees


def test_a_closer_at_the_items_end_joins_the_regions_closer():
    # transformers' own Qwen3.5 template: </function> then </tool_call>.
    schema = obj(
        tool_calls={
            "type": "array",
            "x-regex-iterator": r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)",
            "items": obj(
                type={"const": "function"},
                function={
                    "type": "object",
                    "x-regex": r"^<function=(?P<name>[^>\n]+)>\s*(?P<arguments>.*?)\s*</function>\s*$",
                    "properties": {"arguments": {"type": "object", "x-regex-key-value": r"<parameter=(?P<key>[^>\n]+)>\s*(?P<value>.*?)\s*</parameter>"}},
                },
            ),
        }
    )
    spec, migration = field_of(schema, "tool_calls")
    assert spec["open_pattern"] == r"<tool_call>\s*<function=(?P<name>[^>\n]+)>"
    assert spec["close_pattern"] == r"</function>\s*</tool_call>"
    assert spec["content"] == "xml-inline"
    assert migration.untranslatable == []
    text = "<tool_call>\n<function=get>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>"
    assert compare_sample("q", text, schema, migration.template, "").agrees


def test_scalar_types_pick_the_content_parser():
    spec, _ = field_of(obj(f={"type": "integer", "x-regex": r"<n>\s*((?:.*?\S)??)\s*</n>"}))
    assert spec["content"] == "int"
    spec, migration = field_of(obj(f={"type": "boolean", "x-regex": r"<b>\s*((?:.*?\S)??)\s*</b>"}))
    assert spec["content"] == "bool"
    assert any("false" in note.reason for note in migration.notes)  # bool's one difference is said


def test_required_top_level_field_is_not_optional():
    schema = {**obj(f={"type": "string", "x-regex": "<a>(.*?)</a>"}), "required": ["f"]}
    spec, migration = field_of(schema)
    assert spec["optional"] is False
    assert migration.untranslatable == []


def test_a_required_closer_after_an_opener_that_can_be_empty_is_looked_ahead_for():
    # "thinking before </think>" (the prompt wrote <think>): the region must not open without it.
    spec, _ = field_of(obj(f={"type": "string", "x-regex": r"^\s*(?:<think>\s*)?((?:.*?\S)??)\s*</think>"}))
    assert spec["open_pattern"] == r"^\s*(?:<think>\s*)?(?=.*?</think>)"


def test_join_only_where_the_schema_joins_and_no_dotted_placeholders_are_ever_written():
    """A template from a schema reads on 5.13+ unless the schema joins its content's segments (the
    join rule, docs/join-rule.md): then, and only on that field, it joins them (5.16+)."""
    for schema_file in _shipped_schemas():
        schema = json.loads(schema_file.read_text(encoding="utf-8"))
        template = migrate(schema, ANCHOR).template
        joined = [name for name, spec in template["fields"].items() if "join" in spec]
        joins = [name for name, node in schema.get("properties", {}).items()
                 if any(r == "\n\n" for _, r in node.get("x-regex-substitutions", []))]
        assert set(joined) <= set(joins), schema_file
        assert all(template["fields"][name] == {**template["fields"][name], "repeats": True, "join": "\n\n"} for name in joined)
        assert not any("." in name for name in _placeholders(template)), schema_file


SMOLLM_JOINED = json.loads(json.dumps(SMOLLM))
SMOLLM_JOINED["properties"]["content"] = {
    "type": "string",
    "x-regex-substitutions": [
        [r"^(?:\s*<think>.*?(?:</think>|$))", ""],
        [r"(?<!\s)\s*(?:<tool_call>.*?(?:</tool_call>|$)\s*)+", "\n\n"],
    ],
    "x-regex": r"^\s*((?:.*?\S)??)\s*(?:<\|im_end\|>|$)",
}


@pytest.mark.parametrize("text", SMOLLM_OUTPUTS + [
    'Let me check the weather first.\n<tool_call>\n{"name": "a", "arguments": {}}\n</tool_call>\nAnd the time as well.\n'
    '<tool_call>\n{"name": "b", "arguments": {}}\n</tool_call>\nBoth are in.<|im_end|>',
])
def test_a_schema_that_joins_its_segments_becomes_a_template_that_joins_them(text):
    migration = migrate(SMOLLM_JOINED, ANCHOR)
    assert migration.template["fields"]["content"]["join"] == "\n\n"
    assert "/properties/content/x-regex-substitutions" not in paths(migration)
    assert compare_sample("case", text, SMOLLM_JOINED, migration.template, "").agrees


def _placeholders(value):
    if isinstance(value, dict):
        for v in value.values():
            yield from _placeholders(v)
    elif isinstance(value, list):
        for v in value:
            yield from _placeholders(v)
    elif isinstance(value, str) and value.startswith("{") and value.endswith("}"):
        yield value[1:-1]


# ----- what cannot be translated is listed, with its pointer ----------------------------------------


def test_substitutions_are_listed():
    schema = obj(f={"type": "string", "x-regex-substitutions": [["a", "b"]], "x-regex": "<a>(.*?)</a>"})
    migration = migrate(schema, ANCHOR)
    assert paths(migration) == ["/properties/f/x-regex-substitutions"]
    assert "rewrite" in migration.untranslatable[0].reason
    assert migration.template["fields"]["f"]["open"] == "<a>"  # the best template is still written


def test_jmespath_guard_is_listed_and_the_best_template_keeps_the_reshaping():
    schema = json.loads(json.dumps(SMOLLM))
    schema["properties"]["tool_calls"]["items"]["x-parser-args"]["transform"] = "name && {type: 'function', function: @} || `{}`"
    migration = migrate(schema, ANCHOR)
    assert paths(migration) == ["/properties/tool_calls/items/x-parser-args/transform"]
    assert "guard" in migration.untranslatable[0].reason
    assert migration.template["fields"]["tool_calls"]["transform"] == {"type": "function", "function": "{content}"}


@pytest.mark.parametrize(
    "transform, words",
    [
        ("name", "5.16"),  # a key of the parsed value: a dotted placeholder
        ("a.b", "5.16"),
        ("merge(@, `{}`)", "function merge()"),
        ("[?name].{n: name}", "filter"),
        ("[0]", "index"),
    ],
)
def test_other_jmespath_is_listed(transform, words):
    schema = obj(f={"type": "object", "x-regex": "<j>(.*?)</j>", "x-parser": "json", "x-parser-args": {"transform": transform}})
    migration = migrate(schema, ANCHOR)
    assert "/properties/f/x-parser-args/transform" in paths(migration)
    assert words in " ".join(item.reason for item in migration.untranslatable)


def test_nested_keywords_on_a_parsed_value_are_listed():
    schema = obj(
        f={
            "type": "object",
            "x-regex": "<j>(.*?)</j>",
            "x-parser": "json",
            "properties": {
                "name": {"type": "string"},
                "kind": {"const": "x"},
                "args": {"default": {}},
            },
            "required": ["name"],
            "additionalProperties": False,
        }
    )
    found = paths(migrate(schema, ANCHOR))
    for path in (
        "/properties/f/type",
        "/properties/f/properties/name/type",
        "/properties/f/properties/kind/const",
        "/properties/f/properties/args/default",
        "/properties/f/required",
        "/properties/f/additionalProperties",
    ):
        assert path in found, (path, found)


def test_prefix_items_are_listed():
    schema = obj(f={"type": "array", "x-regex": "<j>(.*?)</j>", "x-parser": "json", "prefixItems": [{"type": "string"}]})
    assert "/properties/f/prefixItems" in paths(migrate(schema, ANCHOR))


def test_overlapping_captures_are_listed():
    # Two properties reading the leftover text.
    migration = migrate(obj(a={"type": "string"}, b={"type": "string", "x-regex": r"^\s*((?:.*?\S)??)\s*$"}), ANCHOR)
    assert paths(migration) == ["/properties/b"]
    assert "overlapping" in migration.untranslatable[0].reason
    # Two children parsing the same region.
    schema = obj(
        f={
            "type": "array",
            "x-regex-iterator": "<c>(.*?)</c>",
            "items": obj(raw={"type": "string"}, parsed={"x-parser": "json"}),
        }
    )
    migration = migrate(schema, ANCHOR)
    assert "/properties/f/items/properties/parsed/x-parser" in paths(migration)
    assert "overlapping" in " ".join(i.reason for i in migration.untranslatable)


def test_data_in_the_closing_delimiter_is_listed():
    schema = obj(
        f={"type": "array", "x-regex-iterator": r"<c>(?P<body>.*?)(?:</c>|(?P<cut>)$)", "items": {"type": "object"}}
    )
    migration = migrate(schema, ANCHOR)
    assert paths(migration) == ["/properties/f/x-regex-iterator"]
    assert "closing delimiter" in migration.untranslatable[0].reason
    assert migration.template is None  # nothing else to translate: no template


def test_regexes_of_another_shape_are_listed():
    for pattern in (r"<a>([^<]*)</a>", r"<a>(.*)</a>", r"(a)|(b)", r"^.*?</think>\s*(.*?)$"):
        migration = migrate(obj(r={"const": "x"}, f={"type": "string", "x-regex": pattern}), ANCHOR)
        assert paths(migration) == ["/properties/f/x-regex"], pattern


def test_unknown_x_keys_are_listed():
    schema = obj(f={"type": "string", "x-regex": "<a>(.*?)</a>", "x-mapping-regex": "x"})
    assert paths(migrate(schema, ANCHOR)) == ["/properties/f/x-mapping-regex"]


def test_every_x_key_of_every_shipped_schema_is_translated_or_listed():
    """Never silently: each x- key is translated, listed, or inside a node (itself or an ancestor)
    whose translation failed for a listed reason (or beside a const, where recursive_parse never
    reads it)."""
    for schema_file in _shipped_schemas():
        schema = json.loads(schema_file.read_text(encoding="utf-8"))
        migration = migrate(schema, ANCHOR)
        listed = paths(migration)
        failed_nodes = {p.rsplit("/", 1)[0] for p in listed} | set(listed)
        for pointer, node in _x_keys(schema):
            node_pointer = pointer.rsplit("/", 1)[0]
            assert (
                pointer in migration.translated
                or any(pointer == p or pointer.startswith(p + "/") for p in listed)
                or any(node_pointer == n or node_pointer.startswith(n + "/") for n in failed_nodes)
                or "const" in node
            ), (schema_file.name, pointer)


def _x_keys(node, pointer=""):
    if isinstance(node, dict):
        for key, value in node.items():
            here = f"{pointer}/{key}"
            if key == "x-parser-args":  # what it says is in its two arguments
                yield from ((f"{here}/{arg}", node) for arg in ("transform", "allow_non_json") if arg in value)
            elif key.startswith("x-"):
                yield here, node
            if key not in ("x-regex-substitutions", "x-parser-args", "const", "default"):
                yield from _x_keys(value, here)


def _shipped_schemas():
    return sorted(p for p in (ROOT / "schemas").glob("*.json") if not p.name.endswith(".template.json"))


# ----- the migrated template gives what the schema gives --------------------------------------------


@pytest.mark.parametrize("text", SMOLLM_OUTPUTS)
@pytest.mark.parametrize("prompt", ["", "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"])
def test_smollm_template_agrees_with_its_schema(text, prompt):
    template = migrate(SMOLLM, ANCHOR).template
    result = compare_sample("case", text, SMOLLM, template, prompt)
    assert result.agrees, (result.schema, result.template, result.differences)


def test_a_prewritten_think_in_the_prompt_is_read_from_the_prefix():
    template = migrate(SMOLLM, ANCHOR).template
    message = template_parse("I thought.</think>\nAnswer.<|im_end|>", template, prefix=ANCHOR + "<think>\n")
    assert message == {"role": "assistant", "content": "Answer.", "thinking": "I thought."}


def test_differences_are_all_listed_with_their_paths():
    found = differences({"a": 1, "b": [1, 2], "c": {"d": "x"}}, {"a": 1.0, "b": [1], "c": {}, "e": True})
    assert [(d.path, d.schema, d.template) for d in found] == [
        ("/a", 1, 1.0),
        ("/b/1", 2, ABSENT),
        ("/c/d", "x", ABSENT),
        ("/e", ABSENT, True),
    ]
    assert differences({"a": 1, "b": 2}, {"b": 2, "a": 1}) == []  # key order is no difference
    # The TUI compares in a child process: a difference comes back still saying ABSENT.
    again = pickle.loads(pickle.dumps(found))
    assert again == found and again[1].template is ABSENT and again[3].schema is ABSENT


def test_a_difference_between_the_formats_is_shown():
    # Text after the tool calls: the schema keeps the content before them, a template's leftover
    # region keeps its last stretch.
    text = 'Before.\n<tool_call>{"name": "f", "arguments": {}}</tool_call>\nAfter.'
    result = compare_sample("late_text", text, SMOLLM, migrate(SMOLLM, ANCHOR).template, "")
    assert not result.agrees
    assert [(d.path, d.schema, d.template) for d in result.differences] == [("/content", "Before.", "After.")]


# ----- the start anchor --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "prompt, anchor",
    [
        ("<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n", "<|im_start|>assistant\n"),
        ("<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n", "<|im_start|>assistant\n"),
        ("<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n", "<|start_header_id|>assistant<|end_header_id|>\n\n"),
        ("<|turn>user\nHi<turn|>\n<|turn>model\n", "<|turn>model\n"),
        ("<|system|>You are a helpful assistant.<|user|>Hi<|assistant|>", "<|assistant|>"),
        ("[SYSTEM_PROMPT]You are a helpful model.[/SYSTEM_PROMPT][INST]Hi[/INST]", "[/INST]"),
        ("<beginning_of_sentence>user name=user\nHi<end_of_sentence>\n<beginning_of_sentence>ai name=assistant\n", "<beginning_of_sentence>ai name=assistant\n"),
        ("no markers at all", None),
    ],
)
def test_the_anchor_is_the_prompts_assistant_header(prompt, anchor):
    assert header_of(prompt) == anchor


def test_anchors_of_several_prompts():
    assert derive_start_anchor(["x<|assistant|>", "y<|assistant|>\n<think></think>"]) == "<|assistant|>"
    assert derive_start_anchor(["<|begin_assistant|>\n", "<|assistant|>\n"]) == ["<|begin_assistant|>\n", "<|assistant|>\n"]
    assert derive_start_anchor([]) is None


# ----- the command ---------------------------------------------------------------------------------------


def run(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "workbench", "migrate", *map(str, args)], capture_output=True, text=True, cwd=cwd
    )


@pytest.fixture
def family(tmp_path):
    """A tree like the repository's: schemas/smollm.json and sample_outputs/smollm/ with prompts."""
    (tmp_path / "schemas").mkdir()
    schema = tmp_path / "schemas" / "smollm.json"
    schema.write_text(json.dumps(SMOLLM, indent=2), encoding="utf-8")
    samples = tmp_path / "sample_outputs" / "smollm"
    samples.mkdir(parents=True)
    for i, text in enumerate(SMOLLM_OUTPUTS):
        (samples / f"case{i}.txt").write_text(text, encoding="utf-8")
    (samples / "default.prompt.txt").write_text("<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n", encoding="utf-8")
    return tmp_path


def test_cli_exit_0_writes_a_template_that_agrees(family):
    out = family / "smollm.template.json"
    result = run(family / "schemas" / "smollm.json", "-o", out)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "untranslatable: none" in result.stdout
    assert f"samples: {len(SMOLLM_OUTPUTS)} of {len(SMOLLM_OUTPUTS)} give the same message" in result.stdout
    template = json.loads(out.read_text(encoding="utf-8"))
    load_template(template)
    assert template["start_anchor"] == ANCHOR  # from default.prompt.txt


def test_cli_exit_1_lists_untranslatable_items_and_differences(family):
    schema = json.loads(json.dumps(SMOLLM))
    schema["properties"]["thinking"]["x-regex-substitutions"] = [["^\\s*</think>", ""]]
    path = family / "schemas" / "smollm.json"
    path.write_text(json.dumps(schema), encoding="utf-8")
    (family / "sample_outputs" / "smollm" / "late.txt").write_text(
        'Before.\n<tool_call>{"name": "f", "arguments": {}}</tool_call>\nAfter.', encoding="utf-8"
    )
    out = family / "out.json"
    result = run(path, "-o", out, "--json")
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert report["written"] and out.is_file()
    assert [i["path"] for i in report["untranslatable"]] == ["/properties/thinking/x-regex-substitutions"]
    late = next(s for s in report["samples"] if s["case"] == "late")
    assert late["differences"] == [{"path": "/content", "schema": "Before.", "template": "After."}]
    assert report["exit_code"] == 1


def test_cli_exit_2_for_unusable_input(family, tmp_path):
    out = tmp_path / "out.json"
    bad = tmp_path / "bad.json"
    bad.write_text('{"type": "object",\n  "properties": {,}}', encoding="utf-8")
    result = run(bad, "-o", out)
    assert result.returncode == 2 and f"{bad}:2:" in result.stderr and not out.exists()

    invalid = tmp_path / "invalid.json"
    invalid.write_text(json.dumps(obj(f={"type": "string", "x-regex": "(unclosed"})), encoding="utf-8")
    result = run(invalid, "-o", out)
    assert result.returncode == 2 and "validation error" in result.stderr and not out.exists()

    no_prompts = tmp_path / "alone.json"  # not in a schemas/ tree: no samples, so no prompts
    no_prompts.write_text(json.dumps(SMOLLM), encoding="utf-8")
    result = run(no_prompts, "-o", out)
    assert result.returncode == 2 and "--start-anchor" in result.stderr and not out.exists()
    assert "Traceback" not in result.stderr

    out.write_text("keep me", encoding="utf-8")
    result = run(family / "schemas" / "smollm.json", "-o", out)
    assert result.returncode == 2 and "--force" in result.stderr
    assert out.read_text(encoding="utf-8") == "keep me"


def test_cli_anchor_from_flag_or_prefix_file(tmp_path):
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps(SMOLLM), encoding="utf-8")
    result = run(schema, "-o", tmp_path / "a.json", "--start-anchor", "<|im_start|>assistant\\n")
    assert result.returncode == 0, result.stderr
    assert json.loads((tmp_path / "a.json").read_text())["start_anchor"] == ANCHOR
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("<|turn>user\nHi<turn|>\n<|turn>model\n", encoding="utf-8")
    result = run(schema, "-o", tmp_path / "b.json", "--prefix-file", prompt)
    assert result.returncode == 0, result.stderr
    assert json.loads((tmp_path / "b.json").read_text())["start_anchor"] == "<|turn>model\n"


@pytest.mark.parametrize("schema_file", _shipped_schemas(), ids=lambda p: p.stem)
def test_every_shipped_schema_migrates_honestly(schema_file, tmp_path):
    """Exit 0 only with nothing untranslatable and every sample agreeing; otherwise exit 1 with
    the reason in the report; never a traceback."""
    samples = ROOT / "sample_outputs" / schema_file.stem
    args = ["migrate", str(schema_file), "-o", str(tmp_path / "t.json"), "--json"]
    if not any(samples.glob("*.prompt.txt")):
        args += ["--start-anchor", "<|assistant|>"]  # without prompts the samples parse with prefix=""
    result = CliRunner().invoke(app, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code in (0, 1), result.output
    report = json.loads(result.stdout)
    disagreeing = [s["case"] for s in report["samples"] if not s["agrees"]]
    if result.exit_code == 0:
        assert report["written"] and not report["untranslatable"] and not disagreeing
    else:
        assert report["untranslatable"] or disagreeing or not report["written"]
    if report["written"]:
        load_template(json.loads((tmp_path / "t.json").read_text(encoding="utf-8")))
        assert len(report["samples"]) == len([p for p in samples.glob("*.txt") if not p.name.endswith((".prompt.txt", ".expected-error.txt"))])
