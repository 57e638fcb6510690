"""Inkling (Thinking Machines): a turn is a run of messages, each `<|message_model|>`, an optional
header name, a `<|content_…|>` marker, the body and `<|end_message|>`; the prompt writes the first
`<|message_model|>` and the turn ends with `<|content_model_end_sampling|>`. Reasoning is a
`<|content_thinking|>` block (the turn's first, so it follows the prompt's `<|message_model|>`); a
text segment is a `<|content_text|>` block; a call is a message headed with its name and holding
`<|content_invoke_tool_json|>` and the JSON `{"name", "args"}` (either key order). No whitespace
between messages.

The framework writes every text segment and call alike, so each starts with its own
`<|message_model|>`: in an output without reasoning, the first message repeats the prompt's."""

from grammars import Call, Grammar, json_text

MESSAGE = "<|message_model|>"


def call(c: Call, i: int) -> str:
    body = {"name": c.name, "args": c.arguments}
    if sum(map(ord, c.name)) % 2:  # both key orders, by the name
        body = {"args": c.arguments, "name": c.name}
    return f"{MESSAGE}{c.name}<|content_invoke_tool_json|>{json_text(body)}<|end_message|>"


GRAMMAR = Grammar(
    family="inkling",
    call=call,
    end="<|content_model_end_sampling|>",
    think=("<|content_thinking|>", "<|end_message|>"),
    text_wrap=(f"{MESSAGE}<|content_text|>", "<|end_message|>"),
    gaps=("",),
    markers=("<|content_invoke_tool_json|>",),
)
