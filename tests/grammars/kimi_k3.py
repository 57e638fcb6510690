"""Kimi K3 (XTML): channels of one message. Reasoning is the think channel, opened by the prompt
(<|open|>think<|sep|>, thinking on) or by the model, up to <|close|>think<|sep|>; each text segment is
a response channel (<|open|>response<|sep|> … <|close|>response<|sep|>); a run of calls is a tools
channel (<|open|>tools<|sep|> … <|close|>tools<|sep|>) holding one <|open|>call tool="NAME"
index="N"<|sep|> … <|close|>call<|sep|> element a call, with an <|open|>argument key="KEY"
type="TYPE"<|sep|>VALUE<|close|>argument<|sep|> element per argument (a string raw, any other value
as JSON); the message ends with <|close|>message<|sep|>. Text stands only in response channels, so
none is written inside a tools channel between two calls.

The prompt of the other shapes pre-writes nothing after the assistant's header (the thinking-off
prompt pre-writes <|open|>response<|sep|>, which each segment writes here itself)."""

from grammars import Call, Grammar, Unexpressible, json_text, prompt_of

TYPES = ((bool, "boolean"), (int, "number"), (float, "number"), (type(None), "null"), (list, "array"), (dict, "object"))


def argument(key: str, value) -> str:
    if isinstance(value, str):
        if "<|close|>argument<|sep|>" in value:
            raise Unexpressible("a raw string value cannot hold the argument's closer")
        kind, text = "string", value
    else:
        kind, text = next(name for t, name in TYPES if isinstance(value, t)), json_text(value)
    return f'<|open|>argument key="{key}" type="{kind}"<|sep|>{text}<|close|>argument<|sep|>'


def call(c: Call, i: int) -> str:
    return (f'<|open|>call tool="{c.name}" index="{i + 1}"<|sep|>'
            + "".join(argument(k, v) for k, v in c.arguments.items()) + "<|close|>call<|sep|>")


GRAMMAR = Grammar(
    family="kimi_k3",
    call=call,
    end="<|close|>message<|sep|>",
    think=("<|open|>think<|sep|>", "<|close|>think<|sep|>"),
    prefill=prompt_of("kimi_k3"),  # thinking on: …<|open|>message role="assistant"<|sep|><|open|>think<|sep|>
    prompt=prompt_of("kimi_k3", "plain_answer").removesuffix("<|open|>response<|sep|>"),
    section=("<|open|>tools<|sep|>", "<|close|>tools<|sep|>"),
    call_gap="",
    text_wrap=("<|open|>response<|sep|>", "<|close|>response<|sep|>"),
    markers=("<|open|>tools<|sep|>", "<|close|>tools<|sep|>", "<|open|>call", "<|close|>call<|sep|>"),
)
