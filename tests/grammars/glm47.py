"""GLM-4.7 (and GLM-5.x, Poolside Laguna): GLM-4.5's format (tests/grammars/glm45.py) with the
name glued to the first <arg_key> and nothing between the pairs; reasoning written by the model,
or opened by a prompt that pre-writes `<think>`."""

from grammars import Call, Grammar, prompt_of
from grammars.glm45 import MARKERS, value


def call(c: Call, i: int) -> str:
    pairs = "".join(f"<arg_key>{k}</arg_key><arg_value>{value(v)}</arg_value>" for k, v in c.arguments.items())
    return f"<tool_call>{c.name}{pairs}</tool_call>"


GRAMMAR = Grammar(
    family="glm47",
    call=call,
    end="<|user|>",
    think=("<think>", "</think>"),
    prefill=prompt_of("glm47", "reasoning_prewritten"),  # ends with `<think>`
    markers=MARKERS,
)
