"""One pass over (parser text, sample text): everything the workbench's panes show.

Two formats, two interpreters, one vocabulary. The text in the editor is a ``response_schema``
(run by ``engine.trace``) or a ``response_template`` (run by ``engine.template.trace_response``
with the sample's prompt); either way the panes get the same things from an ``Analysis``:
problems with JSON pointers, colour runs over the output (and, for a template, over the prompt),
a tree whose nodes name the key they are about, the spans a tree node or an editor position
stands for (``spans_of``, ``lit_at``), the value or the failure, and the verdict on the sample.
What differs stays here and in the engine, so the panes need to know little about the format.

UI-free: the TUI's analysis process (worker.py) runs it on every edit; tests and the latency
benchmark call it too.
"""

from __future__ import annotations

import contextlib
import re
import time
from dataclasses import dataclass, field
from typing import Any, Callable, ContextManager

from .engine import ERROR, WARNING, Problem, Trace, errors, trace, validate
from .engine.formats import format_of
from .engine.schema.highlights import Paint, flatten, node_spans, trace_paints
from .engine.pointer import display, join, split
from .engine.schema.regexes import DEFAULT_TIME_LIMIT
from .engine.json_positions import SchemaPositions, schema_node_of
from .engine.schema.subtree_cache import SubtreeCache
from .engine.schema.subtree_memo import SubtreeMemo
from .engine.template import TemplateTrace, load_template, trace_response
from .engine.template.highlights import anchor_span, template_runs
from .engine.template.outline import OutlineNode, failure_pointer, outline, spans_at
from .engine.template.slow_delimiters import slow_delimiters
from .engine.schema.trace_tree import Span
from .engine.template.serving import REFUSED, VLLM, vllm_problems
from .engine.versions import SCHEMA, TEMPLATE, Releases, template_releases, tools_narrowing
from .files import InputError, parse_schema_text

NOTE = "note"  # a problem that is neither: which transformers releases give this result, and why
EXCERPT = 24  # characters of matched text quoted in the status line


@dataclass
class Lit:
    """What one place stands for: spans to light in the output and in the prompt, the editor
    node to shade, and the matches to list (label, "start–end" or None, excerpt, cut short)."""

    mark: str | None = None
    output: list[Span] = field(default_factory=list)
    prompt: list[Span] = field(default_factory=list)
    title: str = ""
    items: list[tuple[str, str | None, str, bool]] = field(default_factory=list)
    more: int = 0


@dataclass
class Failure:
    """Where and why a parse failed, as the status line says it."""

    lead: str  # "Parse fails at /properties/x: "
    message: str
    pointer: str | None  # the key in the editor to look at
    input: str | None = None  # the start of the text it failed on
    cut: bool = False


@dataclass
class Analysis:
    schema_text: str
    schema: Any = None
    format: str = SCHEMA
    syntax_error: str | None = None  # "line:col: message" when the text is not JSON
    syntax_at: tuple[int, int] | None = None  # (row, col), 0-based
    problems: list[Problem] = field(default_factory=list)
    positions: SchemaPositions | None = None
    trace: Trace | None = None  # a response_schema's trace
    template_trace: TemplateTrace | None = None  # a response_template's trace
    outline: OutlineNode | None = None  # the template trace as a tree
    failure_at: str | None = None  # the template key where a template parse failed
    releases: Releases | None = None  # for a template: the releases that read it and give this result
    prompt: str | None = None  # the prompt (prefix=) a template parse read
    anchor: Span | None = None  # the start anchor's last match in that prompt
    fields: list[str] = field(default_factory=list)
    runs: list[Paint] = field(default_factory=list)
    prompt_runs: list[Paint] = field(default_factory=list)  # in offsets of the whole prompt
    seconds: float = 0.0
    verdict: Any = None  # the sample's Verdict, judged from this very trace (set by the worker)
    runtime: str | None = None  # for a template: the transformers release it ran as (None: the newest)
    hung: str | None = None  # why there is no result: the run never answered
    # A large trace stays in the analysis process: ``trace``/``template_trace`` are then slim (value,
    # error, no tree), the tree is stubs, and the queries below go there (remote_tree.py).
    remote: Any = None

    @classmethod
    def gave_up(cls, schema_text: str, seconds: float, time_limit: float) -> "Analysis":
        """No result: the run neither finished nor stopped at its time limit, so it was killed."""
        return cls(schema_text, seconds=seconds, hung=(
            f"the parse did not stop at its {time_limit:g} s time limit and was killed after {seconds:.1f} s"
        ))

    @property
    def usable(self) -> bool:
        """A tree can be shown: the text is JSON and has no error that stops the parse."""
        return self.trace is not None or self.template_trace is not None

    @property
    def errors(self) -> list[Problem]:
        return errors(self.problems)

    # ----- the one vocabulary -----------------------------------------------------------------
    @property
    def ok(self) -> bool:
        result = self.trace or self.template_trace
        return result is not None and result.ok

    @property
    def value(self) -> Any:
        if self.template_trace is not None:
            return self.template_trace.message
        return self.trace.value if self.trace is not None else None

    @property
    def root(self) -> Any:
        """The tree's root: a schema TraceNode or a template OutlineNode."""
        return self.outline if self.template_trace is not None else self.trace.root if self.trace is not None else None

    @property
    def output_text(self) -> str | None:
        """The output the result is of (to tell whether it is up to date)."""
        if self.template_trace is not None:
            return self.template_trace.text[self.template_trace.output_start :]
        return self.trace.text if self.trace is not None else None

    def spans_of(self, node: Any) -> tuple[list[Span], list[Span]]:
        """The spans a tree node stands for: (in the output, in the whole prompt)."""
        if self.remote is not None:  # blocks on the analysis process: call it off the UI thread
            return self.remote.spans_of(node)
        if self.template_trace is not None:
            return _split_spans(self.template_trace, node.spans)
        if self.trace is None:
            return [], []
        return node_spans(self.trace, node), []

    def lit_at(self, pointer: str) -> Lit | None:
        """What the editor position ``pointer`` stands for; None when there is no result."""
        if self.remote is not None:  # blocks on the analysis process: call it off the UI thread
            return self.remote.lit_at(pointer)
        if self.template_trace is not None:
            return _template_lit(self, pointer)
        if self.trace is not None:
            return _schema_lit(self.trace, pointer)
        return None

    def failure(self) -> Failure | None:
        if self.remote is not None:  # computed where the trace is
            return self.remote.failure
        if self.template_trace is not None and self.template_trace.error is not None:
            return _template_failure(self.template_trace, self.failure_at)
        if self.trace is not None and not self.trace.ok:
            return _schema_failure(self.trace)
        return None


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


