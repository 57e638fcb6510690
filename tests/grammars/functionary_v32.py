"""Functionary v3.2: a run of segments, each `>>>` + recipient + line break + body: `all` for text,
a function NAME for a call with a JSON object body; `<|eot_id|>`. The generation prompt ends with
`>>>`, so the first segment of the output is written without it (`all\n…` or `NAME\n{…}`).

Two traits the framework's per-part writers cannot say, worked around here:

- the first part is written without `>>>`, every later one with it: the grammar counts the parts of
  the output being written (``render`` reads ``prompt`` first, then writes the parts in order, calling
  ``check_text`` before each text segment and ``call`` for each call);
- no whitespace may stand before the first recipient (right after the prompt's `>>>`), so ``gaps``
  is only ``""``; the whitespace a model may write after a call's JSON (before the next `>>>` or
  `<|eot_id|>`) is written by the call writer instead, chosen from the call's own text. Whitespace
  at a text segment's edges comes with the segment.
"""

from grammars import Call, Grammar, Unexpressible, json_text, prompt_of

TAILS = ("", "\n", "", " ", "\n\n")


class _Grammar(Grammar):
    written = 0  # parts of the current output written so far
    first_text = True  # the text segment being written is the output's first part

    @property
    def prompt(self) -> str:  # read once at the start of each render
        self.written = 0
        return self._prompt

    @prompt.setter
    def prompt(self, value: str) -> None:
        self._prompt = value

    @property
    def text_wrap(self) -> tuple[str, str]:
        return ("all\n" if self.first_text else ">>>all\n", "")

    @text_wrap.setter
    def text_wrap(self, value) -> None:
        pass


def check_text(text: str) -> None:
    GRAMMAR.first_text = GRAMMAR.written == 0
    GRAMMAR.written += 1


def call(c: Call, i: int) -> str:
    body = json_text(c.arguments)
    if ">>>" in body:
        raise Unexpressible("a `>>>` inside the arguments starts the next segment")
    first = GRAMMAR.written == 0
    GRAMMAR.written += 1
    return ("" if first else ">>>") + c.name + "\n" + body + TAILS[len(body) % len(TAILS)]


GRAMMAR = _Grammar(
    family="functionary_v32",
    call=call,
    end="<|eot_id|>",
    prompt=prompt_of("functionary_v32"),
    check_text=check_text,
    gaps=("",),
    markers=(">>>",),
)
