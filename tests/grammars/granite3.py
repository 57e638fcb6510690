"""Granite 3.0–3.3: reasoning in <think> … </think> (3.3; 3.2's `Here is my thought process:` /
`Here is my response:` phrases are covered by the samples), a run of calls written as
`<|tool_call|>` + one JSON array of `{"name": …, "arguments": …}` (3.0 and 3.3; 3.1's `<tool_call>`
and the marker written once per call are covered by the samples), no closing marker,
<|end_of_text|>.

The array has no closing tag: it ends at its `]`, and only a raw line break after it says for
certain that the JSON has ended (`] text` on one line could be inside a string). So a text segment
starts on a line of its own (``text_wrap``), as the format can only write it after a call; and it
cannot start with `,`, `]` or `}`, which after a line break may go on with a JSON array written over
several lines (``check_text``)."""

from grammars import Call, Grammar, Unexpressible, json_text


def call(c: Call, i: int) -> str:
    return json_text({"name": c.name, "arguments": c.arguments})


def check_text(text: str) -> None:
    if text.lstrip()[:1] in (",", "]", "}"):
        raise Unexpressible("a segment after the calls starting with , ] or } may be the array going on")


GRAMMAR = Grammar(
    family="granite3",
    call=call,
    end="<|end_of_text|>",
    think=("<think>", "</think>"),
    section=("<|tool_call|>[", "]"),
    call_gap=", ",
    text_wrap=("\n", ""),
    check_text=check_text,
    markers=("<|tool_call|>", "<tool_call>"),
)
