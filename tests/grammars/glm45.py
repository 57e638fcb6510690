"""GLM-4.5 / 4.6: reasoning in <think> … </think> written by the model (the prompt pre-writes only
the empty block that turns thinking off); each call its own <tool_call>NAME block with one
<arg_key>KEY</arg_key> <arg_value>VALUE</arg_value> pair per argument, the value written bare and
untrimmed, typed by the JSON rule; the turn ends with <|user|> (or <|observation|> after calls).

`<tool_call>NAME</tool_call>` is how the format writes a call without arguments, so a sentence
naming the pair with a word between (`<tool_call> and </tool_call>`) is that call: decided in
tests/output_shapes_open.json (markers), as in tests/never_silently_wrong_open.json."""

from grammars import Call, Grammar, Unexpressible
from grammars._bare_values import bare

MARKERS = ("<tool_call>", "</tool_call>", "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>")


def value(v) -> str:
    text = bare(v)
    if any(m in text for m in ("</arg_value>", "<tool_call>", "</tool_call>")):
        raise Unexpressible("the value holds a marker that ends it or its call")
    return text


def call(c: Call, i: int) -> str:
    pairs = "".join(f"<arg_key>{k}</arg_key>\n<arg_value>{value(v)}</arg_value>\n" for k, v in c.arguments.items())
    return f"<tool_call>{c.name}\n{pairs}</tool_call>"


GRAMMAR = Grammar(
    family="glm45",
    call=call,
    end="<|user|>",
    think=("<think>", "</think>"),
    markers=MARKERS,
)
