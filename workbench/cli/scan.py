"""``workbench scan``: a parser over a dataset of real generations (workbench/scan/)."""

from __future__ import annotations

import os
import shlex
import signal
import sys
from pathlib import Path
from typing import Optional

import typer

from ..store.files import InputError, WriteError
from .output import FAILED, OK, UNUSABLE, emit_line, runtime_option, say, stop

INTERRUPTED = 128 + signal.SIGINT  # as a shell reports a command stopped by Ctrl+C (SIGTERM: 143, SIGHUP: 129)


def scan(
    data: str = typer.Argument(..., help="A .jsonl, .json, .parquet or .csv file, a folder of them, a dataset saved "
                               "with save_to_disk, or a Hub dataset id."),
    schema: Optional[Path] = typer.Option(None, "--schema", "-s", help="The response schema to run."),
    template: Optional[Path] = typer.Option(None, "--template", "-t", help="The response template to run."),
    text_column: str = typer.Option("text", "--text-column", help="The column holding the raw output."),
    prompt_column: Optional[str] = typer.Option(None, "--prompt-column", help="The generation prompt (a template's prefix=)."),
    tools_column: Optional[str] = typer.Option(None, "--tools-column", help="The row's tools (JSON text or a list of "
                                               "schemas): a template's tools=, and calls checked against them."),
    expected_column: Optional[str] = typer.Option(None, "--expected-column", help="A golden message: a row that "
                                                  "parses otherwise is 'differs', with the first path."),
    id_column: Optional[str] = typer.Option(None, "--id-column", help="A column of your row ids, copied to the results."),
    split: Optional[str] = typer.Option(None, "--split", help="The split of a Hub or saved dataset (default: train)."),
    runtime: Optional[str] = runtime_option(),
    chunkings: int = typer.Option(0, "--chunkings", metavar="K", help="Templates: stream each row in K random "
                                  "chunkings and one cut at its markers; a row whose streamed parse differs is suspect."),
    time_limit: float = typer.Option(2.0, "--time-limit", metavar="SECONDS", help="Per regex call, as in every "
                                     "parse of the workbench; a row past it is 'timeout' (transformers would keep running)."),
    compare: Optional[Path] = typer.Option(None, "--compare", metavar="OTHER", help="A second parser (the migrated "
                                           "template, another version) run on the same rows: where the two disagree."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="The results (Parquet; default "
                                          "DATA.PARSER.scan.parquet here)."),
    summary_json: Optional[Path] = typer.Option(None, "--json", metavar="FILE", help="Write the summary as JSON too."),
    write_samples: Optional[Path] = typer.Option(None, "--write-samples", metavar="DIR", help="Write failing rows as "
                                                 "samples (row-N.txt, its prompt, no golden) into DIR."),
    limit: int = typer.Option(50, "--limit", metavar="N", help="With --write-samples: at most N rows."),
    num_proc: int = typer.Option(os.cpu_count() or 1, "--num-proc", help="Processes (default: all cores)."),
    engine: str = typer.Option("local", "--engine", help="local (this machine's cores) or ray (Ray Data)."),
    ray_address: Optional[str] = typer.Option(None, "--ray-address", help="A running Ray cluster (default: a local one)."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Scan again even if the same scan was cached."),
    force: bool = typer.Option(False, "--force", help="Replace existing output files."),
) -> None:
    """Run a parser over every row of a dataset: a verdict per row (parsed, raised, timeout,
    differs, suspect), written as Parquet, and a summary of where and how it fails."""
    from ..scan.job import LOCAL, RAY, Columns, Interrupted, Options, ScanJob, run_scan
    from ..scan.summary import lines

    if (schema is None) == (template is None):
        raise stop("error: give the parser to run: --schema FILE or --template FILE (one of them)", UNUSABLE)
    if engine not in (LOCAL, RAY):
        raise stop(f"error: --engine {engine}: choose local or ray", UNUSABLE)
    if num_proc < 1 or limit < 0 or chunkings < 0 or not 0 < time_limit < float("inf"):
        raise stop("error: --num-proc is at least 1, --time-limit a finite number of seconds above 0, and --limit "
                   "and --chunkings are not negative", UNUSABLE)
    job = ScanJob(
        data=data, parser=schema or template, compare=compare, split=split, output=output, summary_json=summary_json,
        columns=Columns(text_column, prompt_column, tools_column, expected_column, id_column),
        options=Options(runtime=runtime, chunkings=chunkings, time_limit=time_limit), samples=write_samples, limit=limit,
        num_proc=num_proc, engine=engine, ray_address=ray_address, use_cache=not no_cache, force=force,
    )
    try:
        with _Progress() as progress:
            done = run_scan(job, progress)
    except (InputError, WriteError) as exc:
        raise stop(f"error: {exc}", UNUSABLE)
    except Interrupted as stopped:
        done = stopped.done
        _show(done, lines)
        say(f"{_stopped_by(stopped.signum)}: {done.rows} rows scanned, written to {done.output} (marked partial)")
        raise typer.Exit(128 + stopped.signum)  # as a shell reports a command a signal ended: 130 for Ctrl+C
    except KeyboardInterrupt as exc:  # before the first row (reading the data): nothing to keep
        signum = getattr(exc, "signum", signal.SIGINT)
        say(f"{_stopped_by(signum)} before the scan started: nothing written")
        raise typer.Exit(128 + signum)
    _show(done, lines)
    failing = done.summary["failing"]["count"]
    raise typer.Exit(FAILED if failing else OK)


def _stopped_by(signum: int) -> str:
    return "interrupted" if signum == signal.SIGINT else f"stopped by {signal.Signals(signum).name}"


def _show(done, lines) -> None:
    from rich.console import Console
    from rich.text import Text

    from ..engine.visible import visible

    console = Console(file=sys.stdout, highlight=False, soft_wrap=True)
    for style, line in lines(done.summary):
        console.print(Text(visible(line), style=style))  # Text, not markup: values come from strangers
    for notice in done.notices:
        say(notice)
    note = " (reused: the same data, parser and options were scanned before)" if done.reused else ""
    emit_line(f"results: {done.output}{note}")
    if done.samples:
        n = len(done.samples)
        emit_line(f"{n} failing row{'s' if n != 1 else ''} written as samples in {done.samples[0].parent}")
    if done.summary["failing"]["count"]:
        emit_line(f"to open the failing rows in the TUI: workbench open --scan {shlex.quote(str(done.output))}")


class _Progress:
    """A rich progress bar on stderr (rows, rows/s, time left) while the scan runs; nothing when
    stderr is not a terminal."""

    def __enter__(self):
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        console = Console(file=sys.stderr)
        self.bar = Progress(TextColumn("scanning"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("{task.fields[rate]}"),
                            TimeRemainingColumn(), console=console, transient=True, disable=not console.is_terminal)
        self.task = None
        self.bar.__enter__()
        return self._update

    def _update(self, done: int, total: int) -> None:
        if self.task is None:
            self.task = self.bar.add_task("scan", total=total, rate="")
        speed = self.bar.tasks[0].speed
        self.bar.update(self.task, completed=done, rate=f"{speed:,.0f} rows/s" if speed else "")

    def __exit__(self, *exc) -> None:
        self.bar.__exit__(*exc)
