"""Environments holding a given transformers release, for ``export --verify``.

One environment cannot hold two transformers, and a tokenizer folder must be checked with the
releases its users run: 5.14.1 (the last that reads ``response_schema``), 5.23.0 and 5.24.0 (the two
newest template engines), and one release of any other range that behaves differently (verify.py). The
Python running workbench is used when it has the release; otherwise a virtual environment is built
once under ``WORKBENCH_RUNTIMES_DIR`` (default ``~/.cache/workbench/runtimes``) with ``pip install
transformers==VERSION jmespath`` (no torch: loading a tokenizer and parse_response do not need it;
jmespath runs a schema's ``x-parser-args`` ``transform``, and transformers does not depend on it).

The check itself (runtime_probe.py) runs there with no stdin, ``trust_remote_code=False`` and no
hub access, answers through a file of its own (so nothing transformers prints can garble it), each
parse under the workbench's time limit, the whole run under a wall-clock limit.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable

from ..engine.releases import CHECKED_VERSIONS
from ..engine.visible import visible
from ..formats import FORMATS

# From the one table: the last release that reads response_schema, and the two newest template
# releases export --verify checks every time (a range never spans the newest).
SCHEMA_RUNTIME, TEMPLATE_RUNTIMES = CHECKED_VERSIONS[0], CHECKED_VERSIONS[-2:]
STAMP = "workbench-runtime.json"
# What an environment holds besides transformers: a schema's x-parser-args "transform" needs
# jmespath, which transformers only imports if it is there (else that parse raises). The stamp records the list, so an environment
# built before an addition here is rebuilt.
EXTRAS = ("jmespath",)
STAMP_FORMAT = 2

# The probe's wall-clock limit: starting Python and importing transformers, loading each folder,
# and each parse (which the probe itself stops at the time limit; this is the backstop).
PROBE_START = 120.0
PROBE_LOAD = 30.0
PROBE_PARSE_SLACK = 1.0

# transformers' advisory chatter off, and no hub access: the folder is local.
QUIET = {"TRANSFORMERS_VERBOSITY": "error", "TRANSFORMERS_NO_ADVISORY_WARNINGS": "1", "HF_HUB_OFFLINE": "1",
         "HF_HUB_DISABLE_TELEMETRY": "1"}


class RuntimeUnavailable(Exception):
    """The check could not be made (no environment with this release, or a check that did not
    answer, or answered nonsense); the message says why, naming the release. Nothing was verified."""


def runtimes_dir() -> Path:
    configured = os.environ.get("WORKBENCH_RUNTIMES_DIR")
    if configured:
        return Path(configured)
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "workbench" / "runtimes"


def installed_version() -> str | None:
    try:
        return importlib.metadata.version("transformers")
    except importlib.metadata.PackageNotFoundError:
        return None


def _stamp(version: str) -> dict:
    return {"transformers": version, "extras": list(EXTRAS), "format": STAMP_FORMAT}


def runtime_python(version: str, say: Callable[[str], None] = lambda _: None) -> Path:
    """A Python with transformers ``version``: this one, a built environment, or one built now."""
    if installed_version() == version:
        return Path(sys.executable)
    folder = runtimes_dir() / f"transformers-{version}"
    python = folder / "bin" / "python"
    if _stamped(folder, version) and python.exists():
        return python
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RuntimeUnavailable(f"could not build {folder}: {exc.strerror or exc}") from None
    from ..store.locks import folder_lock

    # Two exports building the same environment at once would delete each other's files.
    with folder_lock(folder.parent, waiting=lambda: say(f"waiting for another workbench building in {folder.parent}")):
        if _stamped(folder, version) and python.exists():
            return python
        say(f"building an environment with transformers {version} in {folder} (once; about half a minute)")
        shutil.rmtree(folder, ignore_errors=True)
        try:
            _run([sys.executable, "-m", "venv", str(folder)], f"could not create {folder}")
            _run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-compile", f"transformers=={version}",
                  *EXTRAS], f"could not install transformers {version} into {folder}")
            (folder / STAMP).write_text(json.dumps(_stamp(version)), encoding="utf-8")
        except OSError as exc:
            raise RuntimeUnavailable(f"could not build {folder}: {exc.strerror or exc}") from None
    return python


def _stamped(folder: Path, version: str) -> bool:
    try:
        return json.loads((folder / STAMP).read_text(encoding="utf-8")) == _stamp(version)
    except (OSError, ValueError):
        return False


def _run(command: list[str], failure: str) -> None:
    result = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if result.returncode != 0:
        last = (result.stderr.strip().splitlines() or ["(no message)"])[-1]
        raise RuntimeUnavailable(f"{failure}: {last}")


def start_python(python: Path | str, *argv: str, **popen) -> subprocess.Popen:
    """The one way to start another environment's Python (``python -I *argv``): isolated (no
    PYTHONPATH, no user site: nothing of this environment leaks in), transformers quiet and off the
    hub, in a session of its own (one past its limit is killed with what it started). What it runs
    imports nothing from workbench. ``popen``: the pipes, cwd, …"""
    return subprocess.Popen([str(python), "-I", *map(str, argv)], env={**os.environ, **QUIET},
                            start_new_session=True, **popen)


def probe_limit(jobs: list[tuple[Path, list[dict]]], time_limit: float) -> float:
    """Seconds the probe may run in all: start-up, each folder's load, each parse at its limit."""
    parses = sum(2 * len(samples) for _, samples in jobs)  # at most: the default call and the legacy one
    return PROBE_START + PROBE_LOAD * len(jobs) + (time_limit + PROBE_PARSE_SLACK) * parses


