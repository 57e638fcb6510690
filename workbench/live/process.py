"""The analysis process: where the TUI's parses run, exactly as the runtime runs them.

transformers runs schema regexes with Python's ``re``, which has no time limit and holds the GIL.
Run in the UI process, a slow pattern would freeze the interface; run in a thread, it could not be
stopped. So the TUI hands every analysis to this separate process, which runs ``re`` on its own
main thread (where the engine's SIGALRM time limit works) and can be interrupted when an edit
supersedes the run, or killed and restarted if it ever stops answering.

What crosses the pipe is kept small: each sample's text is sent once, each edit sends only the
schema text, and a reply holds only the trace nodes the UI does not already have. The process
keeps a subtree cache per sample, so an edit re-runs only the schema nodes that depend on it; the
nodes it reuses are sent as references to the copies the UI received before (see _Pickler).

A parser that reads the prompt is analysed with the sample's prompt (which the UI may be editing,
so it is sent along: the current sample's with each request, the others' for their verdicts), and
so is a streaming replay (``replay``), so the TUI and ``workbench parse`` run the same engine
functions on the same inputs. The template engine's regexes have their own time limit; a run a
newer request supersedes is interrupted by an exception raised from the signal handler, only
while template work runs (``_template_work``), and a superseded request of another kind is run
again afterwards.

UI-free: the TUI calls ``AnalysisClient`` from its thread workers; nothing here imports Textual.
"""

from __future__ import annotations

import gc
import json
import itertools
import os
import signal
import threading
import time
import traceback
from contextlib import contextmanager
from dataclasses import dataclass
from typing import ClassVar
from typing import Any, Callable

from .analysis import analyze
from .spawn import spawn
from ..formats import Analysis, Format, format_of_text, interrupt
from ..formats.remote_tree import Held, hold, is_large
from ..formats.wire import NodeTable, dump, load
from ..store.samples import Sample, Verdict, judge_with, verdict_of

# How long past its own time limit a parse may go on before the process is thought hung
# (CPython's regex engine checks for signals, so the engine's own limit normally ends it). Only
# the parse is watched: the process says when it is done ("parsed"), and what follows (colours,
# pickling) is linear in the size of the trace, so it may take as long as a large trace needs.
GRACE = 3.0
_POLL = 0.02  # seconds between checks for cancellation while waiting for a reply
IDLE_COLLECT = 1.0  # seconds without a request before the analysis process collects cycles
STARTUP = 30.0  # seconds the analysis process may take to start (imports, on a loaded machine)


# ----- the messages, both ways --------------------------------------------------------------------
# To the process. A request of a kind replaces a queued one of the same kind.
@dataclass
class SamplesChanged:
    changes: dict[str, Sample | None]  # key -> the sample's new text, or None: gone


@dataclass
class PromptsChanged:
    prompts: dict[str, str]  # key -> the prompt its parses read (the UI's, perhaps being edited)


@dataclass
class Forget:
    kind: str  # the UI stopped waiting for the request of this kind: drop it (and stop it, if running)


@dataclass
class AnalyzeRequest:
    kind: ClassVar[str] = "analyze"
    generation: int
    schema_text: str
    sample: str  # key of the sample to trace
    time_limit: float
    prefix: str = ""  # the sample's prompt, as the UI has it now (read by a format that reads one)
    tools: Any = None  # tools= (the JSON tool definitions), or None
    runtime: str | None = None  # the transformers release to run as (None: the format's default)
    opened: tuple = ()  # key paths of the tree nodes the UI shows open: a large trace sends their children


@dataclass
class ReplayRequest:
    kind: ClassVar[str] = "replay"
    generation: int
    template_text: str
    sample: str
    prefix: str
    tools: Any
    chunk: int
    time_limit: float
    runtime: str | None = None


@dataclass
class TreeQuery:
    generation: int  # of the large trace asked about
    number: int
    what: str  # "children", "spans" or "lit"
    arg: Any


# From the process: each names what it answers (a generation, a replay's or a query's number).
@dataclass
class Reply:
    kind: ClassVar[str]
    number: int


@dataclass
class Parsed(Reply):
    """The parse is done (what follows cannot run away): the UI stops watching for a hang."""
    kind: ClassVar[str] = "parsed"


@dataclass
class Analysed(Reply):
    kind: ClassVar[str] = "analysis"
    analysis: Analysis


@dataclass
class Verdicts(Reply):
    kind: ClassVar[str] = "verdicts"
    verdicts: dict[str, Verdict]


