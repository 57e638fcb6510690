"""The shape property's parts: drawing outputs from a family's grammar (tests/grammars/), and the
oracle that says what a parse of one got wrong (tests/test_output_shapes.py runs them).

The oracle, for an output of ``render(grammar, shape)`` and the message a parser gave for it:

- a parse that fails is never silently wrong; on a whole output written with the family's own
  parts and no marker named in its text, it is a finding all the same (``raises``): the format
  can write that output, so its parser should read it;
- every call comes back whole (name and arguments, value for value and type for type), in order;
  none is invented or changed (``call``);
- on a whole output, the message is exactly the one that gives back every word: ``content`` is
  every text segment trimmed and joined by the join rule, the reasoning field the reasoning
  trimmed (``join``, ``moved``, ``lost``, ``reasoning``);
- on an output cut after a token, or one whose text names the family's markers, every word
  written (a segment or the reasoning, whole or cut) is still in the message's text, and every
  call written whole comes back; a call cut short comes back whole, or its name stays in the
  text, or the cut came before its name.
"""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import strategies as st

from grammars import SEP, Call, Grammar, Rendered, Shape, Text, render
from oracle import same

# What a drawn shape may hold; the open list (tests/output_shapes_open.json) turns features off
# for one family and format, each with the shrunk output that still goes wrong.
FEATURES = (
    "reasoning", "prefill", "text_before", "text_between", "text_after", "text_in_section",
    "several_calls", "markdown", "fences", "braces", "unicode", "markers", "cut",
)

WORDS = ("Let", "me", "check", "the", "weather", "first.", "And", "time", "as", "well.", "Done:",
         "results", "are", "in", "I'll", "look", "up", "both", "it", "is", "42", "here", "a", "list")
MARKDOWN = ("**bold**", "# Heading", "\n- item one\n- item two\n", "1. first", "> quoted", "`code`", "_em_")
FENCES = ("```python\nprint('hi')\n```", "```\nplain block\n```", '```json\n{"a": 1}\n```')
# JSON-looking text that is no call in any family (a ``{"name": …, "arguments": …}`` object is a
# call in several, so it is not prose the property could hold them to)
BRACES = ('{"key": "x", "list": []}', "{a: 1}", "[1, 2]", "}", "{", '"quoted"')
UNICODE = ("café", "東京", "🙂", "Ω≈ç", "naïve", "—", "Zürich", "مرحبا")
NAMES = ("get_weather", "get_time", "search", "convert_units", "read_file", "run_query", "now", "send_email")
KEYS = ("city", "query", "max_results", "options", "path", "tz", "value", "units", "tags", "flag")


def text_pieces(grammar: Grammar, off: frozenset[str]) -> st.SearchStrategy[str]:
    pools = [st.sampled_from(WORDS)]
    if "markdown" not in off:
        pools.append(st.sampled_from(MARKDOWN))
    if "fences" not in off:
        pools.append(st.sampled_from(FENCES))
    if "braces" not in off:
        pools.append(st.sampled_from(BRACES))
    if "unicode" not in off:
        pools.append(st.sampled_from(UNICODE))
    return st.one_of(*pools)


@st.composite
def segment(draw, grammar: Grammar, off: frozenset[str], markers: bool = False) -> str:
    pieces = draw(st.lists(text_pieces(grammar, off), min_size=1, max_size=6))
    if markers and grammar.markers:
        marker = draw(st.sampled_from(grammar.markers))
        pieces.insert(draw(st.integers(0, len(pieces))), marker)
    text = pieces[0]
    for piece in pieces[1:]:
        text += draw(st.sampled_from((" ", " ", "\n"))) + piece
    lead = draw(st.sampled_from(("", "", " ", "\n")))
    trail = draw(st.sampled_from(("", "", " ", "\n")))
    return lead + text + trail


json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-10**6, 10**6),
    st.floats(allow_nan=False, allow_infinity=False, width=64).filter(lambda f: abs(f) < 1e15),
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=12),
    st.sampled_from(("Paris", "Europe/Paris", "a <b> tag", 'say "hi"', "back\\slash", "line\nbreak", "  padded ", "", "42", "true")),
)
json_values = st.recursive(
    json_scalars,
    lambda children: st.one_of(st.lists(children, max_size=3),
                               st.dictionaries(st.sampled_from(KEYS), children, max_size=3)),
    max_leaves=6,
)
arguments = st.dictionaries(st.sampled_from(KEYS), json_values, max_size=3)
calls = st.builds(Call, st.sampled_from(NAMES), arguments)


