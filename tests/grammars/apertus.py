"""Apertus: reasoning between <|inner_prefix|> and <|inner_suffix|>, a run of calls as one JSON
array of one-key objects {NAME: {arguments}} between <|tools_prefix|> and <|tools_suffix|>, text
before, between and after the blocks, <|assistant_end|>."""

from grammars import Call, Grammar, json_text


def call(c: Call, i: int) -> str:
    return json_text({c.name: c.arguments})


GRAMMAR = Grammar(
    family="apertus",
    call=call,
    end="<|assistant_end|>",
    think=("<|inner_prefix|>", "<|inner_suffix|>"),
    section=("<|tools_prefix|>[", "]<|tools_suffix|>"),
    call_gap=", ",
    markers=("<|tools_prefix|>", "<|tools_suffix|>"),
)
