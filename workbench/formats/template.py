"""The response_template format (transformers 5.13 and later; the only one 5.15+ reads): its engine
(``engine/template``) behind the ``Format`` interface."""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any, Callable, ContextManager

from ..engine.errors import RegexTimeout
from ..engine.pointer import display, join, split
from ..engine.releases import OLDEST, SCHEMA_UNTIL, TEMPLATE_ONLY
from ..engine.preview import preview
from ..engine.problems import ERROR, NOTE, WARNING, Problem
from ..engine.releases import Release
from ..engine.spans import MISSING, Span
from ..engine.template import ResponseParser, Template, TemplateTrace, describe_load_error, load_failure, load_template, parse_response, trace_response
from ..engine.template.errors import DEFAULT_TIME_LIMIT
from ..engine.template.highlights import anchor_span, template_runs
from ..engine.template.matrix import LOADS, MatrixSample, release_matrix  # noqa: F401 - LOADS, MatrixSample: the matrix's words
from ..engine.template.replay import replay
from ..engine.template.chunked import stream_difference
from ..engine.template.traps import parse_with_traps
from ..engine.markers import literal_markers
from ..engine.template.outline import failure_pointer, outline, spans_at
from ..engine.template.serving import REFUSED, VLLM, refusals, vllm_problems, vllm_verdict
from ..engine.template.slow_delimiters import slow_delimiters
from ..engine.versions import TEMPLATE, Releases, template_releases, tools_narrowing
from .base import CannotRun, Checked, Format, StreamFailed
from .panes import Failure, Lit, excerpt
from .remote_tree import LARGE_TEMPLATE, RemoteNode, child_count
from .runtime_choice import template_runtime


