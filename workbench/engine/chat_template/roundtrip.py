"""The round trip: render probe assistant messages with the chat template, parse the assistant's
part of the render, and compare with the probe.

For each probe the conversation is a user turn (and the tools the probe's calls need) followed by
the probe message. The *prompt* is the render of the conversation without the probe and with
``add_generation_prompt=True`` (the ``prefix`` a template parser gets); the *output* is the full
render minus that prompt. Each difference is put in one of four kinds:

- ``parser``: the parser is wrong (the value is in the output but not, or not so, in the message);
- ``template_drops``: the template does not render the value, so no parser can recover it;
- ``not_prefix``: the prompt is not a prefix of the full render (the model never sees it as such);
- ``cannot_render``: the template raises on the probe.

Values are compared as transformers' consumers see them: reasoning under any of
``reasoning_content``/``thinking``/``reasoning``; an empty ``content`` is no content; arguments
given as a JSON string are the object it holds; an ``id`` only where the probe has one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable

from .budget import ChatRenderer, renderer_for
from .render import REASONING_FIELDS, ChatTemplateError

PARSER, TEMPLATE_DROPS, NOT_PREFIX, CANNOT_RENDER = "parser", "template_drops", "not_prefix", "cannot_render"
WHY = {
    PARSER: "the parser is wrong",
    TEMPLATE_DROPS: "the template drops data",
    NOT_PREFIX: "the prompt is not a prefix of the history",
    CANNOT_RENDER: "the template cannot render this message",
}

_CALL = {"type": "function", "function": {"name": "search_docs", "arguments": {
    "query": "naïve \"quoted\" — Zürich's <tag> & {braces}", "filters": {"tags": ["a", "ü"], "limit": 5, "exact": True, "score": 0.5, "none": None}}}}
_SECOND = {"type": "function", "function": {"name": "get_time", "arguments": {"tz": "Europe/Paris"}}}
_EMPTY = {"type": "function", "function": {"name": "list_files", "arguments": {}}}
_REASONING = "The user wants the docs; I should search with the exact phrase first."
PROBES: dict[str, dict[str, Any]] = {
    "plain_answer": {"role": "assistant", "content": "Paris is the capital of France."},
    "reasoning_answer": {"role": "assistant", "reasoning_content": _REASONING, "content": "Here is what I found."},
    "reasoning_as_thinking": {"role": "assistant", "thinking": _REASONING, "content": "Here is what I found."},
    "one_call": {"role": "assistant", "tool_calls": [_CALL]},
    "parallel_calls": {"role": "assistant", "tool_calls": [_CALL, _SECOND]},
    "empty_arguments": {"role": "assistant", "tool_calls": [_EMPTY]},
    "reasoning_answer_call": {"role": "assistant", "reasoning_content": _REASONING, "content": "Let me search.", "tool_calls": [_CALL]},
}
USER_TURN = {"role": "user", "content": "Find the docs about naïve datetimes, please."}


@dataclass
class Difference:
    kind: str
    path: str
    expected: Any = None
    got: Any = None
    note: str = ""


@dataclass
class ProbeResult:
    name: str
    message: dict
    prompt: str | None = None
    output: str | None = None
    parsed: Any = None  # the parser's message, or None
    error: str | None = None  # the parser's error
    differences: list[Difference] = field(default_factory=list)

    @property
    def parser_wrong(self) -> bool:
        return any(d.kind == PARSER for d in self.differences)

    @property
    def verdict(self) -> str:
        return verdict(self.differences)


ROUND_TRIPS, PARSER_WRONG, NOT_THE_PARSER = "round-trips", "parser wrong", "not the parser's fault"


def verdict(differences: list[Difference]) -> str:
    """A probe's verdict, the one ``workbench roundtrip`` prints and the sample bar shows."""
    if not differences:
        return ROUND_TRIPS
    return PARSER_WRONG if any(d.kind == PARSER for d in differences) else NOT_THE_PARSER


def judge(probe: dict, parsed: Any, error: str | None, output: str) -> list[Difference]:
    """The differences between a probe and what the parser gave for its output (or its error)."""
    if error is not None:
        return [Difference(PARSER, "", note=f"the parse failed: {error}")]
    return compare(probe, parsed, output)


def tools_for(message: dict) -> list[dict] | None:
    """JSON-schema tool definitions for the calls of ``message`` (types read off the arguments)."""
    tools: dict[str, dict] = {}
    for call in message.get("tool_calls") or []:
        fn = call["function"]
        props = {key: {"type": _json_type(value)} for key, value in fn["arguments"].items()}
        tools.setdefault(fn["name"], {"type": "function", "function": {
            "name": fn["name"], "description": f"The {fn['name']} tool.", "parameters": {"type": "object", "properties": props}}})
    return list(tools.values()) or None


def _json_type(value: Any) -> str:
    for kind, name in ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"), (list, "array"), (dict, "object")):
        if isinstance(value, kind):
            return name
    return "null"


