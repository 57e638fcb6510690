"""DeepSeek-V3 / V3-0324: no reasoning; a <｜tool▁calls▁begin｜> … <｜tool▁calls▁end｜> section, each
call <｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME, its JSON arguments in a ```json fence, then
<｜tool▁call▁end｜>, calls one a line; <｜end▁of▁sentence｜>."""

from grammars import Call, Grammar, json_text

SECTION = ("<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>")
MARKERS = (*SECTION, "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>")


def call(c: Call, i: int) -> str:
    return ("<｜tool▁call▁begin｜>function<｜tool▁sep｜>" + c.name + "\n```json\n"
            + json_text(c.arguments) + "\n```<｜tool▁call▁end｜>")


GRAMMAR = Grammar(
    family="deepseek_v3",
    call=call,
    end="<｜end▁of▁sentence｜>",
    section=SECTION,
    text_in_section=True,
    markers=MARKERS,
)
