"""How deep the workbench goes: JSON nesting it reads, and the recursion its walks may use.

The numbers, each with its reason:

- ``MAX_JSON_DEPTH`` (1,000 levels): the deepest JSON any file the workbench reads may nest (a
  schema, a template, a tokenizer config, ``chat_template.json``, ``--tools``, a golden). That is
  as deep as transformers itself can read: it loads ``tokenizer_config.json`` with ``json.load``,
  which gives up with a RecursionError at Python's default recursion limit, 1,000 frames. Deeper
  input is refused up front with one sentence instead of a traceback wherever it is walked.
- ``RUNTIME_JSON_DEPTH`` (990 levels): the deepest JSON text that transformers' own ``json.loads``
  of a model's output (a schema's ``x-parser: json``, a template's ``json`` content, argument
  casting) still decodes. Python's C decoder counts each level against the recursion limit (1,000
  by default), less the frames above the call: about 993 levels from a script's top level, a few
  less inside an application. Past this the runtime raises RecursionError, and so does our
  reproduction of it, without ever running a decoder that deep.
- ``RUNTIME_RE_GROUPS`` / ``RUNTIME_REGEX_FRAMES``: the same for a pattern's nested groups, which
  ``re`` (schemas) and ``regex`` (templates) compile recursively, and ``RUNTIME_DEFAULTS_DEPTH`` /
  ``RUNTIME_TRANSFORM_DEPTH`` for the template values the runtime walks when it loads a template.
- ``RECURSION_LIMIT`` (20,000 frames): what the engine's walks run under (``deep()``). Our
  interpreter spends up to three Python frames per schema level where ``recursive_parse`` spends
  one (the trace records each node), and validation, the trace's JSON view and the CLI's JSON
  output walk the same depth again; with every input capped at ``MAX_JSON_DEPTH`` levels, 20,000
  leaves a wide margin. Raising the limit is safe here because the depth of everything walked is
  bounded by the caps above, and CPython 3.11+ runs Python-to-Python calls without growing the C
  stack; a thread with a bigger stack would have been the other way, but the regex time limit is
  a SIGALRM timer, which only works on the main thread.
"""

from __future__ import annotations

import json
import re
import sys
import threading
from contextlib import contextmanager
from typing import Iterator

MAX_JSON_DEPTH = 1000
RUNTIME_JSON_DEPTH = 990
RECURSION_LIMIT = 20_000
# Groups nested deeper than this make the runtime's ``re.compile`` run out of recursion at Python's
# default limit: two frames a level of any kind, about 495 levels from a script's top level.
RUNTIME_RE_GROUPS = 490
# The ``regex`` package (the template runtime's) spends more, by kind of group: three frames a level
# for ``(``, five for ``(?:``, four for any other ``(?``, and gives up at about 985 frames in all
# (329 plain groups, 197 non-capturing, 246 lookarounds) from a script's top level.
RUNTIME_REGEX_FRAMES = 975
# A template's values the runtime walks recursively when it loads one: ``defaults`` is deep-copied
# (two frames a level: about 496 levels), a ``transform`` checked (one frame a level: about 992).
RUNTIME_DEFAULTS_DEPTH = 490
RUNTIME_TRANSFORM_DEPTH = 985

# A JSON string (closed or not; the loop unrolled, which re runs fastest) or a bracket. Strings
# are skipped whole so that brackets inside them do not count.
_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|([\[\]{}])', re.DOTALL)


def too_deep(text: str, limit: int) -> int | None:
    """The offset of the bracket that opens level ``limit + 1`` of the JSON text, or None when
    the text nests at most ``limit`` levels. Linear; texts with too few brackets to nest that deep
    are answered without a scan."""
    if len(text) <= 2 * limit or text.count("[") + text.count("{") <= limit:
        return None
    depth = 0
    for m in _TOKENS.finditer(text):
        bracket = m.group(1)
        if bracket is None:
            continue
        if bracket in "[{":
            depth += 1
            if depth > limit:
                return m.start()
        elif depth:
            depth -= 1
    return None


_lock = threading.Lock()
_holders = 0
_saved = 0


