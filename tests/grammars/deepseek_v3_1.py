"""DeepSeek-V3.1 / V3.1-Terminus: reasoning in <think> … </think> (opened by the thinking-mode prompt,
which pre-writes <think>, or written by the model); a <｜tool▁calls▁begin｜> … <｜tool▁calls▁end｜>
section, each call <｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{json}<｜tool▁call▁end｜> (no type word, no
fence), one after another; <｜end▁of▁sentence｜>."""

from grammars import Call, Grammar, json_text, prompt_of

SECTION = ("<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>")
MARKERS = (*SECTION, "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>")


def call(c: Call, i: int) -> str:
    return "<｜tool▁call▁begin｜>" + c.name + "<｜tool▁sep｜>" + json_text(c.arguments) + "<｜tool▁call▁end｜>"


GRAMMAR = Grammar(
    family="deepseek_v3_1",
    call=call,
    end="<｜end▁of▁sentence｜>",
    think=("<think>", "</think>"),
    prefill=prompt_of("deepseek_v3_1"),  # thinking mode: <｜Assistant｜><think>
    prompt=prompt_of("deepseek_v3_1", "reasoning"),  # nothing pre-written
    section=SECTION,
    call_gap="",
    text_in_section=True,
    markers=MARKERS,
)
