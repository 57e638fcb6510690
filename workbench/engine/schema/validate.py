"""Static checks of a response schema: every problem, with the JSON pointer of where it is.

An *error* can never work (a regex ``re`` rejects, an unknown type or parser, broken group
rules); a *warning* is merely suspicious (an unknown ``x-`` key the runtime ignores, a
``required`` key that is not a property, a regex that can backtrack for ever: see
backtracking/). Parsing never depends on this: the runtime does not validate, and
``parse_response`` mirrors it.
"""

from __future__ import annotations

import re
import warnings
from typing import Any

import jmespath
import jmespath.exceptions
import regex

from ..backtracking import risks as backtracking_risks
from ..backtracking import trims as slow_trims
from ..pointer import escape
from ..problems import ERROR, WARNING, Problem
from ..depth import RUNTIME_RE_GROUPS, deep, groups_too_deep

TYPES = ("object", "array", "string", "integer", "number", "boolean", "any")
PARSERS = ("json", "gemma4-tool-call")
X_KEYS = (
    "x-regex",
    "x-regex-iterator",
    "x-regex-key-value",
    "x-regex-substitutions",
    "x-parser",
    "x-parser-args",
)
PARSER_ARGS = ("transform", "allow_non_json")


# A lazy group followed by \s*: at every character of a whitespace run the \s* rescans the rest
# of the run. The group never ends in whitespace anyway (a shorter match would win), so
# ((?:.*?\S)??) is equivalent and skips those positions.
_QUADRATIC_TRIM = re.compile(r"\((\?P<\w+>)?\.\*\?\)\\s\*")


def validate(schema: Any) -> list[Problem]:
    problems: list[Problem] = []
    if not isinstance(schema, dict):
        problems.append(Problem("", ERROR, f"a response schema must be a JSON object, not {_json_type(schema)}"))
        return problems
    with deep():  # a schema nested as deep as a file may hold (see depth.py)
        _Checker(problems).node(schema, "")
    return problems


def _refusal(exc: Exception) -> str:
    """Why ``re`` refused a pattern or template with an error other than ``re.error``."""
    if isinstance(exc, RecursionError):
        return (
            "RecursionError: groups nested too deeply for Python's re "
            f"(transformers' re.compile gives up past about {RUNTIME_RE_GROUPS} levels)"
        )
    return f"{type(exc).__name__}: {exc}"


def _json_type(value: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number"
    )