class TemplateFormat(Format):
    name = TEMPLATE
    noun = "template"
    suffix = ".template.json"
    golden_infix = ".template"
    reads_prompt = True
    streams = True
    releases_differ = True
    keeps_nodes = False
    read_by = f"A response_template is read by transformers {OLDEST} and later"
    migrates = False
    superseded = None
    version_note = (
        f"transformers {OLDEST} and later read response_template ({OLDEST} and {SCHEMA_UNTIL} prefer it to a "
        "response_schema and then require prefix= in parse_response); 'workbench validate' names the "
        "releases that give the same result."
    )
    install_advice = f"pip install 'transformers>={TEMPLATE_ONLY}' ({OLDEST} and {SCHEMA_UNTIL} read a template too)"
    legend = "delimiters underlined"

    def runtime(self, value: Any = None, parser: Any = None):
        return template_runtime(value)

    def release(self, runtime: Any) -> Release | None:
        return runtime.release if runtime is not None else None

    def check(self, value: Any, *, tools: Any = None, runtime: Any = None) -> Checked:
        problems, releases = template_problems(value, tools, runtime)
        return Checked(problems, releases, releases.served)

    def runtime_of(self, parser: Any, value: Any = None):
        return template_runtime(parser.release if isinstance(parser, Template) and value is None else value)

    def load(self, value: Any, runtime: Any = None) -> Template:
        return load_template(value, runtime)

    def load_problems(self, value: Any, runtime: Any = None) -> list[Problem]:
        failure = load_failure(value, runtime)
        problems = [Problem("", ERROR, failure)] if failure is not None else []
        return problems + [Problem(pointer, WARNING, why) for pointer, why in slow_delimiters(value)]

    def load_failure(self, value: Any, runtime: Any = None) -> str | None:
        return load_failure(value, runtime)

    def export_problems(self, value: Any) -> tuple[str | None, list[Problem]]:
        failure = load_failure(value)
        if failure is not None:
            return f"transformers would reject this response_template when it loads: {failure}", []
        return None, []

    def serving_refusal(self, value: Any) -> str | None:
        return vllm_verdict(value) if refusals(value) else None

    def serving_lines(self, value: Any, checked: Checked) -> list[str]:
        # Whether vLLM serves the template, and why not or what it changes. A refusal is not a
        # failure: transformers runs the template (docs/response-template.md#serving-in-vllm).
        problems = vllm_problems(value)
        return [vllm_verdict(value, problems)] + [f"  vllm {problem}" for problem in problems]

    def error_line(self, problem: Problem) -> str:
        # The runtime's load error in its words, as transformers prints it, then the key it is about.
        if problem.severity == ERROR:
            return f"error {problem.message}" + (f" (at {display(problem.path)})" if problem.path else "")
        return str(problem)

    def parse(self, value: Any, output: str, prompt: str = "", *, tools: Any = None,
              time_limit: float = DEFAULT_TIME_LIMIT, runtime: Any = None) -> Any:
        return parse_response(output, value, prefix=prompt, tools=tools, time_limit=time_limit, runtime=runtime)

    def parse_notes(self, value: Any, tools: Any = None) -> list[str]:
        return [f"note: {tools_narrowing().why}"] if tools is not None else []

    def stream(self, value: Any, output: str, prompt: str, *, tools: Any, chunk: int, runtime: Any = None):
        """``ResponseParser`` fed ``chunk`` characters at a time: which call, the chunk, its events."""
        step = "construct"
        try:
            parser = ResponseParser(value, prefix=prompt, tools=tools, runtime=runtime)
            yield {"step": "initial", "events": parser.initial_events}
            for at in range(0, len(output), chunk):
                step = f"feed {at}"
                piece = output[at : at + chunk]
                yield {"step": "feed", "chunk": piece, "events": parser.feed(piece)}
            step = "finalize"
            message, events = parser.finalize()
        except Exception as exc:  # what transformers raises at that step, named as it names it
            raise StreamFailed(f"at {step}: {type(exc).__name__}: {exc}") from None
        yield {"step": "finalize", "events": events}
        yield {"step": "message", "message": message}

    def trace_report(self, trace: TemplateTrace) -> tuple[dict, str | None]:
        failed = None if trace.ok else f"{trace.error.type}: {trace.error.message}"
        return {"message": trace.message, "error": trace.error_dict(), "trace": trace.to_dict()}, failed

    def failure(self, exc: Exception) -> Exception | None:
        # Whatever transformers raises on this output, named as it names it.
        return template_error(exc)

    def runner(self, value: Any, runtime: Any = None) -> Callable[[str, str], Any]:
        try:
            compiled = load_template(value, runtime)
        except Exception as exc:  # noqa: BLE001 - what transformers raises when it loads it
            raise CannotRun(describe_load_error(exc)) from None
        return lambda output, prompt: parse_response(output, compiled, prefix=prompt)

    def markers(self, value: Any) -> list[str]:
        fields = value.get("fields") if isinstance(value, dict) else None
        anchor = [value["start_anchor"]] if isinstance(value, dict) and isinstance(value.get("start_anchor"), str) else []
        found = list(anchor)
        for spec in (fields or {}).values():
            if isinstance(spec, dict):
                found += [spec[k] for k in ("open", "close", "open_pattern", "close_pattern") if isinstance(spec.get(k), str)]
                args = spec.get("content_args")
                if isinstance(args, dict) and isinstance(args.get("tag_pattern"), str):
                    found.append(args["tag_pattern"])
        # a start anchor is one literal string: kept whole, so a role word after a token is markup too
        return list(dict.fromkeys(anchor + literal_markers(found)))

    def scan_runner(self, value: Any, runtime: Any = None) -> Callable[..., tuple[Any, list]]:
        try:
            compiled = load_template(value, runtime)
        except Exception as exc:  # noqa: BLE001 - what transformers raises when it loads it
            raise CannotRun(describe_load_error(exc)) from None
        return lambda output, prompt, tools, time_limit: parse_with_traps(
            output, compiled, prefix=prompt, tools=tools, time_limit=time_limit)

    def failure_at(self, value: Any, output: str, prompt: str, tools: Any, exc: Exception, runtime: Any = None) -> str:
        if isinstance(exc, RegexTimeout):
            return exc.path
        try:
            found = trace_response(output, value, prefix=prompt, tools=tools, runtime=runtime)
        except Exception:  # noqa: BLE001 - it fails before reading the text: nothing to point at
            return ""
        return failure_pointer(found) or ""

    def stream_difference(self, value: Any, output: str, prompt: str, tools: Any, chunkings: list[list[int]],
                          runtime: Any = None, time_limit: float | None = DEFAULT_TIME_LIMIT) -> str | None:
        return stream_difference(output, value, chunkings, prefix=prompt, tools=tools, time_limit=time_limit, runtime=runtime)

    def trace(self, value: Any, output: str, *, prompt: Any = None, tools: Any = None,
              time_limit: float | None = DEFAULT_TIME_LIMIT, runtime: Any = None, cache: Any = None) -> TemplateTrace:
        return trace_response(output, value, prefix=prompt, tools=tools, time_limit=time_limit, runtime=runtime)

    def matrix(self, value: Any, samples: list, *, time_limit: float = DEFAULT_TIME_LIMIT) -> Any:
        return release_matrix(value, samples, time_limit=time_limit)

    def replay(self, text: str, output: str, *, prompt: str, tools: Any, chunk: int, time_limit: float,
               runtime: Any = None) -> tuple[Any, str | None]:
        """The streaming replay of ``output`` in chunks of ``chunk`` (engine/template/replay.py):
        (Replay, None), or (None, why) when the template text cannot run."""
        try:
            template = json.loads(text)
            load_template(template, runtime)
        except Exception as exc:  # noqa: BLE001 - not JSON, or what the runtime raises on load
            return None, f"{type(exc).__name__}: {exc}"
        return replay(output, template, prefix=prompt, tools=tools, chunk=chunk, time_limit=time_limit, runtime=runtime), None

    # ----- the panes
    def analyze(self, result, output: str, *, prompt: str, tools: Any, time_limit: float, cache: Any, memo: Any,
                traced: Callable[[], None] | None, work: Callable[[], ContextManager], with_tree: bool,
                kept: dict | None = None) -> None:
        result.problems, result.releases = template_problems(result.schema, tools, result.runtime)
        result.prompt = prompt
        if result.errors:
            return
        try:
            with work():
                found = trace_response(output, result.schema, prefix=prompt, tools=tools, time_limit=time_limit,
                                       runtime=result.runtime)
        except Exception as exc:  # noqa: BLE001 - raised before any text was read: tools= the runtime refuses
            result.problems.insert(0, Problem("", ERROR, f"tools=: {type(exc).__name__}: {exc}"))
            return
        if traced is not None:
            traced()
        result.trace = found
        if with_tree:
            result.tree = outline(found)
        result.failure_at = failure_pointer(found)
        result.anchor = anchor_span(found, prompt, time_limit)
        names, result.runs, result.prompt_runs = template_runs(found)
        result.fields = [str(name) for name in names]

    def outcome(self, result) -> tuple[Any, Exception | None]:
        found = result.trace
        return found.message, (template_error(found.error.exception) if found.error is not None else None)

    def golden_outcome(self, result) -> tuple[Any, str | None, bool]:
        found = result.trace
        error = found.error
        timed_out = error is not None and (error.type == "TemplateRegexTimeout" or isinstance(error.exception, RegexTimeout))
        return found.message, (error.message if error is not None else None), timed_out

    def value_of(self, result) -> Any:
        return result.trace.message

    def tree_of(self, result) -> Any:
        """The trace's tree (``outline``), built where it is shown: it is built from the trace in
        about the time pickling it would take, so the analysis process does not send it."""
        found = result.trace
        compiled = found.template
        if compiled is None:  # it crossed without its compiled template: it loaded there, so it loads
            found.template = load_template(result.schema, result.runtime)
        try:
            return outline(found)
        finally:
            found.template = compiled

    def output_of(self, result) -> str:
        return result.trace.text[result.trace.output_start :]

    def spans_of(self, result, node: Any) -> tuple[list[Span], list[Span]]:
        return _split_spans(result.trace, node.spans)

    def lit_at(self, result, pointer: str) -> Lit:
        return _template_lit(result, pointer)

    def failure_of(self, result) -> Failure | None:
        found = result.trace
        return _template_failure(found, result.failure_at) if found.error is not None else None

    def pack(self, result) -> None:
        # The UI has the output; the compiled template and the exception stay here.
        found = result.trace
        found.text = found.text[: found.output_start]
        found.template = None
        if found.error is not None:
            found.error.exception = None
        result.runs = [tuple(run) for run in result.runs]

    def unpack(self, result, output: str, kept: dict) -> None:
        result.trace.text += output  # the prompt's tail came back; the output is the sample's

    # ----- a large trace, kept in the analysis process (remote_tree.py)
    def is_large(self, result) -> bool:
        return len(result.trace.regions) > LARGE_TEMPLATE

    def stub(self, node: Any, ref: int, failed: bool) -> RemoteNode:
        children = node.children
        shows = node.value is not MISSING and (not children or node.key is None or node.key[0] in ("field", "region"))
        return RemoteNode(ref, node.key, node.path, len(children), name=node.name,
                          value=node.value if shows else MISSING, error=node.error, text=node.text,
                          note=node.note, failed=failed)

    def slim(self, result, top: RemoteNode) -> None:
        result.trace = dataclasses.replace(result.trace, regions=[], dropped=[], ties=[], emptied=[])
        result.tree = top

    def label_parts(self, node: Any) -> list[tuple[str, str]]:
        """Its name, ✗ where the parse failed, what it is, its value, and a trap."""
        parts = [(node.name, "bold")]
        if node.error is not None:
            parts.append(("  ✗ " + node.error.splitlines()[0][:120], "bold red"))
        if node.text:
            parts.append(("  " + node.text, "dim"))
        if node.value is not MISSING and (not child_count(node) or node.key is None or node.key[0] in ("field", "region")):
            parts.append(("  " + preview(node.value), "green"))
        if node.note:
            parts.append(("  ⚠ " + node.note, "bold yellow"))
        return parts

    def open_depth(self, nodes: int) -> int:
        # Fields open to their regions, and a few regions to their delimiters and values.
        return 2 if nodes <= 60 else 1 if nodes <= 400 else 0

    def summary(self, result) -> str:
        notes = len(result.problems)
        keys = ", ".join(str(k) for k in (result.value or {}))
        return (keys or "an empty message") + (f" · {notes} note{'s' if notes != 1 else ''} under the template" if notes else "")

    def range_near(self, positions: Any, pointer: str) -> Any:
        # A field's content may be left to its default: the nearest key above it that the text has.
        found = positions.range_of(pointer)
        while found is None and pointer:
            pointer = pointer.rsplit("/", 1)[0]
            found = positions.range_of(pointer)
        return found


