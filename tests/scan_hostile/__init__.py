"""The hostile-dataset table for ``workbench scan`` and ``workbench open --scan``: each case builds
one input a stranger could hand us (a dataset, a parser, an output path, a signal mid-scan) in a
fresh folder and runs the command as a user does, in a subprocess of its own session, with a
deadline. ``tests/test_scan_hostile.py`` holds every case to the same rules:

- no traceback, no hang past the case's deadline, the README's exit code;
- on exit 2, one sentence on stderr (``error: …``);
- inputs unchanged, nothing written in the folder but the case's declared outputs;
- nothing fetched: every URL the data names points at a local HTTP server, which is also the Hub
  endpoint and the HTTP(S) proxy of the command, and it must see no request;
- no process of the command's session left running once it has exited (pool workers included).

The cases live beside this file, one module per area (``writes``, ``reading``, ``running``,
``opening``), each a list ``CASES``; ``build(folder, url)`` makes the files and returns the
arguments after ``workbench``.
"""

from __future__ import annotations

import fnmatch
import hashlib
import http.server
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "schemas" / "qwen3.template.json"
SCHEMA = ROOT / "schemas" / "qwen3.json"
PROMPT = "<|im_start|>user\nHelp me.<|im_end|>\n<|im_start|>assistant\n"
DEADLINE = 120.0  # seconds: generous for a loaded machine, far below a hang

# Characters a terminal would act on if a message carried them raw (ESC, BEL, CSI as C1).
RAW_CONTROLS = ("\x1b", "\x07", "\x9b")


def call(city: str = "Paris") -> str:
    return f'<tool_call>\n{{"name": "get_weather", "arguments": {{"city": "{city}"}}}}\n</tool_call>'


def good_rows(n: int = 8) -> list[dict]:
    """Outputs qwen3 writes, answers and calls alike; one in four does not parse (a call cut off)."""
    rows = []
    for i in range(n):
        text = [f"Answer {i}.<|im_end|>", f"<think>\nStep {i}.\n</think>\n\nDone.<|im_end|>",
                call(f"City{i}") + "<|im_end|>", '<tool_call>\n{"name": "f", "arguments": {"a": "'][i % 4]
        rows.append({"id": f"r{i}", "text": text, "prompt": PROMPT})
    return rows


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def parser(folder: Path, source: Path = TEMPLATE, name: str = "parser.template.json") -> Path:
    """A copy of a shipped parser inside the case's folder (so the table sees it unchanged)."""
    target = folder / name
    shutil.copyfile(source, target)
    return target


@dataclass(frozen=True)
class Case:
    name: str
    build: Callable[[Path, str], list[str]]  # (folder, the local server's URL) -> argv after "workbench"
    expect: frozenset[int]  # the README's exit codes for it
    outputs: tuple[str, ...] = ()  # glob patterns, relative to the folder, the command may create or change
    says: str | None = None  # a phrase stdout or stderr must hold
    deadline: float = DEADLINE
    # Send this signal once a file matching the glob exists in the folder (a scan under way).
    signal: tuple[int, str] | None = None
    check: Callable[[Path, "Outcome"], None] | None = None  # anything else the case must hold
    env: dict[str, str] = field(default_factory=dict)


@dataclass
class Outcome:
    code: int | None  # None: killed at the deadline
    stdout: str
    stderr: str
    before: dict[str, str]
    after: dict[str, str]
    requests: list[str]  # what the local server was asked
    left_running: list[int]  # pids of the command's session still alive after it exited
    seconds: float
    folder: Path

    def shown(self) -> str:
        return (f"exit {self.code} after {self.seconds:.1f} s\nstdout: {self.stdout[-3000:]}\n"
                f"stderr: {self.stderr[-3000:]}\nrequests: {self.requests}")


def tree(folder: Path) -> dict[str, str]:
    """Every entry under ``folder`` with its kind, mode and content hash (links by their target)."""
    seen = {}
    for path in sorted(folder.rglob("*")):
        rel = str(path.relative_to(folder))
        if path.is_symlink():
            seen[rel] = "link:" + os.readlink(path)
        elif path.is_dir():
            seen[rel] = "dir"
        elif path.is_file():
            st = path.stat()
            seen[rel] = f"{oct(st.st_mode)}:{st.st_gid}:{hashlib.sha256(path.read_bytes()).hexdigest()}"
        else:
            seen[rel] = "special"
    return seen


def declared(name: str, patterns: tuple[str, ...]) -> bool:
    return any(fnmatch.fnmatch(name, p) or fnmatch.fnmatch(name, p.rstrip("/") + "/*") for p in patterns)


class _Recorder(http.server.BaseHTTPRequestHandler):
    def _any(self) -> None:
        self.server.requests.append(f"{self.command} {self.path}")  # type: ignore[attr-defined]
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_HEAD = do_POST = do_CONNECT = _any

    def log_message(self, *args) -> None:
        pass


class Server:
    """A local HTTP server that answers 404 to everything and keeps what it was asked."""

    def __enter__(self) -> "Server":
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
        self.httpd.requests = []  # type: ignore[attr-defined]
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    @property
    def requests(self) -> list[str]:
        return list(self.httpd.requests)  # type: ignore[attr-defined]

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _session(pgid: int) -> list[int]:
    """Processes still in session ``pgid`` (zombies are not running)."""
    alive = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == pgid and fields[0] != "Z":  # pgrp is the 5th field, state the 3rd
            alive.append(int(entry.name))
    return alive


def run(case: Case, folder: Path, caches: Path) -> Outcome:
    """``case`` run in ``folder``, with its caches (``datasets``, the Hub, the scan cache) in
    ``caches``, outside the folder the table watches."""
    with Server() as server:
        args = case.build(folder, server.url)
        before = tree(folder)
        env = {
            **os.environ, "PYTHONIOENCODING": "utf-8", "HF_HOME": str(caches / "hf"),
            "HF_DATASETS_CACHE": str(caches / "datasets"), "WORKBENCH_CACHE": str(caches / "workbench"),
            "HF_ENDPOINT": server.url, "HTTP_PROXY": server.url, "HTTPS_PROXY": server.url,
            "http_proxy": server.url, "https_proxy": server.url, "NO_PROXY": "", "no_proxy": "",
            "HF_HUB_DISABLE_TELEMETRY": "1", **case.env,
        }
        env.pop("HF_HUB_OFFLINE", None)
        env.pop("HF_DATASETS_OFFLINE", None)
        start = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-m", "workbench", *args], cwd=folder, env=env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True)
        if case.signal is not None:
            signum, pattern = case.signal
            while proc.poll() is None and time.monotonic() - start < case.deadline:
                if any(fnmatch.fnmatch(p.name, pattern) for p in folder.iterdir()):
                    time.sleep(0.5)  # a few batches in
                    os.kill(proc.pid, signum)
                    break
                time.sleep(0.05)
        try:
            out, err = proc.communicate(timeout=max(1.0, case.deadline - (time.monotonic() - start)))
            code = proc.returncode
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            code = None
        seconds = time.monotonic() - start
        left: list[int] = []
        for _ in range(30):  # pool workers get a moment to notice their parent is gone
            left = _session(proc.pid)
            if not left:
                break
            time.sleep(0.1)
        if left:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        requests = server.requests
    return Outcome(code, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), before, tree(folder),
                   requests, left, seconds, folder)
