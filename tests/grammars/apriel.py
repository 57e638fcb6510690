"""Apriel 1.5 / 1.6 Thinker: free-text reasoning opened by `Here are my reasoning steps:` (written by
the model after a 1.5 prompt, pre-written by the 1.6 prompt) and ended by `[BEGIN FINAL RESPONSE]`;
the answer's calls one `<tool_calls>[…]</tool_calls>` JSON list; `[END FINAL RESPONSE]`."""

from grammars import Call, Grammar, json_text, prompt_of


def call(c: Call, i: int) -> str:
    return json_text({"name": c.name, "arguments": c.arguments})


GRAMMAR = Grammar(
    family="apriel",
    call=call,
    end="[END FINAL RESPONSE]",
    think=("Here are my reasoning steps:\n", "\n[BEGIN FINAL RESPONSE]"),
    prefill=prompt_of("apriel", "default"),  # 1.6: ends with `Here are my reasoning steps:` + newline
    prompt=prompt_of("apriel", "reasoning"),  # 1.5: `<|assistant|>` + newline
    section=("<tool_calls>[", "]</tool_calls>"),
    call_gap=", ",
    markers=("<tool_calls>", "</tool_calls>"),
)
