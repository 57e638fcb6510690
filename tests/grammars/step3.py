"""Step3 (StepFun): reasoning in <think> … </think> (opened by the prompt, which pre-writes <think> and
a newline, or written by the model); a <｜tool_calls_begin｜> … <｜tool_calls_end｜> section, each call
<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="NAME"> with a
<steptml:parameter name="KEY">VALUE</steptml:parameter> line per argument, </steptml:invoke> and
<｜tool_call_end｜>, calls one a line; <|EOT|>. A value is written bare and read by the JSON rule: a
string is written as it is (so one that reads as JSON, or holds the parameter's closing tag, cannot be
written), any other value as its JSON text."""

import json

from grammars import Call, Grammar, Unexpressible, json_text, prompt_of

SECTION = ("<｜tool_calls_begin｜>", "<｜tool_calls_end｜>")
MARKERS = (*SECTION, "<｜tool_call_begin｜>", "<｜tool_call_end｜>", "<｜tool_sep｜>", "</steptml:invoke>",
           "</steptml:parameter>")


def value_text(value) -> str:
    if not isinstance(value, str):
        return json_text(value)
    if "</steptml:parameter>" in value:
        raise Unexpressible("a bare string cannot hold the parameter's closing tag")
    try:
        json.loads(value)
    except ValueError:
        return value
    raise Unexpressible("a bare string that reads as JSON comes back as that JSON value")


def call(c: Call, i: int) -> str:
    lines = [f'<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="{c.name}">']
    lines += [f'<steptml:parameter name="{k}">{value_text(v)}</steptml:parameter>' for k, v in c.arguments.items()]
    lines.append("</steptml:invoke><｜tool_call_end｜>")
    return "\n".join(lines)


GRAMMAR = Grammar(
    family="step3",
    call=call,
    end="<|EOT|>",
    think=("<think>\n", "\n</think>"),
    prefill=prompt_of("step3"),  # <|BOT|>assistant\n<think>\n
    prompt=prompt_of("step3", "reasoning"),  # nothing pre-written
    section=SECTION,
    text_in_section=True,
    markers=MARKERS,
)
