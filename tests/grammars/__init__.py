"""Each shipped family's output grammar, for the shape property (tests/test_output_shapes.py).

A grammar says how a model of the family writes its parts: reasoning (by the model, or opened by
the prompt), a text segment, a call with its name and arguments, the section that holds a run of
calls, and the end of its turn. From these parts the property builds outputs in every interleaving
(``render``) and knows, for each, the message that gives back every word: the reasoning, every
text segment joined by the join rule (``SEP``, docs/join-rule.md), and every call whole.

Written from each family's format facts (schemas/README.md, the family's samples), one module per
family in this package, each defining ``GRAMMAR``. A writer raises ``Unexpressible`` for a value
the format cannot write exactly (a string argument that looks like a number, where the format
writes values bare and reads them by the JSON rule): such shapes are not drawn.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent.parent
SAMPLES = ROOT / "sample_outputs"

# The join rule (docs/join-rule.md): each text segment trimmed of the whitespace at its edges,
# empty ones left out, the rest joined by one blank line.
SEP = "\n\n"


class Unexpressible(Exception):
    """The format cannot write this part exactly; the shape is not drawn."""


@dataclass(frozen=True)
class Text:
    text: str
    in_section: bool = False  # written inside a call section, between two of its calls


@dataclass(frozen=True)
class Call:
    name: str
    arguments: dict


@dataclass(frozen=True)
class Shape:
    """What the model wrote: reasoning (None: none), whether the prompt opened it, and the
    segments and calls in order; ``gaps[i]`` is the whitespace written before part ``i`` (the
    reasoning block counts as part 0 when there is one) and ``gaps[-1]`` before the end marker."""

    reasoning: str | None
    prefilled: bool
    items: tuple[Text | Call, ...]
    gaps: tuple[str, ...]


def identity(text: str) -> str:
    return text


def json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def prompt_of(family: str, case: str = "default") -> str:
    """A sample prompt of the family (``<case>.prompt.txt``, or the folder's default)."""
    folder = SAMPLES / family
    for name in (f"{case}.prompt.txt", "default.prompt.txt"):
        if (folder / name).is_file():
            return (folder / name).read_text(encoding="utf-8")
    return ""


@dataclass
class Grammar:
    """How one family writes its parts (the module docstring)."""

    family: str
    call: Callable[[Call, int], str]  # the text of the i-th call of the output
    end: str = ""  # written last (the end-of-turn marker), after gaps[-1]
    think: tuple[str, str] | None = None  # reasoning's opener and closer, as the model writes them
    prefill: str | None = None  # the prompt that writes the opener itself (the output starts inside)
    prompt: str = ""  # the prompt for every other shape
    section: tuple[str, str] | None = None  # what opens and closes a run of calls
    call_gap: str = "\n"  # between two calls of one section
    text_in_section: bool = False  # the format lets text stand between two calls of one section
    text_wrap: tuple[str, str] = ("", "")  # written around a text segment (a channel message's header and end)
    markers: tuple[str, ...] = ()  # the call markers a sentence may name
    check_text: Callable[[str], None] = lambda text: None  # raises Unexpressible
    gaps: tuple[str, ...] = ("", " ", "\n", "\n\n")  # whitespace the model writes between parts
    reasoning_field: str = "thinking"
    calls_first: bool = False  # text may only follow the calls (never come before a call)
    max_calls: int = 3
    notes: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.prompt:
            self.prompt = prompt_of(self.family)


@dataclass
class Rendered:
    output: str
    prompt: str
    thinking: str | None  # the reasoning the message must give, stripped (None: none)
    texts: list[str]  # each segment's text as the message must give it (stripped, non-empty)
    calls: list[Call]
    # (kind, start, end, index) of each part in ``output``: "think", "text" or "call"
    parts: list[tuple[str, int, int, int]]

    @property
    def content(self) -> str | None:
        return SEP.join(self.texts) or None


def render(grammar: Grammar, shape: Shape) -> Rendered:
    """The output a model of ``grammar``'s family writes for ``shape``, and what it holds.
    Raises Unexpressible where the format cannot write it."""
    out: list[str] = []
    parts: list[tuple[str, int, int, int]] = []
    pos = 0

    def write(text: str, kind: str | None = None, index: int = -1) -> None:
        nonlocal pos
        if kind is not None:
            parts.append((kind, pos, pos + len(text), index))
        out.append(text)
        pos += len(text)

    gaps = list(shape.gaps)
    prompt = grammar.prompt
    thinking = None
    if shape.reasoning is not None:
        if grammar.think is None:
            raise Unexpressible("the family does not reason")
        opener, closer = grammar.think
        grammar.check_text(shape.reasoning)
        if shape.prefilled:
            if grammar.prefill is None:
                raise Unexpressible("no prompt opens the reasoning")
            prompt = grammar.prefill
            write(shape.reasoning, "think", 0)
        else:
            write(opener)
            write(shape.reasoning, "think", 0)
        write(closer)
        thinking = shape.reasoning.strip() or None
        write(gaps.pop(0))
    items = list(shape.items)
    texts: list[str] = []
    calls: list[Call] = []
    in_section = False
    for i, item in enumerate(items):
        gap = gaps[i]
        if isinstance(item, Call):
            if grammar.section and not in_section:
                write(gap)
                write(grammar.section[0])
                in_section = True
                gap = ""
            elif in_section:
                gap = grammar.call_gap if isinstance(items[i - 1], Call) else gap
            write(gap)
            write(grammar.call(item, len(calls)), "call", len(calls))
            calls.append(item)
            continue
        grammar.check_text(item.text)
        if in_section and not item.in_section:
            write(grammar.section[1])
            in_section = False
        write(gap)
        write(grammar.text_wrap[0])
        write(item.text, "text", len(texts))
        write(grammar.text_wrap[1])
        if item.text.strip():
            texts.append(item.text.strip())
    if in_section:
        write(grammar.section[1])
    write(gaps[len(items)] if len(gaps) > len(items) else "")
    write(grammar.end)
    return Rendered("".join(out), prompt, thinking, texts, calls, parts)


def _modules() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules([str(Path(__file__).parent)]) if not m.name.startswith("_"))


def grammars() -> dict[str, Grammar]:
    """Every family's grammar, by family."""
    found = {}
    for name in _modules():
        grammar = importlib.import_module(f"grammars.{name}").GRAMMAR
        found[grammar.family] = grammar
    return found
