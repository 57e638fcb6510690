"""The seam between the workbench and its two formats holds: outside the engine and ``formats/`` no
module imports a format's engine (except the template-only streaming view, which shows its engine's
replay), almost nothing names a format's internals or branches on the format, and the modules'
imports have no cycle."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "workbench"
SEAM = ("workbench/engine/", "workbench/formats/")
# The streaming view replays a response_template's events: it reads its engine's replay types.
STREAMING_VIEW = "workbench/tui/stream/"
FORMAT_ENGINES = ("workbench.engine.schema", "workbench.engine.template")
# Code (not comments or docstrings) that names a format or a format's trace, or tests which trace
# a result holds.
FORMAT_NAMES = {"SCHEMA", "TEMPLATE", "RESPONSE_SCHEMA", "RESPONSE_TEMPLATE", "template_trace", "TemplateTrace", "TraceNode",
                "OutlineNode"}
FORMAT_STRINGS = re.compile(r"^[\"']response_(schema|template)[\"']$")
TRACE_TEST = re.compile(r"\.trace is (not )?None")
MOST = 15


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _imports(path: Path, module: str, top_level_only: bool) -> set[str]:
    """The workbench modules ``module`` imports (``from x import y`` counts y when it is a module)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    out: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("workbench")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.startswith("workbench"):
                out.add(target)
                out |= {f"{target}.{a.name}" for a in node.names}
    return out


def _outside_the_seam() -> list[tuple[str, Path]]:
    return [(name, path) for name, path in _modules().items()
            if not any(str(path.relative_to(ROOT)).startswith(s) for s in SEAM)]


def test_only_formats_imports_a_format_engine():
    modules = _modules()
    offenders = []
    for name, path in _outside_the_seam():
        where = str(path.relative_to(ROOT))
        if where.startswith(STREAMING_VIEW):
            continue
        reached = {m for m in _imports(path, name, top_level_only=False) if m in modules}
        bad = sorted(m for m in reached if m.startswith(FORMAT_ENGINES))
        if bad:
            offenders.append(f"{where}: {', '.join(bad)}")
    assert offenders == []


def test_at_most_a_few_lines_outside_the_seam_name_a_format():
    lines = []
    for _, path in _outside_the_seam():
        text = path.read_text(encoding="utf-8")
        source = text.splitlines()
        found = set()
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if (token.type == tokenize.NAME and token.string in FORMAT_NAMES) or (
                    token.type == tokenize.STRING and FORMAT_STRINGS.match(token.string)):
                found.add(token.start[0])
        found |= {n for n, line in enumerate(source, 1) if TRACE_TEST.search(line.split("#")[0])}
        lines += [f"{path.relative_to(ROOT)}:{n}: {source[n - 1].strip()}" for n in sorted(found)]
    assert len(lines) <= MOST, "\n".join(lines)


def test_the_modules_import_no_cycle():
    modules = _modules()
    graph = {name: {m for m in _imports(path, name, top_level_only=True) if m in modules and m != name}
             for name, path in modules.items()}
    # A package's __init__ importing its own submodules is how a package re-exports: not a cycle.
    for name in graph:
        graph[name] = {m for m in graph[name] if not (name.startswith(m + ".") and m in modules)}
    cycles = []
    state: dict[str, int] = {}  # 1: on the stack, 2: done
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    assert cycles == []
