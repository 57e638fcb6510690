"""The ``response_template`` engine: what transformers 5.23.0 runs, value for value, event for
event and error for error (``transformers.utils.chat_parsing``; docs/response-template.md).

- ``load.py``: checking and compiling a template (the runtime's load-time errors);
- ``regions.py``: finding a field's regions: which delimiters are watched, which match wins, what is held back;
- ``stream.py``: ``ResponseParser`` (regions, events, prefix) and ``parse_response``;
- ``parsers.py``: the content parsers; ``transform.py``: transforms; ``tools.py``: ``tools=`` casting;
- ``errors.py``: the one error of ours, a regex stopped at its time limit;
- ``trace.py``: ``trace_response``, the parse with its trace (regions, spans, values, and what the
  message does not show), recorded by ``ResponseParser`` itself; ``trace_types.py``: its objects.
"""

from .errors import DEFAULT_TIME_LIMIT, TemplateRegexTimeout
from .load import Template, describe_load_error, load_failure, load_template
from .stream import ResponseParser, parse_response
from .trace import trace_response
from .trace_types import Candidate, Dropped, Emptied, Failure, Region, TemplateTrace, TieBreak

__all__ = [
    "DEFAULT_TIME_LIMIT",
    "Candidate",
    "Dropped",
    "Emptied",
    "Failure",
    "Region",
    "ResponseParser",
    "Template",
    "TemplateRegexTimeout",
    "TemplateTrace",
    "TieBreak",
    "describe_load_error",
    "load_failure",
    "load_template",
    "parse_response",
    "trace_response",
]
