"""DeepSeek-V4 (DSML): reasoning opened by the thinking-mode prompt (<｜Assistant｜><think>) up to
</think>; a <｜DSML｜tool_calls> … </｜DSML｜tool_calls> block, one <｜DSML｜invoke name="NAME"> …
</｜DSML｜invoke> a call, one line each, with a <｜DSML｜parameter name="KEY" string="true|false">VALUE
</｜DSML｜parameter> line per argument: a string raw (string="true"), any other value as JSON
(string="false"); <｜end▁of▁sentence｜>. V4.1's spelling (<｜DSML｜ calls>, <｜DSML｜ invoke …>) is read
alike and is not drawn here.

The model does not write <think> itself (the thinking-mode prompt does, and the chat-mode prompt
pre-writes </think>): the other shapes take the prompt with nothing pre-written, which both parsers
read as the chat mode without its </think> (a reasoning the model opened with <think> included)."""

from grammars import Call, Grammar, Unexpressible, json_text, prompt_of

SECTION = ("<｜DSML｜tool_calls>\n", "\n</｜DSML｜tool_calls>")
MARKERS = ("<｜DSML｜tool_calls>", "</｜DSML｜tool_calls>", "<｜DSML｜invoke", "</｜DSML｜invoke>",
           "<｜DSML｜parameter", "</｜DSML｜parameter>")


def parameter(key: str, value) -> str:
    if isinstance(value, str):
        if "</｜DSML｜parameter>" in value or "</｜DSML｜ parameter>" in value:
            raise Unexpressible("a raw string value cannot hold the parameter's closing tag")
        return f'<｜DSML｜parameter name="{key}" string="true">{value}</｜DSML｜parameter>'
    return f'<｜DSML｜parameter name="{key}" string="false">{json_text(value)}</｜DSML｜parameter>'


def call(c: Call, i: int) -> str:
    lines = [f'<｜DSML｜invoke name="{c.name}">', *(parameter(k, v) for k, v in c.arguments.items()), "</｜DSML｜invoke>"]
    return "\n".join(lines)


GRAMMAR = Grammar(
    family="deepseek_v4",
    call=call,
    end="<｜end▁of▁sentence｜>",
    think=("<think>", "</think>"),
    prefill=prompt_of("deepseek_v4"),  # thinking mode: <｜Assistant｜><think>
    prompt=prompt_of("deepseek_v4", "plain_answer").removesuffix("</think>"),  # nothing pre-written
    section=SECTION,
    text_in_section=True,
    markers=MARKERS,
)