def _excerpt(text: str, span: Span) -> tuple[str, bool]:
    start, end = span
    return text[start : min(end, start + EXCERPT)].replace("\n", "⏎"), end - start > EXCERPT


# ----- response_schema ------------------------------------------------------------------------------
def _stage_at(rest: str) -> tuple[str | None, int | None]:
    """The x- key (and x-regex-substitutions entry) a pointer below a schema node is in, if any."""
    parts = split(rest) if rest else []
    if not parts or not parts[0].startswith("x-regex"):
        return None, None
    if parts[0] == "x-regex-substitutions" and len(parts) > 1 and parts[1].isdigit():
        return parts[0], int(parts[1])
    return parts[0], None


def _schema_lit(result: Trace, pointer: str) -> Lit:
    """On a schema node: everything it matched; on one of its x- keys, only that key's matches
    (one entry's, in x-regex-substitutions)."""
    path = schema_node_of(pointer)
    if not path:  # the root: everything; lighting it all would show nothing
        return Lit()
    key, substitution = _stage_at(pointer[len(path):])
    visits = result.nodes_at(path)
    lit = Lit(mark=path)
    if not visits:
        return lit
    lit.output = [span for node in visits for span in node_spans(result, node, key, substitution)]
    matches = [m for v in visits for m in v.matches if key is None or m.key == key]
    where = display(path) + (f" {key}" if key else "")
    lit.title = f"{where}: visited {len(visits)}×, {len(matches)} match{'es' if len(matches) != 1 else ''}"
    for m in matches[:4]:
        label = f"{m.key} #{m.index}"
        if m.span is None:
            lit.items.append((label, None, "", False))
        else:
            lit.items.append((label, f"{m.span[0]}–{m.span[1]}", *_excerpt(result.text, m.span)))
    lit.more = max(0, len(matches) - 4)
    return lit


def _schema_failure(result: Trace) -> Failure:
    error = result.error
    failure = Failure(f"Parse fails at {display(result.error_path or '')}: ",
                      getattr(error, "message", str(error)).splitlines()[0][:200], result.error_path)
    failing = next((n for n in result.nodes() if n.error), None)
    if failing is not None:
        span = failing.span or failing.source_span
        if span is not None:
            failure.input, failure.cut = result.text[span[0] : min(span[1], span[0] + 80)], span[1] - span[0] > 80
    return failure


