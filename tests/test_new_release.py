"""The maintainer's command `python -m tests.new_release` (tests/new_release.py): its pure parts, with no
download and no environment (those go through tests/template_oracle.py, tested in test_template_oracle.py)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import new_release
from new_release import check_version, chat_parsing_files, diff_files, diff_summary, failures_of, next_steps

ROOT = Path(__file__).resolve().parent.parent


def test_the_release_must_be_a_new_full_version():
    supported = ["5.23.0", "5.24.0"]
    assert check_version("5.25.0", supported) == "5.25.0" and check_version(" 6.0.1 ", supported) == "6.0.1"
    assert check_version("5.24.1", supported) == "5.24.1"
    assert check_version("99.0.0") == "99.0.0"  # the table in tests/template_oracle.py by default
    for bad, phrase in [
        ("5.25", "not a release"),
        ("v5.25.0", "not a release"),
        ("5.25.0rc1", "not a release"),
        ("", "not a release"),
        ("5.24.0", "already supported"),
        ("5.22.0", "older than the newest supported release, 5.24.0"),
    ]:
        with pytest.raises(new_release.UsageError, match=phrase):
            check_version(bad, supported)
    assert check_version("5.24.0", supported=["5.23.0"]) == "5.24.0"


@pytest.mark.parametrize(
    ("argv", "phrase"),
    [
        ([], "the following arguments are required: version"),
        (["5.25"], "not a release"),
        (["5.23.0"], "already supported"),
        (["5.25.0", "--against", "5.20.0"], "--against 5.20.0: not a supported release"),
        (["5.25.0", "--examples", "0"], "--examples: at least 1"),
    ],
)
def test_argument_errors_exit_2_with_one_line(capsys, argv, phrase):
    with pytest.raises(SystemExit) as exited:
        new_release.parse_args(argv)
    assert exited.value.code == 2 and phrase in capsys.readouterr().err


def test_runs_as_a_module_from_the_repository_root():
    run = subprocess.run([sys.executable, "-m", "tests.new_release", "5.2"], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 2 and "not a release: '5.2'" in run.stderr
    run = subprocess.run([sys.executable, "-m", "tests.new_release", "--help"], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0 and "--no-tests" in run.stdout


def _wheel(path: Path, files: dict[str, str]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("transformers/utils/chat_parsing/", "")
        for name, text in files.items():
            archive.writestr(name, text)
    return path


def test_chat_parsing_files_are_read_from_the_wheel(tmp_path):
    wheel = _wheel(tmp_path / "t.whl", {
        "transformers/utils/chat_parsing/__init__.py": "",
        "transformers/utils/chat_parsing/content_parsers.py": "A = 1\n",
        "transformers/utils/chat_parsing_notes.txt": "not in the folder",
        "transformers/__init__.py": "x",
    })
    assert chat_parsing_files(wheel) == {"__init__.py": "", "content_parsers.py": "A = 1\n"}


def test_the_diff_is_unified_per_file_and_empty_when_unchanged():
    old = {"a.py": "one\ntwo\n", "gone.py": "bye\n", "same.py": "s\n"}
    new = {"a.py": "one\n2\n", "new.py": "hi", "same.py": "s\n"}
    diff = diff_files(old, new, "5.24.0", "5.25.0")
    assert diff == (
        "--- 5.24.0/transformers/utils/chat_parsing/a.py\n"
        "+++ 5.25.0/transformers/utils/chat_parsing/a.py\n"
        "@@ -1,2 +1,2 @@\n"
        " one\n"
        "-two\n"
        "+2\n"
        "--- 5.24.0/transformers/utils/chat_parsing/gone.py\n"
        "+++ /dev/null\n"
        "@@ -1 +0,0 @@\n"
        "-bye\n"
        "--- /dev/null\n"
        "+++ 5.25.0/transformers/utils/chat_parsing/new.py\n"
        "@@ -0,0 +1 @@\n"
        "+hi\n"
        "\\ No newline at end of file\n"
    )
    assert diff_summary(diff) == "3 files changed, +2 -2 lines"
    assert diff_files(old, dict(old), "a", "b") == "" and diff_summary("") == "unchanged"


def test_the_real_5_23_to_5_24_diff_names_the_two_changed_files():
    """From the wheels in /tmp/tf when this machine has them (nothing is downloaded here)."""
    wheels = [Path(f"/tmp/tf/transformers-{version}-py3-none-any.whl") for version in ("5.23.0", "5.24.0")]
    if not all(wheel.is_file() for wheel in wheels):
        pytest.skip("no transformers 5.23.0 / 5.24.0 wheels in /tmp/tf")
    diff = diff_files(*(chat_parsing_files(wheel) for wheel in wheels), "5.23.0", "5.24.0")
    changed = sorted(line.split("/")[-1] for line in diff.splitlines() if line.startswith("+++ "))
    assert changed == ["content_parsers.py", "response_parser.py"]
    assert "python-call-list" in diff


def test_the_junit_report_is_counted(tmp_path):
    report = tmp_path / "r.xml"
    report.write_text(
        '<testsuites><testsuite name="pytest">'
        '<testcase classname="tests.test_a" name="test_x[5.25.0-new]"/>'
        '<testcase classname="tests.test_a" name="test_y[5.25.0-new]"><failure message="m"/></testcase>'
        '<testcase classname="tests.test_b" name="test_z[5.25.0-new]"><skipped/></testcase>'
        '<testcase classname="tests.test_b" name="test_w[5.25.0-new]"><error message="e"/></testcase>'
        "</testsuite></testsuites>"
    )
    counts, failed = failures_of(report)
    assert counts == {"tests": 4, "failures": 1, "errors": 1, "skipped": 1}
    assert failed == ["tests/test_a.py::test_y[5.25.0-new]", "tests/test_b.py::test_w[5.25.0-new]"]


def test_next_steps_follow_the_diff_and_the_suites():
    quiet = next_steps("5.25.0", "", 0, [])
    assert "unchanged" in quiet[0] and 'add the row "5.25.0" to RELEASES' in quiet[1] and 'runtime="5.25"' in quiet[1]
    changed = "\n".join(next_steps("5.25.0", "--- a\n+++ b\n", 1, ["t"]))
    assert "read the diff" in changed and "1 test(s) failed" in changed and 'behind runtime="5.25"' in changed
    assert "unchanged, so look at what it imports" in "\n".join(next_steps("5.25.0", "", 1, ["t"]))
    assert "without --no-tests" in next_steps("5.25.0", "", None, [])[0]
