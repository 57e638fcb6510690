"""Hand-written differential cases: one or more per subtle point of the runtime's semantics."""

from __future__ import annotations

import pytest

from oracle import RAISED, assert_agrees

S = {"type": "string"}
CHAT = r"(?:<think>\n?(?P<thinking>.+?)\n?</think>)?\s*(?P<content>.+?)?\s*(?:<\|im_end\|>|$)"
CHAT_SCHEMA = {
    "x-regex": CHAT,
    "type": "object",
    "properties": {"role": {"const": "assistant"}, "content": S, "thinking": S},
}

CASES = {
    # named groups that did not take part are dropped from the dict
    "named-group-absent": ("Just an answer<|im_end|>", CHAT_SCHEMA),
    "named-group-present": ("<think>\nweigh it\n</think>\n\nAnswer: 42<|im_end|>", CHAT_SCHEMA),
    "named-groups-none-match": ("", CHAT_SCHEMA),
    # a regex with no groups is an error (only once it matches)
    "no-groups-matching": ("abc", {"type": "string", "x-regex": "b"}),
    "no-groups-not-matching": ("abc", {"type": "string", "x-regex": "z"}),
    # two unnamed groups are an error
    "two-unnamed-groups": ("ab", {"type": "string", "x-regex": "(a)(b)"}),
    "unnamed-plus-named": ("ab", {"type": "object", "x-regex": "(a)(?P<b>b)", "properties": {"b": S}}),
    # a non-matching x-regex gives None; an object child that gives None is left out
    "no-match-child-dropped": (
        "hello",
        {"type": "object", "properties": {"a": {"type": "string", "x-regex": "(z+)"}, "b": {"type": "string", "x-regex": "(h\\w+)"}}},
    ),
    "no-match-root": ("hello", {"type": "object", "x-regex": "(?P<a>z)", "required": ["a"], "properties": {"a": S}}),
    # an object fed a string passes the whole string to every child
    "string-to-children": ("<a>1</a><b>x</b>", {"type": "object", "properties": {"raw": S, "a": {"type": "integer", "x-regex": "<a>(.*?)</a>"}}}),
    "object-string-no-properties": ("text", {"type": "object"}),
    # an object fed a dict copies unknown keys unless additionalProperties is false
    "dict-extra-keys": ('{"a": 1, "b": [1, 2], "c": null}', {"type": "object", "x-parser": "json", "properties": {"a": {"type": "number"}}}),
    "dict-extra-keys-false": ('{"a": 1, "b": 2}', {"type": "object", "x-parser": "json", "properties": {"a": {}}, "additionalProperties": False}),
    "dict-extra-keys-schema": ('{"a": "1", "b": "2"}', {"type": "object", "x-parser": "json", "additionalProperties": {"type": "integer"}}),
    "dict-extra-keys-empty-schema": ('{"a": 1}', {"type": "object", "x-parser": "json", "additionalProperties": {}}),
    "dict-extra-keys-zero": ('{"a": 1}', {"type": "object", "x-parser": "json", "additionalProperties": 0}),
    "dict-null-value-kept": ('{"a": null}', {"type": "object", "x-parser": "json", "properties": {"a": S}}),
    "dict-default": ('{"b": 1}', {"type": "object", "x-parser": "json", "properties": {"a": {"type": "string", "default": "d"}}}),
    "dict-const-wins": ('{"a": 1}', {"type": "object", "x-parser": "json", "properties": {"a": {"const": None}}}),
    "string-const-none-dropped": ("x", {"type": "object", "properties": {"a": {"const": None}, "b": {"const": 0}}}),
    # const short-circuits everything, even a None input
    "const-on-none": ("abc", {"type": "object", "x-regex": "(?P<q>z)?", "properties": {"r": {"const": "assistant"}}}),
    "const-root": ("abc", {"const": [1, 2]}),
    # integer coercion
    "int-plain": ("n=42", {"type": "integer", "x-regex": "n=(.*)"}),
    "int-space-underscore": ("n= 1_000 ", {"type": "integer", "x-regex": "n=(.*)"}),
    "int-float-string": ("n=4.0", {"type": "integer", "x-regex": "n=(.*)"}),
    "int-unicode-digits": ("n=٤٢", {"type": "integer", "x-regex": "n=(.*)"}),
    "int-from-json-float": ("4.0", {"type": "integer", "x-parser": "json"}),
    "int-from-json-bool": ("true", {"type": "integer", "x-parser": "json"}),
    "int-from-json-int": ("7", {"type": "integer", "x-parser": "json"}),
    # number coercion
    "number-int-json": ("7", {"type": "number", "x-parser": "json"}),
    "number-bool-json": ("false", {"type": "number", "x-parser": "json"}),
    "number-string": ("x=2.5e3", {"type": "number", "x-regex": "x=(.*)"}),
    "number-nan": ("x=nan", {"type": "number", "x-regex": "x=(.*)"}),
    "number-bad": ("x=two", {"type": "number", "x-regex": "x=(.*)"}),
    "number-list": ("[1]", {"type": "number", "x-parser": "json"}),
    # boolean coercion
    "bool-true-upper": ("v=TRUE", {"type": "boolean", "x-regex": "v=(.*)"}),
    "bool-one": ("v=1", {"type": "boolean", "x-regex": "v=(.*)"}),
    "bool-zero": ("v=0", {"type": "boolean", "x-regex": "v=(.*)"}),
    "bool-yes": ("v=yes", {"type": "boolean", "x-regex": "v=(.*)"}),
    "bool-json-int": ("1", {"type": "boolean", "x-parser": "json"}),
    "string-from-int": ("1", {"type": "string", "x-parser": "json"}),
    # an unnamed group that did not take part hands on None
    "optional-group-none-string": ("b", {"type": "string", "x-regex": "(a)?b"}),
    "optional-group-none-array": ("b", {"type": "array", "x-regex": "(a)?b", "items": S}),
    "optional-group-none-iterator": ("b", {"type": "array", "x-regex": "(a)?b", "x-regex-iterator": "(.)", "items": S}),
    "optional-group-none-any": ("b", {"x-regex": "(a)?b"}),
    # substitutions come first, use re's template syntax, and are checked before matching
    "subs-backref": ("<b>x</b> <b>y</b>", {"type": "string", "x-regex-substitutions": [["<b>(.*?)</b>", "[\\1]"]]}),
    "subs-chain": ("aXb", {"type": "string", "x-regex-substitutions": [["X", "Y"], ["Y", "\\g<0>\\n"]], "x-regex": "(a.*)"}),
    "subs-bad-template-no-match": ("abc", {"type": "string", "x-regex-substitutions": [["z", "\\9"]]}),
    "subs-bad-escape": ("abc", {"type": "string", "x-regex-substitutions": [["a", "\\d"]]}),
    "subs-empty-matches": ("abc", {"type": "string", "x-regex-substitutions": [["x*", "-"]]}),
    "subs-short-entry": ("abc", {"type": "string", "x-regex-substitutions": [["a"]]}),
    "subs-on-dict": ('{"a": 1}', {"type": "object", "x-parser": "json", "properties": {"a": {"x-regex-substitutions": [["1", "2"]]}}}),
    # regex on a non-string input is an error
    "regex-on-dict": ("k=v", {"type": "object", "x-regex": "(?P<k>k)=(?P<v>v)", "properties": {"k": {"type": "object", "x-regex": "(?P<a>.)"}}}),
    "regex-not-string": ("abc", {"type": "string", "x-regex": 5}),
    "regex-invalid": ("abc", {"type": "string", "x-regex": "(unclosed"}),
    "regex-invalid-unreached": ("abc", {"type": "object", "x-regex": "(?P<a>z)", "properties": {"a": {"x-regex": "(bad"}}}),
    # iterator rules
    "iterator-basic": ("<c>1</c><c>2</c>", {"type": "array", "x-regex-iterator": "<c>(.*?)</c>", "items": {"type": "integer"}}),
    "iterator-none-found": ("nothing", {"type": "array", "x-regex-iterator": "<c>(.*?)</c>", "items": S}),
    "iterator-on-object": ("<c>1</c>", {"type": "object", "x-regex-iterator": "<c>(.*?)</c>"}),
    "iterator-no-type": ("<c>1</c>", {"x-regex-iterator": "<c>(.*?)</c>"}),
    "iterator-named": ("a=1;b=2", {"type": "array", "x-regex-iterator": "(?P<k>\\w)=(?P<v>\\d)", "items": {"type": "object", "properties": {"k": S, "v": {"type": "integer"}}}}),
    "iterator-zero-width": ("ab", {"type": "array", "x-regex-iterator": "(x*)", "items": S}),
    "iterator-after-regex": ("[<c>1</c>] <c>9</c>", {"type": "array", "x-regex": "\\[(.*)\\]", "x-regex-iterator": "<c>(.*?)</c>", "items": S}),
    "iterator-no-group": ("aa", {"type": "array", "x-regex-iterator": "a", "items": S}),
    # key-value rules
    "kv-basic": ("<p=a>1</p><p=b>x</p>", {"type": "object", "x-regex-key-value": "<p=(?P<key>\\w+)>(?P<value>.*?)</p>"}),
    "kv-dup-keys": ("<p=a>1</p><p=a>2</p>", {"type": "object", "x-regex-key-value": "<p=(?P<key>\\w+)>(?P<value>.*?)</p>"}),
    "kv-none": ("nothing", {"type": "object", "x-regex-key-value": "<p=(?P<key>\\w+)>(?P<value>.*?)</p>"}),
    "kv-no-value-group": ("<p=a>", {"type": "object", "x-regex-key-value": "<p=(?P<key>\\w+)>"}),
    "kv-optional-value": ("<p=a>", {"type": "object", "x-regex-key-value": "<p=(?P<key>\\w+)>(?P<value>x)?"}),
    "kv-on-array": ("<p=a>1</p>", {"type": "array", "x-regex-key-value": "<p=(?P<key>\\w+)>(?P<value>.*?)</p>"}),
    "kv-typed-props": ("<p=n>3</p><p=s>x</p>", {"type": "object", "x-regex-key-value": "<p=(?P<key>\\w+)>(?P<value>.*?)</p>", "properties": {"n": {"type": "integer"}}, "required": ["n"]}),
    # parsers
    "json-nested": ('call {"name": "f", "arguments": {"x": [1, 2.5, true, null, "é"]}}', {"type": "object", "x-regex": "call (.*)", "x-parser": "json", "properties": {"name": S, "arguments": {"type": "object"}}}),
    "json-invalid": ('{"a": ', {"type": "object", "x-parser": "json"}),
    "json-allow-non-json": ("plain", {"type": "string", "x-parser": "json", "x-parser-args": {"allow_non_json": True}}),
    "json-transform": ('{"calls": [{"n": "a"}, {"n": "b"}]}', {"type": "array", "x-parser": "json", "x-parser-args": {"transform": "calls[*].n"}, "items": S}),
    "json-transform-bad": ('{"a": 1}', {"x-parser": "json", "x-parser-args": {"transform": "a[?"}}),
    "json-transform-non-json": ("plain", {"x-parser": "json", "x-parser-args": {"allow_non_json": True, "transform": "length(@)"}}),
    "json-on-dict": ("k=v", {"type": "object", "x-regex": "(?P<k>k)=(?P<v>v)", "x-parser": "json"}),
    "json-parser-args-null": ("1", {"x-parser": "json", "x-parser-args": None}),
    "json-nan": ("NaN", {"type": "number", "x-parser": "json"}),
    "parser-unknown": ("1", {"x-parser": "yaml"}),
    "gemma4": (
        '{location:<|"|>Paris, "FR"<|"|>,days:3,units:<|"|>metric<|"|>}',
        {"type": "object", "x-parser": "gemma4-tool-call", "properties": {"days": {"type": "integer"}}},
    ),
    "gemma4-spaced-key": ('{a:1, b:2}', {"type": "object", "x-parser": "gemma4-tool-call"}),
    "gemma4-non-string": ("k=v", {"type": "object", "x-regex": "(?P<k>k)=(?P<v>v)", "x-parser": "gemma4-tool-call"}),
    # required
    "required-missing": ("a", {"type": "object", "properties": {"x": {"type": "string", "x-regex": "(z)"}}, "required": ["x"]}),
    "required-by-default": ("{}", {"type": "object", "x-parser": "json", "properties": {"x": {"default": 1}}, "required": ["x"]}),
    "required-not-property": ('{"y": 1}', {"type": "object", "x-parser": "json", "required": ["y"]}),
    # arrays
    "array-empty-string": ("", {"type": "array", "items": S}),
    "array-string-items": ("abc", {"type": "array", "items": S}),
    "array-prefix-single-wrap": ("abc", {"type": "array", "prefixItems": [S]}),
    "array-prefix-two-on-string": ("abc", {"type": "array", "prefixItems": [S, S]}),
    "array-prefix-mismatch": ("[1, 2, 3]", {"type": "array", "x-parser": "json", "prefixItems": [{"type": "integer"}, {"type": "number"}]}),
    "array-prefix-ok": ('[1, "2"]', {"type": "array", "x-parser": "json", "prefixItems": [{"type": "number"}, {"type": "integer"}]}),
    "array-no-items": ("[1]", {"type": "array", "x-parser": "json"}),
    "array-dict-items": ('{"a": 1}', {"type": "array", "x-parser": "json", "items": {}}),
    # types
    "type-any": ("[1, {}]", {"type": "any", "x-parser": "json"}),
    "type-unsupported": ("x", {"type": "null"}),
    "type-list": ("x", {"type": ["string", "null"]}),
    # schema shapes the runtime does not expect still raise, and raise in the same places
    "child-not-dict": ("x", {"type": "object", "properties": {"a": "string"}}),
    "child-constant-string": ("x", {"type": "object", "properties": {"a": "const"}}),
    "properties-list": ('{"a": 1}', {"type": "object", "x-parser": "json", "properties": ["a"]}),
    # patterns whose reading differs between regex dialects: re's must win
    "regex-literal-brace-fuzzy": ("a{e}", {"type": "string", "x-regex": "(a{e})"}),
    "regex-posix-like-set": ("ab[:]", {"type": "array", "x-regex-iterator": "([[:alpha:]])", "items": S}),
    "regex-open-quantifier": ("aaaa", {"type": "array", "x-regex-iterator": "(a{,3})", "items": S}),
    "regex-bracket-first": ("a]b", {"type": "array", "x-regex-iterator": "([]a])", "items": S}),
    "regex-negated-bracket-first": ("a]b", {"type": "array", "x-regex-iterator": "([^]a])", "items": S}),
    "regex-empty-braces": ("a{}", {"type": "string", "x-regex": "(a{})"}),
    "regex-case-insensitive": ("STRASSE Straße", {"type": "array", "x-regex-iterator": "(?i)(stra(?:ss|ß)e)", "items": S}),
    "regex-unicode-word": ("naïve café", {"type": "array", "x-regex-iterator": "(\\w+)", "items": S}),
    "regex-dollar-newline": ("abc\n", {"type": "string", "x-regex": "(c)$"}),
    "regex-dotall": ("a\nb", {"type": "string", "x-regex": "(a.b)"}),
    "regex-possessive": ("aaa", {"type": "string", "x-regex": "(a++)"}),
    # allow_non_json: text no JSON value starts with is kept as it is; anything else is tried
    "non-json-kept": ('{"a": "src/x.py", "b": "", "c": "\ufeff1", "d": "-x", "e": " 2 ", "f": "NaN", "g": "Infinity", "h": "nul"}',
                      {"type": "object", "x-parser": "json",
                       "additionalProperties": {"x-parser": "json", "x-parser-args": {"allow_non_json": True}}}),
    "non-json-refused": ('{"a": "src/x.py"}', {"type": "object", "x-parser": "json", "additionalProperties": {"x-parser": "json"}}),
    "regex-lookbehind": ("x=1 y=2", {"type": "array", "x-regex-iterator": "(?<=y=)(\\d)", "items": {"type": "integer"}}),
}


@pytest.mark.parametrize("name", list(CASES))
def test_agrees_with_transformers(name):
    text, schema = CASES[name]
    assert_agrees(text, schema)


def test_cases_cover_both_outcomes():
    """The table must exercise both results and errors, or it proves little."""
    outcomes = [assert_agrees(*CASES[name]) is RAISED for name in CASES]
    assert 20 < sum(outcomes) < len(outcomes) - 20
