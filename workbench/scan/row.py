"""The one row function of every scan engine: ``RowScanner``, a pure function of a row's columns
that pickles to the few strings that define it (the parser's text, the options), so the local
process pool and Ray's workers run exactly the same code on each row."""

from __future__ import annotations

import json
import math
import signal
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from ..engine.difference import first_difference
from ..formats import DEFAULT_TIME_LIMIT, format_of
from . import suspects
from .verdicts import DIFFERS, PARSED, RAISED, STREAM_DIFFERS, SUSPECT, TIMEOUT

ROW = "row"
RESULT_COLUMNS = ("verdict", "kind", "where", "detail", "seconds")
# A row's wall clock, as a multiple of --time-limit: the parse, the tools check and the streaming
# check together (--time-limit bounds one regex call; a row of many slow regions is bounded here).
ROW_BUDGET = 5
# ...and never less than this: a parse that timed out is run again to name its node, and on a
# loaded machine a small --time-limit times five would cut that short, losing the `where`.
ROW_BUDGET_FLOOR = 5.0
_LONGEST = 300  # characters of a `where` or `detail` kept: a model-written key can be any length
COMPARE_COLUMNS = ("compare_verdict", "compare_where")


@dataclass(frozen=True)
class Columns:
    """Which input columns the row function reads (None: not given)."""

    text: str = "text"
    prompt: str | None = None
    tools: str | None = None
    expected: str | None = None
    id: str | None = None  # passed through to the results (a pipeline's own row ids)

    def read(self) -> list[str]:
        return [c for c in (self.text, self.prompt, self.tools, self.expected, self.id) if c is not None]


@dataclass(frozen=True)
class Options:
    runtime: str | None = None  # the transformers release to parse as (--runtime)
    time_limit: float = DEFAULT_TIME_LIMIT  # seconds per regex call, as every parse of the workbench
    chunkings: int = 0  # random chunkings per row for the streaming check (0: no streaming check)
    seed: int = 0

    def regex_limit(self) -> float | None:
        """Seconds per regex call; None (no limit) for an infinite or NaN one, as transformers runs."""
        return self.time_limit if math.isfinite(self.time_limit) else None

    def row_limit(self) -> float | None:
        """A row's wall-clock budget (``ROW_BUDGET`` times the time limit, at least
        ``ROW_BUDGET_FLOOR``), None with no limit."""
        limit = self.regex_limit()
        return None if limit is None else max(ROW_BUDGET * limit, ROW_BUDGET_FLOOR)


class UnusableParser(ValueError):
    """A parser the scan cannot run: ``which`` is 0 for the parser, 1 for the one compared."""

    def __init__(self, which: int, message: str) -> None:
        super().__init__(message)
        self.which = which


@dataclass
class _Loaded:
    fmt: Any
    value: Any
    release: Any
    run: Any
    markers: list[str]


