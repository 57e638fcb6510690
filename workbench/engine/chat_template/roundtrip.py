"""The round trip: render probe assistant messages with the chat template, parse the assistant's
part of the render, and compare with the probe.

For each probe the conversation is a user turn (and the tools the probe's calls need) followed by
the probe message. The *prompt* is the render of the conversation without the probe and with
``add_generation_prompt=True`` (the ``prefix`` a template parser gets); the *output* is the full
render minus that prompt. Each difference is put in one of four kinds:

- ``parser``: the parser is wrong (the value is in the output but not, or not so, in the message);
- ``template_drops``: the template does not render the value, so no parser can recover it;
- ``not_prefix``: the prompt is not a prefix of the full render (the model never sees it as such);
- ``cannot_render``: the template raises on the probe in every shape it is tried in.

A probe that does not render is tried again in the shapes real templates expect (``CONVENTIONS``,
alone and then together, in a fixed order): a template rejects a message for its shape far more
often than for its meaning, and the maintainer fixes that in seconds. The result names the
conventions that made it render, and the parse is compared with the probe as the template saw it.

Values are compared as transformers' consumers see them: reasoning under any of
``reasoning_content``/``thinking``/``reasoning``; an empty ``content`` is no content; arguments
given as a JSON string are the object it holds; an ``id`` only where the probe has one.
"""

from __future__ import annotations

import json
from itertools import combinations
from dataclasses import dataclass, field
from typing import Any, Callable

from .budget import ChatRenderer, renderer_for
from ..preview import preview
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

# The shapes a probe is retried in, in this order (names as --json reports them). A ``content`` of
# null is not among them: the render drops None values, as transformers does, so it is no content.
CONTENT_BESIDE_CALLS, STRING_ARGUMENTS, CALL_IDS, SPECIAL_TOKENS = "content_beside_calls", "string_arguments", "call_ids", "special_tokens"
CONVENTIONS = {
    CONTENT_BESIDE_CALLS: 'content "" beside tool_calls',
    STRING_ARGUMENTS: "arguments as a JSON string",
    CALL_IDS: 'call ids of 9 alphanumerics (Mistral style) and type "function"',
    SPECIAL_TOKENS: "default special tokens where the folder has none",
}
# transformers' named special tokens, with the values most tokenizers give them.
DEFAULT_SPECIAL_TOKENS = {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>", "sep_token": "</s>",
                          "pad_token": "<pad>", "cls_token": "<s>", "mask_token": "<mask>"}
CALL_ID_VALUES = ("Qz7call01", "Qz7call02", "Qz7call03", "Qz7call04")  # 9 alphanumerics each


def adapt(message: dict, conventions: tuple[str, ...]) -> dict:
    """``message`` in the shape ``conventions`` name (special tokens are the render's, not the message's)."""
    calls = message.get("tool_calls")
    if not calls or not set(conventions) - {SPECIAL_TOKENS}:
        return message
    out = dict(message)
    if CONTENT_BESIDE_CALLS in conventions and not out.get("content"):
        out = {"role": out.get("role"), "content": "", **{k: v for k, v in out.items() if k not in ("role", "content")}}
    new_calls = []
    for i, call in enumerate(calls):
        call = dict(call)
        if STRING_ARGUMENTS in conventions and not isinstance(call["function"].get("arguments"), str):
            call["function"] = {**call["function"], "arguments": json.dumps(call["function"]["arguments"], ensure_ascii=False)}
        if CALL_IDS in conventions:
            call = {"id": CALL_ID_VALUES[i % len(CALL_ID_VALUES)], "type": "function", **{k: v for k, v in call.items() if k not in ("id", "type")}}
        new_calls.append(call)
    out["tool_calls"] = new_calls
    return out


def applicable(message: dict, renderer: ChatRenderer) -> list[str]:
    """The conventions that would change how ``message`` renders, in their order."""
    found = []
    if message.get("tool_calls"):
        if not message.get("content"):
            found.append(CONTENT_BESIDE_CALLS)
        found += [STRING_ARGUMENTS, CALL_IDS]
    if missing_tokens(renderer):
        found.append(SPECIAL_TOKENS)
    return found


def missing_tokens(renderer: ChatRenderer) -> dict[str, str]:
    """The default special tokens for the names the renderer has no value for."""
    if not renderer.reads_special_tokens:
        return {}
    return {k: v for k, v in DEFAULT_SPECIAL_TOKENS.items() if k not in renderer.variables}


def render_adapted(renderer: ChatRenderer, history: list[dict], message: dict,
                   tools: list[dict] | None) -> tuple[str, str, tuple[str, ...], dict]:
    """(prompt, full render, the conventions used, the message as rendered) of ``history`` then
    ``message``: as it is, else in the first shape that renders (``shape_attempts``). The first
    attempt's ``ChatTemplateError`` when none renders."""
    first: ChatTemplateError | None = None
    for conventions in shape_attempts(message, renderer):
        shaped = adapt(message, conventions)
        defaults = missing_tokens(renderer) if SPECIAL_TOKENS in conventions else None
        try:
            prompt = renderer.render(history, tools=tools, add_generation_prompt=True, defaults=defaults)
            full = renderer.render([*history, shaped], tools=tools, defaults=defaults)
        except ChatTemplateError as exc:
            first = first or exc
            continue
        return prompt, full, conventions, shaped
    assert first is not None
    raise first


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
    conventions: tuple[str, ...] = ()  # what made it render (``CONVENTIONS``), when it did not as it is
    rendered: dict | None = None  # the message as the template saw it, when a convention changed it
    render_error: str | None = None  # the template's error (with its line) when no shape rendered

    @property
    def seen(self) -> dict:
        """The probe as the template saw it: what the parse is compared with."""
        return self.rendered if self.rendered is not None else self.message

    @property
    def unrendered(self) -> bool:
        """The template raised on the probe in every shape: nothing was checked."""
        return any(d.kind == CANNOT_RENDER for d in self.differences)

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


