"""``workbench check``: every shipped schema and template on its family's samples, against the goldens.

Layout: ``<schemas>/<family>.json`` and ``<schemas>/<family>.template.json``; ``<samples>/<family>/<case>.txt``
with ``<case>.expected.json`` or ``<case>.expected-error.txt`` for the schema,
``<case>.template.expected.json`` or ``<case>.template.expected-error.txt`` for the template, and the
prompts the template parses with (samples.py). A family is checked in each format it has a file for; which
families, parsers and samples, and the result, are families.py's (check --linear goes through the same loop).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..formats.template import LOADS
from ..store.files import InputError, ReadOnlyError, WriteError, atomic_write, dump_json, read_only_mode
from ..formats import FORMATS
from ..store.samples import MATCHES, Sample, judge, load, matrix_samples
from .families import PASS, Family, FamilyResult, family_parsers

_SURROGATE = re.compile("[\ud800-\udfff]")

FAIL, NO_GOLDEN, BAD_GOLDEN = "fail", "no golden", "unreadable golden"  # and PASS (families.py)

# Phrases that transformers' messages and ours share, for error goldens written by --update.
_SHARED_PHRASES = ("could not parse its contents as JSON", "are missing from parsed output", "not a valid integer: ''")


@dataclass
class CaseResult:
    case: str
    status: str
    difference: str = ""
    value: Any = None
    error: str | None = None
    sample_unreadable: bool = False  # the sample itself could not be read: no result to keep


def check(
    schemas_dir: str | Path = "schemas", samples_dir: str | Path = "sample_outputs", families: list[str] | None = None,
    runtimes: dict[str, Any] | None = None, matrix: bool = True,
) -> list[FamilyResult]:
    """Every family in each format. ``runtimes`` maps a format to the ``runtime_choice.Runtime`` it
    runs as (default: each format's default); a format missing from a given mapping is not checked.
    ``matrix``: also run each template's release matrix on its samples."""
    if runtimes is None:
        runtimes = {fmt: fmt.runtime() for fmt in FORMATS}
    return [check_family(family, runtimes[family.format], matrix)
            for family in family_parsers(schemas_dir, samples_dir, families, formats=runtimes)]


def check_family(family: Family, runtime: Any = None, matrix: bool = True) -> FamilyResult:
    fmt = family.format
    if runtime is None:
        runtime = fmt.runtime()
    result, parser = family.open()
    result.runtime = str(runtime)
    if parser is None:
        return result
    try:
        fmt.runtime(str(runtime), parser)  # a release that lacks one of its x-parsers
    except ValueError as exc:
        result.problem = f"{family.path}: {exc}"
        return result
    failure = fmt.load_failure(parser, runtime.release)
    result.problem = None if failure is None else f"{family.path}: {failure}"
    paths = family.sample_paths()
    if fmt.releases_differ and matrix and paths:
        # Run even when this release refuses the parser: the matrix says which releases load it.
        result.matrix = fmt.matrix(parser, matrix_samples(paths, skipped=[]))
    if result.problem:
        return result
    for path in paths:
        result.cases.append(check_case(path, parser, runtime.release))
    if not result.cases:
        result.problem = family.no_samples
    return result


def check_case(path: Path, parser: Any, runtime: Any = None) -> CaseResult:
    try:
        sample = load(path)
    except InputError as exc:
        return CaseResult(path.stem, FAIL, str(exc), sample_unreadable=True)
    verdict = judge(sample, parser, runtime=runtime)
    if verdict.golden_problem:
        return CaseResult(path.stem, BAD_GOLDEN, verdict.golden_problem, verdict.value, verdict.error)
    if verdict.status == MATCHES:
        return CaseResult(path.stem, PASS, "", verdict.value, verdict.error)
    if not verdict.golden:
        outcome = f"fails with {verdict.error}" if verdict.error else "parses"
        return CaseResult(path.stem, NO_GOLDEN, f"no golden: {outcome}", verdict.value, verdict.error)
    return CaseResult(path.stem, FAIL, verdict.detail, verdict.value, verdict.error)


@dataclass
class Update:
    """What ``update_goldens`` did: goldens written, goldens left alone (with why), and notices
    from the writes (a hard link broken, a link written through)."""

    written: list[Path] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)


def update_goldens(samples_dir: str | Path, results: list[FamilyResult], force: bool = False) -> Update:
    """Write each failing or missing golden from the current result. For maintainers only.

    A golden that cannot be read (a merge's conflict markers, JSON cut short) or is read-only is
    left alone unless ``force``: it is not "missing", and what it held may be wanted."""
    done = Update()
    for family in results:
        for case in family.cases:
            if case.status == PASS:
                continue
            if case.sample_unreadable:
                done.refused.append(f"{case.difference}; no golden written")
                continue
            if case.status == BAD_GOLDEN and not force:
                done.refused.append(f"{case.difference}; left as it is (pass --force to replace it)")
                continue
            sample = Sample(Path(samples_dir) / family.family / f"{case.case}.txt", "")
            value_path, error_path = sample.expected_value_path(family.format), sample.expected_error_path(family.format)
            if case.error is None:
                target, text, other = value_path, dump_json(case.value), error_path
            else:
                target, text, other = error_path, error_phrase(case.error) + "\n", value_path
            if not force and read_only_mode(other) is not None:
                done.refused.append(f"{other}: is read-only (mode {read_only_mode(other)}), and writing {target.name} "
                                    "would remove it; left as it is (pass --force to replace it)")
                continue
            try:
                done.notices += atomic_write(target, text, allow_read_only=force)
                other.unlink(missing_ok=True)
            except ReadOnlyError as exc:
                done.refused.append(f"{exc}; left as it is (pass --force to replace it)")
                continue
            except OSError as exc:
                done.refused.append(f"{target}: {exc.strerror or exc}" if not isinstance(exc, WriteError) else str(exc))
                continue
            done.written.append(target)
    return done


def error_phrase(error: str) -> str:
    """The part of an error message an error golden keeps: a phrase transformers' message and ours
    share, else the message's last part. It is matched as a substring, so it stops before a lone
    surrogate (a value's, which a UTF-8 file cannot hold)."""
    phrase = next((p for p in _SHARED_PHRASES if p.lower() in error.lower()), error.split(": ", 1)[-1][:80])
    return _SURROGATE.split(phrase, 1)[0]


def as_json(results: list[FamilyResult]) -> list[dict]:
    return [
        {"family": r.family, "format": str(r.format), "schema": r.schema, "runtime": r.runtime, "ok": r.ok, "passed": r.passed,
         "problem": r.problem,
         "cases": [{k: v for k, v in asdict(c).items() if k in ("case", "status", "difference")} for c in r.cases]}
        | ({"releases": matrix_json(r.matrix)} if r.matrix is not None else {})
        for r in results
    ]


def matrix_json(matrix: Any) -> dict:
    """A release matrix as JSON: its lines, and each split (the sample, None for the template's
    loading; each run of releases with its value or error; where the first two differ)."""
    return {
        "same": matrix.same, "samples": matrix.checked, "lines": matrix.lines(),
        "splits": [{"sample": split.sample, "where": split.where,
                    "parts": [_part_json(part) for part in split.parts]}
                   for split in matrix.splits],
    }


def _part_json(part: Any) -> dict:
    if part.error is not None:
        return {"releases": part.releases, "error": part.error}
    if part.value is LOADS:
        return {"releases": part.releases, "loads": True}
    return {"releases": part.releases, "value": part.value}
