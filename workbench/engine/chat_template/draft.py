"""A draft response_template, and the equivalent response_schema, read off a chat template by
differential analysis: render probe conversations that differ in one thing (a generation prompt or
not; an answer; reasoning added; one call; two calls) and diff the renders.

- the generation prompt after the history: the start anchor (what an assistant turn also begins
  with) and any prefill after it (a pre-written ``<think>``);
- the end of the turn (what follows the answer), the reasoning's opening and closing text;
- per call: the text before the name, between the name and the arguments, and after them, told
  apart from a section around all calls by rendering one call and two;
- the arguments' format: a JSON object, a JSON string, or a tag pair per argument (XML-style
  parameters, read with ``xml-inline``); Python-expression calls written as a list
  (``[NAME(key=value, ...), ...]``) are read with ``python-call-list`` when the draft targets
  transformers 5.24 or later (``runtime``, the newest by default), and are named as a format no
  parser can read before that.

What the analysis guessed is listed apart (``guesses``). What it does not recognise (arguments in a
dialect such as Gemma 4's) is said, and that part of the template is left out.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import Any

from ..prefill import split_prefill
from ..releases import NEWEST_MINOR, UnknownRelease, minor_of, release_of_change
from .budget import ChatRenderer, renderer_for
from .render import ChatTemplateError
from .roundtrip import CALL_ID_VALUES, CONVENTIONS, SPECIAL_TOKENS, USER_TURN, adapt, missing_tokens, shape_attempts, tools_for

CONTENT, REASONING = "Qz7answer", "Qz7reasoning"
# The releases (CHANGES rows) whose changes a draft uses where its target has them: the
# ``python-call-list`` content parser; a transform that sees close_pattern's named groups; a
# field's ``join`` (the text segments around calls are joined).
PYTHON_CALL_LIST, CLOSE_GROUPS, JOINS = (release_of_change(name) for name in ("python_call_list", "close_captures", "join"))
NAMES = ("qz_first_tool", "qz_second_tool")
ARGS = {"qzkey": "qzvalue"}
JOIN = "\n\n"  # the join rule's separator (docs/join-rule.md)
TYPED_VALUE = 4242  # the same argument as a number, for formats that mark a value's type


@dataclass
class Draft:
    start_anchor: str = ""
    prefill: str = ""
    end: str = ""  # what closes the turn after the answer
    content_open: str = ""  # what the answer opens with (a channel header), if anything
    # beside calls, an answer on another channel (GPT-OSS's commentary preamble): its opener and closer
    beside_calls: tuple[str, str] | None = None
    reasoning: tuple[str, str] | None = None
    # the prefill is the reasoning's closer alone (``</think>``, thinking off): the prompt closes a
    # reasoning block the output never opens
    reasoning_closed: bool = False
    call: dict[str, str] | None = None  # open, between, close, section_open, section_close
    arguments: str | None = None  # "object" or "string"
    # Python-expression calls in one list, read with python-call-list (5.24+): the text before the
    # list's "[" and after its "]" ("" where the list stands alone in the turn)
    python_list: tuple[str, str] | None = None
    findings: list[str] = field(default_factory=list)
    guesses: list[str] = field(default_factory=list)
    template: dict | None = None
    schema: dict | None = None  # the equivalent response_schema


def _call(name: str) -> dict:
    return {"type": "function", "function": {"name": name, "arguments": dict(ARGS)}}


def release(runtime: str | None) -> tuple[int, int]:
    """A release name (as ``releases.minor_of`` reads it) as its ``(major, minor)``; None is the
    newest release the workbench knows."""
    if runtime is None:
        return NEWEST_MINOR
    try:
        return minor_of(str(runtime))
    except UnknownRelease:
        raise ValueError(f"runtime {runtime!r}: expected a transformers release such as "
                         f"'{NEWEST_MINOR[0]}.{NEWEST_MINOR[1]}'") from None


def draft(template: str | ChatRenderer, *, special_tokens: dict[str, str] | None = None,
          variables: dict[str, Any] | None = None, runtime: str | None = None, **kwargs: Any) -> Draft:
    """The draft (see the module's docstring). ``ChatTemplateError`` when even the answer probe
    cannot be rendered. ``template``: the chat template's source (with ``special_tokens`` and the
    template variables, ``variables`` and ``kwargs``), or a renderer that holds them. ``runtime``:
    the transformers release the draft is for (``"5.23"``, ``"5.24"``; None: the newest), which
    decides whether Python-expression calls can be read (``python-call-list``, 5.24+)."""
    target = release(runtime)
    result = Draft()
    renderer = renderer_for(template, special_tokens, {**(variables or {}), **kwargs})
    renderer.status = "the draft's conversations"
    defaults: dict[str, str] | None = None  # the default special tokens, once the template needs them
    used: list[str] = []  # the conventions an assistant message needed to render

    def render(messages: list[dict], tools: list | None = None, gen: bool = False) -> str:
        try:
            return renderer.render(messages, tools=tools, add_generation_prompt=gen, defaults=defaults)
        except ChatTemplateError as first:
            last = messages[-1]
            # calls rejected for their shape: retried as the round trip retries its probes
            for conventions in shape_attempts(last, renderer, tokens=False)[1:] if last.get("role") == "assistant" else []:
                try:
                    text = renderer.render([*messages[:-1], adapt(last, conventions)], tools=tools, add_generation_prompt=gen,
                                           defaults=defaults)
                except ChatTemplateError:
                    continue
                used.extend(c for c in conventions if c not in used)
                return text
            raise first

    def opening() -> tuple[str, str, str]:
        return render([USER_TURN]), render([USER_TURN], gen=True), render([USER_TURN, {"role": "assistant", "content": CONTENT}])

    try:
        base, prompt, answer = opening()
    except ChatTemplateError:
        if not missing_tokens(renderer):
            raise
        defaults = missing_tokens(renderer)  # a bare .jinja has no folder to give it bos_token, eos_token, …
        base, prompt, answer = opening()  # still failing: the template's own error
        used.append(SPECIAL_TOKENS)
    if not (prompt.startswith(base) and answer.startswith(base)):
        result.guesses.append("the history is not a prefix of the generation prompt: the anchor is the generation prompt's last line")
    tail = prompt[len(os.path.commonprefix([base, prompt])):]
    turn = answer[len(os.path.commonprefix([base, answer])):]
    turn_head = turn[: turn.find(CONTENT)] if CONTENT in turn else turn
    result.start_anchor = os.path.commonprefix([tail, turn_head])
    if not result.start_anchor.strip():
        last = re.search(r"(\[[^\[\]]*\]|<[^<>]*>)\s*$", prompt)  # the prompt's last token
        result.start_anchor = last.group(0) if last else prompt[-20:]
        if not result.start_anchor:
            # An empty prompt (a template that renders nothing) leaves nothing to anchor the parse on.
            raise ChatTemplateError("the generation prompt renders as nothing: there is no assistant turn to read a draft from")
        result.guesses.append(
            f"the generation prompt adds no assistant header: the anchor is the prompt's last token {result.start_anchor!r}"
        )
    # What an assistant turn also begins with may run past the header (a <think> every turn opens):
    # by the engine's one rule that is prefill, parsed from the prompt's tail, never anchor.
    split = split_prefill(result.start_anchor)
    if split is not None and split.prefill.strip():
        result.start_anchor = split.head
    result.prefill = tail[len(result.start_anchor):]
    result.findings.append(f"start anchor {result.start_anchor!r}" + (f", prefill {result.prefill!r}" if result.prefill else ""))

    output = _output(answer, prompt, result)
    at = output.find(CONTENT)
    result.end = output[at + len(CONTENT):].strip() if at >= 0 else ""
    result.content_open = _answer_opener(output[:at]) if at > 0 else ""
    result.findings.append(f"the turn ends with {result.end!r}" if result.end else "nothing follows the answer")
    if result.content_open:
        result.findings.append(f"the answer opens with {result.content_open!r}")

    empty = re.fullmatch(r"(<([^<>/\s]+)>)\s*(</\2>)\s*", result.content_open)
    _reasoning(render, prompt, result)
    if empty and result.reasoning is None:  # an empty reasoning block, not an opener: read it as reasoning
        result.reasoning = (empty.group(1), empty.group(3))
        result.guesses.append(f"an empty {empty.group(0).strip()!r} before every answer: read as the reasoning's delimiters")
    closed = re.fullmatch(r"\s*</([^<>/\s]+)>\s*", result.prefill)
    if closed and result.reasoning is None:  # a prefilled closer: the tail closes a reasoning block
        result.reasoning, result.reasoning_closed = (f"<{closed.group(1)}>", closed.group(0).strip()), True
        result.findings.append(f"the prompt pre-writes the reasoning's closer {result.reasoning[1]!r}: read as an empty reasoning block")
    if result.reasoning is not None and re.fullmatch(
        "(?:" + re.escape(result.reasoning[0]) + r"\s*)?" + re.escape(result.reasoning[1]) + r"\s*", result.content_open
    ):
        result.findings.remove(f"the answer opens with {result.content_open!r}")
        result.content_open = ""
    _calls(render, result, target)
    _same_tool_twice(render, result)
    _content_beside_calls(render, result)
    for convention in used:
        result.findings.append(f"the template renders only with {CONVENTIONS[convention]}: drafted from renders in that shape")
    result.template = _template(result, target)
    result.schema = _schema(result)
    return result


def _output(full: str, prompt: str, result: Draft) -> str:
    """The assistant's part of a render, with the prefill in front (a parser reads the prompt tail too)."""
    if full.startswith(prompt):
        return result.prefill + full[len(prompt):]
    anchor_at = full.rfind(result.start_anchor) if result.start_anchor else -1
    return full[anchor_at + len(result.start_anchor):] if anchor_at >= 0 else full