@dataclass
class Splits(Reply):
    kind: ClassVar[str] = "splits"
    splits: dict[str, str]


@dataclass
class Replayed(Reply):
    kind: ClassVar[str] = "replay"
    replay: Any  # the Replay, or None
    why: str | None  # why there is none


@dataclass
class Answer(Reply):
    kind: ClassVar[str] = "answer"
    answer: Any  # None: that trace is no longer held


@dataclass
class Crashed(Reply):
    kind: ClassVar[str] = "crashed"
    traceback: str


def _shares_nodes(message: Any) -> bool:
    """Whether a reply holds a trace whose nodes the two processes' tables share."""
    return isinstance(message, Analysed) and message.analysis.shared_root is not None


def _sent(message: Any, table: NodeTable) -> None:
    """After a reply crossed the pipe: both sides settle their tables the same way."""
    table.settle(message.analysis.shared_root if _shares_nodes(message) else None)


# ----- the process ------------------------------------------------------------------------------------
class _Superseded(BaseException):
    """Raised from the signal handler into template work that a newer request supersedes (the
    template engine's regexes have no timer to cut short). Not an Exception: nothing on the way
    may mistake it for what the parse raised."""


_INTERRUPTIBLE = [False]  # whether template work is running (see _template_work)
# Whether the running request was cut short. A signal that comes late (after this process took
# the request it was sent with) finds only a query in the pipe: the request then runs again.
_CUT = [False]


@contextmanager
def _template_work():
    _INTERRUPTIBLE[0] = True
    try:
        yield
    finally:
        _INTERRUPTIBLE[0] = False


def _serve(conn) -> None:  # pragma: no cover - runs in the child process (tested through the client)
    def interrupted(signum, frame):
        # The UI signals after each request it sends. A parse with a newer request waiting
        # behind it ends as if its time were up; its result is then dropped (see _serve_requests).
        # The signal may also come just after this process took that request: then nothing waits.
        if conn.poll(0):
            interrupt()
            _CUT[0] = True
            if _INTERRUPTIBLE[0]:
                _INTERRUPTIBLE[0] = False
                raise _Superseded()

    signal.signal(signal.SIGUSR1, interrupted)  # (SIGINT is ignored since spawn.accept())
    try:
        conn.send_bytes(b"ready")  # only now may the UI signal: SIGUSR1 would have killed us before
        _serve_requests(conn)
    except (EOFError, OSError):
        return  # the UI closed the pipe (or is gone): nothing left to do


def _serve_requests(conn) -> None:  # pragma: no cover - runs in the child process
    samples: dict[str, Sample] = {}
    prompts: dict[str, str] = {}  # sample key -> the prompt its template parses use
    kept: dict[str, dict] = {}  # sample key -> what its format keeps between edits (a subtree cache)
    pending: dict[str, Any] = {}  # request kind -> the newest request of that kind
    forgotten: set[str] = set()  # kinds the UI stopped waiting for since the last request began
    held: list[Held | None] = [None, None]  # the large trace the UI shows, and the one being sent

    def newer() -> bool:
        """Take what came meanwhile (answering queries); whether any of it supersedes the run."""
        came = False
        while conn.poll(0):
            message = conn.recv()
            take(message)
            came = came or not isinstance(message, TreeQuery)
        return came

    def take(message: Any) -> None:
        if isinstance(message, TreeQuery):  # about a large trace held here: answered at once
            _answer(conn, message, held[0], table)
        elif isinstance(message, SamplesChanged):
            for key, sample in message.changes.items():
                kept.pop(key, None)
                if sample is None:
                    samples.pop(key, None)
                else:
                    samples[key] = sample
        elif isinstance(message, PromptsChanged):
            prompts.update(message.prompts)
        elif isinstance(message, Forget):
            pending.pop(message.kind, None)
            forgotten.add(message.kind)
        else:
            pending[message.kind] = message  # a later request replaces a queued one

    table = NodeTable()
    matrices: dict = {}  # the last release matrix, by what it was run on
    # Traces are trees without back links, freed by reference counting; a cycle collection over
    # the cached ones costs ~100 ms at 2 MB. It waits for a pause in the user's typing instead.
    gc.freeze()
    gc.disable()
    while True:
        if not pending:
            if not conn.poll(0):
                _idle(kept)
            if not conn.poll(IDLE_COLLECT):
                gc.collect()
            take(conn.recv())
        # Whatever is already queued is newer: sample updates apply, a later request replaces this one.
        while conn.poll(0):
            take(conn.recv())
        if not pending:
            continue
        kind = AnalyzeRequest.kind if AnalyzeRequest.kind in pending else next(iter(pending))
        request = pending.pop(kind)
        forgotten.clear()
        _CUT[0] = False
        try:
            if kind == ReplayRequest.kind:
                reply = _replay_reply(request, samples)
            else:
                reply = _analysis_reply(request, samples, prompts, kept, conn, held)
        except _Superseded:
            reply = None
        except Exception:
            failure = traceback.format_exc()
            crash = Replayed(request.generation, None, failure) if kind == ReplayRequest.kind else Crashed(request.generation, failure)
            _send(conn, crash, table)
            continue
        if reply is None or newer() or _CUT[0]:
            # Superseded while it ran (perhaps cut short): the newer request goes next; a request
            # of another kind did not replace this one, which runs again after it.
            newer()
            if kind not in forgotten:
                pending.setdefault(kind, request)
            continue
        try:
            _send(conn, reply, table)
            if not isinstance(reply, Analysed) or not reply.analysis.usable:
                continue  # a replay, or a parser with errors: the verdicts of the last good one stand
            held[0], held[1] = held[1], None  # the UI now shows this tree: its queries come here
            analysis = reply.analysis
            verdicts = _verdicts(request, analysis, samples, prompts, newer)
            if verdicts is not None:
                _send(conn, Verdicts(request.generation, verdicts), table)
                if analysis.format.releases_differ and not newer():
                    _send(conn, Splits(request.generation, _splits(request, analysis, samples, prompts, matrices)), table)
        except _Superseded:
            continue
        except Exception:
            _send(conn, Crashed(request.generation, traceback.format_exc()), table)


