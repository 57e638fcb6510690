"""The main screen: parser editor, raw output and parse tree, kept in step by one Analysis.

The editor holds a parser of either format (``format_of_text`` says which); the panes show either through the vocabulary ``Analysis`` gives them
(spans, a tree of nodes naming their key, problems, the value or failure). For a template the
prompt pane shows the prompt it parses the sample with, editable, and the release line which
transformers releases give the result.

Every edit (of the parser or the prompt) restarts a short debounce timer; the timer starts an
exclusive thread worker that asks the analysis process (``worker.AnalysisClient``) to run
``analyze`` there, stopping the run it supersedes; the result is applied to every pane at once,
the sample bar included. A result from an older edit is ignored, so a slow run never overwrites a
newer one. The verdicts on the other samples follow from the same process, for the same parser.
"""

from __future__ import annotations

import dataclasses
import time
from functools import partial
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, TextArea, Tree
from textual.message import Message
from textual.worker import get_current_worker

from ...live.analysis import Analysis, Lit
from ...store.document import SchemaDocument
from ...engine.paint import DROPPED, EMPTIED, LEFT_OPEN, OVERWRITTEN
from ...engine.pointer import display
from ...engine.json_positions import SchemaPositions
from ...engine.releases import NEWEST, Release
from ...formats import DEFAULT_TIME_LIMIT, format_of_text
from ...store.samples import FAILS, Sample, Verdict
from ...store.prompts import PromptDocument
from ...live.process import AnalysisClient
from ..palette import style_for
from ..plain import plain, shown, visible
from ..widgets.parse_tree import ParseTree
from ..widgets.problem_list import ProblemList
from ..widgets.prompt_editor import PromptEditor
from ..widgets.raw_view import RawView
from ..widgets.release_line import ReleaseLine
from ..widgets.sample_bar import SampleBar
from ..widgets.schema_editor import SchemaEditor
from ..widgets.status_line import StatusLine
from .prompt import PromptScreen
from .release import ReleaseScreen
from ..stream.screen import StreamSource, StreamScreen

DEBOUNCE = 0.015  # seconds of quiet typing before a reparse; well under the 50 ms budget
# The same limit as the CLI's: a run that the CLI finishes, the TUI finishes too. Only the current
# run counts against it, since a superseded run is stopped.
TIME_LIMIT = DEFAULT_TIME_LIMIT
_TRAPS = [(DROPPED, "dropped"), (OVERWRITTEN, "overwritten"), (EMPTIED, "emptied"), (LEFT_OPEN, "left open")]


