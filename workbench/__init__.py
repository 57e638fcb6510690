"""workbench: write and debug transformers response schemas against real model output."""

from .engine import ParseFailure, parse_response, trace

__all__ = ["ParseFailure", "parse_response", "trace"]
