"""Magistral: reasoning in `[THINK]` … `[/THINK]` (written by the model), then the answer and the calls
of `mistral_v11` (`[TOOL_CALLS]NAME[ARGS]{json}`), `</s>`. A call has no closer: the calls run to the
end of the turn, so no text follows them (tests/output_shapes_open.json, "decided")."""

from grammars import Call, Grammar, json_text


def call(c: Call, i: int) -> str:
    return "[TOOL_CALLS]" + c.name + "[ARGS]" + json_text(c.arguments)


GRAMMAR = Grammar(
    family="magistral",
    call=call,
    end="</s>",
    think=("[THINK]", "[/THINK]"),
    markers=("[TOOL_CALLS]", "[ARGS]"),
)
