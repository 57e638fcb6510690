"""transformers 5.24.0's own ``python-call-list`` parser and ``parse_response``, run in the 5.24.0
oracle environment, for tests/test_python_calls.py (the property test, the pythonic families'
goldens) and the benchmark (benchmarks/bench_python_calls.py).

    with CallListOracle(python) as oracle:
        oracle.parse('[f(a=1)]')        # ("value", [...]) or ("error", "ValueError", "python-call-list: ...")
        oracle.parse_response(text, template, prefix)   # parse_response, the same shapes
        oracle.time('[f(a=1)]', 5)      # the fastest of 5 runs, in seconds, measured in the oracle's process

find_python() looks for the environment, built like tests/template_oracle.py's but with transformers
5.24.0 (its oracle-stamp.json says "transformers": "5.24.0"), in this order: WORKBENCH_ORACLE_524_DIR;
<repo>/.oracles/transformers-5.24.0; the same folder in the main worktree of this repository (a
linked worktree shares it). None when there is none: the callers skip, saying so.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from workbench.jobs import runtimes

VERSION = "5.24.0"
ROOT = Path(__file__).resolve().parent.parent

# Runs in the oracle environment: one JSON request per line, one JSON answer per line.
_SERVER = r"""
import json, sys, time
from transformers.utils.chat_parsing.content_parsers import _python_call_list
from transformers.utils.chat_parsing import parse_response
import transformers
print(json.dumps({"ready": transformers.__version__}), flush=True)
for line in sys.stdin:
    request = json.loads(line)
    text = request["text"]
    if "template" in request:
        try:
            answer = {"value": parse_response(text, request["template"], prefix=request["prefix"])}
        except Exception as exc:
            answer = {"error": [type(exc).__name__, str(exc)]}
    elif request.get("repeat"):
        best = None
        for _ in range(request["repeat"]):
            started = time.perf_counter()
            try:
                _python_call_list(text, {})
            except Exception:
                pass
            took = time.perf_counter() - started
            best = took if best is None else min(best, took)
        answer = {"seconds": best}
    else:
        try:
            answer = {"value": _python_call_list(text, {})}
        except Exception as exc:
            answer = {"error": [type(exc).__name__, str(exc)]}
    print(json.dumps(answer, ensure_ascii=True), flush=True)
"""


def _candidates() -> list[Path]:
    found = []
    configured = os.environ.get("WORKBENCH_ORACLE_524_DIR")
    if configured:
        found.append(Path(configured).expanduser())
    found.append(ROOT / ".oracles" / f"transformers-{VERSION}")
    try:
        common = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--path-format=absolute", "--git-common-dir"],
            capture_output=True, text=True, check=False,
        ).stdout.strip()
    except OSError:
        common = ""
    if common:
        found.append(Path(common).parent / ".oracles" / f"transformers-{VERSION}")
    return found


def find_python() -> Path | None:
    for directory in _candidates():
        python = directory / "bin" / "python"
        try:
            stamp = json.loads((directory / "oracle-stamp.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(stamp, dict) and stamp.get("transformers") == VERSION and python.exists():
            return python
    return None


def where_looked() -> str:
    return ", ".join(str(path) for path in _candidates())


class CallListOracle:
    def __init__(self, python: Path | str) -> None:
        self.python = str(python)
        self.process: subprocess.Popen[str] | None = None

    def __enter__(self) -> CallListOracle:
        self.process = runtimes.start_python(
            self.python, "-c", _SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="ascii")
        ready = self._receive()
        if ready.get("ready") != VERSION:
            self.close()
            raise RuntimeError(f"the oracle started with {ready!r}, expected transformers {VERSION}")
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        process, self.process = self.process, None
        if process is not None:
            assert process.stdin is not None
            process.stdin.close()
            process.wait(timeout=10)

    def _receive(self) -> dict[str, Any]:
        assert self.process is not None and self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError("the oracle exited")
        return json.loads(line)

    def _send(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.process is not None and self.process.stdin is not None
        self.process.stdin.write(json.dumps(request, ensure_ascii=True) + "\n")
        self.process.stdin.flush()
        return self._receive()

    def parse(self, text: str) -> tuple[str, Any] | tuple[str, str, str]:
        answer = self._send({"text": text})
        if "error" in answer:
            return ("error", *answer["error"])
        return ("value", answer["value"])

    def parse_response(self, text: str, template: Any, prefix: str) -> tuple[str, Any] | tuple[str, str, str]:
        """transformers 5.24.0's ``parse_response(text, template, prefix=prefix)``."""
        answer = self._send({"text": text, "template": template, "prefix": prefix})
        if "error" in answer:
            return ("error", *answer["error"])
        return ("value", answer["value"])

    def time(self, text: str, repeat: int) -> float:
        return self._send({"text": text, "repeat": repeat})["seconds"]


def ours(text: str) -> tuple[str, Any] | tuple[str, str, str]:
    """Our parser's outcome in the oracle's shape (values through JSON, as the oracle's are)."""
    from workbench.engine.template.python_calls import parse_python_call_list

    try:
        return ("value", json.loads(json.dumps(parse_python_call_list(text, {}))))
    except Exception as exc:  # noqa: BLE001 - the outcome is compared, whatever it is
        return ("error", type(exc).__name__, str(exc))
