"""LFM2 / LFM2.5 with the default chat template: reasoning in <think> … </think> written by the
model, a run of calls as one Python list of keyword calls between <|tool_call_start|> and
<|tool_call_end|>, text before, between and after the blocks, <|im_end|>."""

from grammars import Call, Grammar
from grammars._python_call_list import python_call


def call(c: Call, i: int) -> str:
    return python_call(c)


GRAMMAR = Grammar(
    family="lfm2_pythonic",
    call=call,
    end="<|im_end|>",
    think=("<think>\n", "\n</think>"),
    section=("<|tool_call_start|>[", "]<|tool_call_end|>"),
    call_gap=", ",
    markers=("<|tool_call_start|>", "<|tool_call_end|>"),
)