@st.composite
def shapes(draw, grammar: Grammar, off: frozenset[str]) -> Shape:
    """A shape the grammar's family can write, with no feature of ``off``."""
    reasoning = None
    prefilled = False
    if grammar.think is not None and "reasoning" not in off and draw(st.booleans()):
        reasoning = draw(segment(grammar, off))
        prefilled = grammar.prefill is not None and "prefill" not in off and draw(st.booleans())
    most = 1 if "several_calls" in off else grammar.max_calls
    n = draw(st.integers(0, most))
    marked = "markers" not in off and bool(grammar.markers) and draw(st.integers(0, 3)) == 0
    items: list[Text | Call] = []

    def text(where: str, in_section: bool = False) -> None:
        if where not in off and draw(st.booleans()):
            items.append(Text(draw(segment(grammar, off, markers=marked and draw(st.booleans()))), in_section))

    if n == 0:
        items.append(Text(draw(segment(grammar, off, markers=marked))))
    else:
        if not grammar.calls_first:
            text("text_before")
        for i in range(n):
            items.append(draw(calls))
            if i < n - 1:
                inside = grammar.text_in_section and "text_in_section" not in off and draw(st.booleans())
                text("text_in_section" if inside else "text_between", inside)
        text("text_after")
    gaps = tuple(draw(st.sampled_from(grammar.gaps)) for _ in range(len(items) + 1 + (reasoning is not None)))
    return Shape(reasoning, prefilled, tuple(items), gaps)


def features_of(shape: Shape, grammar: Grammar, cut: int | None = None) -> set[str]:
    """The features a shape uses (FEATURES), for the open list and the failure message."""
    found = set()
    if shape.reasoning is not None:
        found.add("prefill" if shape.prefilled else "reasoning")
    items = shape.items
    call_at = [i for i, item in enumerate(items) if isinstance(item, Call)]
    if len(call_at) > 1:
        found.add("several_calls")
    for i, item in enumerate(items):
        if isinstance(item, Call):
            continue
        if call_at:
            if i < call_at[0]:
                found.add("text_before")
            elif i > call_at[-1]:
                found.add("text_after")
            else:
                found.add("text_in_section" if item.in_section else "text_between")
        text = item.text
        if any(m in text for m in grammar.markers):
            found.add("markers")
        for feature, pool in (("markdown", MARKDOWN), ("fences", FENCES), ("braces", BRACES), ("unicode", UNICODE)):
            if any(p in text for p in pool):
                found.add(feature)
    if shape.reasoning is not None:
        for feature, pool in (("markdown", MARKDOWN), ("fences", FENCES), ("braces", BRACES), ("unicode", UNICODE)):
            if any(p in shape.reasoning for p in pool):
                found.add(feature)
    if cut is not None:
        found.add("cut")
    return found


def shape_json(shape: Shape, cut: int | None = None) -> dict:
    items = [{"text": i.text, **({"in_section": True} if i.in_section else {})} if isinstance(i, Text)
             else {"call": i.name, "arguments": i.arguments} for i in shape.items]
    out = {"reasoning": shape.reasoning, "prefilled": shape.prefilled, "items": items, "gaps": list(shape.gaps)}
    if cut is not None:
        out["cut"] = cut
    return out


def shape_from_json(data: dict) -> tuple[Shape, int | None]:
    items = tuple(Text(i["text"], i.get("in_section", False)) if "text" in i else Call(i["call"], i["arguments"])
                  for i in data["items"])
    return Shape(data["reasoning"], data["prefilled"], items, tuple(data["gaps"])), data.get("cut")


# ----- the oracle ------------------------------------------------------------------------------

# A special token (``<|im_end|>``, ``<｜tool▁sep｜>``) is one token: a generation never stops inside one.
SPECIAL = r"<\|[^<>|\s]*\|>|<｜[^<>｜\s]*｜>"
TOKEN = re.compile(SPECIAL + r"|\w+|\s+|[^\w\s]")


