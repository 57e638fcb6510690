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

A response_template is analysed here too, with the sample's prompt (which the UI may be editing,
so it is sent along: the current sample's with each request, the others' for their verdicts), and
so is a streaming replay (``replay``), so the TUI and ``workbench parse`` run the same engine
functions on the same inputs. The template engine's regexes have their own time limit; a run a
newer request supersedes is interrupted by an exception raised from the signal handler, only
while template work runs (``_template_work``), and a superseded request of another kind is run
again afterwards.

UI-free: the TUI calls ``AnalysisClient`` from its thread workers; nothing here imports Textual.
"""

from __future__ import annotations

import dataclasses
import gc
import io
import json
import itertools
import operator
import os
import pickle
import signal
import socket
import subprocess
import sys
import threading
import time
import traceback
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any, Callable

from .analysis import analyze
from .formats import Analysis, format_of_text
from .formats.remote_tree import Held, hold, is_large
from .engine.schema.regexes import cut_short
from .engine.schema.subtree_cache import SubtreeCache
from .engine.schema.subtree_memo import SubtreeMemo
from .engine.template.replay import Replay
from .engine.template.trace_types import Candidate, Dropped, Emptied, Failure, Region, TemplateTrace, TieBreak
from .engine.spans import Group, RegexMatch
from .engine.schema.trace_tree import TraceNode
from .samples import Sample, Verdict, judge_with, verdict_of

# How long past its own time limit a parse may go on before the process is thought hung
# (CPython's regex engine checks for signals, so the engine's own limit normally ends it). Only
# the parse is watched: the process says when it is done ("parsed"), and what follows (colours,
# pickling) is linear in the size of the trace, so it may take as long as a large trace needs.
GRACE = 3.0
_POLL = 0.02  # seconds between checks for cancellation while waiting for a reply
IDLE_COLLECT = 1.0  # seconds without a request before the analysis process collects cycles
STARTUP = 30.0  # seconds the analysis process may take to start (imports, on a loaded machine)


# ----- moving traces between the processes ---------------------------------------------------------
_NODE_FIELDS = tuple(f.name for f in dataclasses.fields(TraceNode))
_FOUND = _NODE_FIELDS.index("found")
_MATCHES = _NODE_FIELDS.index("_matches")
_node_values = operator.attrgetter(*_NODE_FIELDS)
_PLAIN = {
    cls: operator.attrgetter(*(f.name for f in dataclasses.fields(cls)))
    for cls in (RegexMatch, Group, Region, Dropped, Candidate, TieBreak, Emptied, Failure, TemplateTrace)
}


def _rebuild_node(token: int, *values: Any) -> TraceNode:  # pragma: no cover - replaced on load
    raise RuntimeError("trace nodes are loaded by _Unpickler only")


def _rebuild_plain(cls: type, values: tuple) -> Any:
    return cls(*values)


class _Pickler(pickle.Pickler):
    """Pickles a reply. With a schema trace (``nodes``), a trace node the UI already holds, or its
    value, goes as its token (persistent_id); a new node gets a token and its fields, with its
    regex matches built (``re.Match`` objects do not pickle). Dataclasses with slots pickle several
    times faster as a constructor call than through copyreg."""

    def __init__(self, file, table: "_NodeTable", nodes: bool = True) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.table = table
        if nodes:  # called for every object pickled (a third of a 2 MB template trace's dump): only where it can hit
            tokens, identity = table.tokens, id
            self.persistent_id = lambda obj: tokens.get(identity(obj))

    def reducer_override(self, obj: Any) -> Any:
        kind = type(obj)
        if kind is TraceNode:
            values = list(_node_values(obj))
            values[_FOUND] = values[_MATCHES] = obj.matches
            return _rebuild_node, (self.table.add(obj), *values)
        if kind in _PLAIN:
            return _rebuild_plain, (kind, _PLAIN[kind](obj))
        return NotImplemented


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, table: "_NodeTable") -> None:
        super().__init__(file)
        self.table = table

    def persistent_load(self, token: Any) -> Any:
        return self.table.objects[token]

    def find_class(self, module: str, name: str) -> Any:
        if module == "workbench.worker" and name == "_rebuild_node":
            return self._rebuild_node
        return super().find_class(module, name)

    def _rebuild_node(self, token: int, *values: Any) -> TraceNode:
        node = TraceNode(*values)
        self.table.put(token, node)
        return node


class _NodeTable:
    """The trace nodes both processes hold, and their values, by token (a node's value has the
    negated token). Both sides prune it to the latest trace after every reply, in the same order,
    so the two tables always agree and a reply need not repeat what the UI already has."""

    def __init__(self) -> None:
        self.tokens: dict[int, int] = {}  # id(object) -> token
        self.objects: dict[int, Any] = {}  # token -> object (also keeps ids from being reused)
        self._next = itertools.count(1)
        self._pending: list[tuple[int, TraceNode]] = []
        self._live = 0  # objects kept by the last pruning

    def add(self, node: TraceNode) -> int:
        """A node being pickled. Its value is known to the other side only once the whole reply
        is loaded, so values are registered after the dump (see settle)."""
        token = next(self._next)
        self.tokens[id(node)] = token
        self.objects[token] = node
        self._pending.append((token, node))
        return token

    def put(self, token: int, node: TraceNode) -> None:
        self.tokens[id(node)] = token
        self.objects[token] = node
        self._pending.append((token, node))

    def settle(self, root: TraceNode | None) -> None:
        """After a reply: register the new nodes' values; with a trace, forget older traces."""
        for token, node in self._pending:
            if isinstance(node.value, (dict, list, str)):
                self.tokens[id(node.value)] = -token
                self.objects[-token] = node.value
        self._pending = []
        # Pruning walks the whole trace, so it waits until the table has doubled. Both sides
        # have tables of the same size at every step, so they prune at the same replies.
        if root is None or len(self.objects) <= 2 * self._live + 4096:
            return
        live = set()
        for node in root.walk():
            live.add(id(node))
            live.add(id(node.value))
        self.objects = {t: o for t, o in self.objects.items() if id(o) in live}
        self.tokens = {id(o): t for t, o in self.objects.items()}
        self._live = len(self.objects)


