"""Kimi K2 / K2-Thinking: reasoning in <think> … </think> written by the model; a
<|tool_calls_section_begin|> … <|tool_calls_section_end|> section, each call
<|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{json}<|tool_call_end|> (IDX counting
the calls of the output), one after another; <|im_end|>."""

from grammars import Call, Grammar, json_text

SECTION = ("<|tool_calls_section_begin|>", "<|tool_calls_section_end|>")
MARKERS = (*SECTION, "<|tool_call_begin|>", "<|tool_call_end|>", "<|tool_call_argument_begin|>")


def call(c: Call, i: int) -> str:
    return (f"<|tool_call_begin|>functions.{c.name}:{i}<|tool_call_argument_begin|>"
            + json_text(c.arguments) + "<|tool_call_end|>")


GRAMMAR = Grammar(
    family="kimi_k2",
    call=call,
    end="<|im_end|>",
    think=("<think>", "</think>"),
    section=SECTION,
    call_gap="",
    text_in_section=True,
    markers=MARKERS,
)
