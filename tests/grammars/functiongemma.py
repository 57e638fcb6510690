"""FunctionGemma: no reasoning, each call as <start_function_call>call:NAME{…}<end_function_call>
in Gemma's call dialect with <escape> around strings (keys bare, everything else JSON), calls back
to back, <end_of_turn>."""

from grammars import Call, Grammar
from grammars.gemma4 import value


def call(c: Call, i: int) -> str:
    return "<start_function_call>call:" + c.name + value(c.arguments, "<escape>") + "<end_function_call>"


GRAMMAR = Grammar(
    family="functiongemma",
    call=call,
    end="<end_of_turn>",
    markers=("<start_function_call>", "<end_function_call>"),
)
