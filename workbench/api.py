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

from .engine import DEFAULT_TIME_LIMIT, Problem
from .engine import parse_response as _parse_schema
from .engine import template as _template
from .engine import trace as _trace_schema
from .engine import validate as _validate_schema
from .engine.formats import format_of
from .engine.template.slow_delimiters import slow_delimiters
from .engine.versions import TEMPLATE
from .runtime_choice import runtime_for

_UNSET: Any = object()


def _chosen(parser: Any, runtime: Any):
    """What ``parser`` runs as; a loaded Template (engine.template.load_template) keeps its release."""
    if isinstance(parser, _template.Template):
        return runtime_for(TEMPLATE, parser.release if runtime is None else runtime)
    return runtime_for(format_of(parser), runtime, parser)


def _schema_only(prefix: Any, tools: Any) -> None:
    if prefix is not _UNSET:
        raise TypeError("prefix= is for a response_template; a response_schema parses the output alone")
    if tools is not None:
        raise TypeError("tools= is for a response_template (transformers 5.15+); a response_schema takes none")


def parse_response(text: str, parser: Any, *, prefix: Any = _UNSET, tools: Any = None, runtime: Any = None,
                   time_limit: float | None = DEFAULT_TIME_LIMIT) -> Any:
    """The message ``tokenizer.parse_response`` gives in transformers ``runtime``, or its error."""
    chosen = _chosen(parser, runtime)
    if chosen.format == TEMPLATE:
        return _template.parse_response(text, parser, prefix=None if prefix is _UNSET else prefix, tools=tools,
                                        time_limit=time_limit, runtime=chosen.release)
    _schema_only(prefix, tools)
    return _parse_schema(text, parser, time_limit=DEFAULT_TIME_LIMIT if time_limit is None else time_limit)


def trace(text: str, parser: Any, *, prefix: Any = _UNSET, tools: Any = None, runtime: Any = None,
          time_limit: float | None = DEFAULT_TIME_LIMIT, cache: Any = None) -> Any:
    """The parse with its trace: a ``Trace`` (schema) or a ``TemplateTrace`` (template). ``cache``: a
    schema's SubtreeCache of earlier runs on the same text (engine/subtree_cache.py)."""
    chosen = _chosen(parser, runtime)
    if chosen.format == TEMPLATE:
        return _template.trace_response(text, parser, prefix=None if prefix is _UNSET else prefix, tools=tools,
                                        time_limit=time_limit, runtime=chosen.release)
    _schema_only(prefix, tools)
    return _trace_schema(text, parser, time_limit=DEFAULT_TIME_LIMIT if time_limit is None else time_limit, cache=cache)


def validate(parser: Any, *, runtime: Any = None) -> list[Problem]:
    """Every problem with its path: for a schema, ``workbench validate``'s list; for a template, the
    error transformers ``runtime`` raises when it loads it (if any) and the delimiters that make its
    parse quadratic (warnings)."""
    chosen = _chosen(parser, runtime)
    if chosen.format != TEMPLATE:
        return _validate_schema(parser)
    failure = _template.load_failure(parser, chosen.release)
    problems = [Problem("", "error", failure)] if failure is not None else []
    return problems + [Problem(pointer, "warning", why) for pointer, why in slow_delimiters(parser)]
