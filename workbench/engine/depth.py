"""How deep the workbench goes: JSON nesting it reads, and the recursion its walks may use.

Three numbers, each with its reason:

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

# A JSON string (closed or not) or a bracket. Strings are skipped whole so that brackets inside
# them do not count.
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"?|([\[\]{}])', re.DOTALL)


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
