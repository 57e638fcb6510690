"""The second oracle: transformers' `response_template` engine (5.23.0, 5.24.0, …), each release in an
environment of its own.

The test environment keeps transformers 5.14.1 (the last release with the legacy
`response_schema` engine, tests/oracle.py); one environment cannot hold two transformers. So
ensure_env(version) builds, once per release, a separate virtual environment holding only that
transformers and what `import transformers.utils.chat_parsing` needs (pinned in RELEASES below, no
torch), and TemplateOracle talks to tests/template_oracle_server.py running in it, one JSON line per
request.

    oracle = TemplateOracle(ensure_env("5.24.0"), version="5.24.0")
    oracle.parse("<think>x</think>hi", TEMPLATE)   # ("value", {...}) or ("error", "ValueError", "...")
    oracle.stream(["<think>x", "</think>hi"], TEMPLATE)
    oracle.version()                                # "5.24.0"

In tests, use the session fixtures of tests/conftest.py: `template_oracle` (5.23.0, for what did not
change between releases, such as chat-template rendering, and the 5.23.0 goldens), `newest_oracle`
(NEWEST, what the CLI runs by default), and `release` / `release_oracle`, which run a differential
test once per release of oracle_releases() with our engine called with the matching `runtime=`. They fail the run when an environment cannot be built, unless WORKBENCH_ALLOW_NO_ORACLE=1,
which makes them skip instead.

Where: <repo>/.oracles/transformers-<version>/ (git-ignored), or under WORKBENCH_ORACLES (a folder
holding one transformers-<version>/ per release, e.g. a checkout's shared .oracles/).
WORKBENCH_ORACLE_DIR, the older setting, still names 5.23.0's environment itself. An environment is
rebuilt when its stamp file is missing or records other pins or another base Python. The base Python
is the one running this module (transformers 5.23+ needs 3.11+), or WORKBENCH_ORACLE_PYTHON.
`python tests/template_oracle.py [VERSION]` builds one and times a round trip.

Values cross as JSON (see the server's docstring): NaN and +/-Infinity come back as the same
floats; a result that JSON cannot carry faithfully (a tuple, a non-str key, another object) raises
OracleUnencodable instead of being converted. Inputs are held to the same rule (TypeError).
"""

from __future__ import annotations

import collections
import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from workbench.jobs import runtimes

# What `import transformers.utils.chat_parsing` imports (transformers' import-time version check adds
# safetensors), found by building the environment with --no-deps and reading each ImportError;
# installed with --no-deps so the environment is the same on every machine. regex is the engine's
# matcher (chat_parsing needs >=2025.10.22): its version is part of the oracle.
_CHAT_PARSING_5_23 = (
    "regex==2026.11.15",
    "numpy==2.4.6",
    "huggingface_hub==2.4.0",
    "httpx2==2.16.2",
    "httpcore2==2.16.2",
    "h11==0.16.0",
    "idna==3.20",
    "truststore==0.10.5",
    "filelock==4.2.12",
    "packaging==26.3",
    "PyYAML==6.0.3",
    "tqdm==4.70.1",
    "typing_extensions==4.16.0",
    "safetensors==0.8.0",
    # What AutoTokenizer.from_pretrained and apply_chat_template need (the chat-template renderer's oracle).
    "tokenizers==0.23.3",
    "jinja2==3.1.6",
    "MarkupSafe==3.0.3",
)

# The pins of every supported release, one row each, oldest first; the last is the newest, whose
# behaviour our engine gives with runtime=None. A release not in the table (python -m tests.new_release)
# is tried with the newest row's pins.
RELEASES: dict[str, tuple[str, ...]] = {
    "5.23.0": ("transformers==5.23.0", *_CHAT_PARSING_5_23),
    # Measured 2026-11-26 from transformers alone, one ImportError at a time: exactly 5.23.0's 14 import pins.
    "5.24.0": ("transformers==5.24.0", *_CHAT_PARSING_5_23),
}
NEWEST = list(RELEASES)[-1]

# The release `template_oracle` and an oracle built without a version are (the first template release).
TRANSFORMERS_VERSION = "5.23.0"
REQUIREMENTS = RELEASES[TRANSFORMERS_VERSION]


