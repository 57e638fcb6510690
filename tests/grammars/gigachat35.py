"""GigaChat 3.5 (GCML, a DSML variant): reasoning in <think> … </think> (pre-written by the prompt
with `reasoning=true`, or written by the model), the calls of a turn in one `<｜GCML｜tool_calls>`
section, one `<｜GCML｜invoke name="NAME">` per call with one `<｜GCML｜parameter name="KEY"
string="true|false">` per argument (`true`: the raw string, `false`: JSON), then </s>."""

from grammars import Call, Grammar, Unexpressible, json_text, prompt_of

PARAMETER_END = "</｜GCML｜parameter>"


def parameter(key: str, value) -> str:
    if isinstance(value, str):
        if PARAMETER_END in value:
            raise Unexpressible("a raw string value holding the parameter's end tag")
        return f'<｜GCML｜parameter name="{key}" string="true">{value}{PARAMETER_END}'
    return f'<｜GCML｜parameter name="{key}" string="false">{json_text(value)}{PARAMETER_END}'


def call(c: Call, i: int) -> str:
    lines = [f'<｜GCML｜invoke name="{c.name}">', *(parameter(k, v) for k, v in c.arguments.items()), "</｜GCML｜invoke>"]
    return "\n".join(lines)


GRAMMAR = Grammar(
    family="gigachat35",
    call=call,
    end="</s>",
    think=("<think>\n", "</think>"),
    prefill=prompt_of("gigachat35", "reasoning"),  # ends with `<think>` + newline
    section=("<｜GCML｜tool_calls>\n", "\n</｜GCML｜tool_calls>"),
    markers=("<｜GCML｜tool_calls>", "</｜GCML｜tool_calls>", "</｜GCML｜invoke>"),
)