def _reasoning(render, prompt: str, result: Draft) -> None:
    try:
        full = render([USER_TURN, {"role": "assistant", "reasoning_content": REASONING, "content": CONTENT}])
    except ChatTemplateError as exc:
        result.findings.append(f"reasoning: the template cannot render it ({exc})")
        return
    output = _output(full, prompt, result)
    if REASONING not in output:
        result.findings.append("reasoning: the template does not render the final turn's reasoning (nothing to parse)")
        return
    r, c = output.index(REASONING), output.find(CONTENT)
    opener, closer = output[:r].strip(), output[r + len(REASONING): c if c > r else len(output)].strip()
    if result.content_open and closer.endswith(result.content_open):
        closer = closer[: -len(result.content_open)].strip()
    if not opener or not closer:
        result.guesses.append(f"reasoning delimiters unclear (before {opener!r}, after {closer!r}); left out")
        return
    result.reasoning = (opener, closer)
    result.findings.append(f"reasoning between {opener!r} and {closer!r}")


def _calls(render, result: Draft, target: tuple[int, int] = release(None)) -> None:
    one, two = {"role": "assistant", "tool_calls": [_call(NAMES[0])]}, {"role": "assistant", "tool_calls": [_call(n) for n in NAMES]}
    tools = tools_for(two)
    try:
        prompt = render([USER_TURN], tools, gen=True)
        out1 = _output(render([USER_TURN, one], tools), prompt, result)
        out2 = _output(render([USER_TURN, two], tools), prompt, result)
    except ChatTemplateError as exc:
        result.findings.append(f"tool calls: the template cannot render them ({exc})")
        return
    if NAMES[0] not in out1 or NAMES[1] not in out2:
        result.findings.append("tool calls: the template does not render the call's name")
        return
    n1 = out1.index(NAMES[0])
    after = out1[n1 + len(NAMES[0]):]
    found = _find_arguments(after)
    if found is None and re.match(r"\s*\(\s*" + next(iter(ARGS)) + r"\s*=", after):
        if target >= PYTHON_CALL_LIST.minor and _python_list(out1, out2, n1, result):
            return
        since = PYTHON_CALL_LIST
        result.findings.append(
            "tool calls are Python expressions (NAME(key=value, ...)): neither a response template nor a response schema can "
            "read their arguments (schemas/README.md, 'Families the format cannot express'); tool_calls left out of the draft"
            + (f" (transformers {since}+ reads a list of them with python-call-list: draft for {since})"
               if target < PYTHON_CALL_LIST.minor else " (they are not one [...] list python-call-list could read)")
        )
        return
    if found is None and _xml_parameters(out1[:n1], after, out2, _typed_after(render, tools, prompt, result), result):
        return
    if found is None:
        result.guesses.append("tool calls: arguments are neither a JSON object nor a JSON string (XML-style parameters or a "
                              "dialect?); tool_calls left out of the draft")
        return
    kind, a_at, a_text = found
    result.arguments = kind
    between, after_args = after[:a_at], after[a_at + len(a_text):]
    after2 = out2[out2.index(NAMES[1]) + len(NAMES[1]):]
    found2 = _find_arguments(after2)
    between2 = after2[: found2[1]] if found2 else between
    numbered = between2 != between and _digits(between2) == _digits(between)  # e.g. functions.NAME:0, :1
    end1 = out2.index(NAMES[0]) + len(NAMES[0]) + a_at + len(a_text)
    gap = out2[end1: out2.index(NAMES[1])]  # first call's close, then the second call's open
    opener = _from_token(_common_suffix(out1[:n1], gap))
    closer = _to_token(os.path.commonprefix([after_args, gap]))
    section_open = _section_open(out1[:n1], opener, result)
    rest = after_args[len(closer):]
    section_close = rest[: rest.find(result.end)].strip() if result.end and result.end in rest else rest.strip()
    if not opener.strip():
        result.guesses.append("tool calls: no text before each call's name; tool_calls left out")
        return
    result.call = {"open": opener.lstrip(), "between": between, "close": closer.rstrip(),
                   "section_open": section_open, "section_close": section_close,
                   "separator": _separator(gap[len(closer):], opener), "numbered": numbered}
    if CALL_ID_VALUES[0] in closer:  # the call's id, rendered after its arguments (Mistral's JSON list)
        if target >= CLOSE_GROUPS.minor:
            result.findings.append(f"each call's id follows its arguments: read from the closer {closer.strip()!r}")
        else:
            result.guesses.append("each call's id follows its arguments, where a response template reads no group before "
                                  f"transformers {CLOSE_GROUPS}: the draft matches any id and keeps none")
        result.call["id_in_close"] = target >= CLOSE_GROUPS.minor
    result.findings.append(
        f"each call: {opener.strip()!r} NAME {_shown(between)!r} ARGUMENTS ({'a JSON object' if kind == 'object' else 'a JSON string'}) "
        f"{closer.strip()!r}" + (f"; all calls between {section_open!r} and {section_close!r}" if section_open or section_close else "")
    )


