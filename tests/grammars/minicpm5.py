"""MiniCPM5 (openbmb): ChatML, reasoning in <think> … </think> (the prompt pre-writes <think> with
thinking on), one <function name="NAME"> block per call holding <param name="KEY">VALUE</param>
per argument, values trimmed and typed by the JSON rule, a string holding markup or a line break
written in <![CDATA[…]]>; <|im_end|>."""

from grammars import Call, Grammar, Unexpressible, prompt_of
from grammars._raw_values import raw

SPECIAL = ("<", ">", "&", "\n", "\r")


def value(v) -> str:
    text = raw(v, trimmed=True)
    if isinstance(v, str) and any(c in v for c in SPECIAL):
        if "]]>" in v:
            raise Unexpressible("a CDATA section cannot hold ]]>")
        return f"<![CDATA[{text}]]>"
    if "</param>" in text or "</function>" in text:
        raise Unexpressible("the value holds a marker that ends it")
    return text


def call(c: Call, i: int) -> str:
    params = "".join(f'<param name="{k}">{value(v)}</param>' for k, v in c.arguments.items())
    return f'<function name="{c.name}">{params}</function>'


GRAMMAR = Grammar(
    family="minicpm5",
    call=call,
    end="<|im_end|>",
    think=("<think>\n", "\n</think>"),
    prefill=prompt_of("minicpm5", "reasoning_prewritten"),
    markers=("<function", "</function>", "<param", "</param>"),
)
