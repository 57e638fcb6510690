"""The third oracle: vLLM 0.33.0's rules for serving a `response_template`, run from its wheel.

vLLM cannot be imported without torch (vllm/__init__.py imports vllm.env_override, which imports
torch), and its serving module vllm/parser/response_template.py imports much of vLLM. But the rules
themselves live in two functions of that module that need only vLLM's copy of the chat-parsing
package, which needs only `regex`. So ensure_env() builds, once, a virtual environment holding
`regex` alone (--no-deps, pinned), downloads the vllm 0.33.0 wheel (pinned by hash, --no-deps) and
keeps from it only vllm/parser/chat_parsing/ and vllm/parser/response_template.py; the wheel itself
is deleted. tests/vllm_oracle_runner.py runs those files there (see its docstring for how).

    oracle = VllmOracle(ensure_env())
    oracle.serve([TEMPLATE, ...])    # [{"ok": True, "fields": {...}, "implicit": ...} | {"ok": False, ...}]
    oracle.parse([(TEMPLATE, prefix, text), ...])

In tests, use the session fixture `vllm_oracle` (tests/conftest.py). Like the transformers oracle,
it fails the run when the environment cannot be built, unless WORKBENCH_ALLOW_NO_ORACLE=1.

Where: WORKBENCH_VLLM_ORACLE_DIR, default <repo>/.oracles/vllm-0.33.0/ (git-ignored). Rebuilt when
its stamp is missing or records other pins or another base Python.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from workbench.jobs import runtimes
from template_oracle import STAMP_NAME, OracleUnavailable, _base_python, _env_python, _FileLock, _is_built, base_python_of

VLLM_VERSION = "0.33.0"
# The wheel pip picks for Linux x86-64; the files kept from it are pure Python, the same in every
# wheel of the release, so one wheel (and its hash) serves every machine.
WHEEL_PLATFORM = "manylinux_2_28_x86_64"
WHEEL_SHA256 = "4b6bdec4ab269990bf70d45a3c1e94c3760a27064513760193b26d6f0da883aa"
REQUIREMENTS = ("regex==2026.11.15",)
KEPT = ("vllm/parser/chat_parsing/", "vllm/parser/response_template.py")

ROOT = Path(__file__).resolve().parent.parent
RUNNER = Path(__file__).resolve().parent / "vllm_oracle_runner.py"
LOCK_TIMEOUT = 900.0


def env_dir() -> Path:
    configured = os.environ.get("WORKBENCH_VLLM_ORACLE_DIR")
    if configured:
        return Path(configured).expanduser().resolve()
    return ROOT / ".oracles" / f"vllm-{VLLM_VERSION}"


def _wanted_stamp(base_python: str) -> dict[str, Any]:
    version, base_prefix = base_python_of(base_python)
    return {
        "format": 1,
        "vllm": VLLM_VERSION,
        "wheel_sha256": WHEEL_SHA256,
        "requirements": list(REQUIREMENTS),
        "kept": list(KEPT),
        "python": version,
        "base_prefix": base_prefix,
    }


def ensure_env(directory: Path | None = None, *, log=None) -> Path:
    """The oracle environment's folder (its Python is bin/python, vLLM's files are under src/),
    built first if missing or stale. OracleUnavailable when it cannot be built."""
    directory = Path(directory) if directory is not None else env_dir()
    log = log or (lambda message: print(message, file=sys.stderr, flush=True))
    base_python = _base_python()
    wanted = _wanted_stamp(base_python)
    if _is_built(directory, wanted):
        return directory
    with _FileLock(directory.with_name(directory.name + ".lock"), LOCK_TIMEOUT):
        if not _is_built(directory, wanted):
            _build(directory, base_python, wanted, log)
    return directory


def _run(command: list[str], env: dict[str, str]) -> None:
    try:
        run = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    except OSError as exc:
        raise OracleUnavailable(f"could not run {command[0]}: {exc}") from None
    if run.returncode != 0:
        tail = "\n".join((run.stdout + run.stderr).strip().splitlines()[-20:])
        raise OracleUnavailable(f"`{' '.join(command[:5])} …` exited {run.returncode}\n{tail}")


def _build(directory: Path, base_python: str, stamp: dict[str, Any], log) -> None:
    if directory.exists():
        if not (directory / "pyvenv.cfg").exists() and any(directory.iterdir()):
            raise OracleUnavailable(f"{directory} is not empty and is not a virtual environment: not touching it")
        shutil.rmtree(directory)
    started = time.monotonic()
    log(f"building the vLLM {VLLM_VERSION} oracle environment in {directory} (once; downloads the wheel)")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    python = _env_python(directory)
    _run([base_python, "-m", "venv", str(directory)], env)
    pip = [str(python), "-m", "pip", "--no-input", "--disable-pip-version-check"]
    _run([*pip, "install", "--no-deps", *REQUIREMENTS], env)
    with tempfile.TemporaryDirectory(prefix="vllm-wheel-") as scratch:
        requirements = Path(scratch) / "requirements.txt"
        requirements.write_text(f"vllm=={VLLM_VERSION} --hash=sha256:{WHEEL_SHA256}\n", encoding="utf-8")
        _run([*pip, "download", "--no-deps", "--require-hashes", "--only-binary=:all:",
              "--platform", WHEEL_PLATFORM, "-r", str(requirements), "-d", scratch], env)
        wheels = list(Path(scratch).glob("vllm-*.whl"))
        if len(wheels) != 1:
            raise OracleUnavailable(f"pip download left {len(wheels)} vllm wheels")
        source = directory / "src"
        with zipfile.ZipFile(wheels[0]) as wheel:
            members = [name for name in wheel.namelist()
                       if name.endswith(".py") and any(name == kept or name.startswith(kept) for kept in KEPT)]
            wheel.extractall(source, members)
    check = subprocess.run([str(python), "-I", str(RUNNER), str(directory / "src")], input="[]",
                           capture_output=True, text=True, env=env, check=False)
    if check.returncode != 0 or check.stdout.strip() != "[]":
        raise OracleUnavailable(f"vLLM's files do not run in {directory}:\n{check.stderr[-2000:]}")
    stamp_file = directory / STAMP_NAME
    temporary = stamp_file.with_suffix(".tmp")
    temporary.write_text(json.dumps(stamp, indent=1), encoding="utf-8")
    temporary.replace(stamp_file)
    log(f"vLLM oracle environment ready in {time.monotonic() - started:.1f} s")


class VllmOracle:
    """One runner process per call, for a batch of requests."""

    def __init__(self, directory: Path, *, timeout: float = 120.0) -> None:
        self.python = str(_env_python(directory))
        self.source = str(directory / "src")
        self.timeout = timeout

    def _call(self, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
        process = runtimes.start_python(self.python, RUNNER, self.source, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True, encoding="utf-8")
        try:
            stdout, stderr = process.communicate(json.dumps(requests), timeout=self.timeout)
        except BaseException:  # past its time (TimeoutExpired), or interrupted: nothing is left running
            process.kill()
            process.communicate()
            raise
        if process.returncode != 0:
            raise RuntimeError(f"the vLLM oracle failed:\n{stderr[-4000:]}")
        return json.loads(stdout)

    def serve(self, templates: Sequence[Any]) -> list[dict[str, Any]]:
        """What vLLM makes of each template when it serves it (see tests/vllm_oracle_runner.py)."""
        return self._call([{"op": "serve", "template": template} for template in templates])

    def parse(self, cases: Sequence[tuple[Any, str, str]]) -> list[dict[str, Any]]:
        """vLLM's parse of each (template, prefix, text)."""
        return self._call([{"op": "parse", "template": t, "prefix": p, "text": x} for t, p, x in cases])


def session_oracle() -> Iterator[VllmOracle]:
    """The body of the session fixture `vllm_oracle`."""
    import pytest

    try:
        directory = ensure_env()
    except OracleUnavailable as exc:
        if os.environ.get("WORKBENCH_ALLOW_NO_ORACLE") == "1":
            pytest.skip(f"vLLM {VLLM_VERSION} oracle unavailable (WORKBENCH_ALLOW_NO_ORACLE=1): {exc}")
        pytest.fail(
            f"the vLLM {VLLM_VERSION} oracle environment could not be built: {exc}\n"
            "(set WORKBENCH_ALLOW_NO_ORACLE=1 to skip the tests that need it instead)",
            pytrace=False,
        )
    yield VllmOracle(directory)


if __name__ == "__main__":
    started = time.monotonic()
    oracle = VllmOracle(ensure_env())
    print(oracle.serve([{"start_anchor": "<a>", "fields": {"reasoning": {}}}]))
    print(f"{time.monotonic() - started:.1f} s")