def template_error(exc: Exception) -> Exception:
    """A template's error as it reads in a verdict: transformers' exception type and message."""
    return RuntimeError(f"{type(exc).__name__}: {exc}")


def _split_spans(trace: TemplateTrace, spans) -> tuple[list[Span], list[Span]]:
    output, prompt = [], []
    for span in spans:
        if span is None:
            continue
        part = trace.output_span(span)
        if part is not None:
            output.append(part)
        part = trace.prefix_span(span)
        if part is not None:
            prompt.append(part)
    return output, prompt


def _template_lit(analysis, pointer: str) -> Lit:
    result = analysis.trace
    parts = split(pointer)
    if parts and parts[0] in ("start_anchor", "start_anchor_pattern"):
        lit = Lit(mark=join(parts[0]))
        if analysis.anchor is None:
            lit.title = f"/{parts[0]}: not found in the prompt, so the whole prompt is the tail"
        else:
            lit.prompt = [analysis.anchor]
            lit.title = f"/{parts[0]}: its last match in the prompt; the tail after it is parsed before the output"
            lit.items.append(("match", f"{analysis.anchor[0]}–{analysis.anchor[1]} in the prompt", *excerpt(analysis.prompt or "", analysis.anchor)))
        return lit
    found = spans_at(result, pointer)
    if found is None:
        return Lit()
    field_pointer = join(parts[0], parts[1])
    lit = Lit(mark=field_pointer)
    lit.output, lit.prompt = _split_spans(result, found.spans)
    key = parts[2] if len(parts) > 2 and parts[0] == "fields" else None
    count = len(found.items)
    noun = {"open": "opener", "close": "closer", "body": "body"}.get(found.part, "region")
    plural = "bodies" if noun == "body" else noun + "s"
    lit.title = f"{display(field_pointer)}{' ' + key if key else ''}: {count} {noun if count == 1 else plural}"
    for label, span in found.items[:4]:
        lit.items.append((label, f"{span[0]}–{span[1]}", *excerpt(result.text, span)))
    lit.more = max(0, count - 4)
    return lit