def _idle(kept: dict[str, dict]) -> None:
    """What the formats left for a pause (a cache the first run on a long output did not fill):
    a request that comes meanwhile cuts it short, as it cuts a parse."""
    for state in kept.values():
        try:
            Format.idle(state)
        except Exception:  # noqa: BLE001 - only a head start for later runs; they do the work anyway
            pass


def _send(conn, message: Reply, table: NodeTable) -> None:
    conn.send_bytes(dump(message, table, nodes=_shares_nodes(message)))
    _sent(message, table)


def _answer(conn, query: TreeQuery, held: Held | None, table: NodeTable) -> None:
    """Answer a query about the large trace the UI shows, with None when that trace is no longer
    the one held (the UI is about to show a newer one)."""
    try:
        found = held.answer(query.what, query.arg) if held is not None and held.generation == query.generation else None
    except Exception:  # noqa: BLE001 - a query must not end the process; the UI shows nothing for it
        found = None
    _send(conn, Answer(query.number, found), table)


def _analysis_reply(request: AnalyzeRequest, samples: dict[str, Sample], prompts: dict[str, str], kept: dict, conn,
                    held: list | None = None) -> Analysed:
    sample = samples[request.sample]
    analysis = analyze(
        request.schema_text, sample.text, time_limit=request.time_limit, kept=kept.setdefault(request.sample, {}),
        traced=lambda: conn.send_bytes(dump(Parsed(request.generation), NodeTable(), nodes=False)),
        prefix=request.prefix, tools=request.tools, template_work=_template_work, with_outline=False,
        runtime=request.runtime,
    )
    if analysis.usable:
        value, error = analysis.format.outcome(analysis)
        analysis.verdict = verdict_of(sample, value, error, analysis.format)
        if held is not None:
            # A large trace stays here (sent as the user opens it); ``analysis`` becomes its slim copy.
            held[1] = hold(analysis, request.generation, request.opened) if is_large(analysis) else None
        analysis.packed()
    return Analysed(request.generation, analysis)


def _verdicts(
    request: AnalyzeRequest, analysis: Analysis, samples: dict[str, Sample], prompts: dict[str, str], newer: Callable[[], bool]
) -> dict[str, Verdict] | None:
    """The other samples' verdicts (the traced sample's is in its analysis), or None when a newer
    request came in meanwhile (a signal that came while the reply was being sent found no parse
    to cut short, so this looks between samples too)."""
    verdicts = {}
    for key, sample in samples.items():
        if key != request.sample:
            with _template_work():
                verdicts[key] = judge_with(analysis.format, sample, analysis.schema, prompts.get(key, ""), tools=request.tools,
                                           time_limit=request.time_limit, runtime=request.runtime)
        if newer():
            return None
    return verdicts


