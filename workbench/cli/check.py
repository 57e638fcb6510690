"""``workbench check``: run every schema on its family's samples and compare with the goldens."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..check import NO_GOLDEN, PASS, as_json, check as run_check, update_goldens
from ..files import InputError
from ..linearity import MAX_GROWTH, as_json as linear_json, check_linear
from .output import FAILED, OK, UNUSABLE, emit, stop


def check(
    schemas_dir: Path = typer.Argument(Path("schemas"), help="Folder of <family>.json schemas."),
    samples_dir: Path = typer.Argument(Path("sample_outputs"), help="Folder of <family>/<case>.txt samples."),
    as_json_output: bool = typer.Option(False, "--json", help="Print the results as JSON."),
    update: bool = typer.Option(False, "--update", help="Show the differences, then write goldens from the current results."),
    family: list[str] = typer.Option([], "--family", "-f", help="Only this family (repeatable)."),
    linear: bool = typer.Option(
        False, "--linear", help="Instead, check linear time: each sample with 200,000 whitespace characters "
        "inserted at each token boundary, and repeated to 2 MB, parses within the time limit and ~linearly."
    ),
) -> None:
    """Check every family: each sample parsed by its schema must equal its golden (or, with
    --linear, must parse in linear time when grown large)."""
    if linear:
        if update:
            raise stop("error: --update writes goldens; it does not go with --linear", UNUSABLE)
        results = _gather(check_linear, schemas_dir, samples_dir, family)
        _show(results, as_json_output, linear_json, _print_linear_table)
        raise typer.Exit(OK if results and all(r.ok for r in results) else FAILED)
    results = _gather(run_check, schemas_dir, samples_dir, family)
    _show(results, as_json_output, as_json, _print_table)
    if update:
        for path in update_goldens(samples_dir, results):
            emit(f"wrote {path}\n")
        raise typer.Exit(OK)
    raise typer.Exit(OK if results and all(r.ok for r in results) else FAILED)


def _print_table(results) -> None:
    console = Console(highlight=False, soft_wrap=False, width=160)
    table = Table(show_edge=False, pad_edge=False)
    for column in ("family", "cases", "result", "first difference"):
        table.add_column(column, overflow="fold")
    for r in results:
        if r.problem:
            table.add_row(r.family, "-", "[red]error[/]", r.problem)
            continue
        first = next((c for c in r.cases if c.status != PASS), None)
        verdict = "[green]pass[/]" if r.ok else ("[yellow]no golden[/]" if first and first.status == NO_GOLDEN else "[red]fail[/]")
        table.add_row(r.family, f"{r.passed}/{len(r.cases)}", verdict, f"{first.case}: {first.difference}" if first else "")
    console.print(table)
    ok = sum(r.ok for r in results)
    console.print(f"{ok} of {len(results)} families pass")


def _gather(run, schemas_dir: Path, samples_dir: Path, family: list[str]) -> list:
    try:
        results = run(schemas_dir, samples_dir, family or None)
        if family and not results:
            raise InputError(f"{samples_dir}: no family named {', '.join(family)}")
    except InputError as exc:
        raise stop(f"error: {exc}", UNUSABLE)
    return results


def _show(results: list, as_json_output: bool, to_json, print_table) -> None:
    if as_json_output:
        emit(json.dumps(to_json(results), indent=2, ensure_ascii=False) + "\n")
    else:
        print_table(results)


def _print_linear_table(results) -> None:
    console = Console(highlight=False, soft_wrap=False, width=160)
    table = Table(show_edge=False, pad_edge=False)
    for column in ("family", "inputs", "result", "worst case", "time", "growth"):
        table.add_column(column, overflow="fold")
    for r in results:
        if r.problem:
            table.add_row(r.family, "-", "[red]error[/]", escape(r.problem), "", "")
            continue
        w = r.worst
        verdict = "[green]pass[/]" if r.ok else f"[red]fail[/] ({len(r.failures)} inputs)"
        table.add_row(
            r.family, str(r.inputs), verdict,
            escape(f"{w.case}: {w.variant} {w.kind}, {w.where}") if w else "",  # [TOOL_CALLS] is no markup
            "timeout" if w and w.timed_out else (f"{w.seconds:.3f} s" if w else ""),
            f"{w.growth:.1f}x" if w and w.growth is not None else "-",
        )
    console.print(table)
    ok = sum(r.ok for r in results)
    console.print(f"{ok} of {len(results)} families parse in linear time (growth limit {MAX_GROWTH:g}x for 10x the input)")
