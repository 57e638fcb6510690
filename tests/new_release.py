"""Try a new transformers release against our response_template engine: `python -m tests.new_release 5.25.0`.

Run from the repository root, in the project's virtual environment with the test extra. It

  1. builds the release's oracle environment, .oracles/transformers-<version>/ (or under
     WORKBENCH_ORACLES), with the pins of the newest row of RELEASES in tests/template_oracle.py
     (a release without a row gets those, with its own transformers);
  2. downloads the release's wheel and the newest supported release's (`pip download --no-deps`, into
     .oracles/wheels/) and prints the unified diff of `transformers/utils/chat_parsing/` between them,
     or says "unchanged";
  3. runs every template differential suite (the tests that take the `release` fixture, marked
     `oracle_release`) against the new release alone: WORKBENCH_NEW_RELEASE=<version> makes them compare
     transformers <version> with our engine's newest behaviour (runtime=None);
  4. prints a summary: the diff's size, the failures, and what to do next.

Adding a release, step by step:

  a. `python -m tests.new_release 5.25.0`. If step 1 fails on an ImportError, 5.25.0 imports something
     the newest row lacks: add a row "5.25.0" to RELEASES with the pins it needs (build with --no-deps,
     read each ImportError, as the comment above RELEASES says), and run the command again.
  b. Chat parsing unchanged and every suite passes: add the row "5.25.0" to RELEASES (the same pins as
     the newest row), and teach the engine the release name (runtime="5.25", behaving as the newest).
  c. It changed, or a suite fails: write each change down (docs/response-template.md#release-differences),
     implement it in workbench/engine/template/ behind runtime="5.25", add hand-written cases for it
     (tests/test_template_engine.py; cases whose expectation belongs to older releases only go in its
     CASES_5_23_ONLY or a set like it), and add the row. Then `python -m pytest` runs every differential
     suite against every row, each with its own runtime=.
  d. Mind CI's time (.ci/run): each row adds a run of the differential suites; see
     WORKBENCH_TEMPLATE_EXAMPLES in tests/test_template_generated.py.

Options: --against VERSION (the release to diff with; default the newest row), --no-tests (steps 1, 2
and a summary only), --examples N (WORKBENCH_TEMPLATE_EXAMPLES for step 3). Exit status: 0 when the
suites pass, 1 when they fail, 2 for bad arguments, 3 when the environment or a download fails.
"""

from __future__ import annotations

import argparse
import difflib
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # template_oracle, as the tests import it

import template_oracle  # noqa: E402

ROOT = template_oracle.ROOT
CHAT_PARSING = "transformers/utils/chat_parsing/"
MARKER = "oracle_release"  # tests/conftest.py marks every test that takes the `release` fixture


class UsageError(ValueError):
    """A bad command line (exit status 2)."""


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def check_version(version: str, supported: Sequence[str] | None = None) -> str:
    """The release to add, as MAJOR.MINOR.PATCH; UsageError unless it is one and is newer than every
    supported release."""
    supported = list(template_oracle.RELEASES if supported is None else supported)
    parts = version.strip().split(".")
    if len(parts) != 3 or not all(part.isdigit() for part in parts):
        raise UsageError(f"not a release: {version!r} (expected MAJOR.MINOR.PATCH, e.g. 5.25.0)")
    version = ".".join(str(int(part)) for part in parts)
    if version in supported:
        raise UsageError(f"transformers {version} is already supported (RELEASES in tests/template_oracle.py)")
    newest = max(supported, key=_key)
    if _key(version) < _key(newest):
        raise UsageError(f"transformers {version} is older than the newest supported release, {newest}")
    return version


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m tests.new_release", description="Try a new transformers release against the template engine."
    )
    parser.add_argument("version", help="the new release, e.g. 5.25.0")
    parser.add_argument("--against", default=template_oracle.NEWEST, help="the release to diff with (default: %(default)s)")
    parser.add_argument("--no-tests", action="store_true", help="build and diff only")
    parser.add_argument("--examples", type=int, default=None, help="WORKBENCH_TEMPLATE_EXAMPLES for the generated suites")
    args = parser.parse_args(argv)
    try:
        args.version = check_version(args.version)
        if args.against not in template_oracle.RELEASES:
            raise UsageError(f"--against {args.against}: not a supported release ({', '.join(template_oracle.RELEASES)})")
        if args.examples is not None and args.examples < 1:
            raise UsageError("--examples: at least 1")
    except UsageError as exc:
        parser.error(str(exc))  # exits 2
    return args


