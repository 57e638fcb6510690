"""Running schema regexes exactly as Python's ``re`` does, but never for longer than a time limit.

transformers runs every schema regex through ``re`` with DOTALL, and ``re`` has no time limit.
Two backends give ``re``'s results under a deadline:

* ``re`` itself, bounded by a SIGALRM timer. CPython's regex engine checks for signals while it
  matches, so the handler's exception stops a runaway match. Signals reach only the main thread,
  so this backend serves the CLI, the tests and the benchmarks. It *is* ``re``, so it is exact.
* the ``regex`` package with its ``timeout=`` argument, for worker threads (the TUI). Its syntax is
  a superset of ``re``'s, so every pattern is first compiled by ``re`` (same errors as the runtime)
  and then rewritten so that the few constructs ``regex`` reads differently keep ``re``'s meaning.
  ``concurrent=True`` releases the GIL so a slow match never freezes the interface.
"""

from __future__ import annotations

import _signal
import re
import signal
import threading
import time
import warnings
from functools import lru_cache
from typing import Iterator

import regex

from .errors import RegexTimeout, SchemaTypeError, SchemaValueError

DEFAULT_TIME_LIMIT = 2.0  # seconds for one whole parse; real schemas need milliseconds


def _timeout_error(limit: float, started: float) -> RegexTimeout:
    """The error for a parse stopped at its limit. It says how long the parse ran, which is the
    limit give or take the delay before the stop is noticed."""
    return RegexTimeout(
        f"stopped after {time.monotonic() - started:.1f} s (time limit {limit:g} s): "
        "a regex here backtracks too much on this input"
    )


def check_pattern(pattern: object) -> str:
    if not isinstance(pattern, str):
        raise SchemaTypeError(f"a regex must be a string, got {type(pattern).__name__}: {pattern!r}")
    return pattern


@lru_cache(maxsize=2048)
def compile_re(pattern: str) -> re.Pattern:
    """Compile as transformers does (``re``, DOTALL); a bad pattern is an error naming the offset."""
    check_pattern(pattern)
    try:
        with warnings.catch_warnings():
            # "Possible nested set" and friends: validate() reports them; a parse stays quiet.
            warnings.simplefilter("ignore")
            return re.compile(pattern, re.DOTALL)
    except re.error as exc:
        raise SchemaValueError(f"invalid regex {pattern!r}: {exc.msg} at offset {exc.pos}") from None


def to_regex_module_syntax(pattern: str) -> str:
    """Rewrite a pattern ``re`` accepts so that the ``regex`` package reads it the same way.

    Written by hand because no library translates between the two dialects. For patterns ``re``
    accepts, the readings differ in three places:
    * a ``[`` inside a set is literal for ``re`` but opens a POSIX class or nested set for
      ``regex``; a ``{`` that no valid quantifier follows is literal for ``re`` but may be fuzzy
      matching (``{e<=1}``) for ``regex``. Both get escaped; quantifiers are written out in full.
    * ``\\d \\w \\s`` (and their negations and ``\\b \\B``) follow ``str.isdecimal``/``isalnum``/
      ``isspace`` and Python's Unicode version in ``re``, but the ``regex`` package's own Unicode
      tables. They become explicit sets built from ``re`` itself (unless ASCII mode makes them agree).
    """
    # One entry per open group: whether ASCII mode holds inside it (``(?a:...)`` scopes it).
    ascii_scopes = [bool(compile_re(pattern).flags & re.ASCII)]
    out: list[str] = []
    i, n = 0, len(pattern)
    in_set = False
    while i < n:
        c = pattern[i]
        if c == "\\":
            escape = pattern[i : i + 2]
            letter = escape[1:]
            if not ascii_scopes[-1] and letter in _CLASS_LETTERS and not (in_set and letter in "bB"):
                out.append(_class_escape(letter, in_set))
            else:
                out.append(escape)
            i += 2
            continue
        if in_set:
            if c == "]":
                in_set = False
            elif c == "[":
                c = "\\["
            out.append(c)
            i += 1
            continue
        if c == "[":
            # A ']' right after '[' or '[^' is a literal member, not the end of the set.
            j = i + 1
            if j < n and pattern[j] == "^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            out.append(pattern[i:j].replace("[^]", "[^\\]").replace("[]", "[\\]"))
            in_set = True
            i = j
            continue
        if c == "(":
            scoped = _SCOPED_FLAGS.match(pattern, i)
            ascii_scopes.append(ascii_scopes[-1] or bool(scoped and "a" in scoped.group(1)))
        elif c == ")" and len(ascii_scopes) > 1:
            ascii_scopes.pop()
        if c == "{":
            m = _QUANTIFIER.match(pattern, i)
            if m and pattern[i + 1] != "}":
                lo, comma, hi = m.groups()
                out.append("{" + (lo or "0") + ("," + hi if comma else "") + "}")
                i = m.end()
                continue
            out.append("\\{")
            i += 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


