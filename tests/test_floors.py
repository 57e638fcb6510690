"""The house's floors are its folders, and every import runs down them (docs/architecture.md):
faces (``cli/``, ``tui/``) → jobs (``jobs/``, ``live/``, ``scan/``) → ``store/`` → ``formats/``
→ ``engine/``, which imports nothing above it. The package's root holds only its public face."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "workbench"
# Each folder's floor; an import may stay on its floor or go down, never up. ``api`` is the
# public face for scripts: it stands with the faces.
FLOORS = {"cli": 4, "tui": 4, "api": 4, "__main__": 4, "jobs": 3, "live": 3, "scan": 3, "store": 2, "formats": 1,
          "engine": 0}


def _room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _imports(path: Path) -> list[tuple[int, str]]:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    package = parts[:-1] if parts[-1] != "__init__" else parts[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.startswith("workbench"):
                names = [f"{target}.{a.name}" for a in node.names] if target == "workbench" else [target]
                found += [(node.lineno, name) for name in names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.startswith("workbench")]
    return found


def test_the_root_holds_only_the_public_face():
    loose = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert loose == ["__init__.py", "__main__.py", "api.py"], loose
    assert sorted(p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__") == sorted(
        room for room in FLOORS if room not in ("api", "__main__"))


def test_every_import_runs_down_the_floors():
    upward = []
    for path in sorted(PACKAGE.rglob("*.py")):
        here = _room(".".join(path.relative_to(ROOT).with_suffix("").parts))
        if here == "__init__":
            continue  # the package's face re-exports the api
        for line, target in _imports(path):
            there = _room(target)
            if there in FLOORS and FLOORS[there] > FLOORS[here]:
                upward.append(f"{path.relative_to(ROOT)}:{line}: {here} imports {target}")
    assert upward == [], "\n".join(upward)


def test_the_engine_imports_nothing_outside_it():
    outside = [f"{path.relative_to(ROOT)}:{line}: {target}" for path in sorted((PACKAGE / "engine").rglob("*.py"))
               for line, target in _imports(path) if not target.startswith("workbench.engine")]
    assert outside == [], "\n".join(outside)