# ---- the diff ----------------------------------------------------------------------------------


def chat_parsing_files(wheel: Path) -> dict[str, str]:
    """transformers/utils/chat_parsing/'s files in a wheel: path below that folder -> text."""
    with zipfile.ZipFile(wheel) as archive:
        return {
            name[len(CHAT_PARSING) :]: archive.read(name).decode("utf-8")
            for name in sorted(archive.namelist())
            if name.startswith(CHAT_PARSING) and not name.endswith("/")
        }


def diff_files(old: dict[str, str], new: dict[str, str], old_label: str, new_label: str) -> str:
    """The unified diff from `old` to `new` (path -> text), file by file in path order; "" when they
    are the same. An added or removed file is diffed against nothing (/dev/null)."""
    chunks: list[str] = []
    for path in sorted(set(old) | set(new)):
        before, after = old.get(path), new.get(path)
        if before == after:
            continue
        lines = difflib.unified_diff(
            (before or "").splitlines(keepends=True),
            (after or "").splitlines(keepends=True),
            fromfile=f"{old_label}/{CHAT_PARSING}{path}" if before is not None else "/dev/null",
            tofile=f"{new_label}/{CHAT_PARSING}{path}" if after is not None else "/dev/null",
        )
        chunks.append("".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines))
    return "".join(chunks)


def diff_summary(diff: str) -> str:
    """"unchanged", or how many files and lines the diff touches."""
    if not diff:
        return "unchanged"
    files = sum(1 for line in diff.splitlines() if line.startswith("+++ "))
    added = sum(1 for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++ "))
    removed = sum(1 for line in diff.splitlines() if line.startswith("-") and not line.startswith("--- "))
    return f"{files} file{'s' * (files != 1)} changed, +{added} -{removed} lines"


def download_wheel(version: str, directory: Path) -> Path:
    """transformers-<version>'s wheel, fetched with `pip download --no-deps` (kept in `directory`)."""
    directory.mkdir(parents=True, exist_ok=True)
    wheel = directory / f"transformers-{version}-py3-none-any.whl"
    if wheel.is_file():
        return wheel
    run = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--disable-pip-version-check",
         "--no-input", "-d", str(directory), f"transformers=={version}"],
        capture_output=True, text=True, check=False,
    )
    found = sorted(directory.glob(f"transformers-{version}-*.whl"))
    if run.returncode != 0 or not found:
        tail = "\n".join((run.stdout + run.stderr).strip().splitlines()[-10:])
        raise RuntimeError(f"could not download transformers {version}'s wheel:\n{tail}")
    return found[0]


# ---- the suites --------------------------------------------------------------------------------


def failures_of(junit_xml: Path) -> tuple[dict[str, int], list[str]]:
    """Counts (tests, failures, errors, skipped) and the failed test ids of a pytest --junitxml report."""
    root = ET.parse(junit_xml).getroot()
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    failed: list[str] = []
    for case in root.iter("testcase"):
        counts["tests"] += 1
        kinds = {child.tag for child in case}
        if "failure" in kinds:
            counts["failures"] += 1
        if "error" in kinds:
            counts["errors"] += 1
        if "skipped" in kinds:
            counts["skipped"] += 1
        if kinds & {"failure", "error"}:
            module = case.get("classname", "").replace(".", "/")
            failed.append(f"{module}.py::{case.get('name', '')}")
    return counts, failed


