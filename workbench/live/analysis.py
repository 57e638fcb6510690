"""One pass over (parser text, sample text): everything the workbench's panes show, through the
parser's ``Format`` (workbench/formats/), never branching on which one it is.

UI-free: the TUI's analysis process (worker.py) runs it on every edit; tests and the latency
benchmark call it too.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any, Callable, ContextManager

from ..engine.json_positions import SchemaPositions
from ..store.files import InputError, parse_schema_text
from ..formats import DEFAULT_TIME_LIMIT, Analysis, format_of, format_of_text
from ..formats.panes import Failure, Lit  # noqa: F401 - what the panes are told, named where they meet it


def analyze(
    schema_text: str,
    sample_text: str,
    *,
    time_limit: float = DEFAULT_TIME_LIMIT,
    cache: Any = None,
    memo: Any = None,
    traced: Callable[[], None] | None = None,
    prefix: str = "",
    tools: Any = None,
    template_work: Callable[[], ContextManager] = contextlib.nullcontext,
    with_outline: bool = True,
    runtime: str | None = None,
    kept: dict | None = None,
) -> Analysis:
    """``cache`` and ``memo``: what earlier runs on this sample left, so that an edit re-runs
    only the schema nodes it touches and recolours only the fields they belong to (the TUI's
    analysis process keeps one of each per sample). ``traced`` is called once the parse is done,
    before the colours: only the parse can run away. ``prefix`` (the sample's prompt) and ``tools``
    go to a format that reads them; its parse runs inside ``template_work()`` (the analysis process
    lets a newer edit interrupt it there). ``with_outline=False`` leaves the tree to be built where it
    is shown (``Analysis.root``): the analysis process sends the trace alone, which is several times
    smaller. ``runtime``: the transformers release to run as (a name; None: the format's default).
    ``kept``: one dict per sample that the format keeps what it reuses in (instead of ``cache`` and
    ``memo``: the analysis process does not know what a format keeps)."""
    started = time.perf_counter()
    result = Analysis(schema_text, runtime=runtime)
    try:
        result.schema = parse_schema_text(schema_text, "schema")
    except InputError as exc:
        result.syntax_error = str(exc).removeprefix("schema:")
        result.syntax_at = (exc.line - 1, exc.column - 1)
        result.format = format_of_text(schema_text)
        result.seconds = time.perf_counter() - started
        return result
    result.positions = SchemaPositions.of(schema_text)
    result.format = format_of(result.schema)
    result.format.analyze(result, sample_text, prompt=prefix, tools=tools, time_limit=time_limit, cache=cache, memo=memo,
                          traced=traced, work=template_work, with_tree=with_outline, kept=kept)
    result.seconds = time.perf_counter() - started
    return result
