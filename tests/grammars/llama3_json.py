"""Llama 3.1 / 3.3 JSON tool calls: the calls are the whole message, each a bare
`{"name": …, "parameters": …}` object (`"arguments"` also written), several back to back, on their
own lines or after `; ` (the chat template's separator), `<|eot_id|>`. No text stands beside them
(tests/output_shapes_open.json, "decided")."""

from grammars import Call, Grammar, json_text


def call(c: Call, i: int) -> str:
    key = "arguments" if i == 2 else "parameters"
    return ("; " if i % 2 else "") + json_text({"name": c.name, key: c.arguments})


GRAMMAR = Grammar(
    family="llama3_json",
    call=call,
    end="<|eot_id|>",
    markers=("<|python_tag|>",),
)