def requirements(version: str) -> tuple[str, ...]:
    """The pins for `version`: its row, else the newest row's with transformers=={version}."""
    if version in RELEASES:
        return RELEASES[version]
    return (f"transformers=={version}", *(pin for pin in RELEASES[NEWEST] if not pin.startswith("transformers==")))


def runtime_of(version: str) -> str:
    """"5.24.0" -> "5.24", what our engine's `runtime=` takes."""
    return ".".join(version.split(".")[:2])


def full_version(release: str) -> str:
    """"5.24" or "5.24.0" -> the supported release "5.24.0" (a minor of no row: "<minor>.0")."""
    parts = release.strip().split(".")
    if len(parts) < 2 or not all(part.isdigit() for part in parts) or len(parts) > 3:
        raise ValueError(f"not a release: {release!r} (expected MAJOR.MINOR or MAJOR.MINOR.PATCH, e.g. 5.24.0)")
    if len(parts) == 3:
        return ".".join(parts)
    matches = [version for version in RELEASES if runtime_of(version) == release.strip()]
    return matches[-1] if matches else f"{release.strip()}.0"


class Release:
    """One release a differential test runs against: the oracle's transformers `version` ("5.24.0"), and
    the `runtime` our engine is called with ("5.24"; None, the engine's newest, for a release the engine
    does not know yet, WORKBENCH_NEW_RELEASE). Its str is the test id."""

    def __init__(self, version: str, runtime: str | None) -> None:
        self.version, self.runtime = version, runtime

    def __repr__(self) -> str:
        return self.runtime if self.runtime is not None else f"{self.version}-new"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Release) and (self.version, self.runtime) == (other.version, other.runtime)

    def __hash__(self) -> int:
        return hash((self.version, self.runtime))


NEW_RELEASE_VARIABLE = "WORKBENCH_NEW_RELEASE"


def oracle_releases() -> list[Release]:
    """What the template differential suites run against: every row of RELEASES, each with its own
    runtime=; or, when WORKBENCH_NEW_RELEASE names a release (python -m tests.new_release), that one
    alone against our engine's newest behaviour (runtime=None)."""
    new = os.environ.get(NEW_RELEASE_VARIABLE, "").strip()
    if new:
        return [Release(full_version(new), None)]
    return [Release(version, runtime_of(version)) for version in RELEASES]


ROOT = Path(__file__).resolve().parent.parent
SERVER = Path(__file__).resolve().parent / "template_oracle_server.py"
STAMP_NAME = "oracle-stamp.json"
BUILD_LOG_NAME = "build.log"
LOCK_TIMEOUT = 900.0


class OracleError(RuntimeError):
    """The oracle could not answer (not an exception raised by transformers: those are results)."""


class OracleUnavailable(OracleError):
    """The oracle's environment cannot be built here."""


class OracleTimeout(OracleError):
    """The server did not answer in time; it was stopped and the next call starts a new one."""


class OracleUnencodable(OracleError):
    """transformers returned a value that JSON cannot carry faithfully."""


# ---------------------------------------------------------------------------------------------
# The environment


def env_dir(version: str = TRANSFORMERS_VERSION) -> Path:
    """Where `version`'s environment lives: WORKBENCH_ORACLE_DIR (5.23.0 only, the older setting), else
    WORKBENCH_ORACLES/transformers-<version>, else <repo>/.oracles/transformers-<version>."""
    configured = os.environ.get("WORKBENCH_ORACLE_DIR")
    if configured and version == TRANSFORMERS_VERSION:
        return Path(configured).expanduser().resolve()
    parent = os.environ.get("WORKBENCH_ORACLES")
    base = Path(parent).expanduser().resolve() if parent else ROOT / ".oracles"
    return base / f"transformers-{version}"


def _env_python(directory: Path) -> Path:
    if os.name == "nt":
        return directory / "Scripts" / "python.exe"
    return directory / "bin" / "python"


def _base_python() -> str:
    return os.environ.get("WORKBENCH_ORACLE_PYTHON") or sys.executable


