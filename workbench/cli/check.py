"""``workbench check``: run every schema on its family's samples and compare with the goldens."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..jobs.check import BAD_GOLDEN, NO_GOLDEN, PASS, as_json, check as run_check, update_goldens
from ..jobs.families import FamilyResult
from ..formats import FORMATS, by_name
from ..engine.visible import visible
from ..store.files import InputError, dump_json
from ..store.samples import first_difference
from ..jobs.linearity import MAX_GROWTH, as_json as linear_json, check_linear
from ..engine.releases import behaviours, span
from ..formats.runtime_choice import runtimes_for_both
from .output import FAILED, OK, UNUSABLE, emit, emit_line, runtime_option, say, stop


def check(
    schemas_dir: Path = typer.Argument(Path("schemas"), help="Folder of <family>.json schemas."),
    samples_dir: Path = typer.Argument(Path("sample_outputs"), help="Folder of <family>/<case>.txt samples."),
    as_json_output: bool = typer.Option(False, "--json", help="Print the results as JSON."),
    update: bool = typer.Option(False, "--update", help="Show the differences, then write goldens from the current results."),
    family: list[str] = typer.Option([], "--family", "-f", help="Only this family (repeatable)."),
    force: bool = typer.Option(
        False, "--force", help="With --update: also replace goldens that cannot be read (conflict markers, cut short) or are read-only."
    ),
    linear: bool = typer.Option(
        False, "--linear", help="Instead, check linear time: each sample with 200,000 whitespace characters "
        "inserted at each token boundary, and repeated to 2 MB, parses within the time limit and ~linearly."
    ),
    runtime: Optional[str] = runtime_option(),
) -> None:
    """Check every family: each sample parsed by its schema must equal its golden (or, with
    --linear, must parse in linear time when grown large)."""
    if force and not update:
        raise stop("error: --force goes with --update (it lets it replace unreadable or read-only goldens)", UNUSABLE)
    try:
        runtimes, notes = runtimes_for_both(runtime)
    except ValueError as exc:
        raise stop(f"error: --runtime {runtime}: {exc}", UNUSABLE)
    if update and runtime is not None:
        # A golden holds what the newest release gives (a plain check compares with it); an older
        # release's results written there would fail every later check.
        raise stop("error: --update writes goldens, which hold the newest release's results; it does not go with --runtime",
                   UNUSABLE)
    if linear:
        if runtime is not None:
            raise stop("error: --runtime does not go with --linear (the time check runs the newest release)", UNUSABLE)
        if update:
            raise stop("error: --update writes goldens; it does not go with --linear", UNUSABLE)
        results = _gather(check_linear, schemas_dir, samples_dir, family)
        _show(results, as_json_output, linear_json, _print_linear_table)
        raise typer.Exit(OK if results and all(r.ok for r in results) else FAILED)
    for note in notes:
        say(f"note: {note}")
    results = _gather(lambda *args: run_check(*args, runtimes=runtimes), schemas_dir, samples_dir, family)
    if not results and notes:
        raise stop(f"error: --runtime {runtime}: nothing to check: no family has a parser that transformers {runtime} reads",
                   UNUSABLE)
    left_out = {fmt: f"not read by {runtime}" for fmt in FORMATS if fmt not in runtimes}
    _show(results, as_json_output, as_json, lambda found: print_table(found, left_out))
    if update:
        done = update_goldens(samples_dir, results, force=force)
        for notice in done.notices:
            say(f"note: {notice}")
        for path in done.written:
            emit_line(f"wrote {path}")
        for why in done.refused:
            say(f"error: {why}")
        raise typer.Exit(FAILED if done.refused else OK)
    raise typer.Exit(OK if results and all(r.ok for r in results) else FAILED)


def print_table(results: list[FamilyResult], left_out: dict[str, str] | None = None) -> None:
    """``left_out``: the formats the release asked for does not read, and what their cells say."""
    left_out = left_out or {}
    """One row per family: its schema and its template side by side, then where they disagree."""
    console = Console(highlight=False, soft_wrap=False, width=180)
    table = Table(show_edge=False, pad_edge=False)
    first, second = FORMATS  # the side-by-side table compares the two formats of a family
    for column in ("family", first.noun, second.noun, "first difference", f"{second.noun} vs {first.noun}"):
        table.add_column(column, overflow="fold")
    by_family: dict[str, dict] = {}
    for r in results:
        by_family.setdefault(r.family, {})[r.format] = r
    for family, formats in by_family.items():
        ours = [formats.get(fmt) for fmt in FORMATS]
        problems = [f"{fmt.noun}: {problem}" for fmt, r in zip(FORMATS, ours) if r and (problem := _first_problem(r))]
        table.add_row(
            escape(visible(family)), *(_cell(r, left_out.get(fmt)) for fmt, r in zip(FORMATS, ours)),
            escape(visible("; ".join(problems))), escape(visible(_disagreement(*ours))),
        )
    console.print(table)
    for fmt in FORMATS:
        label = f"{fmt.noun}s"
        checked = [r for r in results if r.format == fmt]
        if checked:
            ran_as = {r.runtime for r in checked}
            releases = f" (as transformers {', '.join(sorted(ran_as))})" if len(ran_as) == 1 else ""
            console.print(f"{sum(r.ok for r in checked)} of {len(checked)} {label} pass{releases}")
    _print_matrices(console, results)


def _print_matrices(console: Console, results: list[FamilyResult]) -> None:
    """The release matrix of each template family: a family whose results depend on the release in
    full, the others in one line. Information only: a split never fails the check."""
    ran = [r for r in results if r.matrix is not None]
    if not ran:
        return
    console.file.flush()
    same = [r.family for r in ran if r.matrix.same]
    for r in ran:
        if not r.matrix.same:
            for line in r.matrix.lines():
                emit_line(f"{r.family}: {line}")  # one line each, however long: never wrapped
    if same:
        every = span(behaviours()[0][0], behaviours()[-1][1])
        emit_line(f"releases: {every} give the same result on every sample of {len(same)} template famil"
                  f"{'y' if len(same) == 1 else 'ies'}" + (f" ({', '.join(same)})" if len(same) <= 3 else ""))


def _cell(result, left_out: str | None = None) -> str:
    if result is None:
        return f"[dim]{escape(left_out or 'none')}[/]"
    if result.problem:
        return "[red]error[/]"
    if result.ok:
        return f"[green]pass[/] {result.passed}/{len(result.cases)}"
    first = _worst(result)
    word = {NO_GOLDEN: "[yellow]no golden[/]", BAD_GOLDEN: "[red]bad golden[/]"}.get(first.status, "[red]fail[/]")
    return f"{word} {result.passed}/{len(result.cases)}"


def _first_problem(result) -> str:
    if result.problem:
        return result.problem
    first = _worst(result)
    return f"{first.case}: {first.difference}" if first else ""


# The case a row names: an unreadable golden before a failure before a missing golden, so the
# row never hides the worst news behind a milder one.
_SEVERITY = {BAD_GOLDEN: 0, NO_GOLDEN: 2}  # any other failure: 1


def _worst(result):
    failing = [c for c in result.cases if c.status != PASS]
    return min(failing, key=lambda c: _SEVERITY.get(c.status, 1)) if failing else None


def _disagreement(schema, template) -> str:
    """On how many samples the template's result is not the schema's, and the first such place."""
    if not schema or not template or schema.problem or template.problem:
        return ""
    differing = []
    for a, b in zip(schema.cases, template.cases):
        outcome_a = ("error", None) if a.error is not None else ("value", a.value)
        outcome_b = ("error", None) if b.error is not None else ("value", b.value)
        if outcome_a != outcome_b:
            differing.append((a.case, _outcome_difference(a, b)))
    if not differing:
        return "same on every sample"
    case, how = differing[0]
    return f"{len(differing)} differ; {case}: {how}"


def _outcome_difference(schema_case, template_case) -> str:
    if schema_case.error is not None or template_case.error is not None:
        fails = "schema fails" if schema_case.error is not None else "template fails"
        return fails if (schema_case.error is None) != (template_case.error is None) else "both fail"
    return first_difference(schema_case.value, template_case.value)


def _gather(run, schemas_dir: Path, samples_dir: Path, family: list[str]) -> list[FamilyResult]:
    try:
        results = run(schemas_dir, samples_dir, family or None)
        if family and not results:
            raise InputError(f"{samples_dir}: no family named {', '.join(family)}")
    except InputError as exc:
        raise stop(f"error: {exc}", UNUSABLE)
    return results


def _show(results: list[FamilyResult], as_json_output: bool, to_json, print_table) -> None:
    if as_json_output:
        emit(dump_json(to_json(results)))
    else:
        print_table(results)


def _print_linear_table(results: list[FamilyResult]) -> None:
    console = Console(highlight=False, soft_wrap=False, width=160)
    table = Table(show_edge=False, pad_edge=False)
    for column in ("family", "format", "inputs", "result", "worst case", "time", "growth"):
        table.add_column(column, overflow="fold")
    for r in results:
        fmt = by_name(str(r.format)).noun
        if r.problem:
            table.add_row(escape(visible(r.family)), fmt, "-", "[red]error[/]", escape(visible(r.problem)), "", "")
            continue
        w = r.worst
        verdict = "[green]pass[/]" if r.ok else f"[red]fail[/] ({len(r.failures)} inputs)"
        table.add_row(
            escape(visible(r.family)), fmt, str(r.inputs), verdict,
            escape(visible(f"{w.case}: {w.variant} {w.kind}, {w.where}")) if w else "",  # [TOOL_CALLS] is no markup
            "timeout" if w and w.timed_out else (f"{w.seconds:.3f} s" if w else ""),
            f"{w.growth:.1f}x" if w and w.growth is not None else "-",
        )
    console.print(table)
    ok = sum(r.ok for r in results)
    console.print(f"{ok} of {len(results)} parsers parse in linear time (growth limit {MAX_GROWTH:g}x for 10x the input)")