# ----- response_template ----------------------------------------------------------------------------
def _template_lit(analysis: Analysis, pointer: str) -> Lit:
    result = analysis.template_trace
    parts = split(pointer)
    if parts and parts[0] in ("start_anchor", "start_anchor_pattern"):
        lit = Lit(mark=join(parts[0]))
        if analysis.anchor is None:
            lit.title = f"/{parts[0]}: not found in the prompt, so the whole prompt is the tail"
        else:
            lit.prompt = [analysis.anchor]
            lit.title = f"/{parts[0]}: its last match in the prompt; the tail after it is parsed before the output"
            lit.items.append(("match", f"{analysis.anchor[0]}–{analysis.anchor[1]} in the prompt", *_excerpt(analysis.prompt or "", analysis.anchor)))
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
        lit.items.append((label, f"{span[0]}–{span[1]}", *_excerpt(result.text, span)))
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
    for narrowing in releases.narrowings:
        problems.append(Problem("" if narrowing.pointer == "tools=" else narrowing.pointer, NOTE, narrowing.why))
    for pointer, why in releases.notes:
        problems.append(Problem(pointer, WARNING, why))
    if not problems or problems[0].severity != ERROR:  # vLLM's rules assume a template that loads
        refused = [p for p in vllm_problems(template, releases) if p.severity == REFUSED]
        releases.served = not refused
        problems += [Problem(p.path, NOTE, f"{VLLM} refuses it: {p.message}") for p in refused]
    return problems, releases


def analyze(
    schema_text: str,
    sample_text: str,
    *,
    time_limit: float = DEFAULT_TIME_LIMIT,
    cache: SubtreeCache | None = None,
    memo: SubtreeMemo | None = None,
    traced: Callable[[], None] | None = None,
    prefix: str = "",
    tools: Any = None,
    template_work: Callable[[], ContextManager] = contextlib.nullcontext,
    with_outline: bool = True,
    runtime: str | None = None,
) -> Analysis:
    """``cache`` and ``memo``: what earlier runs on this sample left, so that an edit re-runs
    only the schema nodes it touches and recolours only the fields they belong to (the TUI's
    analysis process keeps one of each per sample). ``traced`` is called once the parse is done,
    before the colours: only the parse can run away. For a template: ``prefix`` (the sample's
    prompt) and ``tools``; the template parse runs inside ``template_work()`` (the analysis process
    lets a newer edit interrupt it there). ``with_outline=False`` leaves the template's tree to
    ``add_outline``: the analysis process sends the trace alone, which is several times smaller.
    ``runtime``: the transformers release a template runs as (a name; None: the newest)."""
    started = time.perf_counter()
    result = Analysis(schema_text, runtime=runtime)
    try:
        result.schema = parse_schema_text(schema_text, "schema")
    except InputError as exc:
        result.syntax_error = str(exc).removeprefix("schema:")
        result.syntax_at = (exc.line - 1, exc.column - 1)
        result.format = TEMPLATE if re.search(r'"(fields|version)"\s*:', schema_text) else SCHEMA
        result.seconds = time.perf_counter() - started
        return result
    result.positions = SchemaPositions.of(schema_text)
    result.format = format_of(result.schema)
    if result.format == TEMPLATE:
        _analyze_template(result, sample_text, prefix, tools, time_limit, traced, template_work, with_outline)
        result.seconds = time.perf_counter() - started
        return result
    result.problems = validate(result.schema)
    if not result.errors:
        result.trace = trace(sample_text, result.schema, time_limit=time_limit, cache=cache)
        if traced is not None:
            traced()
        if memo is not None:
            result.fields, result.runs = memo.runs(result.trace)
        else:
            result.fields, paints = trace_paints(result.trace)
            result.runs = flatten(paints)
    result.seconds = time.perf_counter() - started
    return result


def add_outline(result: Analysis) -> None:
    """The template trace's tree (``outline``), built where it is shown: it is built from the trace
    in about the time pickling it would take, so the analysis process does not send it."""
    found = result.template_trace
    if found is None or result.outline is not None:
        return
    compiled = found.template
    found.template = load_template(result.schema, result.runtime)  # loaded when it was traced: it loads
    try:
        result.outline = outline(found)
    finally:
        found.template = compiled


def _analyze_template(
    result: Analysis, output: str, prefix: str, tools: Any, time_limit: float, traced, template_work, with_outline: bool = True,
) -> None:
    result.problems, result.releases = template_problems(result.schema, tools, result.runtime)
    result.prompt = prefix
    if result.errors:
        return
    try:
        with template_work():
            found = trace_response(output, result.schema, prefix=prefix, tools=tools, time_limit=time_limit,
                                   runtime=result.runtime)
    except Exception as exc:  # noqa: BLE001 - raised before any text was read: tools= the runtime refuses
        result.problems.insert(0, Problem("", ERROR, f"tools=: {type(exc).__name__}: {exc}"))
        return
    if traced is not None:
        traced()
    result.template_trace = found
    if with_outline:
        result.outline = outline(found)
    result.failure_at = failure_pointer(found)
    result.anchor = anchor_span(found, prefix, time_limit)
    names, result.runs, result.prompt_runs = template_runs(found)
    result.fields = [str(name) for name in names]
