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
from typing import Any, Iterator

from ..depth import RUNTIME_RE_GROUPS, groups_too_deep
from ..errors import RegexTimeout, SchemaTypeError, SchemaValueError

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
    if groups_too_deep(pattern, RUNTIME_RE_GROUPS):  # the runtime's re runs out of recursion (ours need not)
        raise SchemaValueError(f"invalid regex {_shown(pattern)}: RecursionError: {_TOO_DEEP}") from None
    try:
        with warnings.catch_warnings():
            # "Possible nested set" and friends: validate() reports them; a parse stays quiet.
            warnings.simplefilter("ignore")
            return re.compile(pattern, re.DOTALL)
    except re.error as exc:
        raise SchemaValueError(f"invalid regex {_shown(pattern)}: {exc.msg} at offset {exc.pos}") from None
    except RecursionError:
        raise SchemaValueError(f"invalid regex {_shown(pattern)}: RecursionError: {_TOO_DEEP}") from None
    except Exception as exc:  # noqa: BLE001 - a repeat past 4294967295 is an OverflowError, and so on
        raise SchemaValueError(f"invalid regex {_shown(pattern)}: {type(exc).__name__}: {exc}") from None


_TOO_DEEP = f"groups nested too deeply for Python's re (transformers' re.compile gives up past about {RUNTIME_RE_GROUPS} levels)"


def _shown(pattern: str) -> str:
    text = repr(pattern)
    return text if len(text) <= 200 else text[:197] + "..."


# The runtime's calls, one function each. The deadline is the timer's (see arm): the calls
# themselves are plain ``re``.


def search(pattern: object, text: str):
    return compile_re(pattern).search(text)


def finditer(pattern: object, text: str) -> Iterator:
    return compile_re(pattern).finditer(text)


_LOOK_FIRST = 2000  # characters


def subn(pattern: object, repl: object, text: str) -> tuple[str, int]:
    compiled = compile_re(check_pattern(pattern))
    if not isinstance(repl, str):
        raise _not_a_template(repl)
    # Substitutions usually find nothing. re's subn then still parses a template with
    # backslashes (through a cache keyed by the compiled pattern, whose hash covers its code)
    # before it looks: on a short text, where that is much of the cost, check the template once,
    # by its text, and look first. (Not on a long one: a match would be searched for twice.)
    if len(text) <= _LOOK_FIRST and type(text) is str:  # (re hands a str subclass back as str)
        _check_template(pattern, repl)
        if compiled.search(text) is None:
            return text, 0
    try:
        # ``re`` reads the whole template before it looks for a match, so a bad one fails here
        # even when nothing matches, as in the runtime.
        return compiled.subn(repl, text)
    except re.error as exc:
        raise _bad_template(repl, exc) from None


def sub_matches(pattern: object, repl: object, text: str) -> tuple[str, list]:
    """Like subn, but also returns the matches (for the trace). ``expand`` is the same template
    code ``sub`` runs, so the text is identical; the template is checked first, as ``sub`` does."""
    compiled = compile_re(check_pattern(pattern))
    if not isinstance(repl, str):
        raise _not_a_template(repl)
    _check_template(pattern, repl)
    if len(text) <= _LOOK_FIRST and type(text) is str and compiled.search(text) is None:
        return text, []  # as in subn: the usual case, without the closure and sub
    found: list = []

    # A template without a backslash (no escape, no group reference) expands to itself; expand
    # would parse it again at every match.
    if "\\" not in repl:
        def replace(m) -> str:
            found.append(m)
            return repl
    else:
        def replace(m) -> str:
            found.append(m)
            return m.expand(repl)

    return compiled.sub(replace, text), found


@lru_cache(maxsize=2048)
def _check_template(pattern: str, repl: str) -> None:
    # Keyed by the pattern's text, not the compiled pattern: hashing a re.Pattern hashes its
    # whole compiled code, on every call.
    try:
        compile_re(pattern).sub(repl, "", count=1)
    except re.error as exc:
        raise _bad_template(repl, exc) from None


def _not_a_template(repl: object) -> SchemaTypeError:
    return SchemaTypeError(f"a substitution must be a string, got {type(repl).__name__}: {repl!r}")


def _bad_template(repl: str, exc: re.error) -> SchemaValueError:
    return SchemaValueError(f"invalid substitution {repl!r}: {exc.msg}")


class _AlarmState:
    armed = False
    limit = 0.0
    started = 0.0


_alarm = _AlarmState()


def _on_alarm(signum, frame):  # pragma: no cover - timing dependent
    if _alarm.armed:
        _alarm.armed = False
        raise _timeout_error(_alarm.limit, _alarm.started)


_DEFAULTS = (signal.SIG_DFL, signal.SIG_IGN, None)
_HAS_TIMER = hasattr(signal, "setitimer")
_MAIN_THREAD = threading.main_thread().ident
# signal.getsignal wraps the C function to convert handlers to enums; every parse asks, so ask
# the C function directly.
_getsignal = getattr(_signal, "getsignal", signal.getsignal)


_SIGALRM = signal.SIGALRM
_ITIMER_REAL = signal.ITIMER_REAL
_setitimer = signal.setitimer
_get_ident = threading.get_ident
_monotonic = time.monotonic


def arm(limit: float) -> Any:
    """Arm the timer for one parse, when it can run here (see the module's docstring). Returns
    what ``disarm`` needs: None when no timer was armed, True when our handler stays installed,
    or another program's handler, to put back.

    Two plain functions rather than a context manager: a small parse takes tens of microseconds,
    and a ``with`` block's enter and exit calls were a measurable part of them. Our handler stays
    installed between parses (it does nothing unless armed), because swapping handlers costs more
    than a small parse."""
    if not _HAS_TIMER or _get_ident() != _MAIN_THREAD or _alarm.armed:
        return None
    current = _getsignal(_SIGALRM)
    restore: Any = True
    if current is not _on_alarm:
        if current not in _DEFAULTS:
            if signal.getitimer(_ITIMER_REAL) != (0.0, 0.0):
                return None  # someone else's handler has a timer running: leave SIGALRM alone
            restore = current
        signal.signal(_SIGALRM, _on_alarm)
    _alarm.limit = limit
    _alarm.started = _monotonic()
    _alarm.armed = True
    _setitimer(_ITIMER_REAL, limit)
    return restore


def disarm(token: Any) -> None:
    """Stop the timer ``arm`` started, if it did, and put back the handler it replaced."""
    if token is None:
        return
    _alarm.armed = False  # first, so a signal arriving now is ignored
    _setitimer(_ITIMER_REAL, 0)
    if token is not True:
        signal.signal(_SIGALRM, token)


def cut_short() -> None:
    """End the parse in progress as its time limit would, from a signal handler of the caller's
    (the TUI's analysis process, when a newer edit supersedes the run): the timer fires at once
    and the parse unwinds through its own, tested, timeout path. Does nothing between parses."""
    if _alarm.armed:
        signal.setitimer(signal.ITIMER_REAL, 1e-6)
