"""Jamba 1.5–1.7: no reasoning; a run of calls is one `<tool_calls>[…]</tool_calls>` section
holding a JSON array of `{"name": …, "arguments": {…}}` (one element per line, as the samples write
it; no text can stand inside the array); text before and after a section, <|eom|>."""

from grammars import Call, Grammar, json_text


def call(c: Call, i: int) -> str:
    return json_text({"name": c.name, "arguments": c.arguments})


GRAMMAR = Grammar(
    family="jamba",
    call=call,
    end="<|eom|>",
    section=("<tool_calls>[\n    ", "\n]</tool_calls>"),
    call_gap=",\n    ",
    markers=("<tool_calls>", "</tool_calls>"),
)