def _shown(text: str) -> str:
    """Text of a probe's render as a finding shows it: the probe's call name, written again, as NAME."""
    return text.replace(NAMES[0], "NAME")


def _same_tool_twice(render, result: Draft) -> None:
    """Two calls to the same tool must open two calls: a format that writes them under one header
    (Muse Glimmer's ``to=NAME`` channel holding one ``<atem:invoke>`` per call) would have the
    drafted opener read one call and merge the second's arguments into it, so tool_calls are left
    out and the finding says why."""
    if result.call is None:
        return
    twice = {"role": "assistant", "tool_calls": [_call(NAMES[0]), _call(NAMES[0])]}
    tools = tools_for(twice)
    try:
        output = _output(render([USER_TURN, twice], tools), render([USER_TURN], tools, gen=True), result)
    except ChatTemplateError:
        return
    d = result
    opener = _lit(d.call["open"]) + _name_group(d) + _between(d)
    if len(re.findall(opener, output, flags=re.DOTALL)) == 2:
        return
    found = len(re.findall(opener, output, flags=re.DOTALL))
    result.findings.append(
        f"tool calls: two calls to the same tool are written under one header (the opener {d.call['open'].strip()!r} NAME "
        f"{_shown(d.call['between'])!r} is found {found} time(s) for the 2 calls): read per header, the second call's arguments "
        "would be merged into the first; tool_calls left out")
    result.call, result.arguments = None, None


