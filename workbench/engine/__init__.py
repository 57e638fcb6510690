"""The engine: both formats' interpreters (schema/, template/), the chat-template sandbox, migration and the
vocabulary they share. Imports nothing from the UI. The names below are the response_schema engine's, kept
for code written against earlier versions; the workbench itself reaches the engines through formats/."""

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
