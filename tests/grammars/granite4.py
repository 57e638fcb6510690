"""Granite 4.0: no reasoning, Hermes-style <tool_call> JSON blocks (newline, `{"name": …,
"arguments": …}`, newline), text before, between and after them, <|end_of_text|>."""

from grammars import Call, Grammar, json_text


def call(c: Call, i: int) -> str:
    return "<tool_call>\n" + json_text({"name": c.name, "arguments": c.arguments}) + "\n</tool_call>"


GRAMMAR = Grammar(
    family="granite4",
    call=call,
    end="<|end_of_text|>",
    markers=("<tool_call>", "</tool_call>"),
)
