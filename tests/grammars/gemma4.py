"""Gemma 4: reasoning in a thought channel (<|channel>thought … <channel|>), each call as
<|tool_call>call:NAME{…}<tool_call|> in the gemma4-tool-call dialect (keys bare, strings between
<|"|> delimiters, everything else JSON), calls back to back, <turn|>."""

import json
import re

from grammars import Call, Grammar, Unexpressible

QUOTE = '<|"|>'
KEY = re.compile(r"\w+")


def value(v, quote: str = QUOTE) -> str:
    """One argument value in the dialect, as Gemma's chat template writes it (strings raw between
    the quote tokens, keys bare, no spaces). A string holding the quote token, or a key that is not
    a bare word, cannot be written."""
    if isinstance(v, str):
        if quote in v:
            raise Unexpressible(f"a string holding {quote}")
        return quote + v + quote
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "null"
    if isinstance(v, dict):
        return "{" + ",".join(f"{key(k)}:{value(x, quote)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ",".join(value(x, quote) for x in v) + "]"
    return json.dumps(v)


def key(k: str) -> str:
    if not KEY.fullmatch(k):
        raise Unexpressible(f"a key that is not a bare word: {k!r}")
    return k


def call(c: Call, i: int) -> str:
    return "<|tool_call>call:" + c.name + value(c.arguments) + "<tool_call|>"


GRAMMAR = Grammar(
    family="gemma4",
    call=call,
    end="<turn|>",
    think=("<|channel>thought\n", "<channel|>"),
    markers=("<|tool_call>", "<tool_call|>"),
)