class WorkbenchScreen(Screen):
    AUTO_FOCUS = "SchemaEditor"
    BINDINGS = [
        Binding("f2", "focus_pane('editor')", "Schema", show=False),
        Binding("f3", "focus_pane('raw')", "Raw output", show=False),
        Binding("f4", "focus_pane('tree')", "Parse tree", show=False),
        Binding("f12", "focus_pane('prompt')", "Prompt (templates)", show=False),
        # TextArea keeps f5-f7 for selecting; these pass over it.
        Binding("shift+f8,ctrl+pageup", "sample(-1)", "Prev sample", priority=True),
        Binding("f8,ctrl+pagedown", "sample(1)", "Next sample", priority=True),
        Binding("f9", "first_problem", "Problem", show=False),
        Binding("ctrl+g", "go_to_line", "Go to line", show=False),
        Binding("ctrl+f", "find", "Find", show=False),
        # Shown in the footer only for a template (check_action).
        Binding("ctrl+t", "stream", "Stream"),
        Binding("ctrl+r", "pick_release", "Release"),
    ]

    def __init__(self, document: SchemaDocument, samples: list[Sample], start: int = 0, tools: Any = None,
                 runtime: Release = NEWEST, client: AnalysisClient | None = None) -> None:
        super().__init__()
        self.document = document
        self.samples = samples
        self.current = start
        self.tools = tools
        self.runtime = runtime  # the transformers release a template runs as (ctrl+r picks another)
        self.verdicts: dict[int, Verdict] = {}
        self.splits: dict[int, str] = {}  # samples whose result depends on the release, and how
        self.analysis: Analysis | None = None  # the latest result
        self.good: Analysis | None = None  # the latest result with a tree
        self.format = format_of_text(document.saved_text)
        self.prompts: dict[str, PromptDocument] = {}  # per sample path: its prompt, perhaps edited
        self._generation = 0
        self._edited_at: float | None = None
        self._last_edit = 0.0
        self._debounce = None
        self.latencies: list[float] = []  # seconds from an edit to its tree on screen
        self.client = client if client is not None else AnalysisClient()
        self._notice: str | None = None
        self._last_find = ""

    # ----- layout -------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        with Horizontal(id="panes"):
            with Vertical(id="left"):
                editor = SchemaEditor(self.document.saved_text, id="editor")
                editor.border_title = "Schema"
                yield editor
                yield ProblemList(id="problems")
                yield ReleaseLine(id="releases")
            with Vertical(id="right"):
                yield SampleBar(id="samples")
                prompt = PromptEditor(id="prompt")
                prompt.border_title = "Prompt"
                yield prompt
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
    def prompt_editor(self) -> PromptEditor:
        return self.query_one(PromptEditor)

    @property
    def status(self) -> StatusLine:
        return self.query_one(StatusLine)

    @property
    def sample(self) -> Sample:
        return self.samples[self.current]

    @property
    def prompt(self) -> PromptDocument:
        """The open sample's prompt."""
        return self._prompt_of(self.sample)

    def _prompt_of(self, sample: Sample) -> PromptDocument:
        key = str(sample.path)
        if key not in self.prompts:
            self.prompts[key] = PromptDocument.of(sample)
        return self.prompts[key]

    @property
    def noun(self) -> str:
        return self.format.noun

    def on_mount(self) -> None:
        self.query_one(ProblemList).display = False
        self.query_one(ReleaseLine).display = False
        self._show_format()
        self._show_sample()
        self._update_title()

    def on_unmount(self) -> None:
        self.client.close()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("stream", "pick_release"):
            return self.format.streams  # hidden from the footer while editing a format without them
        return True

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
        self._debounced_reparse()

    @on(TextArea.Changed, "#prompt")
    def _prompt_edited(self) -> None:
        text = self.prompt_editor.text
        if text == self.prompt.text:
            return  # a prompt just loaded
        self.prompt.text = text
        self._edited_at = self._last_edit = time.perf_counter()
        self._update_prompt_title()
        self._update_title()
        self._debounced_reparse()

    def _debounced_reparse(self) -> None:
        if self._debounce is not None:
            self._debounce.stop()
        self._debounce = self.set_timer(DEBOUNCE, self.reparse)

    def reparse(self, notice: str | None = None) -> None:
        """Analyse the editor's parser again; ``notice`` is said in the status line when the result
        is applied (unless it has a problem to report), e.g. what was just written to disk."""
        self._notice = notice
        self._generation += 1
        generation, text, key = self._generation, self.editor.text, str(self.sample.path)
        prefix, tools, runtime = self.prompt.text, self.tools, str(self.runtime)
        opened = self.tree.opened()  # a large trace comes with these nodes' children
        self.client.set_samples({str(s.path): s for s in self.samples},
                                {str(s.path): self._prompt_of(s).text for s in self.samples})

        self._analyse(generation, text, key, prefix, tools, runtime, opened)

    # The analysis process answers in three replies, each awaited by its own exclusive thread worker
    # (a newer edit cancels the older wait) and handed back as a message that names its generation.
    class Analysed(Message):
        def __init__(self, generation: int, analysis: Analysis) -> None:
            super().__init__()
            self.generation, self.analysis = generation, analysis

    class VerdictsCame(Message):
        def __init__(self, generation: int, verdicts: dict[str, Verdict]) -> None:
            super().__init__()
            self.generation, self.verdicts = generation, verdicts

    class SplitsCame(Message):
        def __init__(self, generation: int, splits: dict[str, str]) -> None:
            super().__init__()
            self.generation, self.splits = generation, splits

    class WorkFailed(Message):
        def __init__(self, what: str, error: BaseException) -> None:
            super().__init__()
            self.what, self.error = what, error

    @work(thread=True, exclusive=True, group="parse", exit_on_error=False)
    def _analyse(self, generation: int, text: str, key: str, prefix: str, tools: Any, runtime: str, opened: tuple) -> None:
        self._fetch("parse", lambda cancelled: self.client.analyze(generation, text, key, TIME_LIMIT, cancelled, prefix=prefix,
                                                                   tools=tools, runtime=runtime, opened=opened),
                    lambda analysis: self.Analysed(generation, analysis))

    @work(thread=True, exclusive=True, group="verdicts", exit_on_error=False)
    def _await_verdicts(self, generation: int) -> None:
        self._fetch("verdicts", lambda cancelled: self.client.verdicts(generation, cancelled),
                    lambda verdicts: self.VerdictsCame(generation, verdicts))

    @work(thread=True, exclusive=True, group="splits", exit_on_error=False)
    def _await_splits(self, generation: int) -> None:
        """Which samples' results depend on the release (the analysis process runs the release
        matrix after the verdicts, for a format whose releases differ)."""
        self._fetch("splits", lambda cancelled: self.client.splits(generation, cancelled),
                    lambda splits: self.SplitsCame(generation, splits))

    def _fetch(self, what: str, call, reply) -> None:
        """In a thread worker: wait for one reply (None: superseded or cancelled) and post it."""
        worker = get_current_worker()
        try:
            result = call(lambda: worker.is_cancelled)
        except Exception as exc:  # noqa: BLE001 - said in the status line, the app goes on
            self.post_message(self.WorkFailed(what, exc))
            return
        if result is not None:
            self.post_message(reply(result))

    class RemoteAnswered(Message):
        """An answer about a large trace the analysis process holds, with what to do with it."""

        def __init__(self, then, answer: Any) -> None:
            super().__init__()
            self.then, self.answer = then, answer

    def _ask_remote(self, kind: str, ask, then, exclusive: bool = True) -> None:
        """A question about a large trace the analysis process holds (remote_tree.py), in a thread
        worker; ``then(answer)`` runs on the UI's thread when the answer comes (not if None)."""
        def run() -> None:
            answer = ask()
            if answer is not None and not get_current_worker().is_cancelled:
                self.post_message(self.RemoteAnswered(then, answer))

        self.run_worker(run, group=f"remote-{kind}", thread=True, exclusive=exclusive, exit_on_error=False)

    @on(RemoteAnswered)
    def _remote_answered(self, event: RemoteAnswered) -> None:
        event.then(event.answer)

    @on(ParseTree.ChildrenWanted)
    def _children_wanted(self, event: ParseTree.ChildrenWanted) -> None:
        row, node, analysis = event.node, event.node.data, self.good
        if analysis is None or analysis.remote is None:
            return
        self._ask_remote("children", partial(analysis.remote.children, node),
                         lambda children: self.tree.children_arrived(row, node, children), exclusive=False)

    @on(WorkFailed)
    def _work_failed(self, event: WorkFailed) -> None:
        self.status.say(f"internal error in {event.what}: {event.error}", "error")

    @on(Analysed)
    def _analysed(self, event: Analysed) -> None:
        if event.generation == self._generation:  # older runs are stale
            self._apply(event.analysis)

    @on(VerdictsCame)
    def _verdicts_came(self, event: VerdictsCame) -> None:
        if event.generation != self._generation:
            return
        index = {str(s.path): i for i, s in enumerate(self.samples)}
        verdicts = {index[k]: v for k, v in event.verdicts.items() if k in index}
        verdicts[self.current] = self.verdicts.get(self.current)  # from the analysis on screen
        self.verdicts = verdicts
        self._show_samples()

    @on(SplitsCame)
    def _splits_came(self, event: SplitsCame) -> None:
        if event.generation != self._generation:
            return
        index = {str(s.path): i for i, s in enumerate(self.samples)}
        self.splits = {index[k]: how for k, how in event.splits.items() if k in index}
        self._show_samples()

    def _apply(self, analysis: Analysis) -> None:
        self.analysis = analysis
        if analysis.format != self.format and not analysis.hung:
            self.format = analysis.format
            self._show_format()
            self._update_title()
        editor = self.editor
        editor.mark_error(analysis.syntax_at)
        self.query_one(ProblemList).show(analysis.problems, analysis.syntax_error, analysis.syntax_at)
        self.query_one(ReleaseLine).show(analysis.releases, self.runtime)
        tree = self.tree
        if analysis.usable:
            self.good = analysis
            tree.show(analysis.root, analysis.format)
            tree.border_title = "Parse tree"
            tree.remove_class("-stale")
            self.raw.set_runs(analysis.runs)
            self.raw.border_subtitle = shown(self._legend(analysis), keep_newlines=False)  # field names
            if analysis.shows_prompt:
                self.prompt_editor.show_result(analysis.prompt or "", analysis.prompt_runs, analysis.trace.prefix_tail_start, analysis.anchor)
                self._update_prompt_title()
            # This sample's verdict comes from the trace just drawn; the others follow.
            self.verdicts[self.current] = analysis.verdict
            if not analysis.format.releases_differ:
                self.splits = {}
            self._show_samples()
            self._await_verdicts(self._generation)
            if analysis.format.releases_differ:
                self._await_splits(self._generation)
        elif analysis.hung:
            tree.border_title = "Parse tree (stale: the last parse was killed)"
            tree.add_class("-stale")
            self.verdicts[self.current] = Verdict(FAILS, analysis.hung, error=analysis.hung)
            self._show_samples()
        else:
            tree.border_title = f"Parse tree (stale: the {self.noun} has errors)"
            tree.add_class("-stale")
            self._show_samples()
        self._say_status()
        self._follow_editor_cursor(say=self._notice is None)
        self._notice = None
        if self._edited_at is not None:
            self.latencies.append(time.perf_counter() - self._edited_at)
            self._edited_at = None

    def _show_format(self) -> None:
        """What differs on screen between the formats: the prompt pane, the footer's keys."""
        reads_prompt = self.format.reads_prompt
        self.prompt_editor.display = reads_prompt
        if reads_prompt:
            self.prompt_editor.load(self.prompt.text)
            self._update_prompt_title()
        self.refresh_bindings()

    def _legend(self, analysis: Analysis) -> Text:
        from ..palette import field_colour

        legend = Text()
        for i, name in enumerate(analysis.fields):
            legend.append("■ ", style=field_colour(i))
            legend.append(f"{visible(name)}  ")
        legend.append(analysis.format.legend, style="dim")
        kinds = {run[3] for runs in (analysis.runs, analysis.prompt_runs) for run in runs}
        for kind, name in _TRAPS:
            if kind in kinds:
                legend.append("  ")
                legend.append(f"⚠ {name}", style=style_for(-1, kind))
        return legend

    def _say_status(self) -> None:
        a = self.analysis
        if a is None:
            return
        failure = a.failure() if a.usable else None
        if self._notice is not None and a.usable:
            self.status.say(self._notice)  # what the user just did; the tree shows the rest
        elif a.hung:
            self.status.say(f"Parse stopped: {a.hung}", "error")
        elif a.syntax_error:
            self.status.say(f"{self.noun.capitalize()} is not valid JSON: line {a.syntax_error}", "error")
        elif a.errors:
            first = a.errors[0]
            more = f" (+{len(a.errors) - 1} more)" if len(a.errors) > 1 else ""
            self.status.say(f"{self.noun.capitalize()} error at {display(first.path)}: {first.message}{more}", "error")
        elif failure is not None:
            text = Text(visible(failure.lead), style="bold")
            text.append(visible(failure.message))
            if failure.input is not None:
                text.append(f"\n  input: {failure.input!r}{'…' if failure.cut else ''}", style="dim")
            self.status.say(text, "error")
        else:
            note = f" · {self.sample.note}" if self.sample.note else ""
            self.status.say(f"{self.sample.name} parses: {a.format.summary(a)}{note}")

    # ----- samples ------------------------------------------------------------------------
    def _show_sample(self) -> None:
        self.raw.set_text(self.sample.text)
        self.raw.border_title = plain(f"Raw output · {self.sample.name}")
        if self.format.reads_prompt:
            self.prompt_editor.load(self.prompt.text)
            self._update_prompt_title()
        self._show_samples()
        self.reparse()

    def _show_samples(self) -> None:
        stale = self.analysis is not None and not self.analysis.usable
        self.query_one(SampleBar).show([s.name for s in self.samples], self.current, self.verdicts, stale, self.noun,
                                       self.splits)

    def action_focus_pane(self, pane: str) -> None:
        if pane == "prompt" and not self.format.reads_prompt:
            self.status.say(f"The prompt pane is for response templates: this is a {self.format}", "warning")
            return
        self.query_one(f"#{pane}").focus()

    def action_sample(self, step: int) -> None:
        if len(self.samples) > 1:
            self.current = (self.current + step) % len(self.samples)
            self._show_sample()

    def reload_sample(self) -> None:
        from ...store.samples import load

        self.samples[self.current] = dataclasses.replace(load(self.sample.path), note=self.sample.note)
        prompt = self.prompt
        if not prompt.dirty:
            prompt.reread(self.sample)
        self._show_sample()

    # ----- the prompt -----------------------------------------------------------------------
    @property
    def prompt_focused(self) -> bool:
        return self.format.reads_prompt and self.focused is self.prompt_editor

    def _update_prompt_title(self) -> None:
        a = self.analysis
        prompt = self.prompt
        self.prompt_editor.describe(prompt, a.trace if a is not None and a.shows_prompt and a.prompt == prompt.text else None)

    def set_prompt(self, text: str) -> None:
        """Replace the open sample's prompt text (an edit: undo brings it back)."""
        editor = self.prompt_editor
        editor.replace(text, (0, 0), editor.document.end)

    def prompt_reloaded(self) -> None:
        """The prompt on disk changed (and was not being edited): show it and parse with it."""
        self.prompt_editor.load(self.prompt.text)
        self._update_prompt_title()
        self.reparse()

    def prompt_saved(self, path: Path) -> None:
        self._update_prompt_title()
        self._update_title()
        self.status.say(f"Saved the prompt to {path}")

    # ----- linking the panes ----------------------------------------------------------------
    def _range_near(self, positions: SchemaPositions, pointer: str | None):
        """The editor range of ``pointer``; for a template, of the nearest key above it that the
        text has (a field's ``content`` may be left to its default)."""
        if pointer is None:
            return None
        return self.format.range_near(positions, pointer)

    @on(Tree.NodeHighlighted, "#tree")
    def _tree_moved(self, event: Tree.NodeHighlighted) -> None:
        node = event.node.data
        if node is None or self.good is None or not self.good.usable:
            return
        if self.good.remote is not None:  # a large trace: the analysis process has its spans
            good = self.good
            tree = self.tree

            def then(spans: tuple) -> None:
                if good is self.good and tree.cursor_node is not None and tree.cursor_node.data is node:
                    self._show_node(good, node, spans)  # unless the cursor moved on, or another tree is shown

            self._ask_remote("spans", partial(good.spans_of, node), then)
            return
        self._show_node(self.good, node, self.good.spans_of(node))

    def _show_node(self, good: Analysis, node: Any, spans: tuple) -> None:
        """Light what the tree's cursor node stands for, and its key in the editor."""
        output, prompt = spans
        self.raw.select(output, scroll=True)
        if self.format.reads_prompt:
            self.prompt_editor.select_spans(prompt)
        positions = good.positions
        if positions is not None and positions.text == self.editor.text:
            self.editor.mark_node(self._range_near(positions, node.path))

    @on(TextArea.SelectionChanged, "#editor")
    def _editor_moved(self) -> None:
        self._follow_editor_cursor()

    def _follow_editor_cursor(self, say: bool = True) -> None:
        """With the cursor in the parser: light what that place produced (a schema node's matches,
        a template field's regions, or one key's matches) and list them."""
        a = self.analysis
        if a is None or a.positions is None or not a.usable or a.schema_text != self.editor.text:
            return
        row, column = self.editor.cursor_location
        pointer = a.positions.pointer_at(a.positions.offset(row, column))
        if a.remote is not None:  # a large trace: the analysis process answers
            self._ask_remote("lit", partial(a.lit_at, pointer), lambda lit: self._show_lit(a, pointer, lit, say))
            return
        self._show_lit(a, pointer, a.lit_at(pointer), say)

    def _show_lit(self, a: Analysis, pointer: str, lit: Lit | None, say: bool) -> None:
        if lit is None or a is not self.analysis or a.schema_text != self.editor.text:
            return
        self.editor.mark_node(self._range_near(a.positions, lit.mark) if lit.mark is not None else None, scroll=False)
        self.raw.select(lit.output, scroll=bool(lit.output))
        if self.format.reads_prompt:
            self.prompt_editor.select_spans(lit.prompt)
        if say and lit.title and a.ok and not a.syntax_error and not a.errors:
            self.status.say(_lit_text(lit))

    @on(ProblemList.Picked)
    def _problem_picked(self, event: ProblemList.Picked) -> None:
        self._jump_to(event.pointer, event.at)

    def _jump_to(self, pointer: str | None, at: tuple[int, int] | None) -> None:
        """Put the editor cursor on a node (or a row and column) and focus the editor."""
        a = self.analysis
        if at is None and pointer is not None and a is not None and a.positions is not None:
            found = self._range_near(a.positions, pointer)
            at = found[0] if found else None
        if at is not None:
            self.editor.move_cursor(at, center=True)
        self.editor.focus()

    def action_first_problem(self) -> None:
        """The first problem: a syntax or validation problem, else where the parse fails."""
        problems = self.query_one(ProblemList)
        first = problems.first_problem() if problems.display else None
        if first is not None:
            problems.highlighted = first
            self._jump_to(*problems.target(first))
            return
        a = self.analysis
        failure = a.failure() if a is not None and a.usable else None
        if failure is None:
            self.status.say(f"No problems: the {self.noun} is valid and the parse succeeds.")
            return
        self.tree.select_failing()
        self._jump_to(failure.pointer, None)

    def action_go_to_line(self) -> None:
        def chosen(answer: str | None) -> None:
            if answer is None:
                return
            if not (answer.isdigit() and self.editor.go_to_line(int(answer))):
                self.status.say(f"No line {answer!r}: the {self.noun} has {self.editor.document.line_count} lines", "error")
            self.editor.focus()

        self.app.push_screen(PromptScreen("Go to line:"), chosen)

    def action_find(self) -> None:
        def chosen(answer: str | None) -> None:
            if answer is None:
                return
            self._last_find = answer
            if not self.editor.find(answer):
                self.status.say(f"{answer!r} is not in the {self.noun}", "error")
            self.editor.focus()

        self.app.push_screen(PromptScreen(f"Find in the {self.noun} (Enter finds the next one):", self._last_find), chosen)

    # ----- the release -------------------------------------------------------------------------
    def action_pick_release(self) -> None:
        if not self.format.releases_differ:
            self.status.say(f"{self.format.read_by}, which all run it alike; the release picker is for response templates", "warning")
            return

        def chosen(picked: Release | None) -> None:
            if picked is not None:
                self.set_runtime(picked)

        self.app.push_screen(ReleaseScreen(self.runtime), chosen)

    def set_runtime(self, runtime: Release) -> None:
        """Behave as transformers ``runtime`` from now on: the template is parsed again as it runs it."""
        if runtime == self.runtime:
            return
        self.runtime = runtime
        if self.analysis is not None:
            self.query_one(ReleaseLine).show(self.analysis.releases, self.runtime)
        self.reparse(notice=f"Behaving as transformers {runtime}")

    # ----- the streaming view ------------------------------------------------------------------
    def action_stream(self) -> None:
        a = self.analysis
        if not self.format.streams:
            self.status.say(f"The streaming view replays the events of a format that streams; this is a {self.format}", "error")
            return
        if a is None or not a.usable or a.schema_text != self.editor.text:
            why = "has errors" if a is not None and (a.errors or a.syntax_error) else "is not parsed yet"
            self.status.say(f"Nothing to replay: the template {why}", "error")
            return
        source = StreamSource(self.editor.text, str(self.sample.path), self.sample.name, self.sample.text,
                              a.prompt or "", self.tools, list(a.fields), TIME_LIMIT, str(self.runtime))
        self.app.push_screen(StreamScreen(self.client, source))

    # ----- the document ---------------------------------------------------------------------
    @property
    def dirty(self) -> bool:
        return self.document.is_dirty(self.editor.text)

    def unsaved(self) -> list[str]:
        """What quitting now would lose: the parser's edits, and edited prompts."""
        lost = [f"the {self.noun}"] if self.dirty else []
        lost += [f"the prompt of {Path(key).name}" for key, p in self.prompts.items() if p.dirty]
        return lost

    def unsaved_texts(self) -> list[tuple[Path | None, str]]:
        """The texts ``unsaved`` names, each with the file it belongs to."""
        texts: list[tuple[Path | None, str]] = [(self.document.path, self.editor.text)] if self.dirty else []
        texts += [(p.target, p.text) for p in self.prompts.values() if p.dirty]
        return texts

    def _update_title(self) -> None:
        mark = " ●" if self.dirty else ""
        kind = self.format.noun.capitalize()
        self.editor.border_title = plain(f"{kind} · {self.document.name}{mark}")
        self.app.sub_title = visible(f"{self.document.name}{mark}")

    def saved(self, path: Path) -> None:
        self._update_title()
        self.status.say(f"Saved {path}")

    def reload_schema(self) -> None:
        text = self.document.reload()
        self.editor.load_text(text)
        self._update_title()
        self.reparse()

    def open_document(self, document: SchemaDocument) -> None:
        """Edit another file (the template a migration wrote): the caller has asked about edits."""
        self.document = document
        self.format = format_of_text(document.saved_text)
        self.editor.load_text(document.saved_text)
        self._show_format()
        self._update_title()
        self.reparse()


def _lit_text(lit: Lit) -> Text:
    """What an editor position produced, listed: which match, where, and the start of its text."""
    text = Text(visible(lit.title), style="bold")
    for label, where, excerpt, cut in lit.items:
        if where is None:
            text.append(f"  · {visible(label)} (in rewritten text)", style="dim")
            continue
        text.append(f"  · {visible(label)} {where} ")
        text.append(repr(excerpt) + ("…" if cut else ""), style="green")
    if lit.more:
        text.append(f"  · +{lit.more} more", style="dim")
    return text
