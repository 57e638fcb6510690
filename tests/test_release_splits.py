"""Every release the workbench claims, against the release itself: the changes before 5.23 (tools=
in 5.15, join and dotted placeholders in 5.16, oneOf and whole array arguments in 5.18, "3.0" to an
integer in 5.20, fresh defaults in 5.21), each run in one real release of every range that behaves
alike (5.14.1 for 5.13–5.14, 5.15.0, 5.16.0, 5.18.0, 5.20.0, 5.23.0, 5.24.0) and by the workbench
with ``runtime=`` that release. The 5.24 changes and everything else are compared with 5.23.0 and
5.24.0 in test_template_generated.py and test_template_engine.py.

The releases run in environments built once with workbench/runtimes.py (the ones ``export --verify``
uses; under .oracles/runtimes in tests). Each case is parsed ``repeat`` times with the same
template dict, as a tokenizer holding it would: before 5.21 a list default carries over."""

from __future__ import annotations

import json
import subprocess

import pytest

from workbench.engine.template import load_template, parse_response
from workbench.jobs.runtimes import runtime_python

RELEASES = ("5.14.1", "5.15.0", "5.16.0", "5.18.0", "5.20.0", "5.23.0", "5.24.0")

RUNNER = r"""
import json, sys
from transformers.utils.chat_parsing import parse_response
out = []
for case in json.load(sys.stdin):
    results = []
    for _ in range(case["repeat"]):
        try:
            if case["tools"] is None:
                value = parse_response(case["text"], case["template"], prefix=case["prefix"])
            else:
                value = parse_response(case["text"], case["template"], prefix=case["prefix"], tools=case["tools"])
            results.append({"value": json.loads(json.dumps(value))})
        except Exception as exc:
            results.append({"error": [type(exc).__name__, str(exc)]})
    out.append(results)
json.dump(out, sys.stdout)
"""