def _dump(message: tuple, table: _NodeTable) -> bytes:
    buffer = io.BytesIO()
    _Pickler(buffer, table, nodes=_has_trace(message)).dump(message)
    return buffer.getvalue()


def _has_trace(message: tuple) -> bool:
    """Whether a reply holds a whole trace that reuses nodes between edits (only those share
    nodes with the UI's table; a large trace stays in the process, remote_tree.py)."""
    return (message[0] == "analysis" and message[2].trace is not None and message[2].format.keeps_nodes
            and message[2].remote is None)


def _load(data: bytes, table: _NodeTable) -> tuple:
    return _Unpickler(io.BytesIO(data), table).load()


def _sent(message: tuple, table: _NodeTable) -> None:
    """After a reply crossed the pipe: both sides settle their tables the same way."""
    table.settle(message[2].trace.root if _has_trace(message) else None)


# ----- the process ------------------------------------------------------------------------------------
@dataclass
class _Request:
    generation: int
    schema_text: str
    sample: str  # key of the sample to trace
    time_limit: float
    prefix: str = ""  # for a template: the sample's prompt, as the UI has it now
    tools: Any = None  # for a template: tools= (the JSON tool definitions), or None
    runtime: str | None = None  # for a template: the transformers release it runs as (None: the newest)
    opened: tuple = ()  # key paths of the tree nodes the UI shows open: a large trace sends their children


@dataclass
class _ReplayRequest:
    generation: int
    template_text: str
    sample: str
    prefix: str
    tools: Any
    chunk: int
    time_limit: float
    runtime: str | None = None


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
            cut_short()
            _CUT[0] = True
            if _INTERRUPTIBLE[0]:
                _INTERRUPTIBLE[0] = False
                raise _Superseded()

    signal.signal(signal.SIGUSR1, interrupted)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # ctrl+c in the terminal is the app's to handle
    try:
        conn.send_bytes(b"ready")  # only now may the UI signal: SIGUSR1 would have killed us before
        _serve_requests(conn)
    except (EOFError, OSError):
        return  # the UI closed the pipe (or is gone): nothing left to do


