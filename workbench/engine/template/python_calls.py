"""The ``python-call-list`` content parser (transformers 5.24+): a list of keyword-argument calls,
``[get_weather(city="Paris", days=3), now()]``, read into
``[{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}, {"name": "now", "arguments": {}}]``
(docs/response-template.md#content-parsers).

The grammar is strict, and so is this reader, value for value and error for error with 5.24.0:

- whitespace is ASCII only (space, tab, newline, carriage return), anywhere between tokens;
- a call is a name (``[A-Za-z_][A-Za-z0-9_]*`` with ``-`` or ``.`` joined parts, ASCII only), then
  keyword arguments only, named the same way; no trailing comma; a repeated argument name fails
  once its ``)`` has been read (a repeated call name is fine);
- a value is a string in ``'`` or ``"`` (no raw newline or carriage return; the escapes
  ``\\\\ \\' \\" \\/ \\b \\f \\n \\r \\t \\uXXXX``, a high and a low ``\\u`` surrogate joined, any
  other surrogate refused, escaped or raw), a JSON-style number (an integer within +/-(2^53 - 1),
  a finite float), ``True true False false None null``, a list, or a dict with string keys
  (a repeated key fails once its ``}`` has been read); lists and dicts nest at most 100 deep;
- nothing but whitespace after the closing ``]``.

Errors are ``ValueError("python-call-list: <message> at position N.\\nContent: <repr of the text>")``,
N being where the reader stood: the start of the token it could not read (after whitespace), the
opening quote of a string whose content is refused, or just past the bracket that closed a call or
dict with a repeated name.

The reader is iterative (an explicit stack of open lists and dicts, so no Python recursion) and
linear in the length of the text: each token is read once, by patterns that repeat single
characters only (no group repeated per part or per escape, whose bookkeeping grows with the input),
and strings are built from slices joined once (benchmarks/bench_python_calls.py).
"""

from __future__ import annotations

import re
from typing import Any, NoReturn

import regex

MAX_DEPTH = 100
MAX_INTEGER = 2**53 - 1
# An integer literal longer than this (sign included) is out of range whatever its digits: the
# range check never has to convert a huge literal.
_MAX_INTEGER_CHARS = len(str(MAX_INTEGER)) + 1

