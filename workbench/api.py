"""The Python API: one ``parse_response``, ``trace`` and ``validate`` for both formats, as the
release you name runs them (``runtime=``, what ``--runtime`` is on the command line).

A ``response_template`` (a dict with ``fields``) runs as transformers ``runtime`` runs it (5.13–5.24;
None: the newest), with ``prefix=`` (required, as in transformers) and ``tools=``. A
``response_schema`` runs as 5.3–5.14 run it (5.14.1's ``recursive_parse``); a ``runtime`` that does
not read schemas (5.15 and later) raises ``RuntimeRefused``, and ``prefix=``/``tools=``, which only
templates take, raise ``TypeError``.
"""

from __future__ import annotations

from typing import Any

from .engine.problems import Problem
from .engine.releases import release_of_change
from .formats import DEFAULT_TIME_LIMIT, FORMATS, Format, format_of

_UNSET: Any = object()


def _chosen(parser: Any, runtime: Any) -> tuple[Format, Any]:
    """The parser's format and what it runs as (a loaded template keeps its release)."""
    fmt = format_of(parser)
    return fmt, fmt.release(fmt.runtime_of(parser, runtime))


def _no_prompt(fmt: Format, prefix: Any, tools: Any) -> None:
    if fmt.reads_prompt:
        return
    if prefix is not _UNSET:
        raise TypeError(f"prefix= is for a {_prompt_readers()}; a {fmt} parses the output alone")
    if tools is not None:
        raise TypeError(f"tools= is for a {_prompt_readers()} (transformers {release_of_change('tools')}+); a {fmt} takes none")


def _prompt_readers() -> str:
    return " or ".join(f.name for f in FORMATS if f.reads_prompt)


def parse_response(text: str, parser: Any, *, prefix: Any = _UNSET, tools: Any = None, runtime: Any = None,
                   time_limit: float | None = DEFAULT_TIME_LIMIT) -> Any:
    """The message ``tokenizer.parse_response`` gives in transformers ``runtime``, or its error."""
    fmt, release = _chosen(parser, runtime)
    _no_prompt(fmt, prefix, tools)
    return fmt.parse(parser, text, None if prefix is _UNSET else prefix, tools=tools, time_limit=time_limit, runtime=release)


def trace(text: str, parser: Any, *, prefix: Any = _UNSET, tools: Any = None, runtime: Any = None,
          time_limit: float | None = DEFAULT_TIME_LIMIT, cache: Any = None) -> Any:
    """The parse with its trace: a ``Trace`` (schema) or a ``TemplateTrace`` (template). ``cache``: a
    schema's SubtreeCache of earlier runs on the same text (engine/schema/subtree_cache.py)."""
    fmt, release = _chosen(parser, runtime)
    _no_prompt(fmt, prefix, tools)
    return fmt.trace(parser, text, prompt=None if prefix is _UNSET else prefix, tools=tools, time_limit=time_limit,
                     runtime=release, cache=cache)


def validate(parser: Any, *, runtime: Any = None) -> list[Problem]:
    """Every problem with its path: for a schema, ``workbench validate``'s list; for a template, the
    error transformers ``runtime`` raises when it loads it (if any) and the delimiters that make its
    parse quadratic (warnings)."""
    fmt, release = _chosen(parser, runtime)
    return fmt.load_problems(parser, release)