def _section_open(before_name: str, opener: str, result: Draft) -> str:
    """What opens the calls' section: the text before the first call's opener, less an empty
    reasoning block or the prefilled reasoning closer that stands there."""
    section_open = before_name[: len(before_name) - len(opener)].strip()
    section_open = re.sub(r"^<([^<>/\s]+)>\s*</\1>", "", section_open).strip()  # an empty reasoning block before calls
    if result.reasoning_closed and section_open.startswith(result.reasoning[1]):  # the prefilled closer
        section_open = section_open[len(result.reasoning[1]):].strip()
    return section_open


def _typed_after(render, tools: list, prompt: str, result: Draft) -> str | None:
    """The text after the call's name when its one argument is a number rather than text (XML-style
    formats may mark the value's type in the tag: ``string="false"``); None if it does not render."""
    call = {"type": "function", "function": {"name": NAMES[0], "arguments": {next(iter(ARGS)): TYPED_VALUE}}}
    try:
        out = _output(render([USER_TURN, {"role": "assistant", "tool_calls": [call]}], tools), prompt, result)
    except ChatTemplateError:
        return None
    return out[out.index(NAMES[0]) + len(NAMES[0]):] if NAMES[0] in out else None


def _list_end(text: str, start: int, calls: int) -> int | None:
    """Where the call list opening at ``start`` ends (just past its "]"), if it reads as a list of
    ``calls`` calls, the first named NAMES[0]."""
    from ..template.python_calls import parse_python_call_list

    close = start
    while (close := text.find("]", close) + 1) > 0:
        try:
            read = parse_python_call_list(text[start:close])
        except ValueError:
            continue
        return close if len(read) == calls and read[0]["name"] == NAMES[0] else None
    return None


def _python_list(out1: str, out2: str, n1: int, result: Draft) -> bool:
    """Python-expression calls in one ``[...]`` list: read with ``python-call-list``. False when
    the calls are not one such list (each in a list of its own, or no list at all)."""
    start = out1.rfind("[", 0, n1)
    if start < 0 or out1[start + 1: n1].strip():
        return False
    end = _list_end(out1, start, 1)
    start2 = out2.rfind("[", 0, out2.find(NAMES[0]))
    if end is None or start2 < 0 or _list_end(out2, start2, 2) is None:
        return False
    before = re.sub(r"^<([^<>/\s]+)>\s*</\1>", "", out1[:start].strip()).strip()  # an empty reasoning block
    before = _from_token(before) if before else ""
    rest = out1[end:]
    after = rest[: rest.find(result.end)].strip() if result.end and result.end in rest else rest.strip()
    result.python_list = (before, after)
    result.findings.append(
        "tool calls are Python expressions in one list, [NAME(key=value, ...), ...]"
        + (f" between {before!r} and {after!r}" if before or after else ", alone in the turn")
        + f": read with python-call-list (transformers {PYTHON_CALL_LIST}+); the drafted schema cannot read them and leaves tool_calls out"
    )
    if not before:
        result.guesses.append("a call list with nothing before it is read only at the start of the answer (as vLLM reads it)")
    return True