_SPACE = re.compile(r"[ \t\n\r]*")
# A name is [A-Za-z_][A-Za-z0-9_]* and then any number of "-" or "." each followed by [A-Za-z0-9_]+:
# read as the run of name characters, cut at its first "-" or "." not followed by a word character.
# (One repeated character class: no group repeated per part, whose bookkeeping grows with the run.)
_NAME_RUN = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
_NAME_CUT = re.compile(r"[-.](?![A-Za-z0-9_])")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?P<fraction>\.[0-9]+)?(?P<exponent>[eE][+-]?[0-9]+)?")
# Where a string may end: its own quote, or a raw newline or return (which make it invalid), with
# the run of backslashes before it. An odd run escapes it (the string goes on), an even one does not.
# (Repeated single characters only: no group repeated per escape, whose bookkeeping grows with it.)
_STRING_STOP = {quote: re.compile(rf"\\*[{quote}\n\r]") for quote in ("'", '"')}
_RAW_SURROGATE = re.compile("[\ud800-\udfff]")
_HEX4 = re.compile(r"[0-9a-fA-F]{4}")
_SIMPLE_ESCAPES = {"\\": "\\", "'": "'", '"': '"', "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_CONSTANTS = {"True": True, "true": True, "False": False, "false": False, "None": None, "null": None}
# The runtime's first step is this match with the ``regex`` module: what it raises for a value that
# is not a str (an xml-inline value group that did not take part is None) is the runtime's TypeError.
_RUNTIME_FIRST_STEP = regex.compile(r"[ \t\n\r]*")
_NOT_A_VALUE = "expected a string, number, list, dict, True, False or None"
_NOT_AN_ARGUMENT = "expected a keyword argument (positional arguments and trailing commas are not supported)"


def parse_python_call_list(text: str, args: Any = None, limit=None, where=(), release: Any = None) -> list[dict]:
    """``text`` read as a call list (``args``, ``limit``, ``where`` and ``release`` are not used: the parser
    takes no arguments and runs no user pattern)."""
    if not isinstance(text, str):
        _RUNTIME_FIRST_STEP.match(text, 0)  # the runtime's TypeError
    return _Reader(text).calls()


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    # -- tokens ---------------------------------------------------------------------------------

    def fail(self, message: str) -> NoReturn:
        raise ValueError(f"python-call-list: {message} at position {self.pos}.\nContent: {self.text!r}")

    def next_char(self) -> str:
        """The next character after whitespace ('' at the end); the position moves past the whitespace."""
        self.pos = _SPACE.match(self.text, self.pos).end()
        return self.text[self.pos : self.pos + 1]

    def take(self, char: str) -> bool:
        if self.next_char() == char:
            self.pos += 1
            return True
        return False

    def need(self, char: str) -> None:
        if not self.take(char):
            self.fail(f"expected {char!r}")

    def name_end(self) -> int | None:
        """Where the name at the position ends (None: no name there)."""
        run = _NAME_RUN.match(self.text, self.pos)
        if run is None:
            return None
        cut = _NAME_CUT.search(self.text, self.pos, run.end())
        return run.end() if cut is None else cut.start()

    def name(self, what: str) -> str:
        self.next_char()
        end = self.name_end()
        if end is None:
            self.fail(what)
        start, self.pos = self.pos, end
        return self.text[start:end]

    def string(self) -> str:
        """The string whose quote is at the position (already known to be a quote). Refused, in
        the runtime's order: a string that does not end (or holds a raw newline or return), then
        one holding a raw surrogate, then its first refused escape."""
        text, start = self.text, self.pos
        stop = _STRING_STOP[text[start]]
        search = start + 1
        while True:
            found = stop.search(text, search)
            if found is None:
                self.fail("invalid string")
            end = found.end() - 1
            if (end - found.start()) % 2 == 0:  # not escaped
                if text[end] in "\n\r":
                    self.fail("invalid string")
                break
            search = found.end()
        if _RAW_SURROGATE.search(text, start + 1, end) is not None:
            self.fail("lone surrogate in the string starting")
        body = text[start + 1 : end]
        if "\\" in body:
            try:
                body = _unescape(body)
            except _Refused as refused:
                self.fail(refused.args[0])
        self.pos = end + 1
        return body

    def scalar(self) -> Any:
        """A number or a constant at the position (after whitespace)."""
        number = _NUMBER.match(self.text, self.pos)
        if number is not None:
            literal = number.group()
            if number.group("fraction") is None and number.group("exponent") is None:
                if len(literal) > _MAX_INTEGER_CHARS or abs(int(literal)) > MAX_INTEGER:
                    self.fail("integer outside the range of -(2^53 - 1) to 2^53 - 1")
                result: Any = int(literal)
            else:
                result = float(literal)
                if result in (float("inf"), float("-inf")):
                    self.fail("number too large")
            self.pos = number.end()
            return result
        end = self.name_end()
        if end is not None and self.text[self.pos : end] in _CONSTANTS:
            word, self.pos = self.text[self.pos : end], end
            return _CONSTANTS[word]
        self.fail(_NOT_A_VALUE)

    # -- structure ------------------------------------------------------------------------------

    def key(self) -> str:
        """A dict key and its colon."""
        if self.next_char() not in ("'", '"'):
            self.fail("dict keys must be strings")
        key = self.string()
        self.need(":")
        return key

    def value(self) -> Any:
        """One argument's value, lists and dicts read with a stack of open containers: each entry
        is [closer, container, pending dict key, first repeated dict key]."""
        stack: list[list[Any]] = []
        while True:
            # Read the start of a value: a whole scalar or string, or the opening of a container.
            char = self.next_char()
            if char in ("'", '"'):
                item = self.string()
            elif char in ("[", "{"):
                if len(stack) >= MAX_DEPTH:
                    self.fail(f"lists and dicts nested more than {MAX_DEPTH} levels deep")
                self.pos += 1
                if char == "[":
                    stack.append(["]", [], None, None])
                    if not self.take("]"):
                        continue
                    item = stack.pop()[1]
                else:
                    stack.append(["}", {}, None, None])
                    if not self.take("}"):
                        stack[-1][2] = self.key()
                        continue
                    item = stack.pop()[1]
            else:
                item = self.scalar()
            # Put the value in its container; close containers while their closers follow.
            while stack:
                top = stack[-1]
                closer, container = top[0], top[1]
                if closer == "]":
                    container.append(item)
                elif top[2] not in container:
                    container[top[2]] = item
                elif top[3] is None:
                    top[3] = top[2]
                if not self.take(closer):
                    self.need(",")
                    if closer == "}":
                        top[2] = self.key()
                    break
                stack.pop()
                if top[3] is not None:
                    self.fail(f"repeated name {top[3]!r}")
                item = container
            else:
                return item

    def call(self) -> dict:
        function = self.name("expected a function name")
        self.need("(")
        arguments: dict[str, Any] = {}
        repeated = None
        if not self.take(")"):
            while True:
                keyword = self.name(_NOT_AN_ARGUMENT)
                if not self.take("="):
                    self.fail("expected '=' (positional arguments are not supported)")
                item = self.value()
                if keyword in arguments:
                    repeated = keyword if repeated is None else repeated
                else:
                    arguments[keyword] = item
                if self.take(")"):
                    break
                self.need(",")
        if repeated is not None:
            self.fail(f"repeated name {repeated!r}")
        return {"name": function, "arguments": arguments}

    def calls(self) -> list[dict]:
        self.need("[")
        found: list[dict] = []
        if not self.take("]"):
            while True:
                found.append(self.call())
                if self.take("]"):
                    break
                self.need(",")
        if self.next_char():
            self.fail("unexpected content after the closing ']'")
        return found


class _Refused(Exception):
    """An escape the grammar refuses (its message)."""


def _unescape(body: str) -> str:
    """What a string's body (whose escapes each have their character) stands for; _Refused names
    the first escape refused."""
    pieces: list[str] = []
    done = 0
    simple_escapes = _SIMPLE_ESCAPES
    while (backslash := body.find("\\", done)) >= 0:
        pieces.append(body[done:backslash])
        simple = simple_escapes.get(body[backslash + 1])
        if simple is not None:
            pieces.append(simple)
            done = backslash + 2
        else:
            decoded, done = _one_escape(body, backslash)
            pieces.append(decoded)
    pieces.append(body[done:])
    return "".join(pieces)


def _one_escape(body: str, backslash: int) -> tuple[str, int]:
    """The character the escape at ``backslash`` stands for and where the text after it starts;
    _Refused says why it is refused."""
    letter = body[backslash + 1]
    simple = _SIMPLE_ESCAPES.get(letter)
    if simple is not None:
        return simple, backslash + 2
    if letter != "u" or _HEX4.match(body, backslash + 2) is None:
        raise _Refused(f"unsupported escape {body[backslash : backslash + 2]!r} in the string starting")
    code = int(body[backslash + 2 : backslash + 6], 16)
    after = backslash + 6
    if 0xD800 <= code <= 0xDBFF and body.startswith("\\u", after) and _HEX4.match(body, after + 2) is not None:
        low = int(body[after + 2 : after + 6], 16)
        if 0xDC00 <= low <= 0xDFFF:
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            after += 6
    if 0xD800 <= code <= 0xDFFF:
        raise _Refused("lone surrogate escape in the string starting")
    return chr(code), after
