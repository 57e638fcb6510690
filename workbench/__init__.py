"""workbench: write and debug transformers response schemas against real model output."""

from .api import parse_response, trace, validate
from .engine.errors import ParseFailure
from .engine.problems import Problem
from .formats.schema import Trace, TraceNode

__all__ = ["ParseFailure", "Problem", "Trace", "TraceNode", "parse_response", "trace", "validate"]