def cuts(output: str, grammar: Grammar | None = None) -> list[int]:
    """Every place a generation can stop after a token: after each word, run of spaces, mark, or
    special token (the family's markers and end marker are single tokens too)."""
    whole = [re.escape(m) for m in (*(grammar.markers if grammar else ()), *((grammar.end,) if grammar and grammar.end else ()))]
    pattern = re.compile("|".join([*sorted(whole, key=len, reverse=True), TOKEN.pattern])) if whole else TOKEN
    return [m.end() for m in pattern.finditer(output) if m.end() < len(output)]


def _calls(message: Any) -> list[tuple[Any, Any]]:
    out = []
    for call in (message.get("tool_calls") or []) if isinstance(message, dict) else []:
        function = call.get("function") if isinstance(call, dict) else None
        function = function if isinstance(function, dict) else {}
        out.append((function.get("name"), function.get("arguments")))
    return out


def _text(message: Any, key: str) -> str:
    value = message.get(key) if isinstance(message, dict) else None
    return value if isinstance(value, str) else ""


def _in_order(pieces: list[str], text: str) -> bool:
    at = 0
    for piece in pieces:
        found = text.find(piece, at)
        if found < 0:
            return False
        at = found + len(piece)
    return True


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 160 else text[:157] + "..."


def findings(grammar: Grammar, rendered: Rendered, got: Any, raised: bool, cut: int | None, marked: bool) -> list[str]:
    """What the parse ``got`` (None and ``raised`` when it failed) gets wrong (the module docstring)."""
    whole = cut is None and not marked
    if raised:
        return ["raises: a whole output in the family's own parts does not parse"] if whole else []
    written = [(c.name, c.arguments) for c in rendered.calls]
    given = _calls(got)
    out: list[str] = []
    thinking_key = grammar.reasoning_field
    content, thinking = _text(got, "content"), _text(got, thinking_key)
    visible = thinking + SEP + content
    if whole:
        if not (len(given) == len(written) and all(same(list(g), list(w)) for g, w in zip(given, written))):
            out.append(f"call: gave {_short(given)}, the output wrote {_short(written)}")
        want = rendered.content or ""
        if content != want:
            if _in_order(rendered.texts, content):
                kind = "join"
            elif all(t in visible for t in rendered.texts):
                kind = "moved"
            else:
                kind = "lost"
            out.append(f"{kind}: content {_short(content)}, every segment joined is {_short(want)}")
        if (thinking or None) != rendered.thinking:
            kind = "moved" if rendered.thinking and rendered.thinking in content else "reasoning"
            out.append(f"{kind}: {thinking_key} {_short(thinking)}, the reasoning is {_short(rendered.thinking)}")
        return out
    # a cut output, or one naming the markers: nothing silently lost, nothing invented
    for g in given:
        if not any(same(list(g), list(w)) for w in written):
            out.append(f"call: gave {_short(list(g))}, not a call the output wrote whole")
    end = len(rendered.output) if cut is None else cut
    pieces = []
    for kind, start, stop, index in rendered.parts:
        if start >= end:
            break
        if kind == "call":
            call = rendered.calls[index]
            back = any(same(list(g), [call.name, call.arguments]) for g in given)
            if stop <= end and not back:
                out.append(f"call: {call.name!r}, written whole, is not given back")
            elif not back:
                name_at = rendered.output.find(call.name, start, end)
                if name_at >= 0 and name_at + len(call.name) <= end and call.name not in visible:
                    out.append(f"lost: the cut call {call.name!r} is neither given back nor left in the text")
            continue
        piece = rendered.output[start:min(stop, end)].strip()
        if piece:
            pieces.append(piece)
    missing = [p for p in pieces if not _words_in(p, visible)]
    if missing:
        out.append(f"lost: {_short(missing[0])} is not in the message's text {_short(visible)}")
    return out


def _words_in(piece: str, visible: str) -> bool:
    """Each word of ``piece`` is in ``visible``, in order (a piece written in a channel message or
    with a marker is compared by its words, which the parser may not keep byte for byte)."""
    if piece in visible:
        return True
    words = piece.split()
    return bool(words) and _in_order(words, visible)
