"""Running one job in a child process: for the TUI's one-off parses (the migration's comparison on
the samples, an export's check with transformers) that must not run in the UI process.

Python's ``re`` holds the GIL while it matches, and the engine's time limit is a SIGALRM timer
that works only on a process's main thread: a backtracking regex parsed in a thread of the UI
process would freeze the interface, with no limit to stop it. ``call`` runs a picklable top-level
function in a fresh interpreter instead, on its main thread (so the engine's time limit holds, as
in the CLI), while the calling thread only waits: it returns the function's result or raises its
exception, and kills the child when it runs past ``timeout`` seconds of wall-clock time (a parse
with no time limit of its own, such as transformers' ``parse_response``, is stopped that way) or
when ``cancelled()`` says the caller gave up.

The child is started as the analysis process is, by ``live/spawn.py``: ``python -m`` and a socket
pair, not multiprocessing (fork would copy the UI's threads; spawn would import the UI's
``__main__`` again). It gets a temporary folder of its own as TMPDIR, which the parent removes
however the child ends, and a CPU-time limit past ``timeout``, so that even a child whose parent
was killed stops by itself. A function run here may be killed at any point: it should leave no
half-done writes behind (the callers write in the parent, after the child's answer).

UI-free: the TUI calls ``call`` from its thread workers; nothing here imports Textual.
"""

from __future__ import annotations

import math
import os
import pickle
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import traceback
from multiprocessing.connection import Connection
from typing import Any, Callable

from .spawn import spawn

_POLL = 0.02  # seconds between checks for cancellation and the deadline
CPU_MARGIN = 10  # seconds of CPU time past ``timeout`` after which the kernel ends a child on its own

_live: set[subprocess.Popen] = set()  # children still running (for the tests: none may outlive its call)
_live_lock = threading.Lock()


class ChildTimeout(Exception):
    """The job ran past its time and was killed."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"did not finish within {seconds:g} s and was stopped")
        self.seconds = seconds


class ChildCancelled(Exception):
    """The caller gave up (``cancelled()``); the job was killed."""


class ChildFailed(RuntimeError):
    """The child ended without an answer, or its exception could not be sent back."""


def live() -> list[int]:
    """The process ids of the children still running."""
    with _live_lock:
        return [process.pid for process in _live]


def call(function: Callable[..., Any], *args: Any, timeout: float, cancelled: Callable[[], bool] = lambda: False,
         **kwargs: Any) -> Any:
    """``function(*args, **kwargs)`` in a child process: its result, or the exception it raised
    (the same type, as long as it pickles; else ChildFailed naming it). ChildTimeout after
    ``timeout`` seconds, ChildCancelled as soon as ``cancelled()`` is true; the child is then
    killed. Nothing of the child is left when this returns or raises.

    ``function`` is pickled by name, so it must be a top-level function of an importable module
    (not ``__main__``, which in the child is this module)."""
    if getattr(function, "__module__", "__main__") == "__main__":
        raise ValueError(f"{function!r} is not importable in a child process: define it in a module")
    job = pickle.dumps((function, args, kwargs), protocol=pickle.HIGHEST_PROTOCOL)
    deadline = time.monotonic() + timeout
    tmp = tempfile.mkdtemp(prefix="workbench-child-")
    try:
        process, conn = spawn("workbench.live.child", str(math.ceil(timeout) + CPU_MARGIN), env={"TMPDIR": tmp})
        with _live_lock:
            _live.add(process)
        # The job is sent from a thread of its own: a large one fills the socket before the child
        # reads it, and meanwhile the deadline and cancellation must still be watched.
        sender = threading.Thread(target=_send, args=(conn, job), daemon=True)
        sender.start()
        try:
            return _answer(conn, process, deadline, timeout, cancelled)
        finally:
            _end(process)
            sender.join()  # at once: the child is gone, so a send still blocked fails
            conn.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _answer(conn: Connection, process: subprocess.Popen, deadline: float, timeout: float,
            cancelled: Callable[[], bool]) -> Any:
    while True:
        try:
            if conn.poll(_POLL):
                data = conn.recv_bytes()
                break
        except (EOFError, OSError):  # the child is gone without answering
            process.wait()
            raise ChildFailed(f"the child process ended unexpectedly (exit code {process.returncode})") from None
        if cancelled():
            raise ChildCancelled("cancelled")
        if time.monotonic() > deadline:
            raise ChildTimeout(timeout)
    kind, value = pickle.loads(data)
    if kind == "error":
        raise value
    return value


def _send(conn: Connection, job: bytes) -> None:
    try:
        conn.send_bytes(job)
    except OSError:
        pass  # the child is gone: the waiting thread says so


def _end(process: subprocess.Popen) -> None:
    """Kill the child (and anything it started) unless it has ended, and reap it."""
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGKILL)  # its own session: start_new_session
        except OSError:
            process.kill()
    process.wait()
    with _live_lock:
        _live.discard(process)


# ----- the child's side ---------------------------------------------------------------------------
def _serve(conn: Connection, cpu_seconds: int) -> None:  # pragma: no cover - runs in the child process
    try:
        import resource

        # Soft and hard alike: the kernel sends SIGKILL (not SIGXCPU, which would dump core).
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds))
    except (ImportError, ValueError, OSError):
        pass
    try:
        job = conn.recv_bytes()
        try:
            function, args, kwargs = pickle.loads(job)
            answer = ("value", function(*args, **kwargs))
        except Exception as exc:  # noqa: BLE001 - whatever it raises is the caller's to handle
            answer = ("error", _sendable(exc))
        try:
            data = pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # noqa: BLE001 - a result that does not pickle
            data = pickle.dumps(("error", ChildFailed(f"the result could not be sent back: {type(exc).__name__}: {exc}")))
        conn.send_bytes(data)
    except (EOFError, OSError):
        return  # the caller is gone: nothing left to do


def _sendable(exc: Exception) -> Exception:
    """``exc`` if it survives pickling as itself, else ChildFailed naming it (an exception whose
    ``__init__`` takes other arguments than its ``args`` cannot be rebuilt)."""
    note = "in the child process:\n" + "".join(traceback.format_exception(exc))
    try:
        copy = pickle.loads(pickle.dumps(exc, protocol=pickle.HIGHEST_PROTOCOL))
        if type(copy) is type(exc) and str(copy) == str(exc):
            copy.add_note(note)
            return copy
    except Exception:  # noqa: BLE001
        pass
    failed = ChildFailed(f"{type(exc).__name__}: {exc}")
    failed.add_note(note)
    return failed


if __name__ == "__main__":  # pragma: no cover - the process ``call`` starts
    # Through the imported module, so that what it pickles names workbench.live.child, not __main__.
    from workbench.live import child
    from workbench.live.spawn import accept

    conn, (cpu_seconds,) = accept()
    child._serve(conn, int(cpu_seconds))
