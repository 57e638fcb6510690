"""xLAM: reasoning in <think> … </think> (optional), calls as one JSON array of `{"name": …,
"arguments": …}`. The family writes the array bare (the whole answer, or after `</think>`), in a
```json fence, after `[TOOL_CALLS]` (to the end of its line) or in <tool_call> … </tool_call>;
the parsers bring every spelling to the last one. A grammar has one call section, so the property
writes the spelling that can stand anywhere between text segments, `<tool_call>[…]</tool_call>`
(tool_call_tag), with several calls in one array; the bare, fenced and `[TOOL_CALLS]` spellings
are proven by the family's samples (fenced_call, tool_call, tool_calls_marker, think_then_call).
<|eot_id|> (the Llama-based models; the Qwen-based ones end with <|im_end|>)."""

from grammars import Call, Grammar, json_text


def call(c: Call, i: int) -> str:
    return json_text({"name": c.name, "arguments": c.arguments})


GRAMMAR = Grammar(
    family="xlam",
    call=call,
    end="<|eot_id|>",
    think=("<think>\n", "\n</think>"),
    section=("<tool_call>[", "]</tool_call>"),
    call_gap=", ",
    markers=("<tool_call>", "</tool_call>", "[TOOL_CALLS]"),
)