@dataclass
class RowScanner:
    """``scanner(batch) -> results``: a batch of input columns (a dict of lists or an Arrow table,
    with the row numbers in ``row`` or given as ``first``) in, one result row per input row out."""

    parser_text: str
    columns: Columns = field(default_factory=Columns)
    options: Options = field(default_factory=Options)
    compare_text: str | None = None  # a second parser (--compare), run on the same rows
    _loaded: list = field(default_factory=list, repr=False, compare=False)

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_loaded"] = []  # the compiled parsers stay behind: each process loads its own
        return state

    def load(self) -> list[_Loaded]:
        """The parsers, compiled once per process; ``UnusableParser`` saying which cannot run."""
        if not self._loaded:
            for which, text in enumerate(filter(None, (self.parser_text, self.compare_text))):
                try:
                    value = json.loads(text)
                    fmt = format_of(value)
                    release = fmt.release(fmt.runtime_of(value, self.options.runtime))
                    loaded = _Loaded(fmt, value, release, fmt.scan_runner(value, release), fmt.markers(value))
                except ValueError as exc:
                    self._loaded.clear()
                    raise UnusableParser(which, str(exc)) from None
                self._loaded.append(loaded)
        return self._loaded

    def __call__(self, batch: Any, first: int | None = None) -> dict[str, list]:
        if hasattr(batch, "to_pydict"):
            batch = batch.to_pydict()
        texts = batch[self.columns.text]
        rows = batch[ROW] if ROW in batch else [first + i for i in range(len(texts))] if first is not None else None
        out: dict[str, list] = {name: [] for name in ((ROW,) if rows is not None else ()) + RESULT_COLUMNS}
        if self.compare_text is not None:
            out.update({name: [] for name in COMPARE_COLUMNS})
        if self.columns.id is not None:
            out[self.columns.id] = list(batch[self.columns.id])
        for i, text in enumerate(texts):
            got = self.row(
                text,
                prompt=_column(batch, self.columns.prompt, i),
                tools=_column(batch, self.columns.tools, i),
                expected=_column(batch, self.columns.expected, i),
            )
            if rows is not None:
                out[ROW].append(rows[i])
            for name, value in got.items():
                out[name].append(value)
        return out

    def failed(self, rows: list[int], ids: list | None, detail: str) -> dict[str, list]:
        """The results of rows no verdict came back for (their worker died): each ``raised``
        with ``detail``, in the columns ``__call__`` gives."""
        out: dict[str, list] = {ROW: list(rows), "verdict": [RAISED] * len(rows), "kind": [""] * len(rows),
                                "where": [""] * len(rows), "detail": [detail] * len(rows), "seconds": [0.0] * len(rows)}
        if self.compare_text is not None:
            out.update(compare_verdict=[RAISED] * len(rows), compare_where=[""] * len(rows))
        if self.columns.id is not None:
            out[self.columns.id] = list(ids) if ids is not None else [None] * len(rows)
        return out

    def row(self, text: Any, *, prompt: Any = None, tools: Any = None, expected: Any = None) -> dict:
        """One row's result columns (a pure function of the row: the streaming check's random
        chunkings are seeded by the text, so every engine cuts a row alike), within the row's
        wall-clock budget (``Options.row_limit``): a row past it is ``timeout``."""
        loaded = self.load()
        budget = self.options.row_limit()
        start = time.perf_counter()
        try:
            with _deadline(budget):
                result = self._row(loaded, text, prompt, tools, expected)
        except _RowTimeout:
            result = _result(TIMEOUT, "", "", f"the row ran past its budget of {budget:g} s ({ROW_BUDGET} × --time-limit)",
                             time.perf_counter() - start, loaded)
        except RecursionError:  # JSON nested deeper than Python's stack, in a column or in the output
            result = _result(RAISED, "", "", "RecursionError: a value is nested too deep to read",
                             time.perf_counter() - start, loaded)
        for name in ("kind", "where", "detail", "compare_where"):
            if name in result:
                result[name] = _utf8(result[name])
        return result

    def _row(self, loaded: list, text: Any, prompt: Any, tools: Any, expected: Any) -> dict:
        prompt = prompt if isinstance(prompt, str) else ""
        try:
            tools = _json_value(tools)
            expected = _json_value(expected)
        except ValueError as exc:
            return _result(RAISED, "", "", f"a column does not hold JSON: {exc}", 0.0, loaded)
        if not isinstance(text, str):
            return _result(RAISED, "", "", f"the text column holds {type(text).__name__}, not text", 0.0, loaded)
        first, message, seconds = self._verdict(loaded[0], text, prompt, tools, expected)
        result = dict(zip(RESULT_COLUMNS, (*first, seconds)))
        result["detail"] = " ⏎ ".join(result["detail"].splitlines())  # one line per row, as the summary shows it
        if len(loaded) > 1:
            other, other_message, _ = self._verdict(loaded[1], text, prompt, tools, expected)
            if message is not None and other_message is not None:
                where = first_difference(message, other_message).partition(": ")[0]
            else:  # one failed or both did: both failing is agreement
                where = "" if first[0] == other[0] else f"{first[0]} / {other[0]}"
            result.update(compare_verdict=other[0], compare_where=where)
        return result

    def _verdict(self, loaded: _Loaded, text: str, prompt: str, tools: Any, expected: Any) -> tuple:
        """((verdict, kind, where, detail), message or None, seconds of the parse)."""
        opts = self.options
        limit = opts.regex_limit()
        start = time.perf_counter()
        try:
            message, traps = loaded.run(text, prompt, tools, limit)
        except RecursionError:
            raise  # the row's: nested too deep (the parse's own failures are not this)
        except Exception as exc:  # noqa: BLE001 - the parse's own failure is a verdict; any other is said as one
            seconds = time.perf_counter() - start
            verdict = TIMEOUT if isinstance(exc, TimeoutError) else RAISED
            if loaded.fmt.failure(exc) is None:
                return (RAISED, "", "", f"internal error, please report: {type(exc).__name__}: {exc}"[:300]), None, seconds
            where = loaded.fmt.failure_at(loaded.value, text, prompt, tools, exc, loaded.release)
            return (verdict, "", where, _first_line(exc)), None, seconds
        seconds = time.perf_counter() - start
        if expected is not None:
            difference = first_difference(expected, message)
            if difference:
                path, _, detail = difference.partition(": ")
                return (DIFFERS, "", path, detail[:300]), message, seconds
            return (PARSED, "", "", ""), message, seconds
        try:
            found = (suspects.markers_left(message, loaded.markers) or suspects.traps(traps, loaded.markers)
                     or suspects.empty_message(message, text) or suspects.tool_findings(message, tools, limit))
        except suspects.CheckTimeout as exc:
            return (TIMEOUT, "", exc.where, str(exc)), message, seconds
        if not found and opts.chunkings > 0:
            cuts = suspects.chunkings(text, loaded.markers, opts.chunkings, f"{opts.seed}:{text}")
            said = loaded.fmt.stream_difference(loaded.value, text, prompt, tools, cuts, loaded.release, limit)
            if said:
                found = [(STREAM_DIFFERS, "", said[:300])]
        if found:
            kind, where, detail = found[0]
            return (SUSPECT, kind, where, detail), message, seconds
        return (PARSED, "", "", ""), message, seconds


