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


class CheckTimeout(TimeoutError):
    """A check's regex (a tool schema's ``pattern``) ran past the time limit; ``where`` says whose."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(message)
        self.where = where


def tool_findings(message: Any, tools: list[dict] | None, time_limit: float | None = None) -> list[Finding]:
    """A call to a tool the row does not offer, or arguments its JSON schema refuses. A schema is a
    stranger's: nothing it names is fetched (a ``$ref`` outside it resolves to nothing), one that
    is broken (an unknown type, a bad pattern, a ``$ref`` to nowhere) is said as the finding, and
    its patterns run under ``time_limit`` per search (``CheckTimeout`` past it)."""
    if tools is None or not isinstance(message, dict):
        return []
    offered = {}
    for tool in tools if isinstance(tools, list) else []:
        function = tool.get("function", tool) if isinstance(tool, dict) else None
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            offered[function["name"]] = function.get("parameters")
    calls = message.get("tool_calls")
    for i, call in enumerate(calls if isinstance(calls, list) else []):
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict):
            continue
        name = function.get("name")
        if not isinstance(name, str) or name not in offered:
            return [(UNKNOWN_TOOL, f"/tool_calls/{i}/function/name", f"{_excerpt(name)} is not among the row's tools")]
        schema = offered[name]
        if isinstance(schema, dict):
            at = f"/tool_calls/{i}/function/arguments"
            validator, broken = _validator(schema, time_limit)
            if broken is None:
                try:
                    error = next(iter(validator.iter_errors(function.get("arguments"))), None)
                except CheckTimeout as exc:
                    raise CheckTimeout(at, str(exc)) from None
                except Exception as exc:  # noqa: BLE001 - a $ref to nowhere, a keyword's value of the wrong type
                    broken = _said(exc)
                else:
                    if error is not None:
                        where = "".join(f"/{p}" for p in error.absolute_path)
                        return [(ARGUMENTS_OFF_SCHEMA, f"{at}{where}", error.message[:160])]
            if broken is not None:
                return [(ARGUMENTS_OFF_SCHEMA, at, f"the tool's schema is broken: {broken}"[:200])]
    return []


def _said(exc: BaseException) -> str:
    ref = getattr(exc, "ref", None)  # referencing's Unresolvable, as jsonschema wraps it
    if isinstance(ref, str):
        return f"$ref {_excerpt(ref)} resolves to nothing (a scan reads no file and fetches nothing)"
    text = str(getattr(exc, "message", None) or exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"


_VALIDATORS: dict = {}  # (schema as JSON, limit) -> (validator, None) or (None, why it is broken)


def _validator(schema: dict, time_limit: float | None) -> tuple[Any, str | None]:
    """A validator of ``schema`` that fetches nothing and bounds its patterns, or why the schema
    is broken; kept for the rows that share a tool (a few hundred at most)."""
    try:
        key = (json.dumps(schema, sort_keys=True), time_limit)
    except (TypeError, ValueError, RecursionError) as exc:
        return None, _said(exc)
    found = _VALIDATORS.get(key)
    if found is None:
        cls = _validator_class(time_limit)
        try:
            cls.check_schema(schema)
            found = (cls(schema, registry=_offline_registry()), None)
        except Exception as exc:  # noqa: BLE001 - SchemaError, or what a malformed schema makes jsonschema raise
            found = (None, _said(exc))
        if len(_VALIDATORS) >= 256:
            _VALIDATORS.clear()
        _VALIDATORS[key] = found
    return found


def _offline_registry() -> Any:
    from referencing import Registry
    from referencing.exceptions import NoSuchResource

    def refuse(uri: str) -> Any:
        raise NoSuchResource(ref=uri)  # no network, no files: a $ref outside the schema is to nowhere

    return Registry(retrieve=refuse)


_CLASSES: dict = {}


def _validator_class(time_limit: float | None) -> Any:
    """Draft 2020-12 with ``pattern`` and ``patternProperties`` run by ``regex`` under a time
    limit per search (jsonschema's own run ``re`` with none: ``(a+)+$`` would hang the row)."""
    if time_limit in _CLASSES:
        return _CLASSES[time_limit]
    import regex
    from jsonschema import Draft202012Validator, validators  # (the scan extra: only scans with tools need it)
    from jsonschema.exceptions import ValidationError

    def search(pattern: str, text: str) -> bool:
        try:
            return regex.search(pattern, text, timeout=time_limit) is not None
        except TimeoutError:
            raise CheckTimeout("", f"the tool's schema pattern {_excerpt(pattern)} ran past --time-limit") from None

    def pattern(validator, patrn, instance, schema):
        if validator.is_type(instance, "string") and not search(patrn, instance):
            yield ValidationError(f"{_excerpt(instance)} does not match {_excerpt(patrn)}")

    def pattern_properties(validator, properties, instance, schema):
        if not validator.is_type(instance, "object"):
            return
        for patrn, subschema in properties.items():
            for key, value in instance.items():
                if search(patrn, key):
                    yield from validator.descend(value, subschema, path=key, schema_path=patrn)

    cls = validators.extend(Draft202012Validator, {"pattern": pattern, "patternProperties": pattern_properties})
    _CLASSES[time_limit] = cls
    return cls


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
