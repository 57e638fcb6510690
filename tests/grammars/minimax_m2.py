"""MiniMax-M2 / M2.1: reasoning in <think> … </think> (the family's prompt pre-writes `<think>` and a
newline; a prompt that pre-writes nothing lets the model write it, or answer without reasoning);
a <minimax:tool_call> section holding one <invoke name="NAME"> per call, one
<parameter name="KEY">VALUE</parameter> line per argument, the value written bare, trimmed and
typed by the JSON rule when read; text may stand between two calls of a section; [e~[."""

from grammars import Call, Grammar, Unexpressible, prompt_of
from grammars._bare_values import bare

SECTION = ("<minimax:tool_call>\n", "\n</minimax:tool_call>")


def value(v) -> str:
    text = bare(v)
    if text != text.strip():
        raise Unexpressible("whitespace at a value's edge is trimmed")
    if any(m in text for m in ("</parameter>", "<invoke", "</invoke>")):
        raise Unexpressible("the value holds a marker that ends it or its call")
    return text


def call(c: Call, i: int) -> str:
    params = "".join(f'<parameter name="{k}">{value(v)}</parameter>\n' for k, v in c.arguments.items())
    return f'<invoke name="{c.name}">\n{params}</invoke>'


GRAMMAR = Grammar(
    family="minimax_m2",
    call=call,
    end="[e~[",
    think=("<think>\n", "\n</think>"),
    prefill=prompt_of("minimax_m2"),  # ends with `<think>` and a newline
    prompt=prompt_of("minimax_m2", "reasoning"),  # pre-writes nothing
    section=SECTION,
    text_in_section=True,
    markers=("<minimax:tool_call>", "</minimax:tool_call>", '<invoke name="search">', "</invoke>",
             '<parameter name="query">', "</parameter>"),
)
