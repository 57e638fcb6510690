"""The one way the workbench starts a child process of its own: ``python -m workbench.<module> FD
ARGS…``, talking over a socket pair. The analysis process (``live/process.py``) and the one-job child
(``live/child.py``) both start this way; ``tests/test_one_launcher.py`` keeps it the only one.

Why a fresh interpreter rather than ``multiprocessing``: fork would copy the UI's threads (Textual's,
the thread workers'), and spawn would import the UI's ``__main__`` again in the child. The child
gets its own session (``start_new_session``): ctrl+c in the terminal is the app's to handle, and a
child is killed with whatever it started (``os.killpg``). No stdin: a child never reads the terminal.

The two other kinds of process the workbench starts are deliberate and not this one: the chat-template
sandbox's fork (``engine/chat_template/budget.py``: the render child, under a time and memory budget,
needs no fresh import of the engine) and ``workbench scan``'s pool (``scan/local.py``), besides
another environment's Python (``jobs/runtimes.py``), which runs no workbench code.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from collections.abc import Mapping
from multiprocessing.connection import Connection


def spawn(module: str, *args: str, env: Mapping[str, str] | None = None) -> tuple[subprocess.Popen, Connection]:
    """Start ``python -m module FD *args`` with this Python, FD being the child's end of a fresh
    socket pair; ``env`` is added to this process's environment. The process, and our end as a
    Connection (the caller closes it). The child takes its end with ``accept()``."""
    if not module.startswith("workbench."):
        raise ValueError(f"spawn starts the workbench's own modules only, not {module!r}")
    ours, theirs = socket.socketpair()
    try:
        with theirs:  # the child holds its copy: ours is closed once it has started
            process = subprocess.Popen(
                [sys.executable, "-m", module, str(theirs.fileno()), *args],
                pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL, start_new_session=True,
                env={**os.environ, **env} if env else None,
            )
    except BaseException:
        ours.close()
        raise
    return process, Connection(ours.detach())


def accept() -> tuple[Connection, list[str]]:  # pragma: no cover - runs in the child process
    """The child's side, first thing in its ``__main__``: its end of the pipe and the arguments
    after it. Results as deep as the inputs the workbench accepts must pickle (as in the CLI), and
    ctrl+c, should one reach the child, is the app's to handle."""
    from ..engine.depth import raise_limit

    raise_limit()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    return Connection(int(sys.argv[1])), sys.argv[2:]
