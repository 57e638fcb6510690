"""SmolLM3: reasoning in <think> … </think> written by the model (think mode; no-think mode
pre-writes an empty block, so there is no prompt that opens it), Hermes-style <tool_call> JSON
blocks (`xml_tools`), <|im_end|>."""

from grammars import Call, Grammar, json_text


def call(c: Call, i: int) -> str:
    return "<tool_call>\n" + json_text({"name": c.name, "arguments": c.arguments}) + "\n</tool_call>"


GRAMMAR = Grammar(
    family="smollm3",
    call=call,
    end="<|im_end|>",
    think=("<think>\n", "\n</think>"),
    markers=("<tool_call>", "</tool_call>"),
)
