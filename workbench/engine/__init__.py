"""The engine: parse, trace and validate response schemas. Imports nothing from the UI."""

from .errors import ParseFailure, RegexTimeout, SchemaTypeError, SchemaValueError
from .parse import parse_response, trace
from .regexes import DEFAULT_TIME_LIMIT
from .trace import Trace, TraceNode

__all__ = [
    "DEFAULT_TIME_LIMIT",
    "ParseFailure",
    "RegexTimeout",
    "SchemaTypeError",
    "SchemaValueError",
    "Trace",
    "TraceNode",
    "parse_response",
    "trace",
]
