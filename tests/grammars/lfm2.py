"""LFM2 / LFM2.5 in JSON-tools mode: reasoning in <think> … </think> written by the model (LFM2.5
Thinking), a run of calls as one JSON array of {"name", "arguments"} objects between
<|tool_call_start|> and <|tool_call_end|>, text before, between and after the blocks, <|im_end|>."""

from grammars import Call, Grammar, json_text


def call(c: Call, i: int) -> str:
    return json_text({"name": c.name, "arguments": c.arguments})


GRAMMAR = Grammar(
    family="lfm2",
    call=call,
    end="<|im_end|>",
    think=("<think>\n", "\n</think>"),
    section=("<|tool_call_start|>[", "]<|tool_call_end|>"),
    call_gap=", ",
    markers=("<|tool_call_start|>", "<|tool_call_end|>"),
)