def _serve_requests(conn) -> None:  # pragma: no cover - runs in the child process
    samples: dict[str, Sample] = {}
    prompts: dict[str, str] = {}  # sample key -> the prompt its template parses use
    caches: dict[str, tuple[SubtreeCache, SubtreeMemo]] = {}
    pending: dict[str, Any] = {}  # request kind -> the newest request of that kind
    forgotten: set[str] = set()  # kinds the UI stopped waiting for since the last request began
    held: list[Held | None] = [None, None]  # the large trace the UI shows, and the one being sent

    def newer() -> bool:
        """Take what came meanwhile (answering queries); whether any of it supersedes the run."""
        came = False
        while conn.poll(0):
            message = conn.recv()
            take(message)
            came = came or message[0] != "query"
        return came

    def take(message: tuple) -> None:
        if message[0] == "query":  # about a large trace held here: answered at once
            _answer(conn, message[1], held[0], table)
        elif message[0] == "samples":
            for key, sample in message[1].items():
                caches.pop(key, None)
                if sample is None:
                    samples.pop(key, None)
                else:
                    samples[key] = sample
        elif message[0] == "prompts":
            prompts.update(message[1])
        elif message[0] == "forget":
            pending.pop(message[1], None)
            forgotten.add(message[1])
        else:
            pending[message[0]] = message[1]  # a later request replaces a queued one

    table = _NodeTable()
    matrices: dict = {}  # the last release matrix, by what it was run on
    # Traces are trees without back links, freed by reference counting; a cycle collection over
    # the cached ones costs ~100 ms at 2 MB. It waits for a pause in the user's typing instead.
    gc.freeze()
    gc.disable()
    while True:
        if not pending:
            if not conn.poll(IDLE_COLLECT):
                gc.collect()
            take(conn.recv())
        # Whatever is already queued is newer: sample updates apply, a later request replaces this one.
        while conn.poll(0):
            take(conn.recv())
        if not pending:
            continue
        kind = "analyze" if "analyze" in pending else next(iter(pending))
        request = pending.pop(kind)
        forgotten.clear()
        _CUT[0] = False
        try:
            if kind == "replay":
                reply = _replay_reply(request, samples)
            else:
                reply = _analysis_reply(request, samples, prompts, caches, conn, held)
        except _Superseded:
            reply = None
        except Exception:
            failure = (None, traceback.format_exc()) if kind == "replay" else traceback.format_exc()
            _send(conn, ("replay" if kind == "replay" else "crashed", request.generation, failure), table)
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
            if kind != "replay" and reply[2].usable:  # the UI now shows this tree: its queries come here
                held[0], held[1] = held[1], None
            if kind == "replay" or not reply[2].usable:
                continue  # the schema has errors: the verdicts of the last good one stand
            verdicts = _verdicts(request, reply[2], samples, prompts, newer)
            if verdicts is not None:
                _send(conn, ("verdicts", request.generation, verdicts), table)
                if reply[2].format.releases_differ and not newer():
                    _send(conn, ("splits", request.generation, _splits(request, reply[2], samples, prompts, matrices)), table)
        except _Superseded:
            continue
        except Exception:
            _send(conn, ("crashed", request.generation, traceback.format_exc()), table)


def _send(conn, message: tuple, table: _NodeTable) -> None:
    conn.send_bytes(_dump(message, table))
    _sent(message, table)


def _answer(conn, query: tuple, held: Held | None, table: _NodeTable) -> None:
    """Answer a query about the large trace the UI shows: ("answer", number, what), with None
    when that trace is no longer the one held (the UI is about to show a newer one)."""
    generation, number, kind, arg = query
    try:
        found = held.answer(kind, arg) if held is not None and held.generation == generation else None
    except Exception:  # noqa: BLE001 - a query must not end the process; the UI shows nothing for it
        found = None
    _send(conn, ("answer", number, found), table)


