"""``tools=``: casting string tool-call arguments to the types the tool declares
(docs/response-template.md#tool-argument-casting).

After any region closes, every ``{"function": {"name": str, "arguments": dict}}`` in its value
(alone, or in a list, at any list depth) has its string arguments cast in place, trying the
declared types in order; a cast that fails leaves the string. Lists of strings are cast item by
item unless ``array`` is one of the types (5.18 on). What changed in which release: releases.py.
"""

from __future__ import annotations

import json
from inspect import isfunction, ismethod
from typing import Any

from .parsers import _check_depth
from ..releases import NEWEST, Release


def _json_schema_of(function: Any) -> dict:
    """A Python function's tool schema, as transformers derives it (its own ``get_json_schema``)."""
    from transformers.utils.chat_template_utils import get_json_schema

    return get_json_schema(function)


def tool_parameters(tools: Any) -> dict:
    """Tool name -> its ``parameters.properties`` (``{}`` when absent), for each tool that has a
    string name: JSON-schema dicts with or without a ``{"function": ...}`` wrapper, or functions."""
    parameters_of: dict = {}
    for tool in tools or []:
        if isfunction(tool) or ismethod(tool):
            tool = _json_schema_of(tool)
        function = tool.get("function", tool) if isinstance(tool, dict) else None
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            parameters = function.get("parameters")
            properties = parameters.get("properties") if isinstance(parameters, dict) else None
            parameters_of[function["name"]] = properties if isinstance(properties, dict) else {}
    return parameters_of


def declared_types(schema: Any, release: Release = NEWEST) -> tuple:
    """The type names a property schema allows, in order: ``type`` (a string or list), then
    ``anyOf`` and (5.18 on) ``oneOf`` choices, then ``null`` if ``nullable``."""
    if not isinstance(schema, dict):
        return ()
    declared = schema.get("type")
    types = [declared] if isinstance(declared, str) else []
    if isinstance(declared, list):
        types.extend(name for name in declared if isinstance(name, str))
    for union in ("anyOf", "oneOf") if release.has("tools_one_of") else ("anyOf",):
        for choice in schema.get(union) or []:
            types.extend(declared_types(choice, release))
    if schema.get("nullable") and "null" not in types:
        types.append("null")
    return tuple(types)


def _as_integer(raw: str, release: Release) -> Any:
    try:
        return int(raw)
    except ValueError:
        if not release.has("tools_whole_floats"):
            raise
        number = float(raw)  # "3.0" is an integer too
        if not number.is_integer():
            raise
        return int(number)


def cast(raw: str, types: tuple, release: Release = NEWEST) -> Any:
    """``raw`` as the first of ``types`` it reads as, else ``raw`` unchanged."""
    for name in types:
        try:
            if name == "integer":
                return _as_integer(raw, release)
            if name == "number":
                number = float(raw)
                if number != number or number in (float("inf"), float("-inf")):
                    continue
                return int(number) if number.is_integer() and "." not in raw else number
            if name == "boolean" and raw.strip().lower() in ("true", "1", "false", "0"):
                return raw.strip().lower() in ("true", "1")
            if name == "null" and raw.strip() in ("null", "None"):
                return None
            if name in ("object", "array"):
                _check_depth(raw)
                decoded = json.loads(raw)
                if isinstance(decoded, dict if name == "object" else list):
                    return decoded
        except ValueError:
            continue
    return raw


def cast_tool_calls(value: Any, parameters_of: dict, release: Release = NEWEST) -> Any:
    """``value`` with the arguments of every tool call in it cast in place (lists rebuilt)."""
    if isinstance(value, list):
        return [cast_tool_calls(item, parameters_of, release) for item in value]
    function = value.get("function") if isinstance(value, dict) else None
    if not isinstance(function, dict):
        return value
    name, arguments = function.get("name"), function.get("arguments")
    if not isinstance(name, str) or not isinstance(arguments, dict):
        return value
    properties = parameters_of.get(name)
    if properties:
        for key, argument in arguments.items():
            if key not in properties:
                continue
            types = declared_types(properties[key], release)
            if not types:
                continue
            if isinstance(argument, str):
                arguments[key] = cast(argument, types, release)
            elif isinstance(argument, list) and ("array" not in types or not release.has("tools_one_of")):
                arguments[key] = [cast(item, types, release) if isinstance(item, str) else item for item in argument]
    return value
