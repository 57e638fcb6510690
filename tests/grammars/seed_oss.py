"""Seed-OSS: reasoning in <seed:think> … </seed:think> written by the model; each call its own
<seed:tool_call> block holding <function=NAME> and one <parameter=KEY>VALUE</parameter> line per
argument, the value written inline and bare, typed by the JSON rule, one newline trimmed on each
side when read; <seed:eos>.

The one prompt that pre-writes the opener (thinking_budget=0) writes `<seed:think>` and a
`<seed:cot_budget_reflect>` note's opener, so such an output starts inside the note and the
thinking keeps the note's tags (the samples tool_call and plain_answer): a reasoning that opens
inside a note is not a shape this framework draws, so there is no `prefill`."""

from grammars import Call, Grammar, Unexpressible
from grammars._bare_values import bare
from grammars.qwen3_coder import ENDS


def value(v) -> str:
    text = bare(v)
    if text.startswith("\n") or text.endswith("\n"):
        raise Unexpressible("a newline at a value's edge is trimmed (the value is written inline)")
    if any(end in text for end in ENDS):
        raise Unexpressible("the value holds a marker that can end it")
    return text


def call(c: Call, i: int) -> str:
    params = "".join(f"<parameter={k}>{value(v)}</parameter>\n" for k, v in c.arguments.items())
    return f"<seed:tool_call>\n<function={c.name}>\n{params}</function>\n</seed:tool_call>"


GRAMMAR = Grammar(
    family="seed_oss",
    call=call,
    end="<seed:eos>",
    think=("<seed:think>\n", "\n</seed:think>"),
    markers=("<seed:tool_call>", "</seed:tool_call>", "<function=", "</function>", "<parameter=", "</parameter>"),
)
