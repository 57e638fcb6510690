"""Which of the two formats a parser file holds. transformers tells them apart by the same key:
an explicit schema with ``fields`` (or ``version``) goes to the response_template engine."""

from __future__ import annotations

from typing import Any

from .versions import SCHEMA, TEMPLATE


def format_of(value: Any) -> str:
    """``response_template`` for a dict with ``fields`` or ``version``; ``response_schema`` otherwise."""
    if isinstance(value, dict) and ("fields" in value or "version" in value):
        return TEMPLATE
    from .template.load import Template  # a template the engine has loaded is one too

    if isinstance(value, Template):
        return TEMPLATE
    return SCHEMA
