"""One pass over (schema text, sample text): everything the workbench's panes show.

UI-free: the TUI's analysis process (worker.py) runs it on every edit; tests and the latency
benchmark call it too.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

from .engine import ERROR, Problem, Trace, errors, trace, validate
from .engine.highlights import Paint, flatten, trace_paints
from .engine.regexes import DEFAULT_TIME_LIMIT
from .engine.formats import format_of
from .engine.schema_positions import SchemaPositions
from .engine.versions import TEMPLATE
from .engine.subtree_cache import SubtreeCache
from .engine.subtree_memo import SubtreeMemo
from .files import InputError, parse_schema_text


TEMPLATE_IN_TUI = (
    "this file is a response_template (it has 'fields'): the workbench's panes show response schemas "
    "only so far; run it with 'workbench parse SAMPLE --schema FILE --prefix-file PROMPT' (or --stream)"
)


@dataclass
class Analysis:
    schema_text: str
    schema: Any = None
    syntax_error: str | None = None  # "line:col: message" when the text is not JSON
    syntax_at: tuple[int, int] | None = None  # (row, col), 0-based
    problems: list[Problem] = field(default_factory=list)
    positions: SchemaPositions | None = None
    trace: Trace | None = None
    fields: list[str] = field(default_factory=list)
    runs: list[Paint] = field(default_factory=list)
    seconds: float = 0.0
    verdict: Any = None  # the sample's Verdict, judged from this very trace (set by the worker)
    hung: str | None = None  # why there is no result: the run never answered

    @classmethod
    def gave_up(cls, schema_text: str, seconds: float, time_limit: float) -> "Analysis":
        """No result: the run neither finished nor stopped at its time limit, so it was killed."""
        return cls(schema_text, seconds=seconds, hung=(
            f"the parse did not stop at its {time_limit:g} s time limit and was killed after {seconds:.1f} s"
        ))

    @property
    def usable(self) -> bool:
        """A tree can be shown: the text is JSON and validate found no error."""
        return self.trace is not None

    @property
    def errors(self) -> list[Problem]:
        return errors(self.problems)


def analyze(
    schema_text: str,
    sample_text: str,
    *,
    time_limit: float = DEFAULT_TIME_LIMIT,
    cache: SubtreeCache | None = None,
    memo: SubtreeMemo | None = None,
    traced: Callable[[], None] | None = None,
) -> Analysis:
    """``cache`` and ``memo``: what earlier runs on this sample left, so that an edit re-runs
    only the schema nodes it touches and recolours only the fields they belong to (the TUI's
    analysis process keeps one of each per sample). ``traced`` is called once the parse is done,
    before the colours: only the parse can run away."""
    started = time.perf_counter()
    result = Analysis(schema_text)
    try:
        result.schema = parse_schema_text(schema_text, "schema")
    except InputError as exc:
        result.syntax_error = str(exc).removeprefix("schema:")
        result.syntax_at = (exc.line - 1, exc.column - 1)
        result.seconds = time.perf_counter() - started
        return result
    result.positions = SchemaPositions.of(schema_text)
    if format_of(result.schema) == TEMPLATE:
        # Said as a problem, not run as a schema: the schema rules would misread every key of it.
        result.problems = [Problem("", ERROR, TEMPLATE_IN_TUI)]
        result.seconds = time.perf_counter() - started
        return result
    result.problems = validate(result.schema)
    if not result.errors:
        result.trace = trace(sample_text, result.schema, time_limit=time_limit, cache=cache)
        if traced is not None:
            traced()
        if memo is not None:
            result.fields, result.runs = memo.runs(result.trace)
        else:
            result.fields, paints = trace_paints(result.trace)
            result.runs = flatten(paints)
    result.seconds = time.perf_counter() - started
    return result
