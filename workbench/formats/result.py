"""What one pass over (parser text, sample text) gives every pane, for either format: problems with
JSON pointers, colour runs over the output (and, for a template, over the prompt), a tree whose nodes
name the key they are about, the spans a tree node or an editor position stands for (``spans_of``,
``lit_at``), the value or the failure, and the verdict on the sample. The panes read an ``Analysis``
and never ask which format made it; what differs is asked of ``format``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..engine.json_positions import SchemaPositions
from ..engine.paint import Paint
from ..engine.problems import Problem, errors
from ..engine.spans import Span
from .base import Format
from .panes import Failure, Lit

@dataclass
class Analysis:
    schema_text: str
    schema: Any = None
    format: Format | None = None  # the parser text's format (also when it is not JSON yet)
    syntax_error: str | None = None  # "line:col: message" when the text is not JSON
    syntax_at: tuple[int, int] | None = None  # (row, col), 0-based
    problems: list[Problem] = field(default_factory=list)
    positions: SchemaPositions | None = None
    trace: Any = None  # the parse's trace, in its format's terms (None: it did not run)
    tree: Any = None  # the tree the tree pane shows (None: the format builds it on demand)
    failure_at: str | None = None  # the key where the parse failed, when the trace does not say
    releases: Any = None  # the releases that read the parser and give this result
    prompt: str | None = None  # the prompt (prefix=) the parse read ("" or None: none)
    anchor: Span | None = None  # where the prompt's tail starts (a template's start anchor)
    fields: list[str] = field(default_factory=list)
    runs: list[Paint] = field(default_factory=list)
    prompt_runs: list[Paint] = field(default_factory=list)  # in offsets of the whole prompt
    seconds: float = 0.0
    verdict: Any = None  # the sample's Verdict, judged from this very trace (set by the worker)
    runtime: str | None = None  # the transformers release it ran as (None: the format's default)
    hung: str | None = None  # why there is no result: the run never answered
    # A large trace stays in the analysis process (remote_tree.py): then the value, runs and failure
    # are here, the tree is stubs, and the queries below go there.
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
        return self.trace is not None

    @property
    def errors(self) -> list[Problem]:
        return errors(self.problems)

    # ----- the one vocabulary: what differs is the format's -----------------------------------------
    @property
    def ok(self) -> bool:
        return self.trace is not None and self.trace.ok

    @property
    def value(self) -> Any:
        return self.format.value_of(self) if self.trace is not None else None

    @property
    def root(self) -> Any:
        """The tree's root (the panes read its nodes' ``path``, ``children`` and label)."""
        if self.trace is None:
            return None
        if self.tree is None:
            self.tree = self.format.tree_of(self)
        return self.tree

    @property
    def output_text(self) -> str | None:
        """The output the result is of (to tell whether it is up to date)."""
        return self.format.output_of(self) if self.trace is not None else None

    def spans_of(self, node: Any) -> tuple[list[Span], list[Span]]:
        """The spans a tree node stands for: (in the output, in the whole prompt)."""
        if self.remote is not None:  # blocks on the analysis process: call it off the UI thread
            return self.remote.spans_of(node)
        return self.format.spans_of(self, node) if self.trace is not None else ([], [])

    def lit_at(self, pointer: str) -> Lit | None:
        """What the editor position ``pointer`` stands for; None when there is no result."""
        if self.remote is not None:  # blocks on the analysis process: call it off the UI thread
            return self.remote.lit_at(pointer)
        return self.format.lit_at(self, pointer) if self.trace is not None else None

    def failure(self) -> Failure | None:
        if self.remote is not None:  # computed where the trace is
            return self.remote.failure
        return self.format.failure_of(self) if self.trace is not None else None

    @property
    def shows_prompt(self) -> bool:
        """Whether the parse read a prompt the prompt pane shows."""
        return self.trace is not None and self.format.reads_prompt

    # ----- crossing between processes -------------------------------------------------------------
    @property
    def shared_root(self) -> Any:
        """The root of a whole trace whose nodes both processes keep between edits (the pipe sends
        each node once), or None."""
        if self.trace is None or self.remote is not None or not self.format.keeps_nodes:
            return None
        return self.trace.root

    def packed(self) -> "Analysis":
        """What crosses the pipe: without what the receiver has or rebuilds (the output, the tree)."""
        if self.trace is not None:
            self.format.pack(self)
        return self

    def unpacked(self, output: str, kept: dict) -> "Analysis":
        """After crossing: the output put back, and whatever index the receiver keeps between
        results (``kept``, one dict per receiver and format) brought up to date. The tree is built
        where it is shown (``root``)."""
        if self.trace is not None:
            self.format.unpack(self, output, kept)
        return self