def _template_failure(result: TemplateTrace, pointer: str | None) -> Failure:
    error = result.error
    where = ", ".join(str(f) for f in error.fields)
    lead = f"Parse fails in {where}: " if where else "Parse fails: "
    failure = Failure(lead, f"{error.type}: {error.message}".splitlines()[0][:200], pointer)
    if error.region is not None:
        body = result.regions[error.region].body
        failure.input, failure.cut = result.text[body[0] : min(body[1], body[0] + 80)], body[1] - body[0] > 80
    return failure


_FIELD_ERROR = re.compile(r"^Field '(.*?)'(?::| must)")
_QUOTED_KEY = re.compile(r"'(\w+)'")


def load_error_pointer(template: Any, message: str) -> str:
    """The key a template's load error is about (the runtime's message names it only in words)."""
    if not isinstance(template, dict):
        return ""
    fields = template.get("fields") if isinstance(template.get("fields"), dict) else {}
    m = _FIELD_ERROR.match(message)
    if m and m.group(1) in {str(k) for k in fields}:
        name = m.group(1)
        spec = fields.get(name)
        base = join("fields", name)
        if not isinstance(spec, dict):
            return base
        rest = message[m.end():]
        if "unknown keys" in rest:
            unknown = [k for k in spec if k in rest]
            return join("fields", name, unknown[0]) if unknown else base
        if "transform string" in rest or "transform_each" in rest:
            return join("fields", name, "transform_each" if "transform_each" in rest and "transform_each" in spec else "transform")
        if "named group" in rest:
            keys = [k for k in ("open_pattern", "close_pattern") if k in spec]
            return join("fields", name, keys[0]) if keys else base
        for key in ("open_pattern", "close_pattern", "content_args", "content", "join", "open", "close"):
            if f"'{key}'" in rest or f" {key} " in rest or f"invalid {key}" in rest:
                if key in spec:
                    # "cannot specify both 'open' and 'open_pattern'": the second one is the extra.
                    both = [k for k in (key, key + "_pattern") if k in spec]
                    return join("fields", name, both[-1] if "both" in rest else key)
        return base
    if message.startswith("Unknown keys in response_template"):
        unknown = [k for k in template if f"'{k}'" in message]
        return join(unknown[0]) if unknown else ""
    if message.startswith("At most one field"):
        names = [n.strip() for n in message.rsplit("Found:", 1)[-1].split(",")]
        return join("fields", names[-1]) if names and names[-1] in fields else "/fields"
    for key in ("defaults", "fields", "version", "start_anchor_pattern", "start_anchor"):
        if key in message and key in template:
            return join(key)
    return "/start_anchor" if "start_anchor" in message else ""


