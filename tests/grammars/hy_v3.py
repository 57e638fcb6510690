"""Tencent Hy3 (HY-V3), tags with the :opensource suffix: reasoning opened by the prompt
(<think:opensource> at reasoning_effort low or high) up to </think:opensource>; a
<tool_calls:opensource> … </tool_calls:opensource> wrapper, each call <tool_call:opensource>NAME
<tool_sep:opensource> with an <arg_key:opensource>KEY</arg_key:opensource> and
<arg_value:opensource>VALUE</arg_value:opensource> line per argument, </tool_call:opensource>, one a
line; <｜hy_eos:opensource｜>. Keys and values are read trimmed and typed by the JSON rule, so a string
is written as it is (one that reads as JSON, has spaces at its ends or holds a tag of the format
cannot be written), any other value as its JSON text.

The model does not write <think:opensource> itself (the prompt does, or pre-writes the empty pair at
no_think): the other shapes take the prompt with nothing pre-written, which both parsers read as
no_think without its empty pair (a reasoning the model opened with the tag included)."""

import json
import re

from grammars import Call, Grammar, Unexpressible, json_text, prompt_of

SECTION = ("<tool_calls:opensource>\n", "\n</tool_calls:opensource>")
MARKERS = ("<tool_calls:opensource>", "</tool_calls:opensource>", "<tool_call:opensource>",
           "</tool_call:opensource>", "<tool_sep:opensource>", "<arg_key:opensource>", "</arg_value:opensource>")
TAG = re.compile(r"</?(?:arg_key|arg_value|tool_call|tool_calls|tool_sep)\b")


def value_text(value) -> str:
    if not isinstance(value, str):
        return json_text(value)
    if TAG.search(value):
        raise Unexpressible("a bare string cannot hold a tag of the format")
    if value != value.strip():
        raise Unexpressible("values are read trimmed")
    try:
        json.loads(value)
    except ValueError:
        return value
    raise Unexpressible("a bare string that reads as JSON comes back as that JSON value")


def call(c: Call, i: int) -> str:
    lines = [f"<tool_call:opensource>{c.name}<tool_sep:opensource>"]
    for k, v in c.arguments.items():
        lines += [f"<arg_key:opensource>{k}</arg_key:opensource>", f"<arg_value:opensource>{value_text(v)}</arg_value:opensource>"]
    lines.append("</tool_call:opensource>")
    return "\n".join(lines)


GRAMMAR = Grammar(
    family="hy_v3",
    call=call,
    end="<｜hy_eos:opensource｜>",
    think=("<think:opensource>", "</think:opensource>"),
    prefill=prompt_of("hy_v3"),  # reasoning_effort high: …<｜hy_Assistant:opensource｜><think:opensource>
    prompt=prompt_of("hy_v3", "plain_answer").removesuffix("<think:opensource></think:opensource>"),
    section=SECTION,
    text_in_section=True,
    markers=MARKERS,
)
