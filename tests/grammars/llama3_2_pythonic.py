"""Llama 3.2 with the pythonic tool-calling template: a reply with calls is nothing but one Python
list of keyword calls (the system prompt asks for it; vLLM reads a list only at the start of the
reply), a plain answer is text; the turn ends with <|eot_id|>."""

from grammars import Call, Grammar
from grammars._python_call_list import python_call


def call(c: Call, i: int) -> str:
    return python_call(c)


GRAMMAR = Grammar(
    family="llama3_2_pythonic",
    call=call,
    end="<|eot_id|>",
    section=("[", "]"),
    call_gap=", ",
    calls_first=True,
)
