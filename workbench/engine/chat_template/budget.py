"""Rendering an untrusted chat template under a budget: time, output and memory.

jinja2's sandbox bounds what a template may touch, not what it may cost: two nested
``range(100000)`` loops run for hours, ``strftime_now('%Y' * 10**8)`` takes gigabytes, and
``'x' * 10**10`` is one C-level multiplication no signal interrupts. transformers has no budget;
the workbench renders templates from strangers, so its commands render through a
``SandboxedRenderer``: one child process per command (forked, so nothing is imported again) that
compiles the template and renders every conversation the command asks for, under

- ``seconds``: the wall-clock time all of the command's renders may take together; past it the
  child is killed;
- ``max_chars``: the characters one render may write (counted as ``template.generate()`` yields
  them, so the render stops at the cap rather than after building the whole text);
- ``memory``: the address space the child may add to what it had when it was forked
  (``RLIMIT_AS``), so a huge allocation fails at once with a ``MemoryError`` instead of taking
  the machine's memory. Compiling is inside the budget too: jinja2 folds constant expressions such
  as ``'%Y' * 10**8`` when it compiles.

Overrunning any of them is a ``RenderOverBudget`` (one sentence saying which); a template's own
error stays a ``ChatTemplateError``, exactly as in process. The rendered text is what
``render_chat`` gives, byte for byte: the child runs the same ``render_compiled``.

``ChatRenderer`` is the same interface in this process (no time or memory budget), which the
engine's functions use when given a template's source; both memoise renders, so a command that
renders the same conversation twice (``draft`` runs two round trips) renders it once.
"""

from __future__ import annotations

import json
import math
import os
import signal
import time
import weakref
from dataclasses import dataclass
from multiprocessing import Pipe
from typing import Any, Callable

from .render import ChatTemplateError, OutputCapExceeded, _template_line, compile_chat_template, render_compiled

try:
    import resource
except ImportError:  # not POSIX: no memory limit
    resource = None  # type: ignore[assignment]

TIME, OUTPUT, MEMORY, DIED = "time", "output", "memory", "died"


@dataclass(frozen=True)
class RenderBudget:
    # A probe conversation renders in milliseconds and a command renders a few dozen: 5 s together
    # is a hundred times what a real template needs, and short enough to wait for.
    seconds: float = 5.0
    # A probe's render is a few KB; a system prompt listing many tools stays far below a million
    # characters, which a runaway loop passes within a fraction of a second.
    max_chars: int = 1_000_000
    # Rendering needs a few MB above the process; 256 MiB leaves room for templates that build
    # large strings on purpose and stops one that asks for gigabytes before the machine swaps.
    memory: int = 256 * 2**20


class RenderOverBudget(Exception):
    """A render that overran the budget (``kind``: time, output, memory) or whose process died."""

    def __init__(self, kind: str, budget: RenderBudget, line: int | None = None, detail: str = "") -> None:
        self.kind, self.budget, self.line, self.detail = kind, budget, line, detail
        super().__init__(str(self))

    def __str__(self) -> str:
        at = f" (at line {self.line})" if self.line else ""
        if self.kind == TIME:
            return (f"the chat template did not finish rendering within {self.budget.seconds:g} s, so it was stopped "
                    f"(--render-timeout SECONDS sets the time a command's renders may take together)")
        if self.kind == OUTPUT:
            return f"a render of the chat template passed {self.budget.max_chars:,} characters{at}, so it was stopped"
        if self.kind == MEMORY:
            return f"rendering the chat template needed more than {self.budget.memory // 2**20} MiB of memory{at}, so it was stopped"
        return f"the process rendering the chat template ended unexpectedly ({self.detail})"