def _content_beside_calls(render, result: Draft) -> None:
    """An answer that has its own opener may open differently when calls follow it (a preamble on
    another channel, closed before the calls' own headers): read both."""
    if not result.content_open or result.call is None:
        return
    message = {"role": "assistant", "content": CONTENT, "tool_calls": [_call(NAMES[0])]}
    tools = tools_for(message)
    try:
        output = _output(render([USER_TURN, message], tools), render([USER_TURN], tools, gen=True), result)
    except ChatTemplateError:
        return
    at = output.find(CONTENT)
    call_at = output.find(result.call["open"], at + len(CONTENT)) if at >= 0 else -1
    if at < 0 or call_at < at:
        return
    opener = _answer_opener(output[:at]).strip()
    section = result.call["section_open"]
    closer = output[at + len(CONTENT): call_at].strip()
    if section and closer.endswith(section):
        closer = closer[: -len(section)].strip()
    if not opener or not closer or (opener == result.content_open.strip() and closer == result.end.strip()):
        return
    result.beside_calls = (opener, closer)
    result.findings.append(f"beside calls, the answer opens with {opener!r} and ends with {closer!r}"
                           if opener != result.content_open.strip() else f"beside calls, the answer ends with {closer!r}")


def _xml_parameters(before_name: str, after: str, out2: str, typed: str | None, result: Draft) -> bool:
    """Arguments as one tag pair per key (``<parameter=K>V</parameter>``, ``<arg_key>K</arg_key>
    <arg_value>V</arg_value>``): read them with ``xml-inline``. False when they are not so.
    ``typed``: the text after the name where the argument is a number, whose tag may differ."""
    (key, value), = ARGS.items()
    k = after.find(key)
    v = after.find(value, k + len(key)) if k >= 0 else -1
    ko = after.rfind("<", 0, k) if k >= 0 else -1
    if v < 0 or ko < 0:
        return False
    tail = after[v + len(value):]
    vc_end = tail.find(">")
    if vc_end < 0:
        return False
    key_open, key_to_value, value_close = after[ko:k], after[k + len(key): v], tail[: vc_end + 1]
    rest = tail[vc_end + 1:]
    first_end = out2.index(NAMES[0]) + len(NAMES[0]) + v + len(value) + vc_end + 1
    gap = out2[first_end: out2.index(NAMES[1])]
    closer = _to_token(os.path.commonprefix([rest, gap]))
    call_open = _from_token(_common_suffix(before_name, gap))
    if not call_open.strip():
        return False
    section_close = rest[len(closer):]
    section_close = section_close[: section_close.find(result.end)].strip() if result.end and result.end in section_close else section_close.strip()
    section_open = _section_open(before_name, call_open, result)
    typed_at = typed.find(str(TYPED_VALUE), typed.find(key) + len(key)) if typed is not None and key in typed else -1
    key_to_typed = typed[typed.find(key) + len(key): typed_at] if typed_at >= 0 else key_to_value
    result.arguments = "xml"
    result.call = {"open": call_open, "between": after[:ko], "close": closer.rstrip(), "section_open": section_open,
                   "section_close": section_close, "separator": _separator(gap[len(closer):], call_open), "numbered": False,
                   "key_open": key_open, "key_to_value": key_to_value, "value_close": value_close,
                   "key_to_typed": key_to_typed if key_to_typed != key_to_value else ""}
    result.findings.append(
        f"each call: {call_open.strip()!r} NAME {_shown(after[:ko])!r} then per argument {key_open!r} KEY {key_to_value!r} VALUE "
        f"{value_close!r}, then {closer.strip()!r}"
        + (f"; a value that is not text follows {key_to_typed!r}" if result.call["key_to_typed"] else "")
        + (f"; all calls between {section_open!r} and {section_close!r}" if section_open or section_close else "")
    )
    result.guesses.append("argument values are raw text: the draft reads a value as JSON where it is JSON, else as text")
    return True


def _find_arguments(text: str) -> tuple[str, int, str] | None:
    """("object" | "string", where, the text) of the probe's arguments in ``text``."""
    for kind, candidates in (
        ("string", [json.dumps(json.dumps(ARGS)), json.dumps(json.dumps(ARGS, separators=(",", ":")))]),
        ("object", [json.dumps(ARGS), json.dumps(ARGS, separators=(",", ":")), json.dumps(ARGS, indent=2), json.dumps(ARGS, indent=4)]),
    ):
        for candidate in candidates:
            at = text.find(candidate)
            if at >= 0:
                return kind, at, candidate
    return None


def _value_start(text: str) -> str:
    """The literal before a trimmed value; after a whitespace run, the value starts at a non-space
    (the linear form of a trim: ``\\s*(?!\\s)``)."""
    literal = _lit(text)
    return literal + r"(?!\s)" if literal.endswith(r"\s*") else literal


def _separator(between_calls: str, opener: str) -> str:
    """What stands between one call's close and the next call's opener (``; `` or ``, ``)."""
    rest, opener = between_calls.strip(), opener.strip()
    return rest[: len(rest) - len(opener)].strip() if opener and rest.endswith(opener) else ""


def _bare_close(d: Draft) -> str:
    """A closer that is a bare brace also ends the arguments' own objects: the call ends only where
    what follows a call does (a separator and the next call; the section's or the turn's end; the
    text's end). The separator is eaten."""
    closer = _lit(d.call["close"])
    if d.call["separator"]:
        closer += r"(?:\s*" + _lit(d.call["separator"]) + ")?"
    after = [_lit(x) for x in (d.call["open"], d.call["section_close"], d.end) if x.strip()]
    return closer + r"(?=\s*(?:" + "|".join(after + [r"\Z"]) + "))"


