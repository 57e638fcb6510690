"""Xiaomi MiMo: reasoning in <think> … </think> (written by the model, or opened by a prompt that
pre-writes `<think>`), Hermes-style <tool_call> blocks (newline, JSON with `", "` / `": "` spacing,
newline), <|im_end|>."""

from grammars import Call, Grammar, json_text, prompt_of


def call(c: Call, i: int) -> str:
    return "<tool_call>\n" + json_text({"name": c.name, "arguments": c.arguments}) + "\n</tool_call>"


GRAMMAR = Grammar(
    family="mimo",
    call=call,
    end="<|im_end|>",
    think=("<think>\n", "\n</think>"),
    prefill=prompt_of("mimo", "reasoning_prewritten"),
    markers=("<tool_call>", "</tool_call>"),
)