def enter() -> None:
    """Raise the recursion limit to at least ``RECURSION_LIMIT`` (never lower it) until the
    matching ``leave()``. Two plain functions rather than a context manager, because parse_response
    calls them on every parse (see regexes.arm). Holds are counted, so the previous limit comes
    back only when the last walk running anywhere in the process ends."""
    global _holders, _saved
    with _lock:
        if _holders == 0:
            _saved = _getlimit()
            if _saved < RECURSION_LIMIT:
                _setlimit(RECURSION_LIMIT)
        _holders += 1


def leave() -> None:
    global _holders
    with _lock:
        _holders -= 1
        if _holders == 0 and _saved < RECURSION_LIMIT and _getlimit() == RECURSION_LIMIT:
            _setlimit(_saved)


@contextmanager
def deep() -> Iterator[None]:
    """``enter()`` and ``leave()`` around a block."""
    enter()
    try:
        yield
    finally:
        leave()


_getlimit, _setlimit = sys.getrecursionlimit, sys.setrecursionlimit


def raise_limit() -> None:
    """For a program whose every input is capped (the CLI): the limit ``enter()`` gives, for good."""
    global _saved
    with _lock:
        if _getlimit() < RECURSION_LIMIT:
            _setlimit(RECURSION_LIMIT)
        _saved = max(_saved, RECURSION_LIMIT)


def runtime_json_overflow(text: str) -> str | None:
    """None when transformers' ``json.loads(text)`` stays within ``RUNTIME_JSON_DEPTH`` levels (or
    fails on a syntax error first); else the message of the RecursionError it raises."""
    at = too_deep(text, RUNTIME_JSON_DEPTH)
    if at is None:
        return None
    try:
        # The text up to and including the bracket that goes one level too deep: a syntax error
        # at or before that bracket is what json.loads reports first, as the runtime's does.
        json.loads(text[: at + 1])
    except json.JSONDecodeError as exc:
        if exc.pos <= at:
            return None
    except RecursionError:
        pass  # the limit here is as low as the runtime's: the runtime's error, then
    kind = "array" if text[at] == "[" else "object"
    return f"maximum recursion depth exceeded while decoding a JSON {kind} from a unicode string"


def groups_too_deep(pattern: str, limit: int) -> bool:
    """Whether the pattern nests groups (of any kind) more than ``limit`` deep, as ``re`` counts
    them: escapes and character classes skipped, as the compilers read them."""
    return pattern.count("(") > limit and _deepest(pattern, lambda kind: 1, limit) > limit


def regex_groups_too_deep(pattern: str) -> bool:
    """Whether the ``regex`` package's compiler, at Python's default recursion limit, runs out of
    recursion on the pattern's nested groups (see RUNTIME_REGEX_FRAMES)."""
    return 5 * pattern.count("(") > RUNTIME_REGEX_FRAMES and _deepest(pattern, _regex_frames, RUNTIME_REGEX_FRAMES) > RUNTIME_REGEX_FRAMES


def _regex_frames(kind: str) -> int:
    return 3 if kind != "?" else 4


def _deepest(pattern: str, cost, limit: int) -> int:
    """The most a chain of nested groups costs (each group by ``cost(kind)``, kind the character
    after its ``(``; ``(?:`` costs one more), stopping once past ``limit``."""
    stack: list[int] = []
    total = deepest = 0
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            i += 1
            if i < n and pattern[i] == "^":
                i += 1
            if i < n and pattern[i] == "]":
                i += 1  # a leading ] is a literal
            while i < n and pattern[i] != "]":
                i += 2 if pattern[i] == "\\" else 1
        elif c == "(":
            kind = pattern[i + 1 : i + 2]
            step = cost(kind) + (1 if kind == "?" and pattern[i + 2 : i + 3] == ":" and cost(kind) > 1 else 0)
            stack.append(step)
            total += step
            if total > deepest:
                deepest = total
                if deepest > limit:
                    return deepest
        elif c == ")" and stack:
            total -= stack.pop()
        i += 1
    return deepest


def value_too_deep(value: object, limit: int) -> bool:
    """Whether lists and dicts nest more than ``limit`` levels in ``value`` (without recursion)."""
    stack = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        elif not isinstance(item, list):
            continue
        if level + 1 > limit:
            return True
        stack.extend((child, level + 1) for child in item)
    return False
