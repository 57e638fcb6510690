"""Hunyuan-A13B: reasoning in <think> … </think> written by the model, then the answer in
<answer> … </answer>, its calls one `<tool_calls>[…]</tool_calls>` JSON list inside the answer,
<|eos|>.

The grammar cannot say that `<answer>` opens the visible part of every output: the framework
writes nothing before the first part of a shape without reasoning, so `<answer>` is written with
the reasoning's closer (`</think>` + newline + `<answer>`), and a shape without reasoning starts
straight with its first part (as an output that lost its `<answer>` tag); `</answer>` is written
with the end marker in both."""

from grammars import Call, Grammar, json_text


def call(c: Call, i: int) -> str:
    return json_text({"name": c.name, "arguments": c.arguments})


GRAMMAR = Grammar(
    family="hunyuan",
    call=call,
    end="</answer><|eos|>",
    think=("<think>\n", "\n</think>\n<answer>"),
    section=("<tool_calls>[", "]</tool_calls>"),
    call_gap=", ",
    markers=("<tool_calls>", "</tool_calls>"),
)