def roundtrip(
    template: str | ChatRenderer,
    parse: Callable[[str, str], Any],
    *,
    special_tokens: dict[str, str] | None = None,
    probes: dict[str, dict] = PROBES,
    variables: dict[str, Any] | None = None,
    **kwargs: Any,
) -> list[ProbeResult]:
    """Each probe's round trip. ``parse(output, prompt)`` returns the parser's message or raises.
    ``template`` is the chat template's source (rendered in this process with ``special_tokens`` and
    the template variables, ``variables`` and ``kwargs``), or a renderer that holds them (a
    ``SandboxedRenderer`` renders under a budget, and raises ``RenderOverBudget`` past it)."""
    renderer = renderer_for(template, special_tokens, {**(variables or {}), **kwargs})
    results = []
    for number, (name, message) in enumerate(probes.items(), 1):
        result = ProbeResult(name, message)
        results.append(result)
        tools = tools_for(message)
        renderer.status = f"probe {number}/{len(probes)} ({name})"
        try:
            result.prompt = renderer.render([USER_TURN], tools=tools, add_generation_prompt=True)
            full = renderer.render([USER_TURN, message], tools=tools)
        except ChatTemplateError as exc:
            result.differences.append(Difference(CANNOT_RENDER, "", note=str(exc)))
            continue
        if not full.startswith(result.prompt):
            at = next((i for i, (a, b) in enumerate(zip(full, result.prompt)) if a != b), min(len(full), len(result.prompt)))
            result.differences.append(Difference(NOT_PREFIX, "", result.prompt[at:at + 40], full[at:at + 40], f"they part at character {at}"))
            continue
        result.output = full[len(result.prompt):]
        try:
            result.parsed = parse(result.output, result.prompt)
        except Exception as exc:  # noqa: BLE001 - the parser's own error is the finding
            result.error = f"{type(exc).__name__}: {exc}"
        result.differences = judge(message, result.parsed, result.error, result.output)
    return results


def comparable(message: Any, keep_ids: bool = True) -> dict:
    """The message as its consumers read it (see the module's docstring)."""
    if not isinstance(message, dict):
        return {"message": message}
    out: dict[str, Any] = {"role": message.get("role")}
    reasoning = next((message[k] for k in REASONING_FIELDS if message.get(k)), None)
    if reasoning is not None:
        out["reasoning"] = reasoning.strip() if isinstance(reasoning, str) else reasoning
    if message.get("content"):
        out["content"] = message["content"].strip() if isinstance(message["content"], str) else message["content"]
    calls = []
    for call in message.get("tool_calls") or []:
        fn = call.get("function") if isinstance(call, dict) else None
        if not isinstance(fn, dict):
            calls.append(call)
            continue
        arguments = fn.get("arguments")
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except ValueError:
                pass
        entry = {"name": fn.get("name"), "arguments": arguments}
        if keep_ids and "id" in call:
            entry["id"] = call["id"]
        calls.append(entry)
    if calls:
        out["tool_calls"] = calls
    return out


def compare(probe: dict, parsed: Any, output: str) -> list[Difference]:
    expected, got = comparable(probe), comparable(parsed)
    if "tool_calls" in got and not any("id" in c for c in probe.get("tool_calls") or []):
        got["tool_calls"] = [{k: v for k, v in c.items() if k != "id"} if isinstance(c, dict) else c for c in got["tool_calls"]]
    differences: list[Difference] = []
    for key in ("role", "reasoning", "content"):
        if expected.get(key) != got.get(key):
            differences.append(_difference(f"/{key}", expected.get(key), got.get(key), output))
    want, have = expected.get("tool_calls", []), got.get("tool_calls", [])
    for i in range(max(len(want), len(have))):
        w = want[i] if i < len(want) else None
        h = have[i] if i < len(have) else None
        if w != h:
            differences.append(_difference(f"/tool_calls/{i}", w, h, output))
    return differences


def _difference(path: str, expected: Any, got: Any, output: str) -> Difference:
    if expected is not None and not _rendered(expected, output):
        return Difference(TEMPLATE_DROPS, path, expected, got, "the output does not hold it")
    return Difference(PARSER, path, expected, got)


def _rendered(value: Any, output: str) -> bool:
    """Whether the output holds the value's text (a call: its name)."""
    if isinstance(value, dict) and "name" in value:
        return str(value["name"]) in output
    if isinstance(value, str):
        return value.strip() in output
    return True


def golden(result: ProbeResult) -> dict:
    """The probe as the parser should give it back, in the parser's words: its reasoning key (the
    one it wrote, else ``thinking``), no ``content`` where the probe has none."""
    parsed = result.parsed if isinstance(result.parsed, dict) else {}
    reasoning_key = next((k for k in REASONING_FIELDS if k in parsed), "thinking")
    out: dict[str, Any] = {"role": result.message.get("role", "assistant")}
    reasoning = next((result.message[k] for k in REASONING_FIELDS if result.message.get(k)), None)
    if reasoning is not None:
        out[reasoning_key] = reasoning
    if result.message.get("content"):
        out["content"] = result.message["content"]
    if result.message.get("tool_calls"):
        out["tool_calls"] = result.message["tool_calls"]
    return out