class ChatRenderer:
    """One chat template with its special tokens and variables, rendered in this process; the same
    conversation is rendered once. ``progress(status)`` is called before each new render."""

    # a Jinja template reads ``bos_token``, ``eos_token``, … as variables (a Python renderer has its own)
    reads_special_tokens = True

    def __init__(self, source: str, special_tokens: dict[str, str] | None = None, variables: dict[str, Any] | None = None) -> None:
        self.source = source
        self.variables = {**(special_tokens or {}), **(variables or {})}
        self.status = ""  # what is being rendered (``probe 3/7 one_call``), for ``progress``
        self.progress: Callable[[str], None] | None = None
        self.renders = 0
        self._memo: dict[str, tuple[str, Any]] = {}

    def check(self) -> None:
        """Compile the template: ``ChatTemplateError`` at the line jinja2 could not read."""
        compile_chat_template(self.source)

    def render(self, messages: list[dict], *, tools: list[dict] | None = None, documents: list[dict] | None = None,
               add_generation_prompt: bool = False, defaults: dict[str, str] | None = None) -> str:
        """The render; ``defaults`` are variables for names the renderer does not set (special
        tokens a bare ``.jinja`` has no folder for)."""
        request = {"messages": messages, "tools": tools, "documents": documents, "add_generation_prompt": add_generation_prompt}
        if defaults:
            request["defaults"] = defaults
        key = json.dumps(request, ensure_ascii=False, default=repr)  # key order kept: a template may iterate a dict
        if key not in self._memo:
            self.renders += 1
            if self.progress is not None:
                self.progress(self.status)
            try:
                self._memo[key] = ("value", self._render(request))
            except ChatTemplateError as exc:
                self._memo[key] = ("error", (exc.message, exc.line))
        kind, value = self._memo[key]
        if kind == "error":
            raise ChatTemplateError(*value)
        return value

    def _render(self, request: dict) -> str:
        request = dict(request)
        variables = {**request.pop("defaults", {}), **self.variables}
        return render_compiled(compile_chat_template(self.source), variables=variables, **request)

    def close(self) -> None:
        pass

    def __enter__(self) -> "ChatRenderer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def renderer_for(template: "str | ChatRenderer", special_tokens: dict[str, str] | None, variables: dict[str, Any]) -> ChatRenderer:
    """The renderer an engine function was given, or one in this process for a template's source."""
    if isinstance(template, ChatRenderer):
        if special_tokens or variables:
            raise TypeError("special tokens and variables belong to the renderer")
        return template
    return ChatRenderer(template, special_tokens, variables)


_LIVE: "weakref.WeakSet[SandboxedRenderer]" = weakref.WeakSet()  # renderers with a child


class SandboxedRenderer(ChatRenderer):
    """The template compiled and rendered in a child process under ``budget`` (see the module's
    docstring). The child starts at the first request and is killed by ``close()``. A render past
    the budget raises ``RenderOverBudget``, after which the renderer is closed. Where ``fork`` is
    missing it renders in this process under the output cap alone."""

    def __init__(self, source: str, special_tokens: dict[str, str] | None = None, variables: dict[str, Any] | None = None,
                 budget: RenderBudget = RenderBudget()) -> None:
        super().__init__(source, special_tokens, variables)
        self.budget = budget
        self.used = 0.0  # seconds spent waiting on the child
        self._pid: int | None = None
        self._conn: Any = None
        self._closed = False

    def check(self) -> None:
        self._ask(("compile", None))

    def _render(self, request: dict) -> str:
        return self._ask(("render", request))

    def _ask(self, request: tuple) -> Any:
        if self._closed:
            raise RuntimeError("the renderer is closed")
        if hasattr(os, "fork"):
            kind, value = self._exchange(request)
        else:
            kind, value = self._answerer()(request)
        if kind == "value":
            return value
        if kind == "error":
            raise ChatTemplateError(*value)
        self.close()
        raise RenderOverBudget(kind, self.budget, line=value)

    def _answerer(self) -> Callable[[tuple], tuple[str, Any]]:
        """What answers a request where the renders run (the child): ``_answer``'s contract."""
        return lambda request: _answer(request, self.source, self.variables, self.budget)

    def _exchange(self, request: tuple) -> tuple[str, Any]:
        if self._pid is None:
            self._start()
        started = time.monotonic()
        try:
            self._conn.send(request)
            ready = self._conn.poll(max(self.budget.seconds - self.used, 0.0))
            self.used += time.monotonic() - started
            if not ready:
                self.close()
                raise RenderOverBudget(TIME, self.budget)
            return self._conn.recv()
        except (EOFError, OSError):
            status = self.close()
            raise RenderOverBudget(DIED, self.budget, detail=_how_it_ended(status)) from None

    def _start(self) -> None:
        import sys

        for stream in (sys.stdout, sys.stderr):  # nothing buffered here may be written twice
            try:
                stream.flush()
            except (AttributeError, OSError, ValueError):
                pass
        ours, theirs = Pipe()
        pid = os.fork()
        if pid == 0:  # the child: serve requests until the pipe closes, then leave without cleanup
            code = 0
            try:
                _own_group()
                ours.close()
                for other in list(_LIVE):  # another child must see its pipe close when the parent goes,
                    other._reap.detach()  # and is not this one's to kill
                    other._conn.close()
                _detach()
                _serve(theirs, self._answerer(), self.budget)
            except BaseException:  # noqa: BLE001 - the parent sees the pipe close and says so
                code = 1
            finally:
                os._exit(code)
        theirs.close()
        _own_group(pid)  # here too: a kill that comes before the child's own call still finds the group
        self._pid, self._conn = pid, ours
        _LIVE.add(self)
        # The child goes when the renderer does, or at exit, if nobody closed it.
        self._reap = weakref.finalize(self, _reap, pid, ours)

    def close(self) -> int | None:
        """Kill the child (it holds no state worth a goodbye); its wait status, if it had one."""
        self._closed = True
        if self._pid is None:
            return None
        self._pid = None
        _LIVE.discard(self)
        return self._reap()


