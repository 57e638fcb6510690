"""Solar Open 2: reasoning up to <|think:end|>, its <|think:start|> pre-written by the family's
prompt (with reasoning_effort low the prompt pre-writes the empty pair, and the output holds no
tag); each call <|tool_call:start|>NAME and a newline, one
<|tool_arg:start|>KEY<|tool_arg:value|>VALUE<|tool_arg:end|> line per argument, the value written
bare and untrimmed, typed by the JSON rule, then <|tool_call:end|>; <|im:end|>."""

from grammars import Call, Grammar, Unexpressible, prompt_of
from grammars._bare_values import bare

MARKERS = ("<|tool_call:start|>", "<|tool_call:end|>", "<|tool_arg:start|>", "<|tool_arg:value|>", "<|tool_arg:end|>")


def value(v) -> str:
    text = bare(v)
    if any(m in text for m in MARKERS):
        raise Unexpressible("the value holds a marker that ends it or its call")
    return text


def call(c: Call, i: int) -> str:
    args = "".join(f"<|tool_arg:start|>{k}<|tool_arg:value|>{value(v)}<|tool_arg:end|>\n" for k, v in c.arguments.items())
    return f"<|tool_call:start|>{c.name}\n{args}<|tool_call:end|>"


PREFILL = prompt_of("solar_open2")  # ends with the pre-written `<|think:start|>`

GRAMMAR = Grammar(
    family="solar_open2",
    call=call,
    end="<|im:end|>",
    think=("<|think:start|>", "<|think:end|>"),
    prefill=PREFILL,
    # the assistant header with nothing pre-written: the model writes `<|think:start|>` itself, or
    # answers without reasoning (as after the low-effort prompt's empty pair)
    prompt=PREFILL.removesuffix("<|think:start|>"),
    markers=MARKERS,
)
