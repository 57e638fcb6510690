"""Mistral, tokenizer < v11 (7B v0.3, Mixtral 8x22B, Nemo): text, then one `[TOOL_CALLS]` section
holding a JSON list of `{"name", "arguments"}` objects, `</s>`. The section has no closer: the calls
run to the end of the turn, so no text follows them (tests/output_shapes_open.json, "decided")."""

from grammars import Call, Grammar, json_text


def call(c: Call, i: int) -> str:
    return json_text({"name": c.name, "arguments": c.arguments})


GRAMMAR = Grammar(
    family="mistral",
    call=call,
    end="</s>",
    section=("[TOOL_CALLS][", "]"),
    call_gap=", ",
    markers=("[TOOL_CALLS]",),
)
