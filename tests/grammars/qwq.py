"""QwQ-32B: reasoning pre-written by the prompt (`<think>` + newline, so only `</think>` is in the
output; a `<think>` the model writes itself is read too), Hermes-style <tool_call> JSON blocks,
<|im_end|>."""

from grammars import Call, Grammar, json_text, prompt_of


def call(c: Call, i: int) -> str:
    return "<tool_call>\n" + json_text({"name": c.name, "arguments": c.arguments}) + "\n</tool_call>"


GRAMMAR = Grammar(
    family="qwq",
    call=call,
    end="<|im_end|>",
    think=("<think>\n", "\n</think>"),
    # the family's default prompt ends with the pre-written `<think>`; reasoning.prompt.txt does not
    prefill=prompt_of("qwq", "default"),
    prompt=prompt_of("qwq", "reasoning"),
    markers=("<tool_call>", "</tool_call>"),
)
