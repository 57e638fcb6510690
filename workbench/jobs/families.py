"""The families ``workbench check`` and ``check --linear`` go through, and the one result both give.

A family is a folder of samples, ``<samples>/<family>/``; its parsers are ``<schemas>/<family>.json``
and ``<schemas>/<family>.template.json`` (each format's suffix), whichever exist. A folder with
neither is given as its schema, missing, so that the check says so instead of passing it over.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from ..formats import Format
from ..store.files import InputError, load_schema
from ..store.samples import is_sample_file, parser_files

PASS = "pass"  # a case's status when it matches its golden


@dataclass
class FamilyResult:
    """One family in one format, checked. ``check`` fills ``runtime``, ``matrix`` and ``cases`` (one
    ``CaseResult`` per sample, against its golden); ``check --linear`` fills ``samples`` (one
    ``SampleResult`` per sample grown large, and the plain answers)."""

    family: str
    schema: str  # the parser's file
    problem: str | None = None  # the family could not be checked at all
    format: Format | None = None  # the parser's format, by its file's name
    runtime: str | None = None  # the transformers release it ran as ("5.24"; a schema: "5.14")
    matrix: Any = None  # a template's ReleaseMatrix on its samples (None: not run)
    cases: list = field(default_factory=list)
    samples: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return (self.problem is None and bool(self.cases or self.samples)
                and all(c.status == PASS for c in self.cases) and not self.failures)

    @property
    def passed(self) -> int:
        return sum(c.status == PASS for c in self.cases)

    @property
    def failures(self) -> list:
        return [t for s in self.samples for t in s.failures]

    @property
    def inputs(self) -> int:
        return sum(s.inputs for s in self.samples)

    @property
    def worst(self) -> Any:
        trials = [s.worst for s in self.samples if s.worst is not None]
        return max(trials, key=lambda t: t.badness()) if trials else None


@dataclass(frozen=True)
class Family:
    """A family's parser in one format, with the folder of its samples."""

    name: str
    path: Path  # the parser's file (it may be missing)
    format: Format
    folder: Path

    def open(self) -> tuple[FamilyResult, Any]:
        """Its result, to be filled, and its parser; None (the result saying why) when the file
        cannot be read."""
        result = FamilyResult(self.name, str(self.path), format=self.format)
        try:
            return result, load_schema(self.path)
        except InputError as exc:
            result.problem = str(exc)
            return result, None

    def sample_paths(self) -> list[Path]:
        return sorted(p for p in self.folder.iterdir() if p.is_file() and is_sample_file(p))

    @property
    def no_samples(self) -> str:
        return f"{self.folder}: no samples"


def family_parsers(schemas_dir: str | Path, samples_dir: str | Path, only: list[str] | None = None,
                   formats: Iterable[Format] | None = None) -> list[Family]:
    """Every family's parsers, by family name, in the formats' order: ``only`` those families
    (``--family``), ``formats`` only (default: all)."""
    schemas_dir, samples_dir = Path(schemas_dir), Path(samples_dir)
    if not samples_dir.is_dir():
        raise InputError(f"{samples_dir}: no such samples folder")
    if not schemas_dir.is_dir():
        raise InputError(f"{schemas_dir}: no such schemas folder")
    wanted = None if formats is None else list(formats)
    return [
        Family(folder.name, path, fmt, folder)
        for folder in sorted(p for p in samples_dir.iterdir() if p.is_dir())
        if not only or folder.name in only
        for path, fmt in parser_files(schemas_dir, folder.name)
        if wanted is None or fmt in wanted
    ]
