"""Tencent Hy4 (HY-V4): <｜hy_start:opensource｜>assistant<｜hy_middle:opensource｜> turns ended by
<｜hy_end:opensource｜>; reasoning ended by </think:S> after the prompt's pre-written <think:S> (the
no_think prompt pre-writes the empty pair); the turn's calls in one <tool_calls:S> section, each
<tool_call:S>NAME then <arg_key:S>KEY</arg_key:S><arg_value:S>VALUE</arg_value:S> per argument
(values exactly as written, typed by the JSON rule), </tool_call:S>, with no whitespace between the
tags; S the checkpoint's tag suffix, :opensource here (the samples hold another)."""

from grammars import Call, Grammar, Unexpressible, prompt_of
from grammars._raw_values import raw

S = ":opensource"


def value(v) -> str:
    text = raw(v)
    if f"</arg_value{S}>" in text:
        raise Unexpressible("the value holds the tag that ends it")
    return text


def call(c: Call, i: int) -> str:
    args = "".join(f"<arg_key{S}>{k}</arg_key{S}><arg_value{S}>{value(v)}</arg_value{S}>" for k, v in c.arguments.items())
    return f"<tool_call{S}>{c.name}{args}</tool_call{S}>"


GRAMMAR = Grammar(
    family="hy_v4",
    call=call,
    end="<｜hy_end:opensource｜>",
    think=(f"<think{S}>\n", f"</think{S}>"),
    prefill=prompt_of("hy_v4", "reasoning"),
    section=(f"<tool_calls{S}>", f"</tool_calls{S}>"),
    call_gap="",
    markers=(f"<tool_calls{S}>", f"<tool_call{S}>", f"</tool_call{S}>", f"<arg_key{S}>", f"<arg_value{S}>"),
)
