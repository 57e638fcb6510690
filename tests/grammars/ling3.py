"""Ling 3 (inclusionAI, Bailing V3): <role>ASSISTANT</role> turns ended by <|role_end|>; reasoning
in <think> … </think>, the opener pre-written by the prompt with thinking on (with thinking off the
prompt pre-writes a closed block); GLM-style calls, <tool_call>NAME then
<arg_key>KEY</arg_key><arg_value>VALUE</arg_value> per argument (values exactly as written, typed by
the JSON rule), </tool_call>."""

from grammars import Call, Grammar, Unexpressible, prompt_of
from grammars._raw_values import raw


def value(v) -> str:
    text = raw(v)
    if "</arg_value>" in text:
        raise Unexpressible("the value holds the tag that ends it")
    return text


def call(c: Call, i: int) -> str:
    args = "".join(f"\n<arg_key>{k}</arg_key>\n<arg_value>{value(v)}</arg_value>" for k, v in c.arguments.items())
    return f"<tool_call>{c.name}{args}\n</tool_call>"


GRAMMAR = Grammar(
    family="ling3",
    call=call,
    end="<|role_end|>",
    think=("<think>\n", "\n</think>"),
    prefill=prompt_of("ling3", "reasoning_prewritten"),
    markers=("<tool_call>", "</tool_call>", "<arg_key>", "<arg_value>"),
)
