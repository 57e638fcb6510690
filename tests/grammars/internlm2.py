"""InternLM2 / 2.5: one call per response (the format has no parallel calls), written
`<|action_start|><|plugin|>` + newline + `{"name": …, "parameters": {…}}` (or `"arguments"`, as
tool_call_arguments_key writes it) + `<|action_end|>`; text before and after it, <|im_end|>."""

import zlib

from grammars import Call, Grammar, json_text


def call(c: Call, i: int) -> str:
    key = ("parameters", "arguments")[zlib.crc32(c.name.encode()) % 2]
    return "<|action_start|><|plugin|>\n" + json_text({"name": c.name, key: c.arguments}) + "<|action_end|>"


GRAMMAR = Grammar(
    family="internlm2",
    call=call,
    end="<|im_end|>",
    markers=("<|action_start|>", "<|plugin|>", "<|action_end|>"),
    max_calls=1,
)
