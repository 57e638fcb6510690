"""validate(): every problem with its path; errors only for what can never work."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench import validate
from workbench.engine import ERROR, WARNING

ROOT = Path(__file__).resolve().parent.parent


def problems_at(schema) -> dict[str, tuple[str, str]]:
    return {p.path: (p.severity, p.message) for p in validate(schema)}


@pytest.mark.parametrize("schema", [[], "x", 3, None])
def test_schema_must_be_an_object(schema):
    assert problems_at(schema)[""][0] == ERROR


# Shipped schemas that validate still flags, with how many warnings. deepseek_v3_2's (and deepseek_v4's, gigachat35's and kimi_k3's, which escape raw string values the same way, and deepseek_v4_1's, in one substitution of five alternatives) five escaping
# substitutions each look ahead with `.*` for a tail its first two substitutions always append to the
# value, so `.*` jumps to the end and backs up only over that tail: linear on every value the node
# sees (check --linear proves it), though the same lookahead on a text without the tail would scan
# back through all of it, which is what validate, looking at the pattern alone, warns about. The list
# may only shrink: a schema that gets a new warning, or loses these, fails until the list says so.
KNOWN_WARNINGS = {"deepseek_v3_2": 5, "deepseek_v4": 5, "deepseek_v4_1": 5, "gigachat35": 5, "kimi_k3": 5}


def test_shipped_schemas_are_clean():
    for path in sorted((ROOT / "schemas").glob("*.json")):
        problems = [str(p) for p in validate(json.loads(path.read_text()))]
        if path.stem in KNOWN_WARNINGS:
            assert len(problems) == KNOWN_WARNINGS[path.stem] and all(p.startswith("warning:") for p in problems), problems
        else:
            assert problems == [], path.name


@pytest.mark.parametrize(
    "node, where, severity, phrase",
    [
        ({"type": "string", "x-regex": "(a"}, "/x-regex", ERROR, "offset 0"),
        ({"type": "string", "x-regex": "\\p{L}(.)"}, "/x-regex", ERROR, "regex package would accept"),
        ({"type": "string", "x-regex": "abc"}, "/x-regex", ERROR, "no capture group"),
        ({"type": "string", "x-regex": "(a)(b)"}, "/x-regex", ERROR, "2 unnamed groups"),
        ({"type": "object", "x-regex": "(?P<a>a)(b)", "properties": {}}, "/x-regex", WARNING, "ignored"),
        ({"type": "string", "x-regex": "(?P<a>a)"}, "/x-regex", WARNING, "named groups give a dict"),
        ({"type": "object", "x-regex-iterator": "(a)", "properties": {}}, "/x-regex-iterator", ERROR, "type\": \"array"),
        ({"type": "object", "x-regex-key-value": "(?P<key>a)"}, "/x-regex-key-value", ERROR, "'key' and 'value'"),
        ({"type": "array", "x-regex-key-value": "(?P<key>a)(?P<value>b)", "items": {}}, "/x-regex-key-value", ERROR, "type\": \"object"),
        ({"type": "strng"}, "/type", ERROR, "unknown type"),
        ({"x-parser": "yaml"}, "/x-parser", ERROR, "unknown parser"),
        ({"x-parser": "json", "x-parser-args": {"transform": "a[?"}}, "/x-parser-args/transform", ERROR, "jmespath"),
        ({"x-parser": "json", "x-parser-args": {"transfrom": "a"}}, "/x-parser-args/transfrom", WARNING, "unknown parser argument"),
        ({"x-parser-args": {"transform": "a"}}, "/x-parser-args", WARNING, "without x-parser"),
        ({"x-regexp": "(a)"}, "/x-regexp", WARNING, "unknown key"),
        ({"type": "object", "properties": {"a": {}}, "required": ["b"]}, "/required/0", WARNING, "not among"),
        ({"type": "string", "x-regex-substitutions": [["(a)", "\\2"]]}, "/x-regex-substitutions/0/1", ERROR, "bad replacement"),
        ({"type": "string", "x-regex-substitutions": ["ab"]}, "/x-regex-substitutions/0", ERROR, "pair"),
        ({"type": "string", "x-regex-substitutions": [["[[:a:]]", ""]]}, "/x-regex-substitutions/0/0", WARNING, "nested set"),
        ({"type": "array"}, "", WARNING, "items"),
        ({"const": "x", "x-regex": "(a)"}, "", WARNING, "never run"),
        ({"type": "string", "x-regex": "<a>\\s*(.*?)\\s*</a>"}, "/x-regex", WARNING, "quadratically"),
        ({"type": "object", "x-regex": "(?P<b>.*?)\\s*$", "properties": {}}, "/x-regex", WARNING, "(?P<b>(?:.*?\\S)??)"),
    ],
)
def test_problem_reported_with_path(node, where, severity, phrase):
    schema = {"type": "object", "properties": {"f": node}}
    found = problems_at(schema)
    path = "/properties/f" + where
    assert path in found, found
    assert found[path][0] == severity
    assert phrase in found[path][1]


def test_every_problem_is_listed_not_just_the_first():
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "string", "x-regex": "(a"},
            "b": {"type": "array", "items": {"type": "nope", "x-parser": "xml"}},
        },
    }
    paths = {p.path for p in validate(schema) if p.severity == ERROR}
    assert paths == {"/properties/a/x-regex", "/properties/b/items/type", "/properties/b/items/x-parser"}


def test_pointer_escapes_key_names():
    schema = {"type": "object", "properties": {"a/b~c": {"type": "nope"}}}
    assert "/properties/a~1b~0c/type" in problems_at(schema)


@pytest.mark.parametrize("pattern", [r"<a>\s*(.*?)\s*(?:</a>|$)", r"^(.*?)\s*(?:<b>|\Z)", r"(?P<v>.*?)\s*\n</p>"])
def test_the_suggested_linear_trim_gives_the_same_matches(pattern):
    """What the quadratic-trim warning suggests must match exactly what the user wrote."""
    import re

    problem = next(p for p in validate({"type": "string", "x-regex": pattern}) if "quadratically" in p.message)
    suggestion = problem.message.split("; ")[1].split(" gives")[0]
    group = re.match(r"\((\?P<\w+>)?", suggestion).group(0)
    linear = re.sub(r"\((\?P<\w+>)?\.\*\?\)(?=\\s\*)", lambda m: suggestion.removesuffix("\\s*"), pattern)
    assert linear != pattern and group in linear
    texts = ["", " ", "x", "<a> x  y \n</a>", "<a>\n\n", "a \t b  <b> c", "<a>" + " " * 300 + "z" + " " * 300,
             "k \n</p> v\n</p>", "  \n\n  "]
    for text in texts:
        ours = [(m.span(), m.groups()) for m in re.finditer(linear, text, re.DOTALL)]
        assert ours == [(m.span(), m.groups()) for m in re.finditer(pattern, text, re.DOTALL)], text


# -- catastrophic backtracking -------------------------------------------------------------------


def backtracking_warnings(pattern: str, key: str = "x-regex") -> list[str]:
    node = {"type": "string", key: pattern}
    if key == "x-regex-substitutions":
        node = {"type": "string", "x-regex-substitutions": [["x", ""], [pattern, ""]]}
    at = "/properties/f/" + ("x-regex-substitutions/1/0" if key == "x-regex-substitutions" else key)
    found = validate({"type": "object", "properties": {"f": node}})
    return [p.message for p in found if p.path == at and p.severity == WARNING and "can hang" in p.message]


@pytest.mark.parametrize(
    "pattern, construct, rewrite",
    [
        (r"(\s*)*x", r"(\s*)*", r"\s*"),
        (r"(a+)+$", "(a+)+", "a+"),
        (r"(.*)*x", "(.*)*", ".*"),
        (r"(a|aa)+$", "(a|aa)+", "a+"),
        (r"(.|\s)*x", r"(.|\s)*", ".*"),
        (r"(a|a)*x", "(a|a)*", "a*"),
        (r"<b>(?:\w+\s?)+$", r"(?:\w+\s?)+", r"\w+(?:\s\w+)*\s?"),
        (r"(?:a?b?)*c", "(?:a?b?)*", "[ab]*"),
        (r"(?P<v>a+?)+?$", "(?P<v>a+?)+?", None),
        (r"(?:<a>(.*?)</a>\s*)+</b>", r"(?:<a>(.*?)</a>\s*)+", None),
        (r"(?:(?:(?!ab).)*a)*c", "(?:(?:(?!ab).)*a)*", None),
        (r"(?=(a+)+$)", "(a+)+", "a+"),
        (r"\s*\s*x", r"\s*\s*", r"\s*"),
        (r".*.*=", ".*.*", ".*"),
        (r"\d+\d+x", r"\d+\d+", r"\d{2,}"),
        (r"(?:a++c|aac)*x", "(?:a++c|aac)*", None),  # a run that ends inside the other branch's text
        (r"(?:a{1,3}+|a)*x", "(?:a{1,3}+|a)*", None),  # a bounded possessive can stop inside a run
    ],
)
def test_catastrophic_backtracking_warns_with_the_construct_and_a_linear_form(pattern, construct, rewrite):
    for key in ("x-regex", "x-regex-substitutions"):
        [message] = backtracking_warnings(pattern, key)
        assert f"`{construct}` at offset {pattern.index(construct)}" in message
        assert "transformers" in message
        if rewrite is None:
            assert "linear time" not in message
        else:
            assert f"`{rewrite}` matches the same text in linear time" in message


def test_the_rewrite_keeps_a_capture_group_when_asked():
    [message] = backtracking_warnings(r"(?P<sp>\s*)*x")
    assert r"`\s*` matches the same text" in message and r"`(?P<sp>\s*)` to capture" in message


def test_a_verbose_pattern_is_quoted_as_re_parsed_it():
    [message] = backtracking_warnings(r"(?x) ( a + ) + $")
    assert "`(a+)+` the inner" in message


def test_backtracking_warnings_name_the_iterator_and_key_value_regexes_too():
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "array", "items": {}, "x-regex-iterator": r"((?:\w+\s?)+);"},
            "o": {"type": "object", "x-regex-key-value": r"(?P<key>(\d+)+)=(?P<value>\w*);"},
        },
    }
    paths = {p.path for p in validate(schema) if "can hang" in p.message}
    assert paths == {"/properties/a/x-regex-iterator", "/properties/o/x-regex-key-value"}


@pytest.mark.parametrize(
    "pattern",
    [
        r"<think>(.*?)</think>",
        r"((?:.*?\S)??)\s*",
        r"(\d+)-(\d+)",
        r"(?:<a>(.*?)</a>\s*)+",  # nothing after the loop can fail, so re never retries a split
        r"[^<]*(<x>)?",
        r"(a+)+",
        r"(?:\s+[^<\s]+)*(x)",  # every iteration starts with a space the previous one cannot end with
        r'"((?:[^"\\]|\\.)*)"',
        r"(?:(?:(?!</a>).)*</a>(x))*y",  # the tempered dot cannot run past </a>
        r"(\w|\d)*x",  # re's parser merges one-character branches into the class [\w\d]
        r"(a+){2,3}$",  # bounded: polynomial of low degree, not a hang
        r"(?>(a+)+)b",  # atomic: re never backtracks into it
        r"(?:[^\s<]++|(?!</p>)[\s<])*?x",  # each run is whole, and the branches start apart
        r"(?:\w++\s?)*x",  # a run of \w never ends where the next iteration's \w could start
        r"(a*b*c)",
        r"[^\n]*\n\s*(x)",
    ],
)
def test_safe_loops_do_not_warn(pattern):
    assert backtracking_warnings(pattern) == []


def test_suggested_rewrites_match_the_same_text():
    """Swapping the warned construct for its suggested form changes no match, on every short text."""
    import itertools
    import re

    from workbench.engine.backtracking import risks

    patterns = [r"(\s*)*x", r"(a+)+$", r"(.*)*x", r"(a|aa)+$", r"(.|\s)*x", r"(a|a)*x", r"b(?:\w+\s?)+$",
                r"(?:a?b?)*c", r"\s*\s*x", r".*.*=", r"\d+\d+x", r"(?:a|b|ab)*c"]
    for pattern in patterns:
        [risk] = risks(pattern)
        linear = pattern.replace(risk.construct, risk.rewrite, 1)
        alphabet = "ab1 x=c"
        for size in range(6):
            for chars in itertools.product(alphabet, repeat=size):
                text = "".join(chars)
                expected = [m.span() for m in re.finditer(pattern, text, re.DOTALL)]
                assert [m.span() for m in re.finditer(linear, text, re.DOTALL)] == expected, (pattern, text)



# -- whitespace trims that rescan a run (polynomial) ---------------------------------------------


def trim_warnings(pattern: str) -> list[str]:
    found = validate({"type": "object", "properties": {"f": {"type": "string", "x-regex-substitutions": [[pattern, ""]]}}})
    return [p.message for p in found if "backtracks polynomially" in p.message]


TRIMS = [
    # the cubic thinking regex: two warnings, whose rewrites together make it linear
    (r"^\s*(?:<think>)?\s*((?:.*?\S)??)\s*</think>", r"\s*(?:<think>)?\s*", r"\s*(?:<think>\s*)?"),
    (r"^\s*(?:<think>)?\s*((?:.*?\S)??)\s*</think>", r"\s*((?:.*?\S)??)", r"\s*(?!\s)((?:.*?\S)??)"),
    (r"^\s*(?:<think>)?\s*</think>", r"\s*(?:<think>)?\s*", r"\s*(?:<think>\s*)?"),
    (r"(\{.*?)\s*(?:<\|eot_id\|>)?\s*$", r"\s*(?:<\|eot_id\|>)?\s*", r"\s*(?:<\|eot_id\|>\s*)?"),
    (r"^\s*(?P<arguments>\{.*?)\s*$", r"(?P<arguments>\{.*?)\s*", r"(?P<arguments>\{(?:.*?\S)??)\s*"),
    (r"functools(\[.*?)\s*(?:<\|eot_id\|>|$)", r"(\[.*?)\s*", r"(\[(?:.*?\S)??)\s*"),
    (r"\[A\]\s*(\[[^\n]*?)\s*(?=\n|$)", r"(\[[^\n]*?)\s*", r"(\[(?:[^\n]*?[^\n\s])??)\s*"),
    (r"<i>(?P<a><.*?)?\s*</i>", r"(?P<a><.*?)?\s*", r"(?P<a><(?:.*?\S)??)?\s*"),
    (r"^\s*(?P<name>[^<]+?)\s*(?:<s>(?P<a>.*))?$", r"(?P<name>[^<]+?)\s*", None),
    ("\\\\(?=.*\x00\\Z)", r"(?=.*\x00\Z)", None),
    # two loops with an optional part between: the part may hold a loop, be a lone character, be lazy
    (r"^\s*(?:<response>\s*)?\s*</think>", r"\s*(?:<response>\s*)?\s*", r"\s*(?:<response>\s*)?"),
    (r"^\s*\n?\s*</think>", r"\s*\n?\s*", r"\s*(?:\n\s*)?"),
    (r"^[ \t]*(?:<response>)?\s*</think>", r"[ \t]*(?:<response>)?\s*", None),
    (r"^\s*(?:<response>)??\s*</think>", r"\s*(?:<response>)??\s*", None),
    (r"^\s*(?:<response>[ ]*)?\s*</think>", r"\s*(?:<response> *)?\s*", None),
    # a loop, then a lookahead that scans to the end (ernie45's thinking regex): anchored, yet quadratic
    (r"^\s*(?:<think>|(?=.*?</think>))\s*(?!\s)((?:.*?\S)??)\s*(?:</think>|$)",
     r"\s*(?:<think>|(?=.*?</think>))", r"\s*(?!\s)(?:<think>|(?=.*?</think>))"),
    (r"^\s*(?=.*?</think>)(.*)", r"\s*(?=.*?</think>)", r"\s*(?!\s)(?=.*?</think>)"),
    (r"^\s*(?:<think>|(?=.*?\s</think>))(.*)", r"\s*(?:<think>|(?=.*?\s</think>))", None),
    (r"^\s*(?:<a>)?(?!.*?</think>)(.*)", r"\s*(?:<a>)?(?!.*?</think>)", None),
]


@pytest.mark.parametrize("pattern, construct, rewrite", TRIMS)
def test_slow_trims_warn_with_the_construct_and_a_linear_form(pattern, construct, rewrite):
    messages = [m for m in trim_warnings(pattern) if f"`{construct}` backtracks polynomially" in m]
    assert len(messages) == 1, trim_warnings(pattern)
    if rewrite is None:
        assert "linear time" not in messages[0]
    else:
        assert f"`{rewrite}` matches the same text in linear time" in messages[0]


@pytest.mark.parametrize(
    "shape",
    [r"\s*(?:<response>)?\s*", r"\s*(?:<response>\s*)?\s*", r"\s*(?:\n)?\s*", r"[ \t]*(?:<response>)?\s*",
     r"\s*(?:<think>|(?=.*?</think>))"],
)
def test_each_shape_warns_at_its_node_and_is_slow_in_re(shape):
    pattern = rf"^{shape}(?:</think>)(.*)"
    schema = {"type": "object", "properties": {"thinking": {"type": "string", "x-regex": pattern}}}
    found = [p for p in validate(schema) if "backtracks polynomially" in p.message]
    assert [p.path for p in found] == ["/properties/thinking/x-regex"], found
    # and re is indeed slow on it: 4x the run takes far more than 4x the time (quadratic: ~16x, linear: 4x)
    import re
    import time

    def seconds(n: int) -> float:
        started = time.perf_counter()
        re.search(pattern, " " * n + "Hello.", re.DOTALL)
        return time.perf_counter() - started

    assert min(seconds(6000) for _ in range(3)) > 6 * min(seconds(1500) for _ in range(3))


def test_trim_warnings_name_the_node():
    schema = {"type": "object", "properties": {"thinking": {"type": "string", "x-regex": r"^\s*(?:<think>)?\s*</think>(.*)"}}}
    assert [p.path for p in validate(schema) if "polynomially" in p.message] == ["/properties/thinking/x-regex"]


@pytest.mark.parametrize(
    "pattern",
    [
        r"<tool_call>\s*((?:.*?\S)??)\s*(?:</tool_call>|$)",  # the group can always reach the end
        r"^\s*(?:<think>\s*)?(?!\s)((?:.*?\S)??)\s*</think>",  # the guard: the loop gives nothing back
        r"^(?:.*?</think>)?\s*(?:<answer>)?\s*((?:.*?\S)??)\s*(?:</answer>|$)",
        r"(\{.*?)\s*",  # nothing after the trim can fail
        r"x\s*(?:<a>)?\s*",
        r"^\s*(?!\s)(?:<think>|(?=.*?</think>))\s*(?!\s)((?:.*?\S)??)\s*(?:</think>|$)",  # anchored lookahead
        r"(\{(?:.*?\S)??)\s*$",
        r"\s*(?:<a>)?[^\s<]*x",  # the loops take different characters
        # ernie45's content regex: a \s*(?:X)?\s* whose rest always succeeds takes the first sharing
        r"^(?:\s*<think>.*?(?:</think>|$)|.*?</think>)?\s*(?:<response>)?\s*((?:.*?\S)??)\s*(?:</response>|<\|im_end\|>|$)",
        r"^\s*(?:<response>\s*)?\s*((?:.*?\S)??)\s*(?:</response>|$)",
        r"^\s*(?=.*)\s*(.*)",  # a lookahead that always passes, before a rest that always succeeds
        r"^\s*(?=\S)(.*)",  # a lookahead that does not scan
    ],
)
def test_linear_trims_do_not_warn(pattern):
    assert trim_warnings(pattern) == []


def test_suggested_trims_match_the_same_text():
    """The suggested form gives the same matches and groups as the slow one, on texts with runs."""
    import itertools
    import re

    texts = ["".join(chars) for size in range(5) for chars in itertools.product([" ", "\t\n", "x", "{", "[", "<think>", "</think>", "<|eot_id|>", "<i>", "</i>", "<response>", "\n"], repeat=size)]
    for pattern, construct, rewrite in TRIMS:
        if rewrite is None:
            continue
        assert construct in pattern
        linear = pattern.replace(construct, rewrite, 1)
        for text in texts:
            ours = [(m.span(), m.groups()) for m in re.finditer(linear, text, re.DOTALL)]
            assert ours == [(m.span(), m.groups()) for m in re.finditer(pattern, text, re.DOTALL)], (pattern, text)
