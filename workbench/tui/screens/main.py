"""The main screen: schema editor, raw output and parse tree, kept in step by one Analysis.

Every edit restarts a short debounce timer; the timer starts an exclusive thread worker that
asks the analysis process (``worker.AnalysisClient``) to run ``analyze`` there, stopping the run
it supersedes; the result is applied to every pane at once, the sample bar included. A result
from an older edit is ignored, so a slow run never overwrites a newer one. The verdicts on the
other samples follow from the same process, for the same schema.
"""

from __future__ import annotations

import time
from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, TextArea, Tree
from textual.worker import Worker, WorkerState, get_current_worker

from ...analysis import Analysis
from ...document import SchemaDocument
from ...engine import DEFAULT_TIME_LIMIT, TraceNode
from ...engine.highlights import node_spans
from ...engine.subtree_memo import SubtreeMemo
from ...engine.pointer import display, split
from ...engine.schema_positions import schema_node_of
from ...samples import FAILS, Sample, Verdict
from ...worker import AnalysisClient
from ..widgets.parse_tree import ParseTree
from ..widgets.problem_list import ProblemList
from ..widgets.raw_view import RawView
from ..widgets.sample_bar import SampleBar
from ..widgets.schema_editor import SchemaEditor
from ..widgets.status_line import StatusLine
from .prompt import PromptScreen

DEBOUNCE = 0.015  # seconds of quiet typing before a reparse; well under the 50 ms budget
# The same limit as the CLI's: a run that the CLI finishes, the TUI finishes too. Only the current
# run counts against it, since a superseded run is stopped.
TIME_LIMIT = DEFAULT_TIME_LIMIT