def run_suites(version: str, examples: int | None) -> tuple[int, dict[str, int], list[str]]:
    env = {**os.environ, template_oracle.NEW_RELEASE_VARIABLE: version}
    if examples is not None:
        env["WORKBENCH_TEMPLATE_EXAMPLES"] = str(examples)
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "report.xml"
        command = [sys.executable, "-m", "pytest", "tests", "-m", MARKER, "--tb=line", f"--junitxml={report}",
                   "-o", "junit_family=xunit2"]
        print(f"$ {template_oracle.NEW_RELEASE_VARIABLE}={version} python {' '.join(command[1:])}", flush=True)
        code = subprocess.run(command, cwd=ROOT, env=env, check=False).returncode
        if not report.is_file():
            return code, {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}, []
        counts, failed = failures_of(report)
    return code, counts, failed


def next_steps(version: str, diff: str, code: int | None, failed: Sequence[str]) -> list[str]:
    """What the maintainer does next, from the diff and the suites' outcome (None: not run)."""
    minor = template_oracle.runtime_of(version)
    row = f'add the row "{version}" to RELEASES in tests/template_oracle.py (the newest row\'s pins)'
    if code is None:
        return [f"run the suites: python -m tests.new_release {version} (without --no-tests)"]
    if not diff and code == 0:
        return [
            f"chat parsing is unchanged and every differential suite passes against {version}:",
            f"{row}, and let the engine accept runtime=\"{minor}\" as the newest behaviour.",
        ]
    steps = []
    if diff:
        steps.append("read the diff above; write each change down (docs/response-template.md#release-differences)")
        steps.append(f"implement the changes in workbench/engine/template/ behind runtime=\"{minor}\", with hand-written cases")
    if code != 0:
        steps.append(f"{len(failed)} test(s) failed: each is a difference between {version} and our newest behaviour"
                     " (or the suite's own expectation of an older release)")
        if not diff:
            steps.append("chat_parsing/ is unchanged, so look at what it imports (regex's version, json, the rest of transformers)")
    steps.append(f"then {row}, and run `python -m pytest` (every suite against every row)")
    return steps


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    version, against = args.version, args.against

    print(f"== 1. the transformers {version} oracle environment", flush=True)
    try:
        python = template_oracle.ensure_env(version)
    except template_oracle.OracleUnavailable as exc:
        print(f"error: {exc}\n\nIf that is an ImportError, add a row for {version} to RELEASES in "
              "tests/template_oracle.py with what it needs, and run this again.", file=sys.stderr)
        return 3
    print(f"{python}", flush=True)

    print(f"\n== 2. transformers/utils/chat_parsing/, {against} -> {version}", flush=True)
    wheels = template_oracle.env_dir(version).parent / "wheels"
    try:
        old, new = (chat_parsing_files(download_wheel(release, wheels)) for release in (against, version))
    except (RuntimeError, zipfile.BadZipFile) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3
    diff = diff_files(old, new, against, version)
    print(diff if diff else "unchanged", flush=True)
    summary = diff_summary(diff)

    code: int | None = None
    failed: list[str] = []
    counts: dict[str, int] = {}
    if not args.no_tests:
        print(f"\n== 3. the template differential suites against transformers {version} (our engine: newest)", flush=True)
        code, counts, failed = run_suites(version, args.examples)

    print(f"\n== summary: transformers {version}")
    print(f"chat_parsing/ against {against}: {summary}")
    if code is not None:
        print(f"differential suites: {counts.get('tests', 0)} tests, {counts.get('failures', 0)} failed, "
              f"{counts.get('errors', 0)} errors, {counts.get('skipped', 0)} skipped (pytest exit {code})")
        for test in failed[:30]:
            print(f"  failed: {test}")
        if len(failed) > 30:
            print(f"  … and {len(failed) - 30} more")
        if failed:
            print(f"  one again, with its traceback: {template_oracle.NEW_RELEASE_VARIABLE}={version} python -m pytest '{failed[0]}'")
    print("next:")
    for step in next_steps(version, diff, code, failed):
        print(f"  - {step}")
    return 0 if code in (None, 0) else 1


if __name__ == "__main__":
    sys.exit(main())
