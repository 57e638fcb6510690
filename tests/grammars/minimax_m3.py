"""MiniMax-M3: reasoning in <mm:think> … </mm:think> written by the model (a bare </mm:think> first
says it did not think); the calls in one ]<]minimax[>[<tool_call> block, each
]<]minimax[>[<invoke name="NAME"> holding one ]<]minimax[>[<KEY>VALUE]<]minimax[>[</KEY> element
per argument (the argument's name is the tag; a string written raw, any other value as JSON, typed
by the JSON rule), ]<]minimax[>[</invoke>; every tag of the block prefixed by the namespace token
]<]minimax[>[; [e~[. A list or an object is written here as JSON, the form of a parameter the tool
declares without properties or items; the nested-element form (<item> children, one element per
declared property), which peers read only with the tool's schema, is not read (the
nested_arguments sample; schemas/README.md, the family's row)."""

from grammars import Call, Grammar, Unexpressible
from grammars._raw_values import raw

NS = "]<]minimax[>["


def value(v) -> str:
    text = raw(v)
    if NS in text:
        raise Unexpressible("the value holds the namespace token that opens a tag")
    return text


def call(c: Call, i: int) -> str:
    args = "".join(f"{NS}<{k}>{value(v)}{NS}</{k}>" for k, v in c.arguments.items())
    return f'{NS}<invoke name="{c.name}">{args}{NS}</invoke>'


GRAMMAR = Grammar(
    family="minimax_m3",
    call=call,
    end="[e~[",
    think=("<mm:think>", "</mm:think>"),
    section=(f"{NS}<tool_call>\n", f"\n{NS}</tool_call>"),
    call_gap="\n",
    markers=(NS, f"{NS}<tool_call>", f"{NS}</tool_call>", f"{NS}<invoke", f"{NS}</invoke>"),
)
