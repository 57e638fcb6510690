"""One way to run another environment's Python (issue 34): ``workbench.jobs.runtimes.start_python``
(``python -I …``, quiet, off the hub, in a session of its own) starts export --verify's probe and
every oracle's server or runner in the tests. Left apart: the builders' own checks of a fresh
environment (a ``_build``), which go with the recipes (see the report of issue 34)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WHERE = [*sorted((ROOT / "workbench").rglob("*.py")), *sorted((ROOT / "tests").glob("*oracle*.py"))]


def _enclosing(tree: ast.AST) -> dict[ast.AST, str]:
    """Each node -> the name of the function it sits in ("" at module level)."""
    names: dict[ast.AST, str] = {}

    def visit(node: ast.AST, name: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else name
            names[child] = inner
            visit(child, inner)

    visit(tree, "")
    return names


def _isolated_starts(path: Path) -> list[tuple[int, str]]:
    """(line, function) of each argv holding "-I": a Python started isolated, i.e. another environment's."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    where = _enclosing(tree)
    return [(node.lineno, where[node]) for node in ast.walk(tree) if isinstance(node, (ast.List, ast.Tuple))
            and any(isinstance(e, ast.Constant) and e.value == "-I" for e in node.elts)]


def test_another_environments_python_starts_one_way():
    elsewhere = [f"{path.relative_to(ROOT)}:{line} ({function or 'module'})" for path in WHERE
                 for line, function in _isolated_starts(path)
                 if not (path.name == "runtimes.py" and function == "start_python") and function != "_build"]
    assert elsewhere == [], "start it with workbench.jobs.runtimes.start_python:\n" + "\n".join(elsewhere)


def test_the_servers_and_the_probe_use_it():
    for path in ("workbench/jobs/runtimes.py", "tests/template_oracle.py", "tests/python_calls_oracle.py",
                 "tests/vllm_oracle.py"):
        assert "start_python(" in (ROOT / path).read_text(encoding="utf-8").replace("def start_python(", ""), path
