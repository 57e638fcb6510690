"""Llama 4 with the pythonic tool-calling template: a reply with calls is nothing but one Python
list of keyword calls (written bare here, as most of the family's samples write it; the
<|python_start|> … <|python_end|> wrapper the model sometimes adds is read too), a plain answer is
text; the turn ends with <|eot|>."""

from grammars import Call, Grammar
from grammars._python_call_list import python_call


def call(c: Call, i: int) -> str:
    return python_call(c)


GRAMMAR = Grammar(
    family="llama4_pythonic",
    call=call,
    end="<|eot|>",
    section=("[", "]"),
    call_gap=", ",
    calls_first=True,
    markers=("<|python_start|>", "<|python_end|>"),
)
