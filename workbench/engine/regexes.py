"""Running schema regexes exactly as transformers does (Python's ``re``, DOTALL), under a time limit.

``re`` has no time limit of its own, so one parse runs under a SIGALRM timer: CPython's regex
engine checks for signals while it matches, so the handler's exception stops a runaway match.
The limit therefore holds where the timer can run, on the main thread (the CLI, the tests, the
TUI's analysis process). Signals reach only the main thread: in any other thread, or while
another program's timer holds SIGALRM, a parse runs with plain ``re`` and no time limit, exactly
as in transformers.
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


class Matcher:
    """search / finditer / subn with ``re``'s results. The deadline is the timer's (see matcher):
    the calls themselves are plain ``re``."""

    __slots__ = ()

    @staticmethod
    def search(pattern: object, text: str):
        return compile_re(pattern).search(text)

    @staticmethod
    def finditer(pattern: object, text: str) -> Iterator:
        return compile_re(pattern).finditer(text)

    def subn(self, pattern: object, repl: object, text: str) -> tuple[str, int]:
        return self._checked_sub(pattern, repl).subn(repl, text)

    def sub_matches(self, pattern: object, repl: object, text: str) -> tuple[str, list]:
        """Like subn, but also returns the matches (for the trace). ``expand`` is the same template
        code ``sub`` runs, so the text is identical."""
        compiled = self._checked_sub(pattern, repl)
        found: list = []

        def replace(m) -> str:
            found.append(m)
            return m.expand(repl)

        return compiled.sub(replace, text), found

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


_MATCHER = Matcher()


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
    """``with matcher(limit) as m``: the Matcher for one parse, with the timer armed for ``limit``
    seconds when it can be (see the module's docstring), and always disarmed after. Our SIGALRM
    handler stays installed between parses (it does nothing unless armed) because swapping
    handlers costs more than a small parse; another program's handler, if one was installed, is
    put back after each parse."""

    __slots__ = ("limit", "previous", "use_signal")

    def __init__(self, limit: float = DEFAULT_TIME_LIMIT) -> None:
        self.limit, self.previous = limit, None

    def __enter__(self) -> Matcher:
        self.use_signal = _signal_usable()
        if not self.use_signal:
            return _MATCHER
        current = _getsignal(signal.SIGALRM)
        if current is not _on_alarm:
            signal.signal(signal.SIGALRM, _on_alarm)
            if current not in (signal.SIG_DFL, signal.SIG_IGN, None):
                self.previous = current
        _alarm.limit = self.limit
        _alarm.started = time.monotonic()
        _alarm.armed = True
        signal.setitimer(signal.ITIMER_REAL, self.limit)
        return _MATCHER

    def __exit__(self, *exc_info) -> None:
        if not self.use_signal:
            return
        _alarm.armed = False  # first, so a signal arriving now is ignored
        signal.setitimer(signal.ITIMER_REAL, 0)
        if self.previous is not None:
            signal.signal(signal.SIGALRM, self.previous)


def cut_short() -> None:
    """End the parse in progress as its time limit would, from a signal handler of the caller's
    (the TUI's analysis process, when a newer edit supersedes the run): the timer fires at once
    and the parse unwinds through its own, tested, timeout path. Does nothing between parses."""
    if _alarm.armed:
        signal.setitimer(signal.ITIMER_REAL, 1e-6)
