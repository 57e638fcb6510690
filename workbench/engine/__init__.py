"""The engine: parse, trace and validate response schemas. Imports nothing from the UI."""

from .errors import ParseFailure, RegexTimeout, SchemaTypeError, SchemaValueError
from .parse import parse_response, trace
from .regexes import DEFAULT_TIME_LIMIT
from .subtree_cache import SubtreeCache
from .trace_tree import MISSING, Trace, TraceNode
from .validate import ERROR, WARNING, Problem, errors, validate

__all__ = [
    "MISSING",
    "ERROR",
    "WARNING",
    "Problem",
    "errors",
    "validate",
    "DEFAULT_TIME_LIMIT",
    "ParseFailure",
    "RegexTimeout",
    "SchemaTypeError",
    "SchemaValueError",
    "SubtreeCache",
    "Trace",
    "TraceNode",
    "parse_response",
    "trace",
]
