"""DeepSeek-V4.1: reasoning ended by </think> after the prompt's pre-written <think> (thinking mode;
chat mode pre-writes </think>); the calls in one <｜DSML｜ calls> block written after a blank line,
each <｜DSML｜ invoke name="NAME"> with one <｜DSML｜ parameter name="KEY" string="true|false"> per
argument (a string exactly as it is with string="true", any other value as JSON with
string="false"), </｜DSML｜ invoke>; every DSML tag name with its leading space;
<｜end▁of▁sentence｜>."""

from grammars import Call, Grammar, Unexpressible, json_text, prompt_of

D = "｜DSML｜ "


def parameter(key: str, value) -> str:
    if isinstance(value, str):
        if f"</{D}parameter>" in value:
            raise Unexpressible("the string holds the tag that ends it")
        return f'<{D}parameter name="{key}" string="true">{value}</{D}parameter>'
    return f'<{D}parameter name="{key}" string="false">{json_text(value)}</{D}parameter>'


def call(c: Call, i: int) -> str:
    params = "\n".join(parameter(k, v) for k, v in c.arguments.items())
    return f'<{D}invoke name="{c.name}">\n{params}\n</{D}invoke>'


GRAMMAR = Grammar(
    family="deepseek_v4_1",
    call=call,
    end="<｜end▁of▁sentence｜>",
    think=("<think>", "</think>"),
    prefill=prompt_of("deepseek_v4_1", "reasoning"),
    section=(f"<{D}calls>\n", f"\n</{D}calls>"),
    call_gap="\n",
    markers=(f"<{D}calls>", f"</{D}calls>", f"<{D}invoke", f"</{D}invoke>", f"<{D}parameter"),
)
