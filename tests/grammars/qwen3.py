"""Qwen3: reasoning in <think> … </think> (written by the model, or opened by the prompt of
2507-Thinking), Hermes-style <tool_call> JSON blocks, <|im_end|>."""

from grammars import Call, Grammar, json_text, prompt_of


def call(c: Call, i: int) -> str:
    return "<tool_call>\n" + json_text({"name": c.name, "arguments": c.arguments}) + "\n</tool_call>"


GRAMMAR = Grammar(
    family="qwen3",
    call=call,
    end="<|im_end|>",
    think=("<think>\n", "\n</think>"),
    prefill=prompt_of("qwen3", "reasoning_prewritten"),
    markers=("<tool_call>", "</tool_call>"),
)