_QUANTIFIER = re.compile(r"\{(\d*)(,?)(\d*)\}")
_SCOPED_FLAGS = re.compile(r"\(\?([aiLmsux]*)(?:-[imsx]*)?:")
_CLASS_LETTERS = "dDwWsSbB"


@lru_cache(maxsize=None)
def _spans(letter: str) -> tuple[tuple[int, int], ...]:
    """The code point ranges ``re`` matches with ``\\d``, ``\\w`` or ``\\s`` (lowercase letters), or
    with their negations (the complement). Built once, by asking ``re`` itself."""
    if letter.isupper():
        spans, start = [], 0
        for a, b in _spans(letter.lower()):
            if a > start:
                spans.append((start, a - 1))
            start = b + 1
        if start <= 0x10FFFF:
            spans.append((start, 0x10FFFF))
        return tuple(spans)
    # Every code point (surrogates too) at the index of its own value, so that a run of matches
    # is a range of code points. Built here, not kept: 4 MB for three lookups.
    every = "".join(map(chr, range(0x110000)))
    return tuple((m.start(), m.end() - 1) for m in re.finditer("\\" + letter + "+", every))


@lru_cache(maxsize=None)
def _ranges(letter: str) -> str:
    """Set members (``a-z`` ranges) for a class letter, as _spans gives it."""
    return "".join(f"\\U{a:08x}" if a == b else f"\\U{a:08x}-\\U{b:08x}" for a, b in _spans(letter))


def _class_escape(letter: str, in_set: bool) -> str:
    if letter in "bB":
        word = f"[{_ranges('w')}]"
        if letter == "b":
            return f"(?:(?<={word})(?!{word})|(?<!{word})(?={word}))"
        # re's \\B never matches in an empty string; hence the last condition.
        return f"(?:(?<={word})(?={word})|(?<!{word})(?!{word})(?:(?=(?s:.))|(?<=(?s:.))))"
    if in_set:
        return _ranges(letter)
    # Outside a set, a negation is the negated set of the plain class: a short pattern, where
    # spelling out the complement would list every other range of the code space.
    return f"[^{_ranges(letter.lower())}]" if letter.isupper() else f"[{_ranges(letter)}]"


@lru_cache(maxsize=2048)
def compile_regex_module(pattern: str) -> regex.Pattern:
    compile_re(pattern)  # the runtime's errors first, with the runtime's messages
    return regex.compile(to_regex_module_syntax(pattern), regex.DOTALL | regex.VERSION0)


