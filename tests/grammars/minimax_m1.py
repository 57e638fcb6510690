"""MiniMax-M1: reasoning in <think> … </think> written by the model; a <tool_calls> section holding
one {"name", "arguments"} JSON object per line; <end_of_sentence>. The section holds JSON lines
only (no text between two of its calls)."""

from grammars import Call, Grammar, json_text


def call(c: Call, i: int) -> str:
    return json_text({"name": c.name, "arguments": c.arguments})


GRAMMAR = Grammar(
    family="minimax_m1",
    call=call,
    end="<end_of_sentence>",
    think=("<think>\n", "\n</think>"),
    section=("<tool_calls>\n", "\n</tool_calls>"),
    markers=("<tool_calls>", "</tool_calls>"),
)
