"""Module names that say what they hold: "scan" is `workbench scan`, and `check.py` is the
`workbench check` command's face (cli/) and job (jobs/), nothing else."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "workbench"


def _modules(name: str) -> list[str]:
    return sorted(str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob(name))


def test_scan_names_the_command_only():
    # finding a field's regions lives in engine/template/regions.py
    assert [m for m in _modules("scan.py") if not m.startswith("scan/")] == ["cli/scan.py"]
    assert not [m for m in _modules("*.py") if m.startswith("engine/") and "scan" in Path(m).stem]


def test_check_py_is_the_check_commands_face_and_job():
    # the backtracking check's risks live in engine/backtracking/risks.py
    assert _modules("check.py") == ["cli/check.py", "jobs/check.py"]


def test_no_import_names_the_old_modules():
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for old in ("template.scan", "backtracking.check"):
            assert old not in text, (path, old)
        if path.parent.name == "template":
            assert "from .scan " not in text, path
        if path.parent.name == "backtracking":
            assert "from .check " not in text, path