def _analysis_reply(request: _Request, samples: dict[str, Sample], prompts: dict[str, str], caches: dict, conn,
                    held: list | None = None) -> tuple:
    sample = samples[request.sample]
    cache, memo = caches.setdefault(request.sample, (SubtreeCache(), SubtreeMemo()))
    analysis = analyze(
        request.schema_text, sample.text, time_limit=request.time_limit, cache=cache, memo=memo,
        traced=lambda: conn.send_bytes(_dump(("parsed", request.generation, None), _NodeTable())),
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
    return ("analysis", request.generation, analysis)


def _verdicts(
    request: _Request, analysis: Analysis, samples: dict[str, Sample], prompts: dict[str, str], newer: Callable[[], bool]
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


def _splits(request: _Request, analysis: Analysis, samples: dict[str, Sample], prompts: dict[str, str],
            matrices: dict) -> dict[str, str]:
    """The samples whose result depends on the release (``release_matrix``, every run of releases
    on every sample, with the prompts the UI holds): sample key -> how they part, in one line. The
    last matrix is kept by what it ran on, so switching the release or the sample does not run it
    again. Runs as template work: a newer request interrupts it."""
    from .formats import MatrixSample

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


def _replay_reply(request: _ReplayRequest, samples: dict[str, Sample]) -> tuple:
    """("replay", generation, (Replay, None)), or (None, why) when the template cannot run."""
    sample = samples.get(request.sample)
    if sample is None:
        return ("replay", request.generation, (None, "the sample is no longer open"))
    with _template_work():
        result = format_of_text(request.template_text).replay(request.template_text, sample.text, prompt=request.prefix, tools=request.tools,
                                          chunk=request.chunk, time_limit=request.time_limit, runtime=request.runtime)
    return ("replay", request.generation, result)


# ----- the UI's side ----------------------------------------------------------------------------------
class AnalysisClient:
    """Owns the analysis process. Blocking calls, meant for the UI's thread workers; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # guards the process, the pipe and the fields below
        self._read_lock = threading.Lock()  # one reader at a time
        self._process = None
        self._conn = None
        self._epoch = 0  # increases on every (re)start: waits on an older process give up
        self._table = _NodeTable()
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

    # -- process lifetime
    def _start(self) -> None:
        # A fresh interpreter rather than multiprocessing: fork would copy the UI's threads, and
        # spawn would run the UI's __main__ again in the child.
        ours, theirs = socket.socketpair()
        process = subprocess.Popen(
            [sys.executable, "-m", "workbench.worker", str(theirs.fileno())],
            pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL, start_new_session=True,
        )
        theirs.close()
        self._process, self._conn = process, Connection(ours.detach())
        # Until it has set its SIGUSR1 handler, an interrupt would kill the process.
        if not self._conn.poll(STARTUP) or self._conn.recv_bytes() != b"ready":
            raise RuntimeError(f"the analysis process did not start within {STARTUP:g} s")
        self._epoch += 1
        self._table = _NodeTable()
        self._mailbox.clear()
        self._in_flight = None
        if self._samples:
            self._conn.send(("samples", dict(self._samples)))  # the new process has none
        if self._prompts:
            self._conn.send(("prompts", dict(self._prompts)))

    def _ensure(self) -> None:
        if self._process is None or self._process.poll() is not None:
            if self._process is not None:
                self.restarts += 1
            self._start()

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
                self._conn.send(("samples", changes))
            if new_prompts and running:
                self._conn.send(("prompts", new_prompts))
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
            self._conn.send(("analyze", _Request(generation, schema_text, sample, time_limit, prefix, tools, runtime,
                                                 tuple(opened))))
            self._interrupt()  # stop the run this one supersedes
            self._in_flight, self._sent_at, self._limit = generation, time.monotonic(), time_limit
            self._latest, epoch = generation, self._epoch
        reply = self._wait("analysis", generation, cancelled, epoch, watch=True)
        if reply is _HUNG:
            return Analysis.gave_up(schema_text, time.monotonic() - self._sent_at, time_limit)
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
    ) -> tuple[Replay | None, str | None] | None:
        """The streaming replay of the sample (``engine.template.replay``): (Replay, None), or
        (None, why) when the template cannot run; None if cancelled first."""
        with self._lock:
            self._ensure()
            generation = next(self._replays)
            self._conn.send(("replay", _ReplayRequest(generation, template_text, sample, prefix, tools, chunk, time_limit, runtime)))
            self._interrupt()
            epoch = self._epoch
        reply = self._wait("replay", generation, cancelled, epoch, watch=False)
        if reply is None or reply is _HUNG:
            with self._lock:
                if self._epoch == epoch and self._conn is not None:
                    self._conn.send(("forget", "replay"))  # and stop it, if it is running
                    self._interrupt()
            return None
        result, why = reply
        if why is not None and result is None and why.startswith("Traceback"):
            raise RuntimeError(why)
        return reply

    def query(self, generation: int, kind: str, arg: Any, cancelled: Callable[[], bool] = lambda: False) -> Any:
        """Ask the analysis process about the large trace of ``generation`` it holds (see
        remote_tree.py): a node's children, the spans of a node or of an editor position. None if
        that trace is no longer held (a newer one is on its way), or the process restarted."""
        with self._lock:
            if self._process is None or self._process.poll() is not None:
                return None
            number = next(self._queries)
            self._conn.send(("query", (generation, number, kind, arg)))
            epoch = self._epoch
        reply = self._wait("answer", number, cancelled, epoch, watch=False)
        return None if reply is _HUNG else reply

    def verdicts(self, generation: int, cancelled: Callable[[], bool]) -> dict[str, Verdict] | None:
        """The verdicts that follow the analysis of ``generation`` (None if it was superseded)."""
        with self._lock:
            epoch = self._epoch
        reply = self._wait("verdicts", generation, cancelled, epoch, watch=False)
        return None if reply is _HUNG else reply

    def splits(self, generation: int, cancelled: Callable[[], bool]) -> dict[str, str] | None:
        """For a template, after the verdicts of ``generation``: the samples whose result depends
        on the release, each with how the releases part (None if superseded)."""
        with self._lock:
            epoch = self._epoch
        reply = self._wait("splits", generation, cancelled, epoch, watch=False)
        return None if reply is _HUNG else reply

    def _wait(self, kind: str, generation: int, cancelled, epoch: int, watch: bool) -> Any:
        while True:
            with self._lock:
                if self._epoch != epoch:
                    return None
                if (kind, generation) in self._mailbox:
                    return self._mailbox.pop((kind, generation))
                if kind not in ("replay", "answer") and ("crashed", generation) in self._mailbox:
                    raise RuntimeError(self._mailbox.pop(("crashed", generation)))
                if kind == "replay" and self._conn is None:
                    return (None, "the analysis process ended unexpectedly")
                if kind == "answer" and self._conn is None:
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
                    self._mailbox[("crashed", self._latest)] = f"the analysis process ended unexpectedly (exit code {code})"
            return
        with self._lock:
            if self._epoch != epoch:
                return
            message = _load(data, self._table)
            _sent(message, self._table)
            kind, generation = message[0], message[1]
            if kind == "answer":  # numbered apart too; an answer nobody waits for any more goes soon
                self._mailbox = {k: v for k, v in self._mailbox.items() if k[0] != "answer" or k[1] > generation - 64}
                self._mailbox[(kind, generation)] = message[2]
                return
            if kind == "replay":  # numbered apart from the analyses
                self._mailbox = {k: v for k, v in self._mailbox.items() if k[0] != "replay" or k[1] >= generation}
                self._mailbox[(kind, generation)] = message[2]
                return
            if kind in ("parsed", "verdicts", "crashed") and self._in_flight == generation:
                self._in_flight = None  # the parse is over: nothing left that could hang
            if kind == "parsed":
                return
            if kind == "analysis" and self._in_flight == generation:
                self._in_flight = None
            # Keep only replies someone may still wait for: this generation's and newer.
            self._mailbox = {k: v for k, v in self._mailbox.items() if k[0] in ("replay", "answer") or k[1] >= generation}
            self._mailbox[(kind, generation)] = message[2]


_HUNG = object()


if __name__ == "__main__":  # pragma: no cover - the process AnalysisClient starts
    # Through the imported module, so that what it pickles names workbench.worker, not __main__.
    from workbench import worker
    from workbench.engine.depth import raise_limit

    raise_limit()  # results as deep as the schemas the editor accepts pickle too (see depth.py)
    worker._serve(Connection(int(sys.argv[1])))