def probe_many(python: Path, jobs: list[tuple[Path, list[dict]]], release: str, time_limit: float) -> list[dict]:
    """Run runtime_probe.py with ``python`` (the environment of transformers ``release``) on each
    (folder, samples), in one process; its answer per folder, checked for shape. Each sample is
    ``{"text", "prefix", "name"}``; ``name`` is what a timeout names."""
    script = Path(__file__).with_name("runtime_probe.py")
    who = f"transformers {release}"
    limit = probe_limit(jobs, time_limit)
    with tempfile.TemporaryDirectory(prefix="workbench-probe-") as tmp:
        request_path, answer_path = Path(tmp) / "request.json", Path(tmp) / "answer.jsonl"
        request = {"jobs": [{"dir": str(d), "samples": samples} for d, samples in jobs], "time_limit": time_limit}
        request_path.write_text(json.dumps(request), encoding="utf-8")
        # No stdin: a question transformers asks (trust_remote_code) gets end-of-file, not our input.
        # Its own session: a probe past its limit is killed with whatever it started.
        try:
            process = start_python(python, script, str(request_path), str(answer_path), stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=tmp)
        except OSError as exc:
            raise RuntimeUnavailable(f"{who}: cannot run {python}: {exc.strerror or exc}") from None
        try:
            _, stderr_bytes = process.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            _kill(process)
            where = _where(_answer_lines(answer_path), jobs)
            raise RuntimeUnavailable(f"{who} did not finish the check within {limit:g} s{where}") from None
        except BaseException:
            _kill(process)
            raise
        if process.returncode != 0:
            last = (stderr_bytes.decode("utf-8", "replace").strip().splitlines() or ["(no message)"])[-1]
            raise RuntimeUnavailable(f"{who} ({python}) could not run the check (exit {process.returncode}): {visible(last)}")
        lines = _answer_lines(answer_path)
        final = lines[-1] if lines else None
        if not isinstance(final, dict) or "answers" not in final:
            raise RuntimeUnavailable(f"{who} ({python}) gave no answer: {_malformed(answer_path, lines)}")
    problem = _shape_problem(final["answers"], jobs, release)
    if problem:
        raise RuntimeUnavailable(f"{who} ({python}) gave a malformed answer: {problem}")
    return final["answers"]


def _kill(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (OSError, AttributeError):
        process.kill()
    process.communicate()


def _answer_lines(path: Path) -> list:
    """The answer file's JSON lines; a line that is not JSON stands as None."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    lines = []
    for line in text.splitlines():
        try:
            lines.append(json.loads(line))
        except ValueError:
            lines.append(None)
    return lines


def _malformed(path: Path, lines: list) -> str:
    if not path.exists():
        return "its answer file is missing"
    if not lines:
        return "its answer file is empty"
    if lines[-1] is None:
        return "the last line of its answer is not JSON"
    return "the last line of its answer holds no answers"


def _where(lines: list, jobs: list[tuple[Path, list[dict]]]) -> str:
    at = next((line["at"] for line in reversed(lines) if isinstance(line, dict) and "at" in line), None)
    try:
        job, sample = at
        folder, samples = jobs[job]
        if sample is None:
            return f" (it was loading {folder})"
        return f" (it was running parse_response on sample {samples[sample].get('name', sample)})"
    except (TypeError, ValueError, IndexError, KeyError):
        return " (it was starting)"


def _shape_problem(answers, jobs: list[tuple[Path, list[dict]]], release: str) -> str | None:
    """What is wrong with the probe's answers, or None: one answer per job, each with the keys
    verify.py reads, one outcome per sample, each outcome a value, an error or a timeout."""
    if not isinstance(answers, list) or len(answers) != len(jobs):
        return f"expected a list of {len(jobs)} answer(s)"
    for answer, (_, samples) in zip(answers, jobs):
        if not isinstance(answer, dict):
            return "an answer is not a JSON object"
        missing = [k for k in ("transformers", "loaded", "load_error", "default", "legacy") if k not in answer]
        if missing:
            return f"an answer lacks {', '.join(missing)}"
        if answer["transformers"] != release:
            return f"the environment runs transformers {visible(repr(answer['transformers']))}"
        if answer["load_error"] is not None:
            if not isinstance(answer["load_error"], str):
                return "load_error is not a string"
            continue
        if not isinstance(answer["loaded"], dict) or any(fmt.name not in answer["loaded"] for fmt in FORMATS):
            return "loaded does not name both keys"
        for key in ("default", "legacy"):
            outcomes = answer[key]
            if key == "legacy" and outcomes is None:
                continue
            if not isinstance(outcomes, list) or len(outcomes) != len(samples):
                return f"{key} does not hold one outcome per sample ({len(samples)})"
            for outcome in outcomes:
                if not _is_outcome(outcome):
                    return f"an outcome in {key} is neither a value, an error nor a timeout"
    return None


def _is_outcome(outcome) -> bool:
    if not isinstance(outcome, dict):
        return False
    if "value" in outcome:
        return True
    if "timeout" in outcome:
        return isinstance(outcome["timeout"], (int, float))
    return isinstance(outcome.get("error"), str) and isinstance(outcome.get("message"), str)
