"""DeepSeek-V3.2 (DSML): reasoning in <think> … </think> (opened by the thinking-mode prompt, which
pre-writes <think>, or written by the model); a <｜DSML｜function_calls> … </｜DSML｜function_calls>
block, one <｜DSML｜invoke name="NAME"> … </｜DSML｜invoke> a call, one line each, with a
<｜DSML｜parameter name="KEY" string="true|false">VALUE</｜DSML｜parameter> line per argument: a string
raw (string="true"), any other value as JSON (string="false"); <｜end▁of▁sentence｜>."""

from grammars import Call, Grammar, Unexpressible, json_text, prompt_of

SECTION = ("<｜DSML｜function_calls>\n", "\n</｜DSML｜function_calls>")
MARKERS = ("<｜DSML｜function_calls>", "</｜DSML｜function_calls>", "<｜DSML｜invoke", "</｜DSML｜invoke>",
           "<｜DSML｜parameter", "</｜DSML｜parameter>")


def parameter(key: str, value) -> str:
    if isinstance(value, str):
        if "</｜DSML｜parameter>" in value:
            raise Unexpressible("a raw string value cannot hold the parameter's closing tag")
        return f'<｜DSML｜parameter name="{key}" string="true">{value}</｜DSML｜parameter>'
    return f'<｜DSML｜parameter name="{key}" string="false">{json_text(value)}</｜DSML｜parameter>'


def call(c: Call, i: int) -> str:
    lines = [f'<｜DSML｜invoke name="{c.name}">', *(parameter(k, v) for k, v in c.arguments.items()), "</｜DSML｜invoke>"]
    return "\n".join(lines)


GRAMMAR = Grammar(
    family="deepseek_v3_2",
    call=call,
    end="<｜end▁of▁sentence｜>",
    think=("<think>", "</think>"),
    prefill=prompt_of("deepseek_v3_2"),  # thinking on: <｜Assistant｜><think>
    prompt=prompt_of("deepseek_v3_2", "reasoning"),  # nothing pre-written
    section=SECTION,
    text_in_section=True,
    markers=MARKERS,
)
