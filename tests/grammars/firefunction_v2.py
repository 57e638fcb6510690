"""Firefunction v2: text, then ` functools[` and a JSON list of `{"name", "arguments"}` objects, `]`,
`<|eot_id|>`. The list ends the message (llama.cpp's grammar and parser: content, then the calls):
no text follows it (tests/output_shapes_open.json, "decided")."""

from grammars import Call, Grammar, json_text


def call(c: Call, i: int) -> str:
    return json_text({"name": c.name, "arguments": c.arguments})


GRAMMAR = Grammar(
    family="firefunction_v2",
    call=call,
    end="<|eot_id|>",
    section=(" functools[", "]"),
    call_gap=", ",
    markers=(" functools[",),
)