def _digits(text: str) -> str:
    return re.sub(r"\d+", "0", text)


def _common_suffix(a: str, b: str) -> str:
    return os.path.commonprefix([a[::-1], b[::-1]])[::-1]


def _lit(text: str, numbered: bool = False) -> str:
    """A literal as a regex in which each whitespace run may be any whitespace (and, ``numbered``,
    each digit run any number). Leading whitespace is dropped: a pattern that begins with a repeat
    is quadratic in transformers' partial search."""
    parts = re.split(r"(\s+|\d+)" if numbered else r"(\s+)", text.lstrip())
    return "".join(r"\s*" if part.isspace() else r"\d+" if part.isdigit() and numbered else re.escape(part) for part in parts if part)


def _spaced(pattern: str) -> str:
    """``pattern`` then any whitespace, without a second ``\\s*`` where it already ends with one
    (``\\s*\\s*`` backtracks quadratically, and the validator says so)."""
    return pattern if pattern.endswith(r"\s*") and not pattern.endswith(r"\\s*") else pattern + r"\s*"


def _from_token(text: str) -> str:
    """``text`` from its first token start (``<``, ``[``, ``{``) when it begins inside a token (a
    common suffix of two renders may begin mid-token: ``|><|tool_call_begin|>``)."""
    stripped = text.lstrip()
    if stripped[:1] in "<[{" or not any(c in stripped for c in "<["):
        return stripped
    return stripped[min(i for i in (stripped.find("<"), stripped.find("[")) if i >= 0):]


def _answer_opener(text: str) -> str:
    """What the answer opens with: the output's start up to the answer. Text that begins with
    whitespace starts at a boundary, so plain text before its first token is a header of its own
    (Muse Glimmer's recipient, `` to=user<|message|>``) and is kept; otherwise the anchor may have
    ended inside a token, and the opener starts at the first token (``_from_token``)."""
    if text[:1].isspace() and text.strip() and text.strip()[:1] not in "<[{":
        return text.strip()
    return _from_token(text)


def _to_token(text: str) -> str:
    """``text`` up to its last token end (``>``, ``]``, ``}``) when it ends inside a token."""
    stripped = text.rstrip()
    if stripped[-1:] in ">]}" or not any(c in stripped for c in ">]}"):
        return stripped
    return stripped[: max(stripped.rfind(c) for c in ">]}") + 1]


def _name_group(d: Draft) -> str:
    """The call's name: never empty, and stopping where the text after it begins."""
    stop = re.escape(d.call["between"].strip()[:1])
    return rf"(?P<name>[^\s<>{{}}\[\]\"'{stop}]+)"


def _shared_opener(d: Draft) -> bool:
    """Whether each call's opener (plain text such as ``to=``) also stands in the answer's or the
    reasoning's opener, so that it alone does not tell a call from another channel."""
    opener = d.call["open"].strip() if d.call else ""
    others = (d.content_open, d.reasoning[0] if d.reasoning else "", d.beside_calls[0] if d.beside_calls else "")
    return bool(opener) and any(opener in other for other in others)


def _between(d: Draft) -> str:
    """The text between the call's name and its arguments; where the name is written there again
    (Muse Glimmer's ``to=NAME<|message|>…<atem:invoke name="NAME">``), any name stands in its place."""
    if not d.call["between"].strip():
        return r"\s*"
    head, name, tail = d.call["between"].partition(NAMES[0])
    if not name:
        return _lit(d.call["between"], d.call["numbered"])
    stop = tail.strip()[:1]
    stop = "" if stop in "<>{}[]\"'" else re.escape(stop)
    return (_lit(head, d.call["numbered"]) + rf"[^\s<>{{}}\[\]\"'{stop}]+"
            + (_lit(tail, d.call["numbered"]) if tail.strip() else r"\s*"))


def _call_close(d: Draft, keep_id: bool = False) -> str:
    """The call's closer; an id in it (``"id_in_close"``) is any id, read as the group ``id`` with ``keep_id``."""
    if len(d.call["close"].strip()) <= 2:
        return _bare_close(d)
    if "id_in_close" not in d.call:
        return _lit(d.call["close"])
    head, tail = d.call["close"].split(CALL_ID_VALUES[0], 1)
    value = "[^\\s\"'<>\\\\]+"
    return _lit(head) + (f"(?P<id>{value})" if keep_id else value) + _lit(tail)


def _tag_pattern(d: Draft) -> str:
    """One XML-style argument: its key, then its value trimmed."""
    starts = [_value_start(d.call["key_to_value"])] + ([_value_start(d.call["key_to_typed"])] if d.call.get("key_to_typed") else [])
    return (_lit(d.call["key_open"]) + r"(?P<key>[^<>\n]+?)" + (starts[0] if len(starts) == 1 else "(?:" + "|".join(starts) + ")")
            + r"(?P<value>(?:.*?\S)??)\s*" + _lit(d.call["value_close"]))


