"""DeepSeek-R1 and its distills: reasoning in <think> … </think> (written by the model, or opened by
the distill prompt, which pre-writes <think> and a newline); a <｜tool▁calls▁begin｜> …
<｜tool▁calls▁end｜> section, each call <｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME, its JSON
arguments in a ```json fence or bare on the next line (both written: the samples hold both), then
<｜tool▁call▁end｜>, calls one a line; <｜end▁of▁sentence｜>."""

from grammars import Call, Grammar, json_text, prompt_of

SECTION = ("<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>")
MARKERS = (*SECTION, "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>")


def call(c: Call, i: int) -> str:
    arguments = json_text(c.arguments)
    body = "```json\n" + arguments + "\n```" if i % 2 == 0 else arguments
    return "<｜tool▁call▁begin｜>function<｜tool▁sep｜>" + c.name + "\n" + body + "<｜tool▁call▁end｜>"


GRAMMAR = Grammar(
    family="deepseek_r1",
    call=call,
    end="<｜end▁of▁sentence｜>",
    think=("<think>\n", "\n</think>"),
    prefill=prompt_of("deepseek_r1"),  # the distill prompt: <｜Assistant｜><think> + newline
    prompt=prompt_of("deepseek_r1", "plain_answer"),  # nothing pre-written
    section=SECTION,
    text_in_section=True,
    markers=MARKERS,
)