def _column(batch: dict, name: str | None, i: int) -> Any:
    return batch[name][i] if name is not None else None


def _json_value(value: Any) -> Any:
    """A JSON column's value: JSON text is decoded; a struct read from Parquet or JSON lines has
    every key any row had, so the keys it did not have (null) are dropped."""
    if isinstance(value, str):
        return json.loads(value)
    return _without_nulls(value)


def _without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


class _RowTimeout(BaseException):
    """The row's budget ran out: a BaseException, so no ``except Exception`` on the way swallows it."""


@contextmanager
def _deadline(seconds: float | None):
    """Raise ``_RowTimeout`` in this thread once ``seconds`` of wall clock have passed (SIGALRM,
    which also interrupts a regex search in progress). Only the main thread of a process can take
    signals: elsewhere (a thread of the TUI, some Ray workers) only each regex call is bounded."""
    if (seconds is None or not hasattr(signal, "setitimer")
            or threading.current_thread() is not threading.main_thread()):
        yield
        return

    def expire(signum, frame):
        raise _RowTimeout()

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _utf8(text: Any) -> Any:
    """``text`` as valid UTF-8 (a lone surrogate, from a JSON escape the model wrote, as ``\\ud800``),
    at most ``_LONGEST`` characters: the results writer refuses anything else."""
    if not isinstance(text, str):
        return text
    text = text if len(text) <= _LONGEST else text[: _LONGEST - 1] + "…"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def _first_line(exc: Exception) -> str:
    text = str(getattr(exc, "message", None) or exc)
    return f"{type(exc).__name__}: {text.splitlines()[0] if text else ''}"[:300]


def _result(verdict, kind, where, detail, seconds, loaded) -> dict:
    result = dict(zip(RESULT_COLUMNS, (verdict, kind, where, detail, seconds)))
    if len(loaded) > 1:
        result.update(compare_verdict=verdict, compare_where="")
    return result