def _template(d: Draft, target: tuple[int, int] = release(None)) -> dict:
    fields: dict[str, Any] = {}
    if d.reasoning is not None:
        opener = _lit(d.reasoning[0])
        if d.reasoning_closed:  # also opened, empty, where the prompt's tail starts with the closer
            opener = "(?:" + opener + "|^(?=" + _lit(d.reasoning[1]) + "))"
        fields["thinking"] = {"open_pattern": opener, "close_pattern": _spaced(_lit(d.reasoning[1])), "content": "text"}
    if d.call is not None:
        head = _lit(d.call["open"]) + _name_group(d) + _between(d)
        if NAMES[0] in d.call["between"]:
            d.guesses.append(f"the call's name is written again after it ({_shown(d.call['between']).strip()!r}): the draft reads the "
                             "first and takes any name in the second, so two names that differ are not noticed")
        if d.call["numbered"]:
            d.guesses.append(f"the text after a call's name holds a number that counts the calls ({d.call['between'].strip()!r}): read as any number")
        opener = head + {"object": r"(?=\{)", "string": r'(?=")'}.get(d.arguments, "")
        if d.call["section_open"]:
            opener = _spaced(_lit(d.call["section_open"])) + opener + "|" + opener
        closer = _call_close(d, keep_id=bool(d.call.get("id_in_close")))
        if d.call["separator"] and len(d.call["close"].strip()) > 2:  # (a bare closer eats it already)
            closer += r"(?:\s*" + _lit(d.call["separator"]) + ")?"  # text between calls is not content
        if len(d.call["close"].strip()) <= 2:
            d.guesses.append(f"a call ends with a bare {d.call['close'].strip()!r}: the draft ends it only where the next call, "
                             "the section's end, the turn's end or the text's end follows")
        if d.call["section_close"]:
            closer += r"(?:\s*" + _lit(d.call["section_close"]) + ")?"
        fields["tool_calls"] = {
            "open_pattern": opener, "close_pattern": _spaced(closer), "repeats": True, "content": "json",
            "transform": {"type": "function", **({"id": "{id}"} if d.call.get("id_in_close") else {}),
                          "function": {"name": "{name}", "arguments": "{content}"}},
        }
        if d.arguments == "xml":
            fields["tool_calls"]["content"] = "xml-inline"
            fields["tool_calls"]["content_args"] = {
                "tag_pattern": _tag_pattern(d), "value_parser": {"name": "json", "args": {"allow_non_json": True}},
            }
        if d.arguments == "string":
            d.guesses.append("arguments written as a JSON string: the drafted template keeps them as that string, and the "
                             "drafted schema leaves tool_calls out")
    if d.python_list is not None:
        before, after = d.python_list
        ends = [_lit(x) for x in (d.end,) if x.strip()] + [r"\Z"]
        fields["tool_calls"] = {
            "open_pattern": _lit(before) + r"(?=\s*\[)" if before else r"^\s*(?=\[)",
            # zero-width after the "]" (the list keeps its bracket), or eating the text after the list
            "close_pattern": _spaced(_lit(after)) if after else r"(?<=\])(?=\s*(?:" + "|".join(ends) + "))",
            "content": "python-call-list",
            "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{arguments}"}},
            "transform_each": True,
        }
    content: dict[str, Any] = {"content": "text"}
    if d.content_open:  # a field of its own then: text outside every region is dropped
        content["open_pattern"] = _content_openers(d)
        d.guesses.append(f"the answer has its own opener {d.content_open!r}: text outside every region is not kept")
    closers = [_spaced(closer) for closer in _content_closers(d)]
    if not d.content_open and target >= JOINS.minor:
        # every closer eats the whitespace after it; this takes the whitespace at the very start,
        # so no segment of whitespace alone is joined as an extra blank line (docs/join-rule.md)
        closers.insert(0, r"^\s+")
    if closers:
        content["close_pattern"] = "|".join(closers)
    if target >= JOINS.minor:
        content.update(repeats=True, join=JOIN)
    elif d.call is not None or d.python_list is not None:
        d.guesses.append(f"text after a call replaces the text before it: joining the segments needs transformers "
                         f"{JOINS} (join)")
    fields["content"] = content
    return {"version": 1, "defaults": {"role": "assistant"}, "start_anchor": d.start_anchor, "fields": fields}


def _content_openers(d: Draft) -> str:
    if not d.beside_calls or d.beside_calls[0].strip() == d.content_open.strip():
        return _lit(d.content_open)
    return "(?:" + _lit(d.content_open) + "|" + _lit(d.beside_calls[0]) + ")"


def _content_closers(d: Draft) -> list[str]:
    """What ends the answer: the turn's end, and where it sits beside calls, that channel's end."""
    return [_lit(x) for x in (d.end, d.beside_calls[1] if d.beside_calls else "") if x]


