"""Every word the model wrote comes back, as a property over the outputs each family's grammar
can write (issue 32): for every shipped family, in both formats, outputs built from its own parts
(tests/grammars/) — optional reasoning (written, or opened by the prompt), text segments and 1–3
calls in every interleaving, text holding markdown, code fences, JSON-looking braces, unicode and
the family's own call markers, arguments of every JSON type, and a cut after every token — parse
to the message that gives back every word, or fail (tests/output_shapes.py says exactly how).

Seeded and with a fixed budget: ``WORKBENCH_SHAPES`` examples per family and format (default 20;
``WORKBENCH_SHAPES=500`` for a deeper search), a quarter of them checked at every cut. A failure
shrinks to a minimal output, printed as the JSON the open list holds.

The open list (tests/output_shapes_open.json) turns a feature off for one family and format, with
the shrunk output that still goes wrong: "open" for a defect not fixed yet, "decided" for what the
format cannot say, with the reason the family's row in schemas/README.md gives too. Each entry
must still go wrong, so a fix shows up until its entry goes.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, reject, settings

from grammars import Call, Shape, Text, Unexpressible, grammars, render
from output_shapes import FEATURES, cuts, features_of, findings, shape_from_json, shape_json, shapes
from workbench.formats import FORMATS

ROOT = Path(__file__).resolve().parent.parent
GRAMMARS = grammars()
BUDGET = int(os.environ.get("WORKBENCH_SHAPES", "20"))
OPEN_FILE = Path(__file__).parent / "output_shapes_open.json"
LISTS = json.loads(OPEN_FILE.read_text(encoding="utf-8"))
ENTRIES = {**LISTS["open"], **{k: v for k, v in LISTS["decided"].items()}}

CASES = [(family, fmt) for family in sorted(GRAMMARS) for fmt in FORMATS
         if (ROOT / "schemas" / f"{family}{fmt.suffix}").is_file()]


def _parser(family: str, fmt) -> dict:
    return json.loads((ROOT / "schemas" / f"{family}{fmt.suffix}").read_text(encoding="utf-8"))


def _parse(fmt, parser: dict, text: str, prompt: str):
    try:
        return fmt.parse(parser, text, prompt), False
    except Exception as exc:  # noqa: BLE001 - the parser's own failure on this output; anything else is a bug
        if fmt.failure(exc) is None:
            raise
        return None, True


def _key(family: str, fmt) -> str:
    return f"{family} {fmt}"


def check(family: str, fmt, shape, cut_every: bool) -> list[str]:
    """The findings on ``shape`` (whole, then at every cut when ``cut_every``), with the shape's
    JSON and features, or [] when every word comes back."""
    grammar = GRAMMARS[family]
    parser = _parser(family, fmt)
    rendered = render(grammar, shape)
    marked = "markers" in features_of(shape, grammar)
    got, raised = _parse(fmt, parser, rendered.output, rendered.prompt)
    found = findings(grammar, rendered, got, raised, None, marked)
    cut = None
    if not found and cut_every:
        for cut in cuts(rendered.output, grammar):
            got, raised = _parse(fmt, parser, rendered.output[:cut], rendered.prompt)
            found = findings(grammar, rendered, got, raised, cut, marked)
            if found:
                break
    if not found:
        return []
    return [*found, f"features: {sorted(features_of(shape, grammar, cut if found and cut_every else None))}",
            f"output: {json.dumps(rendered.output[:cut] if cut_every and cut else rendered.output, ensure_ascii=False)}",
            f"shape: {json.dumps(shape_json(shape, cut if cut_every else None), ensure_ascii=False)}"]


def _property(family: str, fmt, examples: int, cut_every: bool):
    off = frozenset(ENTRIES.get(_key(family, fmt), {}))
    if cut_every and "cut" in off:
        pytest.skip("cuts are in the open list for this family and format")

    @settings(max_examples=examples, derandomize=True, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(shapes(GRAMMARS[family], off))
    def every_word_comes_back(shape):
        try:
            found = check(family, fmt, shape, cut_every)
        except Unexpressible:
            reject()
        assert not found, "\n".join(found)

    every_word_comes_back()


@pytest.mark.parametrize("family, fmt", CASES, ids=lambda x: str(x))
def test_every_word_comes_back(family, fmt):
    _property(family, fmt, BUDGET, cut_every=False)


@pytest.mark.parametrize("family, fmt", CASES, ids=lambda x: str(x))
def test_every_word_comes_back_when_cut(family, fmt):
    _property(family, fmt, max(1, BUDGET // 4), cut_every=True)


def test_every_shipped_family_has_a_grammar():
    families = {p.name.split(".")[0] for p in (ROOT / "schemas").glob("*.json")}
    assert sorted(families - set(GRAMMARS)) == []


@pytest.mark.parametrize("key, feature", [(k, f) for k, v in sorted(ENTRIES.items()) for f in sorted(v)])
def test_each_entry_of_the_open_list_still_goes_wrong(key, feature):
    family, fmt_name = key.split(" ")
    fmt = next(f for f in FORMATS if str(f) == fmt_name)
    entry = ENTRIES[key][feature]
    assert feature in FEATURES
    assert entry.get("reason") or key in LISTS["open"], "a decided entry says why"
    shape, cut = shape_from_json(entry["example"])
    rendered = render(GRAMMARS[family], shape)
    grammar = GRAMMARS[family]
    assert feature in features_of(shape, grammar, cut)
    marked = "markers" in features_of(shape, grammar)
    text = rendered.output if cut is None else rendered.output[:cut]
    got, raised = _parse(fmt, _parser(family, fmt), text, rendered.prompt)
    assert findings(grammar, rendered, got, raised, cut, marked), f"no longer goes wrong: remove {feature!r} of {key!r} from {OPEN_FILE.name}"


# ----- a sentence after each call, in every family -------------------------------------------------

WEATHER = Call("get_weather", {"city": "Paris"})
TIME = Call("get_time", {"tz": "Europe/Paris"})


def sentence_shapes(grammar) -> list[tuple[str, Shape]]:
    """(name, shape): a sentence before the calls and one after each of two calls, with and without
    reasoning; where the format has a call section, the second sentence inside it."""
    before = () if grammar.calls_first else (Text("Let me check the weather first."),)
    items = (*before, WEATHER, Text("And the time as well."), TIME, Text("Both are in."))
    out = [("after_each_call", Shape(None, False, items, ("",) + ("\n",) * len(items)))]
    if grammar.think is not None:
        out.append(("with_reasoning", Shape("Two lookups.", False, items, ("\n\n",) + ("\n",) * len(items) + ("",))))
    if grammar.text_in_section:
        inside = (*before, WEATHER, Text("And the time as well.", in_section=True), TIME, Text("Both are in."))
        out.append(("inside_the_section", Shape(None, False, inside, ("",) + ("\n",) * len(inside))))
    return out


SENTENCE_CASES = [(family, fmt, name, shape) for family, fmt in CASES
                  for name, shape in sentence_shapes(GRAMMARS[family])]


@pytest.mark.parametrize("family, fmt, name, shape", SENTENCE_CASES,
                         ids=[f"{f}-{fmt}-{n}" for f, fmt, n, _ in SENTENCE_CASES])
def test_a_sentence_after_each_call_comes_back(family, fmt, name, shape):
    """The issue's shape in every family: text, call, text, call, text (and the reasoning before);
    both formats give every sentence, joined by the join rule, and both calls."""
    off = set(ENTRIES.get(_key(family, fmt), {})) & features_of(shape, GRAMMARS[family])
    if off:
        pytest.skip(f"{sorted(off)} in the open list: {OPEN_FILE.name}")
    assert check(family, fmt, shape, cut_every=False) == []


ISSUE_EXAMPLE = """<think>
Two lookups.
</think>

Let me check the weather first.
<tool_call>
{"name": "get_weather", "arguments": {"city": "Paris"}}
</tool_call>
And the time as well.
<tool_call>
{"name": "get_time", "arguments": {"tz": "Europe/Paris"}}
</tool_call>
"""


@pytest.mark.parametrize("fmt", FORMATS, ids=str)
def test_the_two_sentences_of_issue_32_both_come_back(fmt):
    message = fmt.parse(_parser("qwen3", fmt), ISSUE_EXAMPLE, GRAMMARS["qwen3"].prompt)
    assert message["thinking"] == "Two lookups."
    assert message["content"] == "Let me check the weather first.\n\nAnd the time as well."
    assert [c["function"]["name"] for c in message["tool_calls"]] == ["get_weather", "get_time"]
