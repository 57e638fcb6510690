"""Qwen3-Coder: no reasoning; each call its own <tool_call> block holding <function=NAME> and one
<parameter=KEY> element per argument, the value on its own lines (one newline written on each side,
one trimmed on each side when read), written bare and typed by the JSON rule; <|im_end|>."""

from grammars import Call, Grammar, Unexpressible
from grammars._bare_values import bare

# A value holding one of these can end its element early (the parsers end a value at
# `</parameter>` before the next `<parameter=` or the end of the call, and at a line opening
# `<parameter=NAME>`); the property never draws one.
ENDS = ("</parameter>", "<parameter=", "</function>")


def value(v) -> str:
    text = bare(v)
    if any(end in text for end in ENDS):
        raise Unexpressible("the value holds a marker that can end it")
    return text


def call(c: Call, i: int) -> str:
    params = "".join(f"<parameter={k}>\n{value(v)}\n</parameter>\n" for k, v in c.arguments.items())
    return f"<tool_call>\n<function={c.name}>\n{params}</function>\n</tool_call>"


GRAMMAR = Grammar(
    family="qwen3_coder",
    call=call,
    end="<|im_end|>",
    markers=("<tool_call>", "</tool_call>", "<function=", "</function>", "<parameter=", "</parameter>"),
)
