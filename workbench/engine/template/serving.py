"""What vLLM 0.33 makes of a ``response_template`` (docs/response-template.md, "Serving in vLLM").

vLLM 0.33 serves a template from the tokenizer config when started with ``--reasoning-parser hf``
and/or ``--tool-call-parser hf``. Its rules, read from the 0.33.0 wheel (``vllm/parser/
response_template.py``; the function names are vLLM's):

- ``validate_response_template_for_serving`` (run when the server starts, through
  ``validate_tokenizer_response_template``, and again for each parser it builds): fields only
  ``thinking``, ``content`` and ``tool_calls``; ``defaults`` only ``role``; ``thinking`` and
  ``content`` parsed as ``text``, with no ``transform`` and no ``join``. The first broken rule stops
  the server with ``TypeError: Invalid response_template metadata: ...``.
- ``validate_tokenizer_response_template``: ``--reasoning-parser hf`` needs a ``thinking`` field,
  ``--tool-call-parser hf`` a ``tool_calls`` field.
- ``_streaming_template`` (what every parse runs, streamed or not): every field ``optional``, and an
  empty implicit ``content`` field added when there is no ``content`` field and every field has an
  opener.
- ``_unsupported_tool_guarantee``: requests with strict tools, ``tool_choice="required"``, a named
  tool choice or ``parallel_tool_calls=false`` are refused while tool parsing is on.
- ``_reasoning_has_ended``: a repeating ``thinking`` field never ends reasoning.

vLLM's copy of the chat-parsing package (``vllm/parser/chat_parsing/``) is transformers 5.23's: a
template that only 5.24 loads (``python-call-list``) stops the server, and the 5.24 changes to
parsing do not apply there.

``vllm_problems`` says which of these a template meets; the template is assumed to load in
transformers (``load_failure`` is None): shapes the loader refuses are not looked at again here.
"""

from __future__ import annotations

from typing import Any

import re

from ..pointer import escape
from ..problems import Problem
from ..releases import VLLM_PARSES_AS
from ..versions import template_releases
from .load import load_failure

VLLM = "vLLM 0.33"
#: A rule the server enforces: it does not start with this template.
REFUSED = "refused"
#: It starts, but some output or request comes out differently than in transformers.
NOTE = "note"

THINKING, CONTENT, TOOL_CALLS = "thinking", "content", "tool_calls"
SERVED_FIELDS = (THINKING, CONTENT, TOOL_CALLS)
SERVED_DEFAULTS = ("role",)
_OPENERS = ("open", "open_pattern")
_FIELD_IN_ERROR = re.compile(r"^Field '(.*?)'")


def vllm_problems(template: Any, releases: Any = None) -> list[Problem]:
    """Every reason vLLM 0.33 refuses ``template`` (severity ``refused``), in the order its check
    meets them, then what it serves differently from transformers (severity ``note``).
    ``releases``: the template's ``versions.template_releases``, if the caller has it."""
    if not isinstance(template, dict) or not isinstance(template.get("fields"), dict):
        return []
    fields: dict[str, Any] = template["fields"]
    failure = load_failure(template, VLLM_PARSES_AS)
    if failure is not None:
        if load_failure(template) is not None:
            return []  # no release loads it: validate says why
        named = _FIELD_IN_ERROR.match(failure)
        return [Problem(
            _field(named[1]) if named else "", REFUSED,
            f"vLLM's copy of chat parsing is transformers {VLLM_PARSES_AS}'s, which refuses it: {failure}")]
    refused: list[Problem] = []
    for name in fields:
        if name not in SERVED_FIELDS:
            refused.append(Problem(
                _field(name), REFUSED,
                "not a field vLLM serves (only thinking, content and tool_calls): rename it or leave it out"))
    defaults = template.get("defaults")
    if isinstance(defaults, dict):
        for key in defaults:
            if key not in SERVED_DEFAULTS:
                refused.append(Problem(
                    f"/defaults/{escape(key)}", REFUSED, "not a default vLLM allows (only role)"))
    for name in (THINKING, CONTENT):
        spec = fields.get(name)
        if not isinstance(spec, dict):
            continue
        if spec.get("content", "text") != "text":
            refused.append(Problem(
                f"{_field(name)}/content", REFUSED,
                f"vLLM streams {name} as plain text only: its content parser must be text"))
        if spec.get("transform") is not None:
            refused.append(Problem(
                f"{_field(name)}/transform", REFUSED, f"vLLM streams {name} as it is written: no transform"))
        if spec.get("join") is not None:
            refused.append(Problem(
                f"{_field(name)}/join", REFUSED,
                f"vLLM streams {name} as it is written: no join (vLLM keeps every segment itself, untrimmed; "
                "serve a copy without join and repeats, docs/join-rule.md)"))
    return refused + _notes(fields) + _newer_parsing(releases or template_releases(template))


