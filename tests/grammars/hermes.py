"""Hermes 2 Pro / 3: <tool_call> JSON blocks, text before and between them, <|im_end|>."""

from grammars import Call, Grammar, json_text


def call(c: Call, i: int) -> str:
    return "<tool_call>\n" + json_text({"name": c.name, "arguments": c.arguments}) + "\n</tool_call>"


GRAMMAR = Grammar(
    family="hermes",
    call=call,
    end="<|im_end|>",
    markers=("<tool_call>", "</tool_call>"),
)
