"""validate on long regexes: the checks' work grows linearly with the pattern, and the loop check
has a budget past which it warns that it stopped instead of passing the regex silently.

No test here times anything in-process (the machine is shared): the growth is measured in Python
function calls, which do not depend on load, and the one wall-clock bound is a generous 20 s on a
run that took 30-77 s before.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from workbench import validate
from workbench.engine import ERROR, WARNING
from workbench.engine.template.slow_delimiters import slow_delimiters

ROOT = Path(__file__).resolve().parent.parent
LONG = "[a-z]*x" * 4000  # 28 KB: validate took 30-77 s on it, the trim check being quadratic


def _calls(fn) -> int:
    """How many Python functions ``fn`` calls: a measure of work that ignores the machine's load."""
    count = 0

    def profile(frame, event, arg):
        nonlocal count
        if event == "call":
            count += 1

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return count


def _schema(pattern: str) -> dict:
    return {"type": "string", "x-regex": f"({pattern})"}


@pytest.mark.parametrize("unit", ["[a-z]*x", "\\s*\\s*x", "(?:a|a)*b", "\\s*(?:a)?x"])
def test_validate_does_twice_the_work_for_a_regex_twice_as_long(unit):
    validate(_schema("\\s*a"))  # one-time work (re's categories) out of the way
    small, large = (_calls(lambda n=n: validate(_schema(unit * n))) for n in (150, 300))
    # linear: 2x; the trim check was quadratic (3.9x), which made a 28 KB regex take a minute
    assert large / small < 2.5, (small, large)


@pytest.mark.parametrize("unit", ["(?:a|b)?", "[a-z]*x", "(?:,\\s*)?"])
def test_the_slow_delimiter_check_does_twice_the_work_for_a_pattern_twice_as_long(unit):
    def check(n: int) -> None:
        list(slow_delimiters({"fields": {"f": {"open_pattern": unit * n + "c"}}}))

    small, large = _calls(lambda: check(150)), _calls(lambda: check(300))
    # each optional alternation used to rescan the rest of the pattern (3.8x)
    assert large / small < 2.5, (small, large)


def test_validate_and_parse_of_a_28_kb_regex_finish_within_20_seconds(tmp_path):
    # Wall clock, but with a wide margin: about half a second now, 30-77 s before the trim check
    # was made linear. parse validates first, so it was as slow.
    schema = tmp_path / "long.json"
    schema.write_text(json.dumps(_schema(LONG)))
    sample = tmp_path / "sample.txt"
    sample.write_text("hello")
    env = {**os.environ, "NO_COLOR": "1"}
    command = [sys.executable, "-c", "import sys; from workbench.cli.app import main; sys.exit(main())"]
    done = subprocess.run([*command, "validate", str(schema)], capture_output=True, text=True, timeout=20, env=env, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ok" in done.stdout
    done = subprocess.run([*command, "parse", "-s", str(schema), str(sample)], capture_output=True, text=True, timeout=20, env=env, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr


def _unchecked(pattern: str) -> list:
    problems = validate(_schema(pattern))
    assert not [p for p in problems if p.severity == ERROR], problems
    return [p for p in problems if "not fully checked" in p.message]


def test_a_loop_too_intricate_to_search_warns_that_the_check_stopped():
    # every x? of the loop can follow every other: pairs of steps grow as the fourth power
    [problem] = _unchecked("(?:" + "x?" * 100 + "y)*z")
    assert problem.severity == WARNING and problem.path == "/x-regex"
    assert "stopped after 100,000 steps" in problem.message


def test_a_regex_too_large_to_build_warns_that_the_check_stopped():
    # a run of optional items links each to every later one: two million links
    [problem] = _unchecked("x?" * 2000)
    assert problem.severity == WARNING and "stopped after 1,000,000 steps" in problem.message


def test_groups_nested_too_deeply_for_the_check_warn_instead_of_passing():
    # re compiles it (its own limit is about 490 levels). Whether the check runs out of recursion
    # or of steps first depends on the recursion limit the engine runs under: either way the user
    # is told the regex was not fully checked, never that it is fine.
    depth = 400
    [problem] = _unchecked("(?:" * depth + "a*" + ")*" * depth + "b")
    assert problem.severity == WARNING and "not fully checked" in problem.message
    assert "nested this deeply" in problem.message or "stopped after" in problem.message


def test_loops_found_before_the_check_stopped_are_still_reported():
    messages = [p.message for p in validate(_schema("(?:" + "x?" * 100 + "y)*z(?:a+)+b"))]
    assert any("nested quantifier" in m and "(?:a+)+" in m for m in messages), messages
    assert any("not fully checked" in m for m in messages), messages


def test_a_long_regex_that_is_safe_gets_no_warning():
    assert validate(_schema(LONG)) == []