def _newer_parsing(releases: Any) -> list[Problem]:
    """Keys whose result a release after VLLM_PARSES_AS changed: vLLM parses them as that one does."""
    later = [n for n in (*releases.narrowings, *releases.splits) if n.since is not None and n.since > VLLM_PARSES_AS.minor]
    if not later:
        return []
    changed = [n.pointer for n in later]
    when = " and ".join(f"{minor[0]}.{minor[1]}" for minor in sorted({n.since for n in later}))
    return [Problem(changed[0], NOTE,
                    f"vLLM parses as transformers {VLLM_PARSES_AS} does, so what {when} changed at "
                    f"{', '.join(changed)} does not apply there (see validate's release split)")]


def _notes(fields: dict[str, Any]) -> list[Problem]:
    notes: list[Problem] = []
    for name, spec in fields.items():
        if isinstance(spec, dict) and "optional" in spec and not spec["optional"]:
            notes.append(Problem(
                f"{_field(name)}/optional", NOTE,
                f"{VLLM} makes every field optional: an output without this field, which transformers refuses, "
                "is served without it"))
    if CONTENT not in fields and all(
        isinstance(spec, dict) and any(key in spec for key in _OPENERS) for spec in fields.values()
    ):
        notes.append(Problem(
            "/fields", NOTE,
            f"{VLLM} adds an implicit content field: text outside every region, which transformers discards, "
            "reaches the user as content"))
    thinking = fields.get(THINKING)
    if isinstance(thinking, dict) and thinking.get("repeats"):
        notes.append(Problem(
            f"{_field(THINKING)}/repeats", NOTE,
            f"{VLLM} never counts a repeating thinking field as ended, so structured output (response_format) "
            "never starts"))
    if THINKING not in fields or TOOL_CALLS not in fields:
        notes.append(Problem("/fields", NOTE, _flags_note(fields)))
    if TOOL_CALLS in fields:
        notes.append(Problem(
            _field(TOOL_CALLS), NOTE,
            f"{VLLM} refuses requests with tools that ask for strict tools, tool_choice \"required\", a named "
            "tool choice or parallel_tool_calls false"))
    return notes


def _flags_note(fields: dict[str, Any]) -> str:
    if THINKING not in fields and TOOL_CALLS not in fields:
        return (f"{VLLM} uses a template only with --reasoning-parser hf (which needs a thinking field) or "
                "--tool-call-parser hf (which needs a tool_calls field); with neither field, it serves the raw "
                "output as content")
    flag, name = ("--reasoning-parser hf", THINKING) if THINKING not in fields else ("--tool-call-parser hf", TOOL_CALLS)
    return f"{VLLM} does not start with {flag}: there is no {name} field"


def refusals(template: Any) -> list[Problem]:
    return [problem for problem in vllm_problems(template) if problem.severity == REFUSED]


def vllm_verdict(template: Any, problems: list[Problem] | None = None) -> str:
    """One line: whether vLLM 0.33 starts with ``template``, and if not, the first reason in the
    order vLLM checks (its message names every unknown field and default at once, sorted; then the
    first of thinking and content that breaks a rule), and how many more there are. ``problems``:
    ``vllm_problems(template)``, if the caller has it."""
    problems = vllm_problems(template) if problems is None else problems
    refused = [problem for problem in problems if problem.severity == REFUSED]
    if not refused:
        return f"{VLLM} can serve it"
    first = refused[0]
    more = f" (and {len(refused) - 1} more)" if len(refused) > 1 else ""
    return f"{VLLM} refuses it: {first.path}: {first.message}{more}"


def _field(name: str) -> str:
    return f"/fields/{escape(name)}"
