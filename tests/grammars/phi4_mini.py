"""Phi-4-mini: text, `functools[` + a JSON list of `{"name", "arguments"}` objects (`"parameters"` also
written) + `]`, text again, `<|end|>` (vLLM's form; the chat template's `<|tool_call|>…<|/tool_call|>`
blocks are proven by the samples)."""

from grammars import Call, Grammar, json_text


def call(c: Call, i: int) -> str:
    key = "parameters" if i == 1 else "arguments"
    return json_text({"name": c.name, key: c.arguments})


GRAMMAR = Grammar(
    family="phi4_mini",
    call=call,
    end="<|end|>",
    section=("functools[", "]"),
    call_gap=", ",
    markers=("functools[", "<|tool_call|>", "<|/tool_call|>"),
)
