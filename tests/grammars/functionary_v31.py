"""Functionary v3.1 (Llama 3.1): text and `<function=NAME>{json}</function>` blocks in any order,
`<|eot_id|>`."""

from grammars import Call, Grammar, json_text


def call(c: Call, i: int) -> str:
    return "<function=" + c.name + ">" + json_text(c.arguments) + "</function>"


GRAMMAR = Grammar(
    family="functionary_v31",
    call=call,
    end="<|eot_id|>",
    markers=("<function=", "</function>"),
)