def _splits(request: AnalyzeRequest, analysis: Analysis, samples: dict[str, Sample], prompts: dict[str, str],
            matrices: dict) -> dict[str, str]:
    """The samples whose result depends on the release (``release_matrix``, every run of releases
    on every sample, with the prompts the UI holds): sample key -> how they part, in one line. The
    last matrix is kept by what it ran on, so switching the release or the sample does not run it
    again. Runs as template work: a newer request interrupts it."""
    from ..formats import MatrixSample

    current = dict(prompts)
    current[request.sample] = request.prefix
    key = (request.schema_text, json.dumps(request.tools, sort_keys=True, default=str),
           tuple(sorted((k, s.text, current.get(k, "")) for k, s in samples.items())))
    if key not in matrices:
        matrices.clear()
        runs = [MatrixSample(k, s.text, current.get(k, ""), request.tools) for k, s in samples.items()]
        with _template_work():
            matrix = analysis.format.matrix(analysis.schema, runs, time_limit=request.time_limit)
        matrices[key] = {} if matrix is None else {split.sample: " · ".join(f"{part.releases}: {_outcome_word(part)}" for part in split.parts)
                         + f" ({split.where})" for split in matrix.splits if split.sample is not None}
    return matrices[key]


def _outcome_word(part) -> str:
    """A matrix part in a word or two, for the sample bar: "parses", or the error's type."""
    if part.error is None:
        return "parses"
    kind = part.error.split(":", 1)[0]
    return kind if kind.isidentifier() else "refused"


def _replay_reply(request: ReplayRequest, samples: dict[str, Sample]) -> Replayed:
    """The streaming replay, or why there is none (the template cannot run, the sample is gone)."""
    sample = samples.get(request.sample)
    if sample is None:
        return Replayed(request.generation, None, "the sample is no longer open")
    with _template_work():
        replay, why = format_of_text(request.template_text).replay(
            request.template_text, sample.text, prompt=request.prefix, tools=request.tools, chunk=request.chunk,
            time_limit=request.time_limit, runtime=request.runtime)
    return Replayed(request.generation, replay, why)


