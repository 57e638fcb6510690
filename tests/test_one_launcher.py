"""One launcher (issue 34): only ``workbench/live/spawn.py`` starts a ``python -m workbench…`` child.
Every other place in the package that starts a process is listed below with why it is another kind."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "workbench"

# The calls and names that start a process.
STARTERS = {
    "subprocess": {"Popen", "run", "call", "check_call", "check_output", "getoutput", "getstatusoutput"},
    "os": {"fork", "forkpty", "system", "popen", "posix_spawn", "posix_spawnp", "spawnv", "spawnve", "spawnl",
           "spawnle", "spawnvp", "spawnvpe", "spawnlp", "spawnlpe", "execv", "execve", "execl", "execle",
           "execvp", "execvpe", "execlp", "execlpe"},
    "multiprocessing": {"Process", "Pool", "get_context", "set_start_method"},
    "concurrent.futures": {"ProcessPoolExecutor"},
    "asyncio": {"create_subprocess_exec", "create_subprocess_shell"},
}

# Where a process may start, and why it is not a second launcher of the workbench's own children.
ALLOWED = {
    "live/spawn.py": "THE launcher: python -m workbench.<module> over a socket pair (the analysis process, the one-job child)",
    "engine/chat_template/budget.py": "the chat-template sandbox's fork: the render child under a time and memory "
                                      "budget, the engine's one process of its own (docs/architecture.md)",
    "scan/local.py": "workbench scan's pool of row workers (multiprocessing, fed Arrow batches)",
    "jobs/linearity.py": "check --linear's pool of family workers (ProcessPoolExecutor, --jobs)",
    "jobs/runtimes.py": "another environment's Python (a transformers release: venv, pip, runtime_probe.py); "
                        "it runs no workbench code",
}


def _starts(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, what) for each call in the module that starts a process (names in a type hint start none)."""
    names: dict[str, str] = {}  # a local name -> the dotted name it stands for
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or alias.name.split(".")[0]
                names[local] = alias.name if alias.asname else local
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.update({a.asname or a.name: f"{node.module}.{a.name}" for a in node.names})
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        chain, value = [], node.func
        while isinstance(value, ast.Attribute):
            chain.append(value.attr)
            value = value.value
        if isinstance(value, ast.Name) and value.id in names:
            module, _, name = ".".join([names[value.id], *reversed(chain)]).rpartition(".")
            if name in STARTERS.get(module, ()):
                found.append((node.lineno, f"{module}.{name}"))
    return found


def _runs_python_m(tree: ast.AST) -> list[int]:
    """Lines of an argv (a list or tuple) that runs a workbench module with ``-m``: one naming it, or
    one whose module is computed (only spawn may do that)."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.List, ast.Tuple)):
            for here, after in zip(node.elts, node.elts[1:]):
                if isinstance(here, ast.Constant) and here.value == "-m" and not (
                        isinstance(after, ast.Constant) and not str(after.value).startswith("workbench")):
                    lines.append(node.lineno)
    return lines


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path.relative_to(PACKAGE).as_posix(), ast.parse(path.read_text(encoding="utf-8"))


def test_only_spawn_starts_a_python_m_child():
    elsewhere = [f"workbench/{where}:{line}" for where, tree in _modules() if where != "live/spawn.py"
                 for line in _runs_python_m(tree)]
    assert elsewhere == [], "a second launcher of python -m: start it with workbench.live.spawn.spawn\n" + "\n".join(elsewhere)


def test_processes_start_only_where_listed():
    unlisted = [f"workbench/{where}:{line}: {what}" for where, tree in _modules() if where not in ALLOWED
                for line, what in _starts(tree)]
    assert unlisted == [], "a process started outside live/spawn.py and the listed kinds:\n" + "\n".join(unlisted)
    # The list stays true: each allowed module still starts a process (else drop it from ALLOWED).
    starting = {where for where, tree in _modules() if _starts(tree)}
    assert set(ALLOWED) <= starting, set(ALLOWED) - starting


def test_the_analysis_process_and_the_child_start_through_spawn():
    for where in ("live/process.py", "live/child.py"):
        tree = ast.parse((PACKAGE / where).read_text(encoding="utf-8"))
        calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)
                 and isinstance(node.func, ast.Name) and node.func.id == "spawn"]
        assert len(calls) == 1, where


def test_the_checker_sees_the_ways_a_process_starts():
    seen = _starts(ast.parse("import subprocess as sp, os\nfrom multiprocessing import Process\n"
                             "import concurrent.futures\nsp.Popen([])\nos.fork()\n"
                             "concurrent.futures.ProcessPoolExecutor()\nos.path.join('a')\n"
                             "Process()\nx: sp.Popen = None\n"))
    assert sorted(what for _, what in seen) == ["concurrent.futures.ProcessPoolExecutor", "multiprocessing.Process",
                                                "os.fork", "subprocess.Popen"]
    assert _runs_python_m(ast.parse("x = [sys.executable, '-m', 'workbench.live.child']")) == [1]
    assert _runs_python_m(ast.parse("x = [sys.executable, '-m', module]")) == [1]
    assert _runs_python_m(ast.parse("x = [python, '-m', 'pip', 'install']")) == []
