"""The response_schema format (transformers 5.3–5.14): its engine (``engine/schema``) behind the
``Format`` interface."""

from __future__ import annotations

from itertools import islice
from typing import Any, Callable, ContextManager

from ..engine.errors import ParseFailure, RegexTimeout
from ..engine.paint import flatten
from ..engine.pointer import display, split
from ..engine.preview import preview
from ..engine.problems import errors
from ..engine.releases import SCHEMA_FROM, SCHEMA_UNTIL, TEMPLATE_ONLY, span
from ..engine.schema.highlights import node_spans, trace_paints
from ..engine.schema.parse import parse_response, trace
from ..engine.schema.regexes import DEFAULT_TIME_LIMIT, cut_short
from ..engine.schema.subtree_cache import SubtreeCache
from ..engine.schema.subtree_memo import SubtreeMemo
from ..engine.schema.trace_tree import Trace, TraceNode  # noqa: F401 - TraceNode: the public API names it
from ..engine.schema.validate import validate
from ..engine.json_positions import schema_node_of
from ..engine.markers import literal_markers
from ..engine.spans import MISSING, Span
from ..engine.versions import SCHEMA, schema_releases
from .base import CannotRun, Checked, Format
from .panes import Failure, Lit, excerpt
from .remote_tree import LARGE_TRACE, RemoteNode, child_count
from .runtime_choice import schema_runtime

REMEDY = "export a response_template too ('workbench migrate' drafts one from the schema)"


FIRST_RUN_UNCACHED = 500_000  # characters of output from which a first run leaves the cache for later


def _filling(output: str, schema: Any, time_limit: float, cache: SubtreeCache, memo: SubtreeMemo) -> Callable[[], None]:
    """The trace the first run left out, filling the cache (and the colours kept per subtree)."""
    def fill() -> None:
        memo.runs(trace(output, schema, time_limit=time_limit, cache=cache))
    return fill


