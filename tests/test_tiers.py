"""The fast tier (tests/tiers.py): its files and families exist, conftest marks exactly its
tests, a family-wide test runs on the sample only, and the README names the command."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib

from tiers import FAMILY_SAMPLE, FAMILY_WIDE, FAST_FILES, ROOT, families, is_fast


def test_the_tier_names_files_and_families_that_exist():
    assert sorted(name for name in FAST_FILES if not (ROOT / "tests" / name).is_file()) == []
    assert sorted(FAMILY_SAMPLE - families()) == []
    assert FAMILY_WIDE <= FAST_FILES
    # the floors and the seam are always in it
    assert {"test_floors.py", "test_format_seam.py", "test_engine_is_ui_free.py"} <= FAST_FILES


def test_a_family_wide_test_is_fast_for_the_sampled_families_only():
    known = families()
    assert is_fast("tests/test_goldens.py::test_golden_equals_transformers[qwen3/tool_call]", known)
    assert not is_fast("tests/test_goldens.py::test_golden_equals_transformers[apertus/tool_call]", known)
    assert is_fast("tests/test_never_silently_wrong.py::test_near_miss_outputs_are_right_or_fail[gpt_oss/reasoning-response_schema]", known)
    assert not is_fast("tests/test_never_silently_wrong.py::test_near_miss_outputs_are_right_or_fail[lfm2/reasoning-response_template]", known)
    assert is_fast("tests/test_output_shapes.py::test_every_word_comes_back[glm45-response_schema]", known)
    assert not is_fast("tests/test_output_shapes.py::test_every_word_comes_back[mimo-response_template]", known)
    # a test that names no family is in or out with its file
    assert is_fast("tests/test_engine_cases.py::test_case[11-plain]", known)
    assert is_fast("tests/test_floors.py::test_every_import_runs_down_the_floors", known)
    assert not is_fast("tests/test_tui.py::test_open", known)


def test_the_marker_is_registered_and_the_readme_names_the_command():
    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    assert any(marker.startswith("fast:") for marker in options["markers"])
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "python -m pytest -m fast" in readme
    # the README's first block still runs the whole suite, for CI
    assert "pip install '.[test]' && python -m pytest\n" in readme


def test_conftest_marks_the_tier_when_collecting():
    files = ["tests/test_goldens.py", "tests/test_floors.py", "tests/test_api.py"]
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-o", "addopts=", "--collect-only", "-q", "-m", "fast", *files],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    selected = [line for line in run.stdout.splitlines() if "::" in line]
    assert any(line.startswith("tests/test_floors.py::") for line in selected)
    assert not any(line.startswith("tests/test_api.py::") for line in selected)
    goldens = [line for line in selected if line.startswith("tests/test_goldens.py::")]
    sampled = [re.search(r"[\[-]([a-z0-9_]+)/", line) for line in goldens]
    assert goldens and all(m.group(1) in FAMILY_SAMPLE for m in sampled if m)
    assert len({m.group(1) for m in sampled if m}) >= 3
