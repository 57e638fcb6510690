"""Cohere Command R7B / Command A: reasoning in <|START_THINKING|> … <|END_THINKING|>, text in
<|START_RESPONSE|> … <|END_RESPONSE|> blocks, the calls of a turn one JSON list of
{"tool_call_id", "tool_name", "parameters"} objects in <|START_ACTION|> … <|END_ACTION|>,
<|END_OF_TURN_TOKEN|>."""

from grammars import Call, Grammar, json_text


def call(c: Call, i: int) -> str:
    return "    " + json_text({"tool_call_id": str(i), "tool_name": c.name, "parameters": c.arguments})


GRAMMAR = Grammar(
    family="cohere_command",
    call=call,
    end="<|END_OF_TURN_TOKEN|>",
    think=("<|START_THINKING|>", "<|END_THINKING|>"),
    section=("<|START_ACTION|>[\n", "\n]<|END_ACTION|>"),
    call_gap=",\n",
    text_wrap=("<|START_RESPONSE|>", "<|END_RESPONSE|>"),
    markers=("<|START_ACTION|>", "<|END_ACTION|>"),
)
