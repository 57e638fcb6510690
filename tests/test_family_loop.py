"""`check` and `check --linear` go through one family loop (jobs/families.py) and give one result type."""

from __future__ import annotations

import ast
import json
from pathlib import Path

from workbench.jobs import check as check_job, families, linearity

PACKAGE = Path(__file__).resolve().parent.parent / "workbench"
LOOP = PACKAGE / "jobs" / "families.py"
# What walking the families takes: their parsers' files, their sample folders, their samples.
WALKING = {"parser_files", "iterdir", "is_sample_file", "load_schema"}


def _called(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            func = node.func
            names.add(func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", ""))
    return names


def test_only_the_family_loop_walks_the_families():
    for job in ("check.py", "linearity.py"):
        assert not _called(PACKAGE / "jobs" / job) & WALKING, job
    assert not _called(PACKAGE / "cli" / "check.py") & WALKING
    walkers = [str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py") if "parser_files" in _called(p)]
    assert walkers == ["jobs/families.py"]


def test_one_result_type_for_both_commands():
    defined = [str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")
               if "class FamilyResult" in p.read_text(encoding="utf-8")]
    assert defined == ["jobs/families.py"]
    assert check_job.FamilyResult is linearity.FamilyResult is families.FamilyResult


def tree(root: Path) -> Path:
    (root / "schemas").mkdir()
    (root / "schemas" / "empty.json").write_text(json.dumps({"type": "object", "properties": {}}))
    (root / "sample_outputs" / "empty").mkdir(parents=True)  # a parser, no samples
    (root / "sample_outputs" / "orphan").mkdir()  # samples, no parser
    (root / "sample_outputs" / "orphan" / "a.txt").write_text("hi")
    (root / "sample_outputs" / "other").mkdir()  # left out by --family
    return root


def test_both_commands_see_the_same_families_and_problems(tmp_path):
    root = tree(tmp_path)
    args = (root / "schemas", root / "sample_outputs", ["empty", "orphan"])
    checked = check_job.check(*args)
    linear = linearity.check_linear(*args, jobs=1)
    assert [type(r) for r in checked + linear] == [families.FamilyResult] * 4
    seen = [[(r.family, r.schema, str(r.format), r.problem, r.ok) for r in results] for results in (checked, linear)]
    assert seen[0] == seen[1] == [
        ("empty", str(root / "schemas" / "empty.json"), "response_schema", f"{root / 'sample_outputs' / 'empty'}: no samples", False),
        ("orphan", str(root / "schemas" / "orphan.json"), "response_schema", f"{root / 'schemas' / 'orphan.json'}: no such schema file", False),
    ]
