"""What a parser format can do, for everything outside the engine: the seam between the workbench and
the two formats. The TUI, the analysis process, samples, check, linearity, probes, verify, goldens and
the CLI commands hold a ``Format`` and call it; none of them asks which one it holds (the model is
Harlequin's adapter: the app never asks which database it talks to). Adding a format is one more
implementation of this class; adding a release is a row in ``engine/releases.py``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, ContextManager

from ..engine.problems import Problem, errors
from ..engine.schema.regexes import DEFAULT_TIME_LIMIT

if TYPE_CHECKING:
    from ..engine.versions import Releases
    from .runtime_choice import Runtime

Analysis = Any  # formats/result.py's Analysis, which each format fills (result.py imports this module)


class StreamFailed(Exception):
    """A streaming parse raised: the step it was at, and what the runtime raised, in one line."""


class CannotRun(ValueError):
    """The parser file cannot run at all (a schema with errors, a template the runtime refuses to
    load): one line, saying why."""


@dataclass
class Checked:
    """What ``workbench validate`` and the editor's problem list say of one parser (one function
    computes it for both): every problem at its key, and the releases that read it and give its
    result (their narrowings and notes are among the problems too)."""

    problems: list[Problem] = field(default_factory=list)
    releases: "Releases | None" = None
    served: bool | None = None  # a template: whether vLLM serves it (None: not asked)

    @property
    def errors(self) -> list[Problem]:
        return errors(self.problems)


class Format(ABC):
    """One parser format. Compares equal to its name (``"response_schema"``), so results that carry
    a format by name and code that holds the object agree."""

    name: str  # the tokenizer config key: response_schema / response_template
    noun: str  # what the user calls a file of it: "schema" / "template"
    suffix: str  # schemas/<family><suffix>
    golden_infix: str  # <case><infix>.expected.json
    reads_prompt: bool  # its parse reads the generation prompt (prefix=) and tools=
    streams: bool  # it has a streaming replay
    releases_differ: bool  # the releases that read it run it differently (a release picker, a matrix)
    keeps_nodes: bool  # its traces share nodes between edits, so a reply sends only the new ones
    read_by: str  # which transformers releases read it, as a sentence's start
    legend: str  # what the raw view's colours leave plain, in its legend
    migrates: bool  # ``workbench migrate`` translates it into the other format
    superseded: str | None  # why the newest releases ignore it, and what to do (None: they read it)
    version_note: str  # which transformers releases read it from a tokenizer folder (export's note)
    install_advice: str  # the pip line for a transformers that reads it (to verify an export)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Format):
            return other.name == self.name
        return other == self.name

    def __hash__(self) -> int:
        return hash(self.name)

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"<format {self.name}>"

    # ----- releases
    @abstractmethod
    def runtime(self, value: Any = None, parser: Any = None) -> "Runtime":
        """What a parser of this format runs as under ``--runtime value`` (None: the default);
        ``RuntimeRefused``/``UnknownRelease`` with a one-line message otherwise."""

    def runtime_of(self, parser: Any, value: Any = None) -> "Runtime":
        """What ``parser`` runs as under ``runtime=value`` (a loaded parser may know its release)."""
        return self.runtime(value, parser)

    def release(self, runtime: Any) -> Any:
        """What the engine takes as ``runtime=`` for a chosen ``Runtime`` (or None)."""
        return None

    # ----- checking
    @abstractmethod
    def check(self, value: Any, *, tools: Any = None, runtime: Any = None) -> Checked:
        """Every problem of the parser ``value``, each at its key: the one validation both
        ``workbench validate`` and the editor show."""

    @abstractmethod
    def load(self, value: Any, runtime: Any = None) -> Any:
        """The parser ready to run, or what the runtime raises when it loads it."""

    @abstractmethod
    def load_problems(self, value: Any, runtime: Any = None) -> list[Problem]:
        """What stops or slows the parser as the runtime loads it (``workbench.validate``)."""

    @abstractmethod
    def load_failure(self, value: Any, runtime: Any = None) -> str | None:
        """Why the parser cannot run at all, in one line; None when it can."""

    def parse_notes(self, value: Any, tools: Any = None) -> list[str]:
        """What ``workbench parse`` says before it parses (a line starting "note:", or a problem)."""
        return []

    def refusal(self, failure: str) -> str:
        """Why ``workbench parse`` will not run a parser that cannot run (``load_failure``)."""
        return failure

    def stream(self, value: Any, output: str, prompt: str, *, tools: Any, chunk: int, runtime: Any = None):
        """The event stream of a streaming parse, one JSON-able line per step; ``StreamFailed``."""
        raise NotImplementedError(f"a {self.name} has no streaming parse")

    def replay(self, text: str, output: str, *, prompt: str, tools: Any, chunk: int, time_limit: float,
               runtime: Any = None) -> tuple[Any, str | None]:
        """The streaming replay of ``output``: (Replay, None), or (None, why) when there is none."""
        return None, f"a {self.name} has no streaming replay"

    def trace_report(self, trace: Any) -> tuple[dict, str | None]:
        """``workbench parse --trace``'s JSON (message, error, trace) and the failure to say, if any."""
        raise NotImplementedError

    @abstractmethod
    def export_problems(self, value: Any) -> tuple[str | None, list[Problem]]:
        """(why transformers would not take ``value`` from a tokenizer folder, or None; the
        warnings an export shows)."""

    def serving_refusal(self, value: Any) -> str | None:
        """Why vLLM would refuse to serve ``value`` (an export writes it all the same), or None."""
        return None

    def serving_lines(self, value: Any, checked: Checked) -> list[str]:
        """What other servers make of the parser (``workbench validate``'s last lines)."""
        return []

    def error_line(self, problem: Problem) -> str:
        """A problem as ``workbench validate`` prints it after the file's name."""
        return str(problem)

    # ----- parsing
    @abstractmethod
    def parse(self, value: Any, output: str, prompt: str = "", *, tools: Any = None,
              time_limit: float = DEFAULT_TIME_LIMIT, runtime: Any = None) -> Any:
        """The message transformers gives for ``output``, or what it raises."""

    @abstractmethod
    def failure(self, exc: Exception) -> Exception | None:
        """``exc`` as a verdict reads it, when it is the parse's own failure on this output; None
        when it is not (a bug to let through)."""

    @abstractmethod
    def runner(self, value: Any, runtime: Any = None) -> Callable[[str, str], Any]:
        """``parse(output, prompt)`` for a parser loaded once (a round trip, a linearity run, a
        dataset); ``CannotRun`` when it cannot run."""

    # ----- a dataset (workbench scan)
    @abstractmethod
    def markers(self, value: Any) -> list[str]:
        """The literal tags and special tokens the parser's delimiters spell out: one left inside a
        parsed value is a region cut in the wrong place."""

    @abstractmethod
    def scan_runner(self, value: Any, runtime: Any = None) -> Callable[..., tuple[Any, list]]:
        """``run(output, prompt, tools, time_limit) -> (message, traps)`` for a parser loaded once:
        the message ``parse`` gives (or what it raises) and the traps the output fell into
        (engine/template/traps.py's ``Trap``s; none where a format has no traps to watch)."""

    @abstractmethod
    def failure_at(self, value: Any, output: str, prompt: str, tools: Any, exc: Exception, runtime: Any = None) -> str:
        """The node (schema) or key (template) a failed parse of ``output`` names, as a pointer."""

    def stream_difference(self, value: Any, output: str, prompt: str, tools: Any, chunkings: list[list[int]],
                          runtime: Any = None, time_limit: float | None = DEFAULT_TIME_LIMIT) -> str | None:
        """Where a streamed parse on one of ``chunkings`` parts from the one-shot parse (None: none
        does, or the format does not stream)."""
        return None

    # ----- the panes
    @abstractmethod
    def analyze(self, result: "Analysis", output: str, *, prompt: str, tools: Any, time_limit: float,
                cache: Any, memo: Any, traced: Callable[[], None] | None,
                work: Callable[[], ContextManager], with_tree: bool, kept: dict | None = None) -> None:
        """Fill ``result`` (whose ``schema`` holds the parsed file) with problems, the trace and its
        colours: one pass per edit, for every pane. ``kept``: what earlier runs on this sample
        left for this one (the analysis process keeps one dict per sample)."""

    def label_parts(self, node: Any) -> list[tuple[str, str]]:
        """A tree node's line as (text, style) pieces, its name first (the name's style is the
        line's); the tree pane shows them safely."""
        raise NotImplementedError

    def open_depth(self, nodes: int) -> int:
        """How deep the tree pane opens a tree of ``nodes`` nodes (counted up to 401)."""
        return 6 if nodes <= 400 else 0

    @staticmethod
    def idle(kept: dict) -> None:
        """Work a format left for when the analysis process waits (``kept`` as ``analyze`` got it):
        run at most once; a newer request may interrupt it."""
        later = kept.pop("idle", None)
        if later is not None:
            later()

    def interrupt(self) -> None:
        """Cut short this format's parse on the main thread, if its engine has a way to (called
        from a signal handler)."""

    def summary(self, result: "Analysis") -> str:
        """What a parse that worked gave, after "<sample> parses: " in the status line."""
        return ", ".join(result.fields) or "no fields"

    def range_near(self, positions: Any, pointer: str) -> Any:
        """The editor range of ``pointer``, or of the nearest key above it that the text has."""
        return positions.range_of(pointer)

    def matrix(self, value: Any, samples: list, *, time_limit: float = DEFAULT_TIME_LIMIT) -> Any:
        """The release matrix of ``samples`` (where releases give different results), or None
        when every release this format is read by runs it alike."""
        return None

    def trace(self, value: Any, output: str, *, prompt: Any = None, tools: Any = None,
              time_limit: float | None = DEFAULT_TIME_LIMIT, runtime: Any = None, cache: Any = None) -> Any:
        """The parse with its trace (``workbench parse --trace``, ``workbench.trace``)."""
        raise NotImplementedError
