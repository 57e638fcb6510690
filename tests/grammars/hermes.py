"""Hermes 2 Pro / 3, Qwen2.5 Instruct / Coder: <tool_call> JSON blocks (name first, or name last as
the family's tool_call sample writes it), text before, between and after them, <|im_end|>. The
drift the family's row reads is written too (drift_fenced_tools, drift_function_tag): the block
tagged <function_call>, <tool> or <tools> (name first), any tagged block inside a ```json or
```xml fence, and <function=NAME> / <function name="NAME"> + the JSON arguments + </function>.
Which spelling a call gets is fixed by its name and place, so every spelling meets every
interleaving."""

import zlib

from grammars import Call, Grammar, json_text


def _block(tag: str, body: str) -> str:
    return f"<{tag}>\n{body}\n</{tag}>"


def _name_first(c: Call) -> str:
    return json_text({"name": c.name, "arguments": c.arguments})


def _name_last(c: Call) -> str:
    return json_text({"arguments": c.arguments, "name": c.name})


SPELLINGS = (
    lambda c: _block("tool_call", _name_first(c)),
    lambda c: _block("tool_call", _name_first(c)),
    lambda c: _block("tool_call", _name_last(c)),
    lambda c: _block("function_call", _name_first(c)),
    lambda c: _block("tool", _name_first(c)),
    lambda c: _block("tools", _name_first(c)),
    lambda c: "```json\n" + _block("tool_call", _name_first(c)) + "\n```",
    lambda c: "```xml\n" + _block("tools", _name_first(c)) + "\n```",
    lambda c: f"<function={c.name}>" + json_text(c.arguments) + "</function>",
    lambda c: f'<function name="{c.name}">' + json_text(c.arguments) + "</function>",
)


def call(c: Call, i: int) -> str:
    # "7" spreads the property's eight names, at the three places, over all ten spellings
    return SPELLINGS[(zlib.crc32(f"7{c.name}".encode()) + 3 * i) % len(SPELLINGS)](c)


GRAMMAR = Grammar(
    family="hermes",
    call=call,
    end="<|im_end|>",
    markers=("<tool_call>", "</tool_call>", "<tools>", "</tools>", "<function_call>", "</function>", "```json"),
)