class Matcher:
    """search / finditer / subn with ``re``'s results, under the deadline of one parse."""

    def __init__(self, limit: float, use_signal: bool) -> None:
        self.limit = limit
        self.use_signal = use_signal
        self._started = time.monotonic()
        self._end = self._started + limit
        if use_signal:  # the hot path: plain re calls, the timer does the limiting
            self.search = _re_search
            self.finditer = _re_finditer

    def _remaining(self) -> float:
        left = self._end - time.monotonic()
        if left <= 0:
            raise _timeout_error(self.limit, self._started)
        return left

    def search(self, pattern: object, text: str):
        try:
            return compile_regex_module(pattern).search(text, timeout=self._remaining(), concurrent=True)
        except TimeoutError:
            raise _timeout_error(self.limit, self._started) from None

    def finditer(self, pattern: object, text: str) -> Iterator:
        compiled = compile_regex_module(pattern)
        try:
            yield from compiled.finditer(text, timeout=self._remaining(), concurrent=True)
        except TimeoutError:
            raise _timeout_error(self.limit, self._started) from None

    def subn(self, pattern: object, repl: object, text: str) -> tuple[str, int]:
        compiled_re = self._checked_sub(pattern, repl)
        if self.use_signal:
            return compiled_re.subn(repl, text)
        try:
            return compile_regex_module(pattern).subn(repl, text, timeout=self._remaining(), concurrent=True)
        except TimeoutError:
            raise _timeout_error(self.limit, self._started) from None

    def sub_matches(self, pattern: object, repl: object, text: str) -> tuple[str, list]:
        """Like subn, but also returns the matches (for the trace). ``expand`` is the same template
        code ``sub`` runs, so the text is identical."""
        self._checked_sub(pattern, repl)
        found: list = []

        def replace(m) -> str:
            found.append(m)
            return m.expand(repl)

        if self.use_signal:
            return compile_re(pattern).sub(replace, text), found
        try:
            new = compile_regex_module(pattern).sub(replace, text, timeout=self._remaining(), concurrent=True)
        except TimeoutError:
            raise _timeout_error(self.limit, self._started) from None
        return new, found

    @staticmethod
    def _checked_sub(pattern: object, repl: object) -> re.Pattern:
        """The runtime checks the replacement template before it matches; so do we, with its errors."""
        compiled_re = compile_re(check_pattern(pattern))
        if not isinstance(repl, str):
            raise SchemaTypeError(f"a substitution must be a string, got {type(repl).__name__}: {repl!r}")
        try:
            compiled_re.sub(repl, "", count=1)
        except re.error as exc:
            raise SchemaValueError(f"invalid substitution {repl!r}: {exc.msg}") from None
        return compiled_re


def _re_search(pattern: str, text: str):
    return compile_re(pattern).search(text)


def _re_finditer(pattern: str, text: str) -> Iterator:
    return compile_re(pattern).finditer(text)


class _AlarmState:
    armed = False
    limit = 0.0
    started = 0.0


_alarm = _AlarmState()


def _on_alarm(signum, frame):  # pragma: no cover - timing dependent
    if _alarm.armed:
        _alarm.armed = False
        raise _timeout_error(_alarm.limit, _alarm.started)


_OURS_OR_DEFAULT = (_on_alarm, signal.SIG_DFL, signal.SIG_IGN, None)
_HAS_TIMER = hasattr(signal, "setitimer")
_MAIN_THREAD = threading.main_thread().ident
# signal.getsignal wraps the C function to convert handlers to enums; every parse asks, so ask
# the C function directly.
_getsignal = getattr(_signal, "getsignal", signal.getsignal)


def _signal_usable() -> bool:
    if not _HAS_TIMER or threading.get_ident() != _MAIN_THREAD or _alarm.armed:
        return False
    # Someone else's handler may have a timer running: then leave SIGALRM alone.
    return _getsignal(signal.SIGALRM) in _OURS_OR_DEFAULT or signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


class matcher:
    """``with matcher(limit, backend) as m``: a Matcher for one parse. With the ``re`` backend it
    arms the timer and always disarms it. Our SIGALRM handler stays installed between parses (it
    does nothing unless armed) because swapping handlers costs more than a small parse; another
    program's handler, if one was installed, is put back after each parse."""

    __slots__ = ("limit", "backend", "previous", "use_signal")

    def __init__(self, limit: float = DEFAULT_TIME_LIMIT, backend: str = "auto") -> None:
        if backend not in ("auto", "re", "regex"):
            raise ValueError(f"unknown regex backend {backend!r}")
        self.limit, self.backend, self.previous = limit, backend, None

    def __enter__(self) -> Matcher:
        self.use_signal = self.backend != "regex" and _signal_usable()
        if self.backend == "re" and not self.use_signal:
            raise RuntimeError("the 're' backend needs the main thread and a free SIGALRM timer")
        if not self.use_signal:
            return Matcher(self.limit, False)
        current = _getsignal(signal.SIGALRM)
        if current is not _on_alarm:
            signal.signal(signal.SIGALRM, _on_alarm)
            if current not in (signal.SIG_DFL, signal.SIG_IGN, None):
                self.previous = current
        _alarm.limit = self.limit
        _alarm.started = time.monotonic()
        _alarm.armed = True
        signal.setitimer(signal.ITIMER_REAL, self.limit)
        return Matcher(self.limit, True)

    def __exit__(self, *exc_info) -> None:
        if not self.use_signal:
            return
        _alarm.armed = False  # first, so a signal arriving now is ignored
        signal.setitimer(signal.ITIMER_REAL, 0)
        if self.previous is not None:
            signal.signal(signal.SIGALRM, self.previous)
