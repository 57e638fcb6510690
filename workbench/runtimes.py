"""Environments holding a given transformers release, for ``export --verify``.

One environment cannot hold two transformers, and a tokenizer folder must be checked with the
releases its users run: 5.14.1 (the last that reads ``response_schema``) and 5.23.0 (current). The
Python running workbench is used when it has the release; otherwise a virtual environment is built
once under ``WORKBENCH_RUNTIMES_DIR`` (default ``~/.cache/workbench/runtimes``) with ``pip install
transformers==VERSION`` (no torch: loading a tokenizer and parse_response do not need it).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Callable

SCHEMA_RUNTIME, TEMPLATE_RUNTIME = "5.14.1", "5.23.0"
STAMP = "workbench-runtime.json"


class RuntimeUnavailable(Exception):
    """No environment with this release could be found or built; the message says why."""


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


def runtime_python(version: str, say: Callable[[str], None] = lambda _: None) -> Path:
    """A Python with transformers ``version``: this one, a built environment, or one built now."""
    if installed_version() == version:
        return Path(sys.executable)
    folder = runtimes_dir() / f"transformers-{version}"
    python = folder / "bin" / "python"
    if _stamped(folder, version) and python.exists():
        return python
    say(f"building an environment with transformers {version} in {folder} (once; about half a minute)")
    shutil.rmtree(folder, ignore_errors=True)
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        _run([sys.executable, "-m", "venv", str(folder)], f"could not create {folder}")
        _run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", f"transformers=={version}"],
             f"could not install transformers {version} into {folder}")
    except OSError as exc:
        raise RuntimeUnavailable(f"could not build {folder}: {exc.strerror or exc}") from None
    (folder / STAMP).write_text(json.dumps({"transformers": version}), encoding="utf-8")
    return python


def _stamped(folder: Path, version: str) -> bool:
    try:
        return json.loads((folder / STAMP).read_text(encoding="utf-8")).get("transformers") == version
    except (OSError, ValueError, AttributeError):
        return False


def _run(command: list[str], failure: str) -> None:
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        last = (result.stderr.strip().splitlines() or ["(no message)"])[-1]
        raise RuntimeUnavailable(f"{failure}: {last}")


def probe_many(python: Path, jobs: list[tuple[Path, list[dict]]], timeout: float = 600) -> list[dict]:
    """Run runtime_probe.py with ``python`` on each (folder, samples), in one process; its JSON
    answer per folder."""
    script = Path(__file__).with_name("runtime_probe.py")
    request = json.dumps({"jobs": [{"dir": str(d), "samples": samples} for d, samples in jobs]})
    try:
        result = subprocess.run([str(python), "-I", str(script)], input=request, capture_output=True, text=True,
                                encoding="utf-8", timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise RuntimeUnavailable(f"{python}: {exc}") from None
    if result.returncode != 0:
        last = (result.stderr.strip().splitlines() or ["(no message)"])[-1]
        raise RuntimeUnavailable(f"{python} could not run the check: {last}")
    return json.loads(result.stdout)["answers"]
