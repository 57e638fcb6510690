"""workbench: write and debug transformers response schemas against real model output."""

from .engine import ParseFailure, Problem, Trace, TraceNode, parse_response, trace, validate

__all__ = ["ParseFailure", "Problem", "Trace", "TraceNode", "parse_response", "trace", "validate"]