class WorkbenchScreen(Screen):
    AUTO_FOCUS = "SchemaEditor"
    BINDINGS = [
        Binding("f2", "focus_pane('editor')", "Schema", show=False),
        Binding("f3", "focus_pane('raw')", "Raw output", show=False),
        Binding("f4", "focus_pane('tree')", "Parse tree", show=False),
        # TextArea keeps f5-f7 for selecting; these pass over it.
        Binding("shift+f8,ctrl+pageup", "sample(-1)", "Prev sample", priority=True),
        Binding("f8,ctrl+pagedown", "sample(1)", "Next sample", priority=True),
        Binding("f9", "first_problem", "Problem", show=False),
        Binding("ctrl+g", "go_to_line", "Go to line", show=False),
        Binding("ctrl+f", "find", "Find", show=False),
    ]

    def __init__(self, document: SchemaDocument, samples: list[Sample], start: int = 0) -> None:
        super().__init__()
        self.document = document
        self.samples = samples
        self.current = start
        self.verdicts: dict[int, Verdict] = {}
        self.analysis: Analysis | None = None  # the latest result
        self.good: Analysis | None = None  # the latest result with a tree
        self._generation = 0
        self._edited_at: float | None = None
        self._last_edit = 0.0
        self._debounce = None
        self.latencies: list[float] = []  # seconds from an edit to its tree on screen
        self.client = AnalysisClient()
        self._notice: str | None = None
        self._last_find = ""
        self.memo = SubtreeMemo()  # the path index, rebuilt only for the fields an edit changed

    # ----- layout -------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        with Horizontal(id="panes"):
            with Vertical(id="left"):
                editor = SchemaEditor(self.document.saved_text, id="editor")
                editor.border_title = "Schema"
                yield editor
                yield ProblemList(id="problems")
            with Vertical(id="right"):
                yield SampleBar(id="samples")
                raw = RawView(id="raw")
                raw.border_title = "Raw output"
                yield raw
                tree = ParseTree(id="tree")
                tree.border_title = "Parse tree"
                yield tree
        yield StatusLine(id="status")
        yield Footer()

    @property
    def editor(self) -> SchemaEditor:
        return self.query_one(SchemaEditor)

    @property
    def raw(self) -> RawView:
        return self.query_one(RawView)

    @property
    def tree(self) -> ParseTree:
        return self.query_one(ParseTree)

    @property
    def status(self) -> StatusLine:
        return self.query_one(StatusLine)

    @property
    def sample(self) -> Sample:
        return self.samples[self.current]

    def on_mount(self) -> None:
        self.query_one(ProblemList).display = False
        self._show_sample()
        self._update_title()

    def on_unmount(self) -> None:
        self.client.close()

    # ----- parsing ------------------------------------------------------------------------
    def idle_for(self) -> float:
        """Seconds since the last edit (and no parse running)."""
        if any(w.group == "parse" and not w.is_finished for w in self.workers):
            return 0.0
        return time.perf_counter() - self._last_edit

    @on(TextArea.Changed, "#editor")
    def _edited(self) -> None:
        self._edited_at = self._last_edit = time.perf_counter()
        self._update_title()
        if self._debounce is not None:
            self._debounce.stop()
        self._debounce = self.set_timer(DEBOUNCE, self.reparse)

    def reparse(self, notice: str | None = None) -> None:
        """Analyse the editor's schema again; ``notice`` is said in the status line when the result
        is applied (unless it has a problem to report), e.g. what was just written to disk."""
        self._notice = notice
        self._generation += 1
        generation, text, key = self._generation, self.editor.text, str(self.sample.path)
        self.client.set_samples({str(s.path): s for s in self.samples})

        def run() -> Analysis | None:
            worker = get_current_worker()
            return self.client.analyze(generation, text, key, TIME_LIMIT, lambda: worker.is_cancelled)

        self.run_worker(run, name=f"parse:{generation}", group="parse", thread=True, exclusive=True, exit_on_error=False)

    def _await_verdicts(self, generation: int) -> None:
        def run() -> dict[str, Verdict] | None:
            worker = get_current_worker()
            return self.client.verdicts(generation, lambda: worker.is_cancelled)

        self.run_worker(run, name=f"verdicts:{generation}", group="verdicts", thread=True, exclusive=True, exit_on_error=False)

    @on(Worker.StateChanged)
    def _worker_done(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if worker.state == WorkerState.ERROR:
            self.status.say(f"internal error in {worker.group}: {worker.error}", "error")
            return
        if worker.state != WorkerState.SUCCESS or worker.result is None or worker.group not in ("parse", "verdicts"):
            return
        if int(worker.name.split(":")[1]) != self._generation:  # older runs are stale
            return
        if worker.group == "parse":
            self._apply(worker.result)
        else:
            index = {str(s.path): i for i, s in enumerate(self.samples)}
            verdicts = {index[k]: v for k, v in worker.result.items() if k in index}
            verdicts[self.current] = self.verdicts.get(self.current)  # from the analysis on screen
            self.verdicts = verdicts
            self._show_samples()

    def _apply(self, analysis: Analysis) -> None:
        self.analysis = analysis
        editor = self.editor
        editor.mark_error(analysis.syntax_at)
        self.query_one(ProblemList).show(analysis.problems, analysis.syntax_error, analysis.syntax_at)
        tree = self.tree
        if analysis.usable:
            self.memo.index(analysis.trace)
            self.good = analysis
            tree.show(analysis.trace)
            tree.border_title = "Parse tree"
            tree.remove_class("-stale")
            self.raw.set_runs(analysis.runs)
            self.raw.border_subtitle = self._legend(analysis.fields)
            # This sample's verdict comes from the trace just drawn; the others follow.
            self.verdicts[self.current] = analysis.verdict
            self._show_samples()
            self._await_verdicts(self._generation)
        elif analysis.hung:
            tree.border_title = "Parse tree (stale: the last parse was killed)"
            tree.add_class("-stale")
            self.verdicts[self.current] = Verdict(FAILS, analysis.hung, error=analysis.hung)
            self._show_samples()
        else:
            tree.border_title = "Parse tree (stale: the schema has errors)"
            tree.add_class("-stale")
            self._show_samples()
        self._say_status()
        self._follow_editor_cursor(say=self._notice is None)
        self._notice = None
        if self._edited_at is not None:
            self.latencies.append(time.perf_counter() - self._edited_at)
            self._edited_at = None

    def _legend(self, fields: list[str]) -> Text:
        from ..palette import field_colour

        legend = Text()
        for i, name in enumerate(fields):
            legend.append("■ ", style=field_colour(i))
            legend.append(f"{name}  ")
        legend.append("plain: unmatched", style="dim")
        return legend

    def _say_status(self) -> None:
        a = self.analysis
        if a is None:
            return
        if self._notice is not None and a.usable:
            self.status.say(self._notice)  # what the user just did; the tree shows the rest
        elif a.hung:
            self.status.say(f"Parse stopped: {a.hung}", "error")
        elif a.syntax_error:
            self.status.say(f"Schema is not valid JSON: line {a.syntax_error}", "error")
        elif a.errors:
            first = a.errors[0]
            more = f" (+{len(a.errors) - 1} more)" if len(a.errors) > 1 else ""
            self.status.say(f"Schema error at {display(first.path)}: {first.message}{more}", "error")
        elif a.trace is not None and not a.trace.ok:
            self.status.say(self._failure_text(a), "error")
        else:
            warnings = len(a.problems)
            note = f" · {warnings} warning{'s' if warnings != 1 else ''}" if warnings else ""
            self.status.say(f"{self.sample.name} parses: {', '.join(a.fields) or 'no fields'}{note}")

    def _failure_text(self, a: Analysis) -> Text:
        error = a.trace.error
        failing = next((n for n in a.trace.nodes() if n.error), None)
        text = Text(f"Parse fails at {display(a.trace.error_path or '')}: ", style="bold")
        text.append(getattr(error, "message", str(error)).splitlines()[0][:200])
        if failing is not None:
            span = failing.span or failing.source_span
            if span is not None:
                got = self.sample.text[span[0] : min(span[1], span[0] + 80)]
                text.append(f"\n  input: {got!r}{'…' if span[1] - span[0] > 80 else ''}", style="dim")
        return text

    # ----- samples ------------------------------------------------------------------------
    def _show_sample(self) -> None:
        self.raw.set_text(self.sample.text)
        self.raw.border_title = f"Raw output · {self.sample.name}"
        self._show_samples()
        self.reparse()

    def _show_samples(self) -> None:
        stale = self.analysis is not None and not self.analysis.usable
        self.query_one(SampleBar).show([s.name for s in self.samples], self.current, self.verdicts, stale)

    def action_focus_pane(self, pane: str) -> None:
        self.query_one(f"#{pane}").focus()

    def action_sample(self, step: int) -> None:
        if len(self.samples) > 1:
            self.current = (self.current + step) % len(self.samples)
            self._show_sample()

    def reload_sample(self) -> None:
        from ...samples import load

        self.samples[self.current] = load(self.sample.path)
        self._show_sample()

    # ----- linking the panes ----------------------------------------------------------------
    @on(Tree.NodeHighlighted, "#tree")
    def _tree_moved(self, event: Tree.NodeHighlighted[TraceNode]) -> None:
        node = event.node.data
        if node is None or self.good is None or self.good.trace is None:
            return
        self.raw.select(self._spans_of([node]), scroll=True)
        positions = self.good.positions
        if positions is not None and positions.text == self.editor.text:
            self.editor.mark_node(positions.range_of(node.path))

    def _spans_of(self, nodes: list[TraceNode], key: str | None = None, substitution: int | None = None) -> list[tuple[int, int]]:
        trace = self.good.trace
        return [span for node in nodes for span in node_spans(trace, node, key, substitution)]

    @on(TextArea.SelectionChanged, "#editor")
    def _editor_moved(self) -> None:
        self._follow_editor_cursor()

    def _follow_editor_cursor(self, say: bool = True) -> None:
        """With the cursor on a schema node: light up its matches and list them; on one of its
        x- keys, only that key's matches (one entry's, in x-regex-substitutions)."""
        a = self.analysis
        if a is None or a.positions is None or a.trace is None or a.schema_text != self.editor.text:
            return
        row, column = self.editor.cursor_location
        pointer = a.positions.pointer_at(a.positions.offset(row, column))
        path = schema_node_of(pointer)
        if not path:  # the root: everything; lighting it all would show nothing
            self.editor.mark_node(None)
            self.raw.select([], scroll=False)
            return
        key, substitution = _stage_at(pointer[len(path):])
        visits = a.trace.nodes_at(path)
        self.editor.mark_node(a.positions.range_of(path), scroll=False)
        if not visits:
            self.raw.select([], scroll=False)
            return
        spans = self._spans_of(visits, key, substitution)
        self.raw.select(spans, scroll=bool(spans))
        if say and a.trace.ok and not a.syntax_error and not a.errors:
            self.status.say(self._matches_text(path, visits, key))

    def _matches_text(self, path: str, visits: list[TraceNode], key: str | None = None) -> Text:
        """The node's matches, listed: which key, where, and the start of what it matched."""
        matches = [m for v in visits for m in v.matches if key is None or m.key == key]
        where = display(path) + (f" {key}" if key else "")
        text = Text(f"{where}: visited {len(visits)}×, {len(matches)} match{'es' if len(matches) != 1 else ''}", style="bold")
        raw = self.sample.text
        for m in matches[:4]:
            if m.span is None:
                text.append(f"  · {m.key} #{m.index} (in rewritten text)", style="dim")
                continue
            start, end = m.span
            excerpt = raw[start : min(end, start + 24)].replace("\n", "⏎")
            text.append(f"  · {m.key} #{m.index} {start}–{end} ")
            text.append(repr(excerpt) + ("…" if end - start > 24 else ""), style="green")
        if len(matches) > 4:
            text.append(f"  · +{len(matches) - 4} more", style="dim")
        return text

    @on(ProblemList.Picked)
    def _problem_picked(self, event: ProblemList.Picked) -> None:
        self._jump_to(event.pointer, event.at)

    def _jump_to(self, pointer: str | None, at: tuple[int, int] | None) -> None:
        """Put the editor cursor on a schema node (or a row and column) and focus the editor."""
        a = self.analysis
        if at is None and pointer is not None and a is not None and a.positions is not None:
            found = a.positions.range_of(pointer) or a.positions.range_of(schema_node_of(pointer))
            at = found[0] if found else None
        if at is not None:
            self.editor.move_cursor(at, center=True)
        self.editor.focus()

    def action_first_problem(self) -> None:
        """The first problem: a syntax or validation problem, else the node where the parse fails."""
        problems = self.query_one(ProblemList)
        if problems.display and problems.option_count:
            problems.highlighted = 0
            self._jump_to(*problems.target(0))
            return
        a = self.analysis
        if a is None or a.trace is None or a.trace.ok:
            self.status.say("No problems: the schema is valid and the parse succeeds.")
            return
        self.tree.select_failing()
        self._jump_to(a.trace.error_path, None)

    def action_go_to_line(self) -> None:
        def chosen(answer: str | None) -> None:
            if answer is None:
                return
            if not (answer.isdigit() and self.editor.go_to_line(int(answer))):
                self.status.say(f"No line {answer!r}: the schema has {self.editor.document.line_count} lines", "error")
            self.editor.focus()

        self.app.push_screen(PromptScreen("Go to line:"), chosen)

    def action_find(self) -> None:
        def chosen(answer: str | None) -> None:
            if answer is None:
                return
            self._last_find = answer
            if not self.editor.find(answer):
                self.status.say(f"{answer!r} is not in the schema", "error")
            self.editor.focus()

        self.app.push_screen(PromptScreen("Find in the schema (Enter finds the next one):", self._last_find), chosen)

    # ----- the document ---------------------------------------------------------------------
    @property
    def dirty(self) -> bool:
        return self.document.is_dirty(self.editor.text)

    def _update_title(self) -> None:
        mark = " ●" if self.dirty else ""
        self.editor.border_title = f"Schema · {self.document.name}{mark}"
        self.app.sub_title = f"{self.document.name}{mark}"

    def saved(self, path: Path) -> None:
        self._update_title()
        self.status.say(f"Saved {path}")

    def reload_schema(self) -> None:
        text = self.document.reload()
        self.editor.load_text(text)
        self._update_title()
        self.reparse()


def _stage_at(rest: str) -> tuple[str | None, int | None]:
    """The x- key (and x-regex-substitutions entry) a pointer below a schema node is in, if any."""
    parts = split(rest) if rest else []
    if not parts or not parts[0].startswith("x-regex"):
        return None, None
    if parts[0] == "x-regex-substitutions" and len(parts) > 1 and parts[1].isdigit():
        return parts[0], int(parts[1])
    return parts[0], None