def tool(properties: dict) -> list:
    return [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": properties}}}]


def call_template(**content_args) -> dict:
    """A template whose one call field parses <arg> tags into the arguments of a call to f."""
    return {"start_anchor": "@", "fields": {
        "call": {"open": "<call>", "close": "</call>", "content": "xml-inline",
                 "content_args": {"tag_pattern": r"<(?P<key>\w+)>(?P<value>.*?)</(?P=key)>", **content_args},
                 "transform": {"function": {"name": "f", "arguments": "{content}"}}},
        "content": {}}}


# id -> (template, text, prefix, tools, repeat)
CASES = {
    "join": ({"start_anchor": "@", "fields": {"c": {"open": "<c>", "close": "</c>", "repeats": True, "join": "+"}}},
             "<c>a</c><c>b</c>", "", None, 1),
    "join-not-a-string": ({"start_anchor": "@", "fields": {"c": {"open": "<c>", "close": "</c>", "repeats": True,
                                                                  "join": "+", "content": "int"}}}, "<c>1</c>", "", None, 1),
    "dotted-placeholder": ({"start_anchor": "@", "fields": {"t": {"open": "<t>", "close": "</t>", "content": "json",
                                                                  "transform": {"name": "{content.name}"}}}},
                           '<t>{"name": "f"}</t>', "", None, 1),
    "dotted-mixed-with-text": ({"start_anchor": "@", "fields": {"t": {"open": "<t>", "transform": "x{content.name}"}}},
                               "<t>a", "", None, 1),
    "dotted-missing-key": ({"start_anchor": "@", "fields": {"t": {"open": "<t>", "content": "json",
                                                                  "transform": "{content.nope}"}}}, '<t>{"a": 1}', "", None, 1),
    "tools-integer": (call_template(), "<call><days>3</days><city>Paris</city></call>", "", tool(
        {"days": {"type": "integer"}, "city": {"type": "string"}}), 1),
    "tools-any-of": (call_template(), "<call><days>3</days></call>", "", tool(
        {"days": {"anyOf": [{"type": "integer"}, {"type": "null"}]}}), 1),
    "tools-one-of": (call_template(), "<call><days>3</days></call>", "", tool({"days": {"oneOf": [{"type": "integer"}]}}), 1),
    "tools-array-list": (call_template(merge_duplicates=True), "<call><n>1</n><n>2</n></call>", "", tool(
        {"n": {"type": ["array", "integer"]}}), 1),
    "tools-whole-float": (call_template(), "<call><days>3.0</days></call>", "", tool({"days": {"type": "integer"}}), 1),
    "tools-nullable": (call_template(), "<call><days>None</days></call>", "", tool(
        {"days": {"type": "integer", "nullable": True}}), 1),
    "list-default-over-parses": ({"start_anchor": "@", "defaults": {"calls": []}, "fields": {
        "calls": {"open": "<c>", "close": "</c>", "repeats": True}, "content": {}}}, "<c>x</c>hi", "", None, 3),
    "dict-default-over-parses": ({"start_anchor": "@", "defaults": {"meta": {"k": 1}}, "fields": {
        "meta": {"open": "<m>", "close": "</m>", "content": "json"}, "content": {}}}, '<m>{"a": 1}</m>hi', "", None, 2),
}


@pytest.fixture(scope="module")
def theirs() -> dict:
    """Each release's outcomes on every case, one process per release."""
    request = json.dumps([{"template": t, "text": x, "prefix": p, "tools": tools, "repeat": r}
                          for t, x, p, tools, r in CASES.values()])
    answers = {}
    for release in RELEASES:
        python = runtime_python(release)
        done = subprocess.run([str(python), "-I", "-c", RUNNER], input=request, capture_output=True, text=True,
                              timeout=300, env={"TRANSFORMERS_VERBOSITY": "error", "HF_HUB_OFFLINE": "1"})
        assert done.returncode == 0, done.stderr[-2000:]
        answers[release] = dict(zip(CASES, json.loads(done.stdout)))
    return answers


def ours(case: str, release: str) -> list:
    template, text, prefix, tools, repeat = CASES[case]
    results = []
    try:
        loaded = load_template(template, release)  # one template, held as a tokenizer holds it
    except Exception as exc:  # noqa: BLE001 - the runtime's load error is the outcome
        return [{"error": [type(exc).__name__, str(exc)]}] * repeat
    for _ in range(repeat):
        try:
            if tools is None:
                value = parse_response(text, loaded, prefix=prefix)
            else:
                value = parse_response(text, loaded, prefix=prefix, tools=tools)
            results.append({"value": json.loads(json.dumps(value))})
        except Exception as exc:  # noqa: BLE001 - the runtime's error is the outcome
            results.append({"error": [type(exc).__name__, str(exc)]})
    return results


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("case", list(CASES))
def test_the_workbench_gives_what_each_release_gives(theirs, case, release):
    assert ours(case, release) == theirs[release][case]


@pytest.mark.parametrize(("case", "first", "last"), [
    ("join", "5.15.0", "5.16.0"),
    ("dotted-placeholder", "5.15.0", "5.16.0"),
    ("tools-integer", "5.14.1", "5.15.0"),
    ("tools-one-of", "5.16.0", "5.18.0"),
    ("tools-array-list", "5.16.0", "5.18.0"),
    ("tools-whole-float", "5.18.0", "5.20.0"),
    ("list-default-over-parses", "5.20.0", "5.23.0"),
])
def test_each_change_is_seen_where_the_table_puts_it(theirs, case, first, last):
    """The cases above do tell the releases apart, at the release the table names."""
    assert theirs[first][case] != theirs[last][case]
    floor = RELEASES.index("5.15.0") if case.startswith("tools") else 0  # tools= is a TypeError before 5.15
    before = RELEASES[floor : RELEASES.index(first) + 1]
    after = RELEASES[RELEASES.index(last):]
    assert all(theirs[r][case] == theirs[first][case] for r in before)
    assert all(theirs[r][case] == theirs[last][case] for r in after)
