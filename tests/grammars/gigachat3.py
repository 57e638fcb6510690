"""GigaChat 3: the answer, then at most one call per turn, in its own message after the answer's
<|message_sep|>: `function call<|role_sep|>` + newline + a JSON object {"name", "arguments"}, or
the `<|function_call|>` token before the object (which vLLM also reads); the turn ends with
<|message_sep|>. No reasoning. The call is the turn's last message: text after it is the next
turn's (tests/output_shapes_open.json)."""

from grammars import Call, Grammar, json_text


def call(c: Call, i: int) -> str:
    body = json_text({"name": c.name, "arguments": c.arguments})
    if sum(map(ord, c.name)) % 2:  # both forms, by the name
        return "<|function_call|>" + body
    return "<|message_sep|>\n\nfunction call<|role_sep|>\n" + body


GRAMMAR = Grammar(
    family="gigachat3",
    call=call,
    end="<|message_sep|>",
    max_calls=1,  # one `function call` message per assistant turn
    markers=("function call<|role_sep|>", "<|function_call|>"),
)