class SchemaFormat(Format):
    name = SCHEMA
    noun = "schema"
    suffix = ".json"
    golden_infix = ""
    reads_prompt = False
    streams = False
    releases_differ = False
    keeps_nodes = True
    read_by = f"A response_schema is read by transformers {span(SCHEMA_FROM, SCHEMA_UNTIL)}"
    migrates = True
    superseded = f"current transformers ({TEMPLATE_ONLY} and later) ignore response_schema; {REMEDY}"
    version_note = (
        f"transformers {SCHEMA_FROM} to {SCHEMA_UNTIL} read response_schema; {TEMPLATE_ONLY} and later drop it silently when the "
        "tokenizer loads (they read only response_template), so parse_response there will not use "
        f"this schema. Tell your users to pin transformers>={SCHEMA_FROM},<{TEMPLATE_ONLY}."
    )
    install_advice = f"pip install 'transformers>={SCHEMA_FROM},<{TEMPLATE_ONLY}'"
    legend = "plain: unmatched"

    def runtime(self, value: Any = None, parser: Any = None):
        return schema_runtime(value, parser)

    def check(self, value: Any, *, tools: Any = None, runtime: Any = None) -> Checked:
        return Checked(validate(value), schema_releases(value))

    def load(self, value: Any, runtime: Any = None) -> Any:
        return value  # the runtime reads a schema as it is, node by node, as it parses

    def load_problems(self, value: Any, runtime: Any = None) -> list:
        return validate(value)

    def export_problems(self, value: Any) -> tuple[str | None, list]:
        problems = validate(value)
        bad = errors(problems)
        if bad:
            listed = "; ".join(str(p) for p in bad)
            return f"the schema has {len(bad)} validation error{'s' if len(bad) > 1 else ''}: {listed}", problems
        return None, problems

    def load_failure(self, value: Any, runtime: Any = None) -> str | None:
        found = errors(validate(value))
        return f"{found[0]}" + (f" (+{len(found) - 1} more)" if len(found) > 1 else "") if found else None

    def parse(self, value: Any, output: str, prompt: str = "", *, tools: Any = None,
              time_limit: float = DEFAULT_TIME_LIMIT, runtime: Any = None) -> Any:
        return parse_response(output, value, time_limit=DEFAULT_TIME_LIMIT if time_limit is None else time_limit)

    def parse_notes(self, value: Any, tools: Any = None) -> list[str]:
        return [str(problem) for problem in validate(value)]

    def refusal(self, failure: str) -> str:
        return "the schema has errors (see above); fix them or run 'workbench validate'"

    def trace_report(self, trace: Trace) -> tuple[dict, str | None]:
        trace.locate_all()
        error = None if trace.ok else {"path": trace.error_path or "/", "message": getattr(trace.error, "message", str(trace.error))}
        return {"message": trace.value, "error": error, "trace": trace.root.to_dict()}, None if trace.ok else str(trace.error)

    def failure(self, exc: Exception) -> Exception | None:
        return exc if isinstance(exc, ParseFailure) else None

    def runner(self, value: Any, runtime: Any = None) -> Callable[[str, str], Any]:
        failure = self.load_failure(value)
        if failure is not None:
            raise CannotRun(failure)
        return lambda output, prompt: parse_response(output, value)

    def markers(self, value: Any) -> list[str]:
        return literal_markers(_regexes(value))

    def scan_runner(self, value: Any, runtime: Any = None) -> Callable[..., tuple[Any, list]]:
        failure = self.load_failure(value)
        if failure is not None:
            raise CannotRun(failure)
        # a schema has no traps the runtime could show: what it leaves out, it leaves out by design
        return lambda output, prompt, tools, time_limit: (parse_response(output, value, time_limit=time_limit), [])

    def failure_at(self, value: Any, output: str, prompt: str, tools: Any, exc: Exception, runtime: Any = None) -> str:
        return exc.path if isinstance(exc, ParseFailure) else ""

    def trace(self, value: Any, output: str, *, prompt: Any = None, tools: Any = None,
              time_limit: float | None = DEFAULT_TIME_LIMIT, runtime: Any = None, cache: Any = None) -> Trace:
        return trace(output, value, time_limit=DEFAULT_TIME_LIMIT if time_limit is None else time_limit, cache=cache)

    # ----- the panes
    def analyze(self, result, output: str, *, prompt: str, tools: Any, time_limit: float, cache: Any, memo: Any,
                traced: Callable[[], None] | None, work: Callable[[], ContextManager], with_tree: bool,
                kept: dict | None = None) -> None:
        result.problems = validate(result.schema)
        if result.errors:
            return
        if cache is None and kept is not None:  # what earlier runs on this sample left
            cache, memo = kept.setdefault("cache", SubtreeCache()), kept.setdefault("memo", SubtreeMemo())
            if "seen" not in kept and len(output) >= FIRST_RUN_UNCACHED:
                # The first run on a long output: filling the cache costs a third of its trace and
                # the user waits for the first paint, so the cache is filled after the reply,
                # while the process waits (``idle``). Later runs fill it as they go.
                kept["idle"] = _filling(output, result.schema, time_limit, cache, memo)
                cache = None
            kept["seen"] = True
        result.trace = trace(output, result.schema, time_limit=time_limit, cache=cache)
        if traced is not None:
            traced()
        if memo is not None:
            result.fields, result.runs = memo.runs(result.trace)
        else:
            result.fields, paints = trace_paints(result.trace)
            result.runs = flatten(paints)

    def outcome(self, result) -> tuple[Any, Exception | None]:
        return result.trace.value, result.trace.error

    def golden_outcome(self, result) -> tuple[Any, str | None, bool]:
        found = result.trace
        message = getattr(found.error, "message", str(found.error)) if not found.ok else None
        return found.value, message, isinstance(found.error, RegexTimeout)

    def value_of(self, result) -> Any:
        return result.trace.value

    def tree_of(self, result) -> Any:
        return result.trace.root

    def output_of(self, result) -> str:
        return result.trace.text

    def spans_of(self, result, node: Any) -> tuple[list[Span], list[Span]]:
        return node_spans(result.trace, node), []

    def lit_at(self, result, pointer: str) -> Lit:
        return _schema_lit(result.trace, pointer)

    def failure_of(self, result) -> Failure | None:
        return None if result.trace.ok else _schema_failure(result.trace)

    def pack(self, result) -> None:
        # The UI has the text; the JSON member spans it finds again on demand. Plain tuples pickle
        # without a constructor call each: a 2 MB output has ~10,000 runs.
        result.trace.text = ""
        result.trace.members = {}
        result.runs = [tuple(run) for run in result.runs]

    def unpack(self, result, output: str, kept: dict) -> None:
        result.trace.text = output
        if result.remote is None:
            # The path index the panes look nodes up by, rebuilt only for the fields an edit changed.
            kept.setdefault("memo", SubtreeMemo()).index(result.trace)

    # ----- a large trace, kept in the analysis process (remote_tree.py)
    def is_large(self, result) -> bool:
        return sum(1 for _ in islice(result.trace.root.walk(), LARGE_TRACE + 1)) > LARGE_TRACE

    def stub(self, node: Any, ref: int, failed: bool) -> RemoteNode:
        children = node.children
        shows = node.value is not MISSING and (node.via in ("const", "default") or not children)
        return RemoteNode(ref, node.key, node.path, len(children), via=node.via,
                          value=node.value if shows else MISSING, error=node.error, no_match=node.no_match,
                          found=range(len(node.found)), failed=failed)

    def slim(self, result, top: RemoteNode) -> None:
        trace = result.trace
        result.trace = Trace(trace.text, top, trace.value, trace.error)

    def label_parts(self, node: Any) -> list[tuple[str, str]]:
        """Its key, ✗ where the parse failed, ∅ for no match, its value, how many matches."""
        name = "message" if node.key is None and not node.path else str(node.key if node.key is not None else node.path)
        parts = [(name, "bold")]
        if node.error is not None:
            parts.append(("  ✗ " + node.error.splitlines()[0][:120], "bold red"))
        elif node.no_match:
            parts.append((f"  ∅ {node.no_match} found nothing", "dim"))
        elif node.via in ("const", "default"):
            parts += [(f"  = {preview(node.value)}", "cyan"), (f"  ({node.via})", "dim")]
        elif node.value is not MISSING and not child_count(node):
            parts.append(("  " + preview(node.value), "green"))
        found = len(node.found)  # not node.matches: that builds every match object
        if found and node.error is None:
            parts.append((f"  [{found} match{'es' if found != 1 else ''}]", "dim"))
        return parts

    def interrupt(self) -> None:
        cut_short()  # the regex running now ends as if its time limit had passed

    def summary(self, result) -> str:
        warnings = len(result.problems)
        # the schema's fields the message has: one the output did not fill is not what it parses to
        message = result.value if isinstance(result.value, dict) else {}
        fields = [f for f in result.fields if f in message]
        return (", ".join(fields) or "no fields") + (f" · {warnings} warning{'s' if warnings != 1 else ''}" if warnings else "")

    def range_near(self, positions: Any, pointer: str) -> Any:
        return positions.range_of(pointer) or positions.range_of(schema_node_of(pointer))


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
            lit.items.append((label, f"{m.span[0]}–{m.span[1]}", *excerpt(result.text, m.span)))
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


def _regexes(node: Any) -> list[str]:
    """Every pattern of a schema: its x-regex keys and the patterns (not the replacements) of its
    substitutions."""
    found: list[str] = []
    if isinstance(node, dict):
        for key, child in node.items():
            if key in ("x-regex", "x-regex-iterator", "x-regex-key-value") and isinstance(child, str):
                found.append(child)
            elif key == "x-regex-substitutions" and isinstance(child, list):
                found += [pair[0] for pair in child if isinstance(pair, list) and pair and isinstance(pair[0], str)]
            else:
                found += _regexes(child)
    elif isinstance(node, list):
        for child in node:
            found += _regexes(child)
    return found
