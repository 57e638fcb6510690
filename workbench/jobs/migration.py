"""One migration run, as ``workbench migrate`` and the TUI's "Migrate to a template" both do it:
translate the schema, write the template (atomically, only one transformers would load), run both
on the samples, and say what happened in lines both can show.

The translation itself is the engine's (``workbench.engine.migrate``); this module adds the files
and the report, and knows nothing of typer or Textual.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..engine.migrate import ABSENT, Migration, SampleComparison, compare_sample, derive_start_anchor
from ..engine.migrate import migrate as translate
from ..engine.problems import WARNING
from ..formats import format_of
from ..store.files import InputError, atomic_write, check_json_depth, dump_json
from ..store.samples import Sample

OK, FAILED = 0, 1  # the exit codes of ``workbench migrate`` (2, unusable input, is the CLI's)


@dataclass
class Case:
    """A sample to compare on: the template gets ``prompt`` as ``prefix=``."""

    name: str
    text: str
    prompt: str


@dataclass
class MigrationRun:
    out: Path
    anchor: Any
    anchor_source: str
    migration: Migration
    written: bool = False
    comparisons: list[SampleComparison] = field(default_factory=list)
    samples_given: bool = True
    notices: list[str] = field(default_factory=list)  # from the write: a hard link broken, a link written through
    stopped: str | None = None  # why the comparison on the samples did not finish (the TUI stops a runaway one)

    @property
    def code(self) -> int:
        """0 only when the template was written, nothing was left untranslated and every sample agrees."""
        clean = self.written and not self.migration.untranslatable and self.stopped is None
        return OK if clean and all(c.agrees for c in self.comparisons) else FAILED

    def lines(self) -> list[str]:
        """The report, a line each: the anchor, what was not translated (pointer and why), notes,
        and where the two messages differ on the samples (path, both values)."""
        m = self.migration
        out = [f"start_anchor {json.dumps(self.anchor, ensure_ascii=False)} (from {self.anchor_source})"]
        if m.untranslatable:
            out.append(f"untranslatable ({len(m.untranslatable)}):")
            out += [f"  {item}" for item in m.untranslatable]
        else:
            out.append("untranslatable: none")
        if m.notes:
            out.append(f"notes ({len(m.notes)}):")
            out += [f"  {item}" for item in m.notes]
        if not self.written:
            out.append("no template written: nothing in the schema could be translated")
            return out
        out.append(f"wrote {self.out}")
        slow = [p for p in format_of(m.template).load_problems(m.template) if p.severity == WARNING]
        if slow:
            out.append(f"linear time ({len(slow)}): these delimiters make transformers' parse quadratic; change them before shipping:")
            out += [f"  {p.path}: {p.message}" for p in slow]
        if not self.samples_given:
            out.append("no samples to compare on (pass --samples DIR)")
            return out
        if self.stopped is not None:
            out.append(f"samples: not compared: {self.stopped}")
            return out
        agree = sum(c.agrees for c in self.comparisons)
        out.append(f"samples: {agree} of {len(self.comparisons)} give the same message")
        for c in self.comparisons:
            if c.agrees:
                continue
            if c.schema.failed != c.template.failed:
                failed, other = ("schema", "template") if c.schema.failed else ("template", "schema")
                error = (c.schema if c.schema.failed else c.template).error
                out.append(f"  {c.case}: the {failed} fails ({short(error, 160)}); the {other} gives a message")
                continue
            for d in c.differences:
                out.append(f"  {c.case}: {d.path or '/'}: schema {_value(d.schema)}, template {_value(d.template)}")
        return out


def cases_of(samples: list[Sample], prompts: dict[str, str] | None = None) -> list[Case]:
    """The samples with their prompts (``prompts``: per sample path, one being edited)."""
    prompts = prompts or {}
    return [Case(s.path.stem, s.text, prompts.get(str(s.path), s.prompt()[0])) for s in samples]


def anchor_from(cases: list[Case]) -> Any:
    """The start anchor the samples' prompts agree on (``engine.migrate.anchor``), or None."""
    return derive_start_anchor(list(dict.fromkeys(c.prompt for c in cases if c.prompt)))


def schema_to_migrate(text: str) -> Any:
    """The schema in an editor's text, if it can be migrated; else InputError saying why."""
    check_json_depth(text, "the schema")
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"the schema is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    fmt = format_of(value)
    if not fmt.migrates:
        raise InputError(f"this is already a {fmt} (it has 'fields' or 'version')")
    problems = fmt.check(value).errors
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise InputError(f"fix the schema's errors first: {problems[0]}{more}")
    return value


def unescape(text: str) -> str:
    """A start anchor as typed on one line: ``\\n``, ``\\r``, ``\\t`` for their characters."""
    return text.replace("\\\\", "\x00").replace("\\n", "\n").replace("\\r", "\r").replace("\\t", "\t").replace("\x00", "\\")


def run(
    schema: Any, cases: list[Case], anchor: Any, anchor_source: str, out: Path, allow_read_only: bool = False
) -> MigrationRun:
    """Translate ``schema`` (already valid), write the template to ``out`` and compare on ``cases``.
    Raises ``files.WriteError`` (nothing written) when ``out`` cannot be written, ``ReadOnlyError``
    when it is read-only and ``allow_read_only`` is not given."""
    result = write_template(schema, anchor, anchor_source, out, allow_read_only, samples_given=bool(cases))
    if result.written:
        result.comparisons = compare_cases(cases, schema, result.migration.template)
    return result


def write_template(
    schema: Any, anchor: Any, anchor_source: str, out: Path, allow_read_only: bool = False, samples_given: bool = True
) -> MigrationRun:
    """``run`` up to the comparison: translate and write (the TUI compares in a child process,
    where a backtracking regex meets the engine's time limit). Raises as ``run`` does."""
    result = MigrationRun(out, anchor, anchor_source, translate(schema, anchor), samples_given=samples_given)
    template = result.migration.template
    if template is None:
        return result
    format_of(template).load(template)  # never write what transformers would reject when it loads it
    result.notices = atomic_write(out, dump_json(template), allow_read_only=allow_read_only)
    result.written = True
    return result


def compare_cases(cases: list[Case], schema: Any, template: Any) -> list[SampleComparison]:
    """Both parsers on each case (``engine.migrate.compare_sample``): the parses of a migration."""
    return [compare_sample(c.name, c.text, schema, template, c.prompt) for c in cases]


def _value(value: Any) -> str:
    return "(absent)" if value is ABSENT else short(json.dumps(value, ensure_ascii=False), 80)


def short(text: str, limit: int) -> str:
    text = " ".join(text.splitlines())
    return text if len(text) <= limit else text[: limit - 3] + "..."
