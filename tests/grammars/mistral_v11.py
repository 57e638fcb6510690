"""Mistral, tokenizer >= v11 (Small 3.2, Devstral, Ministral 3, Medium / Large 3): text, then each call
as `[TOOL_CALLS]NAME[ARGS]{json}`, `</s>`. A call has no closer: the calls run to the end of the turn,
so no text follows them (tests/output_shapes_open.json, "decided")."""

from grammars import Call, Grammar, json_text


def call(c: Call, i: int) -> str:
    return "[TOOL_CALLS]" + c.name + "[ARGS]" + json_text(c.arguments)


GRAMMAR = Grammar(
    family="mistral_v11",
    call=call,
    end="</s>",
    markers=("[TOOL_CALLS]", "[ARGS]"),
)