def template_problems(template: Any, tools: Any = None, runtime: Any = None) -> tuple[list[Problem], Releases]:
    """What ``workbench validate`` says of a template: the first error transformers (``runtime``;
    None: the newest) raises when it loads it, and which releases give this result (each narrowing
    and note at its key)."""
    problems = []
    try:
        load_template(template, runtime)
    except Exception as exc:  # noqa: BLE001 - what the runtime raises on load, in its words
        message = str(exc) if isinstance(exc, ValueError) else f"{type(exc).__name__}: {exc}"
        problems.append(Problem(load_error_pointer(template, str(exc)), ERROR, message))
    problems += [Problem(pointer, WARNING, why) for pointer, why in slow_delimiters(template)]
    releases = template_releases(template)
    if tools is not None:
        releases.narrowings.append(tools_narrowing())
    loads = not problems or problems[0].severity != ERROR
    for narrowing in releases.narrowings if loads else ():  # which releases give "this result": none, it fails
        problems.append(Problem("" if narrowing.pointer == "tools=" else narrowing.pointer, NOTE, narrowing.why))
    for pointer, why in releases.notes:
        problems.append(Problem(pointer, WARNING, why))
    if not problems or problems[0].severity != ERROR:  # vLLM's rules assume a template that loads
        refused = [p for p in vllm_problems(template, releases) if p.severity == REFUSED]
        releases.served = not refused
        problems += [Problem(p.path, NOTE, f"{VLLM} refuses it: {p.message}") for p in refused]
    return problems, releases