def base_python_of(base_python: str) -> tuple[str, str]:
    """The version and base prefix of the Python an environment is built from (both in its stamp)."""
    if base_python == sys.executable:
        return sys.version.split()[0], sys.base_prefix
    try:
        probe = subprocess.run(
            [base_python, "-c", "import sys; print(sys.version.split()[0]); print(sys.base_prefix)"],
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError as exc:
        raise OracleUnavailable(f"the base Python {base_python!r} does not run: {exc}") from None
    if probe.returncode != 0:
        raise OracleUnavailable(f"the base Python {base_python!r} does not run: {probe.stderr.strip()}")
    version, base_prefix = probe.stdout.split("\n")[:2]
    return version, base_prefix


def _wanted_stamp(base_python: str, version: str = TRANSFORMERS_VERSION) -> dict[str, Any]:
    release = version
    version, base_prefix = base_python_of(base_python)
    if tuple(int(part) for part in version.split(".")[:2]) < (3, 11):
        raise OracleUnavailable(
            f"transformers {release} needs Python 3.11+, and {base_python} is {version}: "
            "set WORKBENCH_ORACLE_PYTHON to a Python 3.11+ interpreter"
        )
    return {
        "format": 1,
        "transformers": release,
        "requirements": list(requirements(release)),
        "python": version,
        "base_prefix": base_prefix,
    }


def _is_built(directory: Path, wanted: dict[str, Any]) -> bool:
    """Whether ``directory`` holds a finished environment stamped ``wanted`` (the oracles of
    vllm_oracle.py use it too: every stamp is a file named STAMP_NAME)."""
    try:
        stamp = json.loads((directory / STAMP_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if not isinstance(stamp, dict):
        return False
    stamp.pop("built_in_s", None)  # recorded, not compared
    return stamp == wanted and _env_python(directory).exists()


class _FileLock:
    """An exclusive lock on a file beside the environment, so parallel runs build it once."""

    def __init__(self, path: Path, timeout: float) -> None:
        self.path = path
        self.timeout = timeout
        self._fd: int | None = None

    def __enter__(self) -> _FileLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                _lock(self._fd)
                return self
            except BlockingIOError:
                if time.monotonic() > deadline:
                    os.close(self._fd)
                    raise OracleUnavailable(
                        f"waited {self.timeout:.0f} s for {self.path}: another run is still building "
                        "the oracle environment (or died holding the lock: remove the file)"
                    ) from None
                time.sleep(0.2)

    def __exit__(self, *exc: object) -> None:
        assert self._fd is not None
        _unlock(self._fd)
        os.close(self._fd)


if os.name == "nt":  # pragma: no cover - the project's machines are POSIX
    import msvcrt

    def _lock(fd: int) -> None:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            raise BlockingIOError from None

    def _unlock(fd: int) -> None:
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _lock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


def ensure_env(version: str = TRANSFORMERS_VERSION, directory: Path | None = None, *, log=None) -> Path:
    """The Python of `version`'s oracle environment, built first if it is missing, stale or unfinished.

    Raises OracleUnavailable (with the end of pip's output) when it cannot be built.
    """
    if isinstance(version, Path):  # the older call ensure_env(directory)
        version, directory = TRANSFORMERS_VERSION, version
    directory = Path(directory) if directory is not None else env_dir(version)
    log = log or (lambda message: print(message, file=sys.stderr, flush=True))
    base_python = _base_python()
    wanted = _wanted_stamp(base_python, version)
    python = _env_python(directory)
    if _is_built(directory, wanted):
        return python
    with _FileLock(directory.with_name(directory.name + ".lock"), LOCK_TIMEOUT):
        if _is_built(directory, wanted):
            return python  # another run built it while we waited
        _build(directory, base_python, wanted, log)
    return python


def _build(directory: Path, base_python: str, stamp: dict[str, Any], log) -> None:
    if directory.exists():
        ours = {BUILD_LOG_NAME, STAMP_NAME, "pyvenv.cfg"}
        if not (directory / "pyvenv.cfg").exists() and any(p.name not in ours for p in directory.iterdir()):
            raise OracleUnavailable(f"{directory} is not empty and is not a virtual environment: not touching it")
        shutil.rmtree(directory)
    started = time.monotonic()
    release = stamp.get("transformers", TRANSFORMERS_VERSION)
    log(f"building the transformers {release} oracle environment in {directory} (once)")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    python = _env_python(directory)
    steps = [
        [base_python, "-m", "venv", str(directory)],
        # --no-compile: byte-compiling all of transformers took 10 of the 16 s a build took; the check
        # below compiles what chat_parsing imports, and only that is ever imported.
        [str(python), "-m", "pip", "install", "--no-deps", "--no-input", "--disable-pip-version-check", "--no-compile",
         *stamp.get("requirements", REQUIREMENTS)],
        [
            str(python),
            "-I",
            "-c",
            "import transformers, transformers.utils.chat_parsing; print(transformers.__version__)",
        ],
    ]
    log_lines: list[str] = []
    for command in steps:
        try:
            run = subprocess.run(command, capture_output=True, text=True, env={**env, **runtimes.QUIET}, check=False)
        except OSError as exc:
            raise OracleUnavailable(f"could not run {command[0]}: {exc}") from None
        log_lines += [f"$ {' '.join(command)}", run.stdout, run.stderr]
        if run.returncode != 0:
            _write_build_log(directory, log_lines)
            tail = "\n".join((run.stdout + run.stderr).strip().splitlines()[-20:])
            raise OracleUnavailable(
                f"could not build the oracle environment in {directory}: `{' '.join(command[:4])} …` "
                f"exited {run.returncode}\n{tail}"
            )
    found = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else ""
    if found != release:
        _write_build_log(directory, log_lines)
        raise OracleUnavailable(f"the oracle environment in {directory} has transformers {found!r}")
    _write_build_log(directory, log_lines)
    stamp_file = directory / STAMP_NAME
    temporary = stamp_file.with_suffix(".tmp")
    temporary.write_text(json.dumps({**stamp, "built_in_s": round(time.monotonic() - started, 1)}, indent=1))
    temporary.replace(stamp_file)
    log(f"oracle environment ready in {time.monotonic() - started:.1f} s")


def _write_build_log(directory: Path, lines: list[str]) -> None:
    try:
        (directory / BUILD_LOG_NAME).write_text("\n".join(lines), encoding="utf-8")
    except OSError:
        pass


# ---------------------------------------------------------------------------------------------
# The client


def _check_plain(value: Any, path: str = "$") -> None:
    """TypeError unless JSON carries this value unchanged (the server's rule, for inputs)."""
    kind = type(value)
    if kind in (str, int, float, bool, type(None)):
        return
    if kind is list:
        for i, item in enumerate(value):
            _check_plain(item, f"{path}[{i}]")
        return
    if kind is dict:
        for key, item in value.items():
            if type(key) is not str:
                raise TypeError(f"{path}: dict key {key!r} is a {type(key).__name__}, which JSON cannot carry")
            _check_plain(item, f"{path}[{key!r}]")
        return
    raise TypeError(f"{path}: a {kind.__name__} cannot be sent to the oracle as JSON (lists and dicts only)")


def _error(error: dict[str, Any]) -> tuple[str, str, str]:
    return ("error", error["type"], error["message"])


class TemplateOracle:
    """A long-lived server in the oracle environment. Not thread-safe across calls; one per session."""

    def __init__(
        self,
        python: Path | str | None = None,
        *,
        version: str = TRANSFORMERS_VERSION,
        timeout: float = 30.0,
        start_timeout: float = 120.0,
    ):
        self.release = version  # the transformers release the server must report
        self.python = str(python if python is not None else ensure_env(version))
        self.timeout = timeout
        self.start_timeout = start_timeout
        self._process: subprocess.Popen[bytes] | None = None
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque(maxlen=200)
        self._next_id = 0
        self._lock = threading.Lock()

    # -- process --------------------------------------------------------------------------------

    def start(self) -> None:
        if self._process is not None and self._process.poll() is None:
            return
        # As export --verify runs a release (-I: nothing of this environment leaks in; quiet, offline).
        self._process = runtimes.start_python(
            self.python, SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self._lines = queue.Queue()
        self._stderr.clear()
        threading.Thread(target=self._pump_stdout, args=(self._process, self._lines), daemon=True).start()
        threading.Thread(target=self._pump_stderr, args=(self._process,), daemon=True).start()
        ready = self._receive(self.start_timeout, "start")
        if not ready.get("ready") or ready.get("transformers") != self.release:
            self.close()
            raise OracleError(f"the oracle server started with {ready!r}, expected transformers {self.release}")

    @staticmethod
    def _pump_stdout(process: subprocess.Popen[bytes], lines: queue.Queue[bytes | None]) -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line)
        lines.put(None)

    def _pump_stderr(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stderr is not None
        for line in process.stderr:
            self._stderr.append(line.decode("utf-8", "replace").rstrip("\n"))

    def close(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        try:
            if process.stdin is not None:
                process.stdin.close()
            process.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            process.kill()
            process.wait()

    def __enter__(self) -> TemplateOracle:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _stderr_tail(self) -> str:
        tail = "\n".join(list(self._stderr)[-20:])
        return f"\nserver stderr:\n{tail}" if tail else ""

    def _receive(self, timeout: float, what: str) -> dict[str, Any]:
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            process, self._process = self._process, None
            if process is not None:
                process.kill()
                process.wait()
            raise OracleTimeout(
                f"the oracle server gave no answer to {what} within {timeout:g} s; it was stopped "
                "(the next call starts a new one)" + self._stderr_tail()
            ) from None
        if line is None:
            process, self._process = self._process, None
            code = process.wait() if process is not None else None
            time.sleep(0.05)  # let the stderr pump catch the traceback
            raise OracleError(f"the oracle server exited ({code}) during {what}" + self._stderr_tail())
        return json.loads(line)

    def _call(self, op: str, timeout: float | None = None, **fields: Any) -> Any:
        with self._lock:
            self.start()
            assert self._process is not None and self._process.stdin is not None
            self._next_id += 1
            request = {"id": self._next_id, "op": op, **fields}
            data = (json.dumps(request, allow_nan=True, ensure_ascii=True) + "\n").encode("ascii")
            try:
                self._process.stdin.write(data)
                self._process.stdin.flush()
            except OSError:
                pass  # it died: _receive reports it, with its stderr
            reply = self._receive(self.timeout if timeout is None else timeout, op)
            if reply.get("id") != request["id"]:
                self.close()
                raise OracleError(f"the oracle server answered {reply.get('id')!r} to request {request['id']}")
            if reply.get("ok"):
                return reply["result"]
            if "unencodable" in reply:
                raise OracleUnencodable(f"transformers returned a value JSON cannot carry: {reply['unencodable']}")
            raise OracleError(f"the oracle server refused the request: {reply.get('protocol')}")

    # -- the oracle -----------------------------------------------------------------------------

    def info(self) -> dict[str, str]:
        """Versions in the oracle environment: transformers, regex, python, and its executable."""
        return self._call("version")

    def version(self) -> str:
        return self.info()["transformers"]

    def parse(
        self, text: str, template: Any, prefix: str | None = "", tools: list[Any] | None = None
    ) -> tuple[str, Any] | tuple[str, str, str]:
        """`parse_response(text, template, prefix=prefix, tools=tools)`.

        ("value", message), or ("error", "ValueError", str(exc)) when transformers raises.
        `prefix=None` is passed on as None (transformers raises ValueError for it).
        """
        if type(text) is not str:
            raise TypeError(f"text must be a str, not {type(text).__name__}")
        _check_plain(template, "template")
        _check_plain(prefix, "prefix")
        _check_plain(tools, "tools")
        result = self._call("parse", text=text, template=template, prefix=prefix, tools=tools)
        if "error" in result:
            return _error(result["error"])
        return ("value", result["value"])

    def render(
        self, folder: str, messages: list[Any], tools: list[Any] | None = None, add_generation_prompt: bool = False,
        name: str | None = None, **kwargs: Any,
    ) -> tuple[str, str] | tuple[str, str, str]:
        """`AutoTokenizer.from_pretrained(folder).apply_chat_template(messages, tokenize=False, ...)`:
        ("value", text), or ("error", type, message) when transformers raises."""
        _check_plain(messages, "messages")
        _check_plain(tools, "tools")
        _check_plain(kwargs, "kwargs")
        result = self._call(
            "render", folder=str(folder), messages=messages, tools=tools, add_generation_prompt=add_generation_prompt,
            name=name, kwargs=kwargs,
        )
        if "error" in result:
            return _error(result["error"])
        return ("value", result["value"])

    def stream(
        self,
        chunks: Sequence[str],
        template: Any,
        prefix: str | None = "",
        tools: list[Any] | None = None,
        *,
        after: Sequence[str | None] = (),
    ) -> dict[str, Any]:
        """`ResponseParser(template, prefix, tools=tools)`, a feed() per chunk, then finalize().

        Always a dict with the same keys:
          initial_events  the parser's initial_events (None if construction raised)
          events          one list per feed() that returned
          message         finalize()'s message (None if it was not reached or raised)
          final_events    finalize()'s events (likewise)
          after           one outcome per call in `after`, made after finalize(): a str is a
                          feed() -> {"events": [...]}, None a finalize() -> {"message", "final_events"}
          error           None, or where the run stopped: {"type", "message", "step", "index"} with
                          step "construct", "feed" (index = the chunk), "finalize", or "after"
                          (index into `after`)
        Events are encoded as soon as each call returns them.
        """
        chunks = list(chunks)
        after = list(after)
        if any(type(chunk) is not str for chunk in chunks):
            raise TypeError("chunks must be strs")
        if any(call is not None and type(call) is not str for call in after):
            raise TypeError("after: a str (feed) or None (finalize)")
        _check_plain(template, "template")
        _check_plain(prefix, "prefix")
        _check_plain(tools, "tools")
        return self._call("stream", chunks=chunks, template=template, prefix=prefix, tools=tools, after=after)


# ---------------------------------------------------------------------------------------------
# For the pytest fixture (tests/conftest.py)


def session_python(version: str = TRANSFORMERS_VERSION) -> Path:
    """ensure_env(version) for a fixture: a failed build fails the test, or skips it when
    WORKBENCH_ALLOW_NO_ORACLE=1."""
    import pytest

    try:
        return ensure_env(version)
    except OracleUnavailable as exc:
        if os.environ.get("WORKBENCH_ALLOW_NO_ORACLE") == "1":
            pytest.skip(f"transformers {version} oracle unavailable (WORKBENCH_ALLOW_NO_ORACLE=1): {exc}")
        pytest.fail(
            f"the transformers {version} oracle environment could not be built: {exc}\n"
            "(set WORKBENCH_ALLOW_NO_ORACLE=1 to skip the tests that need it instead)",
            pytrace=False,
        )


def session_oracle(version: str = TRANSFORMERS_VERSION) -> Iterator[TemplateOracle]:
    """The body of the session fixtures `template_oracle` and `release_oracle`: build, start, yield, stop."""
    oracle = TemplateOracle(session_python(version), version=version)
    oracle.start()
    try:
        yield oracle
    finally:
        oracle.close()


def _main(argv: list[str]) -> None:
    version = full_version(argv[0]) if argv else TRANSFORMERS_VERSION
    started = time.monotonic()
    python = ensure_env(version)
    print(f"environment: {python.parent.parent} ({time.monotonic() - started:.1f} s)")
    started = time.monotonic()
    with TemplateOracle(python, version=version) as oracle:
        print(f"server start: {time.monotonic() - started:.2f} s; {oracle.info()}")
        template = {"fields": {"content": {"close": "<|im_end|>"}}, "start_anchor": "<|im_start|>assistant\n"}
        for label, call in (
            ("parse", lambda: oracle.parse("Hello there!<|im_end|>", template)),
            ("stream", lambda: oracle.stream(["Hello ", "there!<|im", "_end|>"], template)),
        ):
            count = 500
            started = time.perf_counter()
            for _ in range(count):
                call()
            print(f"{label} round trip: {(time.perf_counter() - started) / count * 1e3:.3f} ms")


if __name__ == "__main__":
    _main(sys.argv[1:])
