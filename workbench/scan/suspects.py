"""The checks of a parse that worked: what makes a message that parsed look wrong. Each gives
``(kind, where, detail)``, ``where`` a JSON pointer into the message (or "" for the output)."""

from __future__ import annotations

import json
import random
import re
from typing import Any, Iterator

from ..formats import TRAP_DROPPED
from .verdicts import ARGUMENTS_OFF_SCHEMA, DROPPED, EMPTY_MESSAGE, MARKER_LEFT, OVERWRITTEN, UNKNOWN_TOOL

Finding = tuple[str, str, str]
_SPACE = re.compile(r"\s+")


def _strings(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """Every string value in a message but its role, with its pointer."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, child in value.items():
            if key == "role":
                continue
            yield from _strings(child, f"{path}/{key}")
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from _strings(child, f"{path}/{i}")


def markers_left(message: Any, markers: list[str]) -> list[Finding]:
    for path, text in _strings(message):
        for marker in markers:
            if marker in text:
                return [(MARKER_LEFT, path, f"holds {marker!r}")]
    return []


def traps(found: list, markers: list[str]) -> list[Finding]:
    """The template's traps, where what they lose is more than markup and whitespace."""
    for trap in found:
        text = trap.text
        if trap.kind == TRAP_DROPPED:
            for marker in sorted(markers, key=len, reverse=True):  # a start anchor before its token
                text = text.replace(marker, " ")
            if _SPACE.sub("", text):
                return [(DROPPED, "", f"throws away {_excerpt(trap.text)}")]
        else:
            return [(OVERWRITTEN, f"/{trap.field}", f"replaces {_excerpt(trap.text)}")]
    return []


def empty_message(message: Any, output: str) -> list[Finding]:
    if not output.strip():
        return []
    said = isinstance(message, dict) and any(
        value not in (None, "", [], {}) for key, value in message.items() if key != "role")
    return [] if said else [(EMPTY_MESSAGE, "", f"nothing parsed out of {len(output)} characters")]


def tool_findings(message: Any, tools: list[dict] | None) -> list[Finding]:
    """A call to a tool the row does not offer, or arguments its JSON schema refuses."""
    if tools is None or not isinstance(message, dict):
        return []
    from jsonschema import Draft202012Validator  # (the scan extra: only scans with tools need it)
    from jsonschema.exceptions import SchemaError

    offered = {}
    for tool in tools:
        function = tool.get("function", tool) if isinstance(tool, dict) else None
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            offered[function["name"]] = function.get("parameters")
    for i, call in enumerate(message.get("tool_calls") or []):
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict):
            continue
        name = function.get("name")
        if name not in offered:
            return [(UNKNOWN_TOOL, f"/tool_calls/{i}/function/name", f"{_excerpt(name)} is not among the row's tools")]
        schema = offered[name]
        if isinstance(schema, dict):
            try:
                error = next(iter(Draft202012Validator(schema).iter_errors(function.get("arguments"))), None)
            except SchemaError as exc:
                return [(ARGUMENTS_OFF_SCHEMA, f"/tool_calls/{i}/function/arguments", f"the tool's schema is broken: {exc.message}")]
            if error is not None:
                at = "".join(f"/{p}" for p in error.absolute_path)
                return [(ARGUMENTS_OFF_SCHEMA, f"/tool_calls/{i}/function/arguments{at}", error.message[:160])]
    return []


def chunkings(output: str, markers: list[str], count: int, seed: Any) -> list[list[int]]:
    """``count`` random chunkings of ``output`` (chunks of 1 to 12 characters, as tokens arrive),
    seeded so a rerun cuts the same, and one that cuts into and around every marker it holds."""
    if count <= 0 or not output:
        return []
    rng = random.Random(f"{seed}")
    cuts = []
    for _ in range(count):
        at, chosen = 0, []
        while True:
            at += rng.randint(1, 12)
            if at >= len(output):
                break
            chosen.append(at)
        cuts.append(chosen)
    around = set()
    for marker in markers:
        start = output.find(marker)
        while start != -1:
            end = start + len(marker)
            around.update(p for p in (start, start + 1, start + len(marker) // 2, end - 1, end) if 0 < p < len(output))
            start = output.find(marker, end)
    if around:
        cuts.append(sorted(around))
    return cuts


def _excerpt(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return repr(text if len(text) <= 60 else text[:57] + "...")
