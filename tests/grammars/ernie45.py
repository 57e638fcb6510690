"""ERNIE-4.5 Thinking: reasoning up to </think> (the family's prompt pre-writes `<think>` and a
newline; after a prompt that pre-writes nothing the model writes it), then the answer, and
Hermes-style <tool_call> JSON blocks; <|im_end|>. The answer may come wrapped in
<response> … </response>; the segments here are written bare, as the samples with calls write
them."""

from grammars import Call, Grammar, json_text, prompt_of


def call(c: Call, i: int) -> str:
    return "<tool_call>\n" + json_text({"name": c.name, "arguments": c.arguments}) + "\n</tool_call>"


GRAMMAR = Grammar(
    family="ernie45",
    call=call,
    end="<|im_end|>",
    think=("<think>\n", "\n</think>"),
    prefill=prompt_of("ernie45"),  # ends with `<think>` and a newline
    prompt=prompt_of("ernie45", "reasoning"),  # pre-writes nothing
    markers=("<tool_call>", "</tool_call>"),
)