def _own_group(pid: int = 0) -> None:
    """The child (``pid``, 0 in the child itself) leads a process group of its own, so whatever it
    starts (a renderer's ``subprocess.Popen``, an ``os.fork``) is killed with it. It stays in the
    command's session: a process that leaves the group on purpose is still the command's."""
    try:
        os.setpgid(pid, 0)
    except OSError:  # the child has already done it, or exited (its group is killed all the same)
        pass


def _reap(pid: int, conn: Any) -> int | None:
    for kill in (os.killpg, os.kill):  # the child's group, then the child alone had it no group yet
        try:
            kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:
        status = None
    conn.close()
    return status


def _how_it_ended(status: int | None) -> str:
    if status is None:
        return "no exit status"
    code = os.waitstatus_to_exitcode(status)
    if code == -signal.SIGKILL:
        return "killed; perhaps the system ran out of memory"
    if code < 0:
        return f"signal {signal.Signals(-code).name}"
    return f"exit code {code}"


def _detach() -> None:
    """In the child: nothing it does reaches the terminal (a fatal error's dump included), and it
    holds none of the parent's standard streams open (a pipe reader still sees its end)."""
    try:
        import faulthandler

        faulthandler.disable()
    except (ImportError, RuntimeError):
        pass
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)


def _serve(conn: Any, answer: Callable[[tuple], tuple[str, Any]], budget: RenderBudget) -> None:
    _limit(budget)
    while True:
        try:
            request = conn.recv()
        except EOFError:
            return
        conn.send(answer(request))


def _answer(request: tuple, source: str, variables: dict[str, Any], budget: RenderBudget) -> tuple[str, Any]:
    """("value", text), ("error", (message, line)) for the template's own error, or (kind, line)
    for the budget it overran."""
    what, arguments = request
    try:
        template = compile_chat_template(source)
        if what == "compile":
            return ("value", None)
        arguments = dict(arguments)
        variables = {**arguments.pop("defaults", {}), **variables}  # the renderer's own win over defaults
        return ("value", render_compiled(template, variables=variables, max_chars=budget.max_chars, **arguments))
    except ChatTemplateError as exc:
        return ("error", (exc.message, exc.line))
    except OutputCapExceeded:
        return (OUTPUT, None)
    except MemoryError as exc:
        return (MEMORY, _template_line(exc))


def _limit(budget: RenderBudget) -> None:
    """In the child: the address space it may add (where the platform has ``RLIMIT_AS``), and a CPU
    limit past the time budget, so a child whose parent died cannot spin on. Both hard limits are
    lowered too: code rendering here (a Python renderer) cannot raise its own soft limits back, and
    what it starts inherits them."""
    if resource is None:
        return
    try:
        cpu = math.ceil(budget.seconds) + 2
        _, hard = resource.getrlimit(resource.RLIMIT_CPU)
        cpu = cpu if hard == resource.RLIM_INFINITY else min(cpu, hard)
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
    except (ValueError, OSError, AttributeError):
        pass
    base = _address_space()
    if base is None:
        return
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = base + budget.memory
        for cap in (soft, hard):
            if cap != resource.RLIM_INFINITY:
                limit = min(limit, cap)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ValueError, OSError, AttributeError):
        pass


def _address_space() -> int | None:
    """This process's virtual memory size in bytes (Linux), else None."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None
