"""Llama 4 JSON tool calls (vLLM's `llama4_json`): the calls are the whole message, each a bare
`{"name": …, "parameters": …}` object (`"arguments"` also written), back to back, on their own lines
or after `; `, `<|eot|>`. No text stands beside them (tests/output_shapes_open.json, "decided")."""

from grammars import Call, Grammar, json_text


def call(c: Call, i: int) -> str:
    key = "arguments" if i == 2 else "parameters"
    return ("; " if i % 2 else "") + json_text({"name": c.name, key: c.arguments})


GRAMMAR = Grammar(
    family="llama4_json",
    call=call,
    end="<|eot|>",
)
