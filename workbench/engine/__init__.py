"""The engine: parse, trace and validate response schemas. Imports nothing from the UI."""

from .errors import ParseFailure, RegexTimeout, SchemaTypeError, SchemaValueError
from .schema.parse import parse_response, trace
from .schema.regexes import DEFAULT_TIME_LIMIT
from .schema.subtree_cache import SubtreeCache
from .spans import MISSING
from .schema.trace_tree import Trace, TraceNode
from .problems import ERROR, WARNING, Problem, errors
from .schema.validate import validate

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
