"""Nemotron 3 (and Qwen3.5, Step 3.5 Flash): reasoning in <think> … </think> (written by the model,
or opened by the prompt, which pre-writes `<think>` and a newline), then Qwen3-Coder XML calls
(tests/grammars/qwen3_coder.py), <|im_end|>."""

from grammars import Grammar, prompt_of
from grammars.qwen3_coder import GRAMMAR as CODER

GRAMMAR = Grammar(
    family="nemotron3",
    call=CODER.call,
    end="<|im_end|>",
    think=("<think>\n", "\n</think>"),
    prefill=prompt_of("nemotron3"),  # ends with `<think>` and a newline
    prompt=prompt_of("nemotron3", "reasoning"),  # pre-writes nothing: the model writes `<think>`
    markers=CODER.markers,
)
