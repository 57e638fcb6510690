"""GPT-OSS (harmony): a turn is a run of messages, each `<|start|>assistant` + header +
`<|message|>` + body + terminator, the first `<|start|>assistant` written by the prompt. Reasoning
is an `analysis` message (the first of the turn, so its header follows the prompt's
`<|start|>assistant`); a text segment is a `commentary` message (a preamble) ended by `<|end|>`;
a call is a message addressed `to=functions.NAME` (recipient after the channel, or before it)
holding the JSON arguments, ended by `<|call|>`. No whitespace between messages.

The framework writes every text segment and call alike, so each starts with its own
`<|start|>assistant`: in an output without reasoning, the first message repeats the prompt's
(the parsers read a leading `<|start|>assistant` as the header's start). Every segment is a
preamble (`commentary` + `<|end|>`); the final answer's `final` + `<|return|>` form is the
samples'. A generation stops at `<|call|>`, but the parsers read every message, so outputs with
more calls and text after a call are drawn too."""

from grammars import Call, Grammar, json_text

START = "<|start|>assistant"


def call(c: Call, i: int) -> str:
    body = json_text(c.arguments)
    if sum(map(ord, c.name)) % 2:  # both header forms, by the name
        return f"{START} to=functions.{c.name}<|channel|>commentary json<|message|>{body}<|call|>"
    return f"{START}<|channel|>commentary to=functions.{c.name} <|constrain|>json<|message|>{body}<|call|>"


GRAMMAR = Grammar(
    family="gpt_oss",
    call=call,
    think=("<|channel|>analysis<|message|>", "<|end|>"),
    text_wrap=(f"{START}<|channel|>commentary<|message|>", "<|end|>"),
    gaps=("",),
    markers=("<|start|>", "to=functions."),
)
