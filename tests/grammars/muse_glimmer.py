"""Meta Muse Glimmer (ATEM): a turn is a run of channels, each `<|start|>assistant to=RECIPIENT
<|message|>` + body + `<|eom|>` (`<|eot|>` ends the turn), the first `<|start|>assistant` written
by the prompt. Reasoning is the `to=self` channel (the turn's first, so its header follows the
prompt's `<|start|>assistant`); a text segment is a `to=user` channel; a call is a channel
addressed to the tool holding an `<atem:function_calls>` block with one `<atem:invoke
name="NAME">` and one `<atem:parameter name="KEY">` per argument, a string written verbatim and
any other value as JSON (values are read by the JSON rule, so a string that reads as JSON cannot
be written).

The framework writes every text segment and call alike, so each starts with its own
`<|start|>assistant`: in an output without reasoning, the first channel repeats the prompt's. Every
channel ends with `<|eom|>`; the turn's `<|eot|>` form is the samples'."""

import json

from grammars import Call, Grammar, Unexpressible, json_text

START = "<|start|>assistant"


def value_text(value) -> str:
    if not isinstance(value, str):
        return json_text(value)
    try:
        json.loads(value)
    except ValueError:
        pass
    else:
        raise Unexpressible("a string that reads as JSON")
    if "</atem:parameter>" in value or "<atem:parameter" in value:
        raise Unexpressible("a string holding a parameter tag")
    return value


def call(c: Call, i: int) -> str:
    params = "".join(f'<atem:parameter name="{k}">{value_text(v)}</atem:parameter>\n' for k, v in c.arguments.items())
    return (f'{START} to={c.name}<|message|><atem:function_calls>\n<atem:invoke name="{c.name}">\n'
            f"{params}</atem:invoke>\n</atem:function_calls><|eom|>")


GRAMMAR = Grammar(
    family="muse_glimmer",
    call=call,
    think=(" to=self<|message|>", "<|eom|>"),
    text_wrap=(f"{START} to=user<|message|>", "<|eom|>"),
    gaps=("",),
    markers=("<atem:function_calls>", "</atem:function_calls>"),
)