class _Checker:
    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems

    def error(self, path: str, message: str) -> None:
        self.problems.append(Problem(path, ERROR, message))

    def warn(self, path: str, message: str) -> None:
        self.problems.append(Problem(path, WARNING, message))

    def node(self, node: Any, path: str) -> None:
        if not isinstance(node, dict):
            self.error(path, f"a schema node must be a JSON object, not {_json_type(node)}")
            return
        for key in node:
            if isinstance(key, str) and key.startswith("x-") and key not in X_KEYS:
                self.warn(f"{path}/{escape(key)}", f"unknown key {key!r} (the runtime ignores it; known: {', '.join(X_KEYS)})")
        if "const" in node:
            ignored = [k for k in node if k in X_KEYS or k in ("properties", "items", "prefixItems")]
            if ignored:
                self.warn(path, f"'const' returns its value at once; {', '.join(ignored)} will never run")
            return

        node_type = node.get("type")
        if "type" in node and node_type not in TYPES:
            self.error(f"{path}/type", f"unknown type {node_type!r} (known: {', '.join(TYPES)})")

        subs = node.get("x-regex-substitutions")
        if "x-regex-substitutions" in node:
            self.substitutions(subs, f"{path}/x-regex-substitutions")
        if "x-regex" in node and node["x-regex"] is not None:
            compiled = self.regex(node["x-regex"], f"{path}/x-regex")
            if compiled is not None:
                self.groups(compiled, f"{path}/x-regex", node_type, object_groups_ok=True)
        if "x-regex-iterator" in node and node["x-regex-iterator"] is not None:
            where = f"{path}/x-regex-iterator"
            if node_type != "array":
                self.error(where, f"x-regex-iterator needs \"type\": \"array\" (this node's type is {node_type!r})")
            compiled = self.regex(node["x-regex-iterator"], where)
            if compiled is not None:
                self.groups(compiled, where, node_type, object_groups_ok=True)
        if "x-regex-key-value" in node and node["x-regex-key-value"] is not None:
            where = f"{path}/x-regex-key-value"
            if node_type != "object":
                self.error(where, f"x-regex-key-value needs \"type\": \"object\" (this node's type is {node_type!r})")
            compiled = self.regex(node["x-regex-key-value"], where)
            if compiled is not None and not {"key", "value"} <= set(compiled.groupindex):
                self.error(where, "x-regex-key-value needs the named groups 'key' and 'value'")
        self.parser(node, path)

        if "properties" in node:
            props = node["properties"]
            if not isinstance(props, dict):
                self.error(f"{path}/properties", f"'properties' must be an object, not {_json_type(props)}")
            else:
                for key, child in props.items():
                    self.node(child, f"{path}/properties/{escape(key)}")
        if "additionalProperties" in node:
            extra = node["additionalProperties"]
            if isinstance(extra, dict):
                self.node(extra, f"{path}/additionalProperties")
            elif not isinstance(extra, bool):
                self.warn(f"{path}/additionalProperties", "additionalProperties should be true, false or a schema")
        if "required" in node:
            self.required(node, path)
        if "items" in node:
            self.node(node["items"], f"{path}/items")
        if "prefixItems" in node:
            prefix = node["prefixItems"]
            if not isinstance(prefix, list):
                self.error(f"{path}/prefixItems", f"'prefixItems' must be an array, not {_json_type(prefix)}")
            else:
                for i, child in enumerate(prefix):
                    self.node(child, f"{path}/prefixItems/{i}")
        if node_type == "array" and "items" not in node and "prefixItems" not in node:
            self.warn(path, "an array node without 'items' or 'prefixItems' fails on any non-empty input")
        if node_type == "object" and not any(k in node for k in ("properties", "x-regex", "x-regex-key-value", "x-parser", "additionalProperties")):
            self.warn(path, "an object node with no properties, regex or parser fails when it gets text")

    def regex(self, pattern: Any, where: str) -> re.Pattern | None:
        if not isinstance(pattern, str):
            self.error(where, f"a regex must be a string, not {_json_type(pattern)}")
            return None
        if groups_too_deep(pattern, RUNTIME_RE_GROUPS):
            self.error(where, f"Python's re rejects this regex: {_refusal(RecursionError())}")
            return None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                compiled = re.compile(pattern, re.DOTALL)
            except re.error as exc:
                message = f"Python's re rejects this regex: {exc.msg} at offset {exc.pos}"
                try:
                    regex.compile(pattern, regex.DOTALL)
                except Exception:
                    pass
                else:
                    message += " (the regex package would accept it, but transformers runs re)"
                self.error(where, message)
                return None
            except Exception as exc:  # noqa: BLE001 - re has more ways to refuse a pattern than re.error
                # (a repeat past 4294967295 is an OverflowError, groups nested past the recursion
                # limit a RecursionError): the same refusal, from the same call transformers makes.
                self.error(where, f"Python's re rejects this regex: {_refusal(exc)}")
                return None
        for warning in caught:
            self.warn(where, f"re warns: {warning.message}")
        for trim in slow_trims(pattern):
            self.warn(where, trim.message())
        slow = _QUADRATIC_TRIM.search(pattern)
        if slow:
            group = slow.group(1) or ""
            self.warn(
                where,
                f"{slow.group(0)} at offset {slow.start()} backtracks quadratically on a long run of whitespace "
                f"(seconds at 10,000 spaces, in transformers too); ({group}(?:.*?\\S)??)\\s* gives the same "
                "matches in linear time",
            )
        for risk in backtracking_risks(pattern):
            self.warn(where, risk.message())
        return compiled

    def groups(self, compiled: re.Pattern, where: str, node_type: Any, object_groups_ok: bool) -> None:
        named = len(compiled.groupindex)
        unnamed = compiled.groups - named
        if named:
            if unnamed:
                self.warn(where, f"named groups win: the {unnamed} unnamed group(s) are ignored")
            if where.endswith("/x-regex") and node_type not in ("object", None, "any"):
                self.warn(where, f"named groups give a dict, but this node's type is {node_type!r}")
        elif unnamed == 0:
            self.error(where, "the regex has no capture group: add one (…) around the text to keep")
        elif unnamed > 1:
            self.error(where, f"the regex has {unnamed} unnamed groups: keep one, or name them (?P<name>…)")

    def substitutions(self, subs: Any, where: str) -> None:
        if not isinstance(subs, list):
            self.error(where, "x-regex-substitutions must be an array of [pattern, replacement] pairs")
            return
        for i, pair in enumerate(subs):
            at = f"{where}/{i}"
            if not (isinstance(pair, list) and len(pair) >= 2):
                self.error(at, "each substitution must be a [pattern, replacement] pair")
                continue
            if len(pair) > 2:
                self.warn(at, "only the first two entries of a substitution are used")
            compiled = self.regex(pair[0], f"{at}/0")
            if not isinstance(pair[1], str):
                self.error(f"{at}/1", f"a replacement must be a string, not {_json_type(pair[1])}")
            elif compiled is not None:
                try:
                    compiled.sub(pair[1], "", count=1)
                except re.error as exc:
                    self.error(f"{at}/1", f"bad replacement: {exc.msg}")
                except Exception as exc:  # noqa: BLE001 - as for patterns
                    self.error(f"{at}/1", f"bad replacement: {_refusal(exc)}")

    def parser(self, node: dict, path: str) -> None:
        if "x-parser" not in node:
            if "x-parser-args" in node:
                self.warn(f"{path}/x-parser-args", "x-parser-args does nothing without x-parser")
            return
        parser = node["x-parser"]
        if not (isinstance(parser, str) and parser in PARSERS):
            self.error(f"{path}/x-parser", f"unknown parser {parser!r} (known: {', '.join(PARSERS)})")
        args = node.get("x-parser-args", {})
        if not isinstance(args, dict):
            self.error(f"{path}/x-parser-args", f"x-parser-args must be an object, not {_json_type(args)}")
            return
        for key in args:
            if key not in PARSER_ARGS:
                self.warn(f"{path}/x-parser-args/{escape(key)}", f"unknown parser argument {key!r} (known: {', '.join(PARSER_ARGS)})")
        if "transform" in args and args["transform"] is not None:
            transform = args["transform"]
            where = f"{path}/x-parser-args/transform"
            if not isinstance(transform, str):
                self.error(where, f"transform must be a jmespath expression string, not {_json_type(transform)}")
            else:
                try:
                    jmespath.compile(transform)
                except jmespath.exceptions.JMESPathError as exc:
                    self.error(where, f"not a valid jmespath expression: {str(exc).splitlines()[0]}")
        if "allow_non_json" in args and not isinstance(args["allow_non_json"], bool):
            self.warn(f"{path}/x-parser-args/allow_non_json", "allow_non_json should be true or false")

    def required(self, node: dict, path: str) -> None:
        required = node["required"]
        where = f"{path}/required"
        if not isinstance(required, list) or not all(isinstance(k, str) for k in required):
            self.error(where, "'required' must be an array of property names")
            return
        props = node.get("properties") if isinstance(node.get("properties"), dict) else {}
        for i, key in enumerate(required):
            if key not in props:
                self.warn(f"{where}/{i}", f"required key {key!r} is not among this node's properties")
