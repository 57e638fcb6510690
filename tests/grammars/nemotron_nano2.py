"""Nemotron Nano 2: reasoning in <think> … </think> (written by the model, or opened by the prompt
with `/think`), every call of a turn one element of a `<TOOLCALL>[…]</TOOLCALL>` JSON list,
<SPECIAL_12>."""

from grammars import Call, Grammar, json_text, prompt_of


def call(c: Call, i: int) -> str:
    return json_text({"name": c.name, "arguments": c.arguments})


GRAMMAR = Grammar(
    family="nemotron_nano2",
    call=call,
    end="<SPECIAL_12>",
    think=("<think>\n", "\n</think>"),
    prefill=prompt_of("nemotron_nano2", "default"),  # ends with `<think>` + newline
    prompt=prompt_of("nemotron_nano2", "reasoning"),  # `/think`, the model writes `<think>` itself
    section=("<TOOLCALL>[", "]</TOOLCALL>"),
    call_gap=", ",
    markers=("<TOOLCALL>", "</TOOLCALL>"),
)