# ----- the UI's side ----------------------------------------------------------------------------------
class AnalysisClient:
    """Owns the analysis process. Blocking calls, meant for the UI's thread workers; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # guards the process, the pipe and the fields below
        self._read_lock = threading.Lock()  # one reader at a time
        self._process = None
        self._conn = None
        self._epoch = 0  # increases on every (re)start: waits on an older process give up
        self._table = NodeTable()
        self._samples: dict[str, Sample] = {}  # what the process holds
        self._prompts: dict[str, str] = {}  # the samples' prompts, as the process holds them
        self._replays = itertools.count(1)
        self._queries = itertools.count(1)
        self._mailbox: dict[tuple[str, int], Any] = {}
        self._in_flight: int | None = None  # generation whose parse is still running
        self._latest = 0  # the newest generation asked for
        self._sent_at = 0.0
        self._limit = 0.0
        self._kept: dict[str, dict] = {}  # per format: what its results keep between edits on this side
        self.restarts = 0
        self._closed = False  # closed by its owner: a warm-up that comes late starts nothing

    # -- process lifetime
    def _start(self) -> None:
        # A fresh interpreter, as every child of the workbench's own (live/spawn.py says why).
        self._process, self._conn = spawn("workbench.live.process")
        # Until it has set its SIGUSR1 handler, an interrupt would kill the process.
        if not self._conn.poll(STARTUP) or self._conn.recv_bytes() != b"ready":
            raise RuntimeError(f"the analysis process did not start within {STARTUP:g} s")
        self._epoch += 1
        self._table = NodeTable()
        self._mailbox.clear()
        self._in_flight = None
        if self._samples:
            self._conn.send(SamplesChanged(dict(self._samples)))  # the new process has none
        if self._prompts:
            self._conn.send(PromptsChanged(dict(self._prompts)))

    def _ensure(self) -> None:
        if self._process is None or self._process.poll() is not None:
            if self._process is not None:
                self.restarts += 1
            self._start()

    def warm_up(self) -> None:
        """Start the process now, in the background, so that its start (a fresh interpreter and its
        imports, ~0.4 s) overlaps the UI's own instead of delaying the first parse."""
        def start() -> None:
            try:
                with self._lock:
                    if not self._closed:  # the app may have closed before this thread ran
                        self._ensure()
            except Exception:  # noqa: BLE001 - the first request starts it again and says why
                pass

        threading.Thread(target=start, name="analysis-process-start", daemon=True).start()

    def restart(self) -> None:
        with self._lock:
            self._kill()
            self.restarts += 1
            self._start()

    def _kill(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.wait(timeout=5)
            self._conn.close()
        self._process = self._conn = None

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._kill()

    # -- requests
    def set_samples(self, samples: dict[str, Sample], prompts: dict[str, str] | None = None) -> None:
        """Send the samples the process does not have yet (or whose text changed); forget others.
        ``prompts``: each sample's prompt for template parses (only the changed ones are sent)."""
        with self._lock:
            changes: dict[str, Sample | None] = {
                key: s for key, s in samples.items() if self._samples.get(key) is None or self._samples[key].text != s.text
            }
            changes.update({key: None for key in self._samples if key not in samples})
            self._samples = dict(samples)
            new_prompts = {k: v for k, v in (prompts or {}).items() if self._prompts.get(k) != v}
            self._prompts.update(new_prompts)
            running = self._process is not None and self._process.poll() is None
            if changes and running:
                self._conn.send(SamplesChanged(changes))
            if new_prompts and running:
                self._conn.send(PromptsChanged(new_prompts))
            if (changes or new_prompts) and running:
                self._interrupt()

    def _interrupt(self) -> None:
        """Tell the process that a newer message waits: a run in progress stops for it."""
        if self._process is not None and self._process.poll() is None:
            os.kill(self._process.pid, signal.SIGUSR1)

    def analyze(
        self, generation: int, schema_text: str, sample: str, time_limit: float, cancelled: Callable[[], bool],
        prefix: str = "", tools: Any = None, runtime: str | None = None, opened: tuple = (),
    ) -> Analysis | None:
        """The analysis of ``schema_text`` on one sample, or None if cancelled first. For a
        template: ``prefix`` (the sample's prompt as the user has it now), ``tools`` and
        ``runtime`` (the transformers release to run as; None: the newest). ``opened``: the key
        paths of the tree nodes the UI shows open (a large trace comes with their children)."""
        with self._lock:
            self._ensure()
            self._conn.send(AnalyzeRequest(generation, schema_text, sample, time_limit, prefix, tools, runtime, tuple(opened)))
            self._interrupt()  # stop the run this one supersedes
            self._in_flight, self._sent_at, self._limit = generation, time.monotonic(), time_limit
            self._latest, epoch = generation, self._epoch
        answered = self._wait(Analysed, generation, cancelled, epoch, watch=True)
        if answered is _HUNG:
            return Analysis.gave_up(schema_text, time.monotonic() - self._sent_at, time_limit)
        reply = answered.analysis if answered is not None else None
        if reply is not None and reply.usable:
            if sample not in self._samples:
                return None  # the sample went away meanwhile: this result is for nobody
            if reply.remote is not None:  # a large trace: its tree comes as the user opens it
                reply.remote.ask = self.query
            reply.unpacked(self._samples[sample].text, self._kept.setdefault(reply.format.name, {}))
        return reply

    def replay(
        self, template_text: str, sample: str, prefix: str, tools: Any, chunk: int, time_limit: float,
        cancelled: Callable[[], bool], runtime: str | None = None,
    ) -> tuple[Any, str | None] | None:
        """The streaming replay of the sample (its format's ``replay``): (Replay, None), or
        (None, why) when the template cannot run; None if cancelled first."""
        with self._lock:
            self._ensure()
            generation = next(self._replays)
            self._conn.send(ReplayRequest(generation, template_text, sample, prefix, tools, chunk, time_limit, runtime))
            self._interrupt()
            epoch = self._epoch
        reply = self._wait(Replayed, generation, cancelled, epoch, watch=False)
        if reply is None or reply is _HUNG:
            with self._lock:
                if self._epoch == epoch and self._conn is not None:
                    self._conn.send(Forget(ReplayRequest.kind))  # and stop it, if it is running
                    self._interrupt()
            return None
        result, why = reply.replay, reply.why
        if why is not None and result is None and why.startswith("Traceback"):
            raise RuntimeError(why)
        return result, why

    def query(self, generation: int, kind: str, arg: Any, cancelled: Callable[[], bool] = lambda: False) -> Any:
        """Ask the analysis process about the large trace of ``generation`` it holds (see
        remote_tree.py): a node's children, the spans of a node or of an editor position. None if
        that trace is no longer held (a newer one is on its way), or the process restarted."""
        with self._lock:
            if self._process is None or self._process.poll() is not None:
                return None
            number = next(self._queries)
            self._conn.send(TreeQuery(generation, number, kind, arg))
            epoch = self._epoch
        reply = self._wait(Answer, number, cancelled, epoch, watch=False)
        return None if reply is _HUNG or reply is None else reply.answer

    def verdicts(self, generation: int, cancelled: Callable[[], bool]) -> dict[str, Verdict] | None:
        """The verdicts that follow the analysis of ``generation`` (None if it was superseded)."""
        with self._lock:
            epoch = self._epoch
        reply = self._wait(Verdicts, generation, cancelled, epoch, watch=False)
        return None if reply is _HUNG or reply is None else reply.verdicts

    def splits(self, generation: int, cancelled: Callable[[], bool]) -> dict[str, str] | None:
        """For a template, after the verdicts of ``generation``: the samples whose result depends
        on the release, each with how the releases part (None if superseded)."""
        with self._lock:
            epoch = self._epoch
        reply = self._wait(Splits, generation, cancelled, epoch, watch=False)
        return None if reply is _HUNG or reply is None else reply.splits

    def _wait(self, reply: type[Reply], generation: int, cancelled, epoch: int, watch: bool) -> Any:
        """The reply of type ``reply`` to ``generation`` (the message), None if cancelled or the
        process restarted, or _HUNG."""
        kind = reply.kind
        numbered_apart = reply in (Replayed, Answer)  # numbered by their own counters, not by generation
        while True:
            with self._lock:
                if self._epoch != epoch:
                    return None
                if (kind, generation) in self._mailbox:
                    return self._mailbox.pop((kind, generation))
                if not numbered_apart and (Crashed.kind, generation) in self._mailbox:
                    raise RuntimeError(self._mailbox.pop((Crashed.kind, generation)).traceback)
                if reply is Replayed and self._conn is None:
                    return Replayed(generation, None, "the analysis process ended unexpectedly")
                if reply is Answer and self._conn is None:
                    return None
                hung = watch and self._in_flight == generation and time.monotonic() - self._sent_at > self._limit + GRACE
            if cancelled():
                return None
            if hung:
                self.restart()
                return _HUNG
            if self._read_lock.acquire(timeout=_POLL):
                try:
                    self._read_one(epoch)
                finally:
                    self._read_lock.release()

    def _read_one(self, epoch: int) -> None:
        conn = self._conn
        if conn is None or self._epoch != epoch:
            return
        try:
            if not conn.poll(_POLL):
                return
            data = conn.recv_bytes()
        except (EOFError, OSError):
            with self._lock:
                if self._epoch == epoch:  # the process died: say so; the next request starts another
                    code = self._process.poll() if self._process is not None else None
                    self._kill()
                    self.restarts += 1  # counted now: _ensure starts the next one
                    self._mailbox[(Crashed.kind, self._latest)] = Crashed(
                        self._latest, f"the analysis process ended unexpectedly (exit code {code})")
            return
        with self._lock:
            if self._epoch != epoch:
                return
            message = load(data, self._table)
            _sent(message, self._table)
            kind, generation = message.kind, message.number
            if isinstance(message, Answer):  # numbered apart too; an answer nobody waits for any more goes soon
                self._mailbox = {k: v for k, v in self._mailbox.items() if k[0] != kind or k[1] > generation - 64}
                self._mailbox[(kind, generation)] = message
                return
            if isinstance(message, Replayed):  # numbered apart from the analyses
                self._mailbox = {k: v for k, v in self._mailbox.items() if k[0] != kind or k[1] >= generation}
                self._mailbox[(kind, generation)] = message
                return
            if isinstance(message, (Parsed, Verdicts, Crashed, Analysed)) and self._in_flight == generation:
                self._in_flight = None  # the parse is over: nothing left that could hang
            if isinstance(message, Parsed):
                return
            # Keep only replies someone may still wait for: this generation's and newer.
            apart = (Replayed.kind, Answer.kind)
            self._mailbox = {k: v for k, v in self._mailbox.items() if k[0] in apart or k[1] >= generation}
            self._mailbox[(kind, generation)] = message


_HUNG = object()


if __name__ == "__main__":  # pragma: no cover - the process AnalysisClient starts
    # Through the imported module, so that what it pickles names workbench.live.process, not __main__.
    from workbench.live import process as worker
    from workbench.live.spawn import accept

    conn, _ = accept()  # as deep as the schemas the editor accepts, results pickle too (see depth.py)
    worker._serve(conn)