def _schema(d: Draft) -> dict:
    """The response_schema that reads what the template reads (from the output alone: what the
    prompt pre-writes, such as an opening ``<think>``, is optional at the start)."""
    lazy = r"(?!\s)((?:.*?\S)??)\s*"  # a trimmed value: after a \s*, found in linear time
    # empty reasoning is no reasoning, as the template drops an empty region: the schema reads none
    some = r"(?!\s)(.*?\S)\s*"
    props: dict[str, Any] = {"role": {"const": "assistant"}}
    skip = ""
    if d.reasoning is not None:
        opener, closer = _lit(d.reasoning[0]), _lit(d.reasoning[1])
        if d.reasoning_closed:
            pass  # the output holds no reasoning to read: only skipped, below
        elif d.reasoning[0].strip() and d.reasoning[0].strip() in d.prefill:
            # the opener's own trailing space inside the optional group: two loops with only an
            # optional part between them would backtrack polynomially on a whitespace run
            props["thinking"] = {"type": "string", "x-regex": rf"^\s*(?:{_spaced(opener)})?" + some + closer}
        else:
            props["thinking"] = {"type": "string", "x-regex": _spaced(opener) + some + closer}
        skip = rf"(?:.*?{closer})?"
    stops = []
    if d.call is not None and not _shared_opener(d):
        # (where the calls' opener also begins the answer's or the reasoning's header, the answer
        # ends only at its own closers, as in the template)
        stops += [_lit(x) for x in (d.call["section_open"], d.call["open"]) if x.strip()]
    stops += _content_closers(d)
    if d.content_open:  # the answer has an opener of its own: found wherever it is
        props["content"] = {"type": "string", "x-regex": _spaced(_content_openers(d)) + lazy + "(?:" + "|".join(stops + ["$"]) + ")"}
    else:
        props["content"] = {"type": "string", "x-regex": rf"^{skip}\s*" + lazy + "(?:" + "|".join(stops + ["$"]) + ")"}
    joined = not d.content_open and d.call is not None and d.arguments in ("object", "xml") and not _shared_opener(d)
    if joined and len(d.call["close"].strip()) <= 2:
        # a call that ends with a bare brace ends only where what follows it does, so a run of them
        # could be split in many ways (the validator warns): the schema reads the text before them
        joined = False
        d.guesses.append("calls end with a bare brace: the drafted schema reads the text before the calls only; "
                         "the template joins every segment")
    if joined:
        # every segment around the calls, joined (docs/join-rule.md): the reasoning cut off, then
        # each run of calls, as tool_calls reads them, one separator; (?<!\s) tries a whitespace run once
        ends = _content_closers(d)
        props["content"] = {"type": "string", "x-regex-substitutions": [], "x-regex": r"^\s*" + lazy + "(?:" + "|".join(ends + ["$"]) + ")"}
        if skip:
            props["content"]["x-regex-substitutions"].append(["^" + skip[3:-2], ""])
    if d.call is not None and d.arguments in ("object", "xml"):
        if d.arguments == "object":
            arguments: dict[str, Any] = {"type": "object", "x-parser": "json", "additionalProperties": {}}
        else:
            arguments = {
                "type": "object", "default": {},
                "x-regex-key-value": _tag_pattern(d),
                "additionalProperties": {"x-parser": "json", "x-parser-args": {"allow_non_json": True}},
            }
        call: dict[str, Any] = {"type": "object", "properties": {
            "type": {"const": "function"},
            "function": {
                "type": "object",
                "x-regex": "^" + _name_group(d) + _between(d) + r"(?:(?P<arguments>\S.*))?$",
                "properties": {"name": {"type": "string"}, "arguments": arguments},
                "required": ["name"],
            },
        }}
        iterator = _lit(d.call["open"]) + r"(.*?)" + _call_close(d)
        if _shared_opener(d):
            # the opener also begins other channels' headers (``to=self``, ``to=user``): a call is
            # the opener followed by a name and the text after it, as the template's opener reads it
            head = _between(d)
            head = head[:-3] if head.endswith(r"\s*") else head
            iterator = _lit(d.call["open"]) + "(" + _name_group(d)[len("(?P<name>"):-1] + head + r".*?)" + _call_close(d)
        if "id_in_close" in d.call:  # each item is the call with its closer, whose end holds the id
            iterator = _lit(d.call["open"]) + r"(.*?" + _call_close(d) + ")"
            call["x-regex"] = r"^(?P<function>.*?)" + _call_close(d, keep_id=True) + "$"
            call["properties"]["id"] = {"type": "string"}
        props["tool_calls"] = {"type": "array", "x-regex-iterator": iterator, "items": call}
        if joined:
            section = [_lit(x) for x in (d.call["section_open"], d.call["separator"], d.call["section_close"])]
            run = (rf"(?:{section[0]}\s*)?" if d.call["section_open"].strip() else "") + f"(?:{iterator})" + r"\s*"
            run += "".join(rf"(?:{part}\s*)?" for part, raw in zip(section[1:], (d.call["separator"], d.call["section_close"]))
                           if raw.strip())
            props["content"]["x-regex-substitutions"].append([r"(?<!\s)\s*(?:" + run + ")+", JOIN])
    return {"type": "object", "properties": props}