def unusable(results: list[ProbeResult]) -> str | None:
    """Why the chat template is unusable input for a round trip (it renders no probe at all), in
    one sentence; None when some probe rendered."""
    if results and all(r.unrendered for r in results):
        return f"the chat template renders none of the probe messages, in any shape tried ({results[0].render_error})"
    return None


def shape_attempts(message: dict, renderer: ChatRenderer, tokens: bool = True) -> list[tuple[str, ...]]:
    """The conventions to try ``message`` in, in order: none, each alone, then two at a time, …
    (``tokens``: the default special tokens among them)."""
    options = [c for c in applicable(message, renderer) if tokens or c != SPECIAL_TOKENS]
    return [c for size in range(len(options) + 1) for c in combinations(options, size)]


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
            result.prompt, full, result.conventions, shaped = render_adapted(renderer, [USER_TURN], message, tools)
        except ChatTemplateError as exc:
            # the error of the probe as it is: the shapes tried after it raise for the same reason or another
            result.render_error = str(exc)
            result.differences.append(Difference(CANNOT_RENDER, "", note=f"{exc}; the message: {preview(message, 120)}"))
            continue
        if shaped is not message:
            result.rendered = shaped
        if not full.startswith(result.prompt):
            at = next((i for i, (a, b) in enumerate(zip(full, result.prompt)) if a != b), min(len(full), len(result.prompt)))
            result.differences.append(Difference(NOT_PREFIX, "", result.prompt[at:at + 40], full[at:at + 40], f"they part at character {at}"))
            continue
        result.output = full[len(result.prompt):]
        try:
            result.parsed = parse(result.output, result.prompt)
        except Exception as exc:  # noqa: BLE001 - the parser's own error is the finding
            result.error = f"{type(exc).__name__}: {exc}"
        result.differences = judge(result.seen, result.parsed, result.error, result.output)
    return results


def reparse(results: list[ProbeResult], parse: Callable[[str, str], Any]) -> list[ProbeResult]:
    """The same renders judged with another parser: two parsers are checked on one render each
    (the render is the slow, budgeted part, and both must see the same output)."""
    out = []
    for old in results:
        result = ProbeResult(old.name, old.message, old.prompt, old.output, conventions=old.conventions,
                             rendered=old.rendered, render_error=old.render_error)
        if old.output is None:  # not rendered, or not a prefix: nothing was parsed
            result.differences = list(old.differences)
        else:
            try:
                result.parsed = parse(old.output, old.prompt or "")
            except Exception as exc:  # noqa: BLE001 - the parser's own error is the finding
                result.error = f"{type(exc).__name__}: {exc}"
            result.differences = judge(result.seen, result.parsed, result.error, old.output)
        out.append(result)
    return out


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
    have = got.get("tool_calls", [])
    for i, want_call in enumerate(expected.get("tool_calls", [])):
        # an id the template does not write (it only checks its form) is no parser's to give back
        if isinstance(want_call, dict) and "id" in want_call and str(want_call["id"]) not in output:
            del want_call["id"]
            if i < len(have) and isinstance(have[i], dict):
                have[i].pop("id", None)
    differences: list[Difference] = []
    for key in ("role", "reasoning", "content"):
        if expected.get(key) != got.get(key):
            # reasoning is compared under any of its names, but reported under the probe's own
            name = _reasoning_key(probe, parsed) if key == "reasoning" else key
            differences.append(_difference(f"/{name}", expected.get(key), got.get(key), output))
    want, have = expected.get("tool_calls", []), got.get("tool_calls", [])
    for i in range(max(len(want), len(have))):
        w = want[i] if i < len(want) else None
        h = have[i] if i < len(have) else None
        if w != h:
            differences.append(_difference(f"/tool_calls/{i}", w, h, output))
    return differences


def _reasoning_key(probe: dict, parsed: Any) -> str:
    """The key the probe holds its reasoning under, else the parser's, else ``reasoning``."""
    for message in (probe, parsed):
        if isinstance(message, dict):
            found = next((k for k in REASONING_FIELDS if message.get(k)), None)
            if found:
                return found
    return "reasoning"


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
    one it wrote, else ``thinking``), no ``content`` where the probe has none; arguments an object
    and a call's id only where the output holds it, whatever shape the template was given."""
    parsed = result.parsed if isinstance(result.parsed, dict) else {}
    reasoning_key = next((k for k in REASONING_FIELDS if k in parsed), "thinking")
    seen = result.seen
    out: dict[str, Any] = {"role": seen.get("role", "assistant")}
    reasoning = next((seen[k] for k in REASONING_FIELDS if seen.get(k)), None)
    if reasoning is not None:
        out[reasoning_key] = reasoning
    if seen.get("content"):
        out["content"] = seen["content"]
    if seen.get("tool_calls"):
        out["tool_calls"] = [_as_given_back(call, original, result.output or "")
                             for call, original in zip(seen["tool_calls"], result.message["tool_calls"])]
    return out


def _as_given_back(call: dict, original: dict, output: str) -> dict:
    if call is original:
        return call
    out = {**call, "function": {**call["function"], "arguments": original["function"]["arguments"]}}
    if "id" in out and str(out["id"]) not in output:
        del out["id"]
    return out

