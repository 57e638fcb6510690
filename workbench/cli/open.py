"""``workbench open``: the TUI on a sample file or a folder of samples."""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path
from typing import Optional

import typer

from ..engine.chat_template import RenderBudget
from ..store.files import InputError
from .output import OK, emit_line, say, UNUSABLE, render_budget, render_timeout_option, runtime_option, stop


def open_(
    sample: Optional[Path] = typer.Argument(
        None, help="A raw output file, or a folder of them (*.txt); left out with --scan, and may be with --chat-template."
    ),
    schema: Optional[Path] = typer.Option(
        None, "--schema", "-s",
        help="The schema or template to edit (default: schemas/<family>.json for samples under sample_outputs/<family>/).",
    ),
    template: bool = typer.Option(
        False, "--template", "-t",
        help="Edit the family's response template, schemas/<family>.template.json, instead of its schema.",
    ),
    tools: Optional[Path] = typer.Option(None, "--tools", help="Templates: JSON tool definitions for tools= argument casting."),
    chat_template: Optional[Path] = typer.Option(
        None, "--chat-template", help="Add the round-trip probes rendered by this chat template (a tokenizer folder or .jinja) as samples."
    ),
    variable: list[str] = typer.Option([], "--var", help="With --chat-template: a template variable, NAME=JSON; repeatable."),
    render_timeout: float = render_timeout_option(RenderBudget.seconds),
    runtime: Optional[str] = runtime_option(),
    scan: Optional[Path] = typer.Option(
        None, "--scan", metavar="RESULT",
        help="Open the failing rows of a workbench scan (its Parquet results) as samples, with the parser it ran "
             "(--schema FILE runs another) and each row's prompt; SAMPLE is left out.",
    ),
    limit: int = typer.Option(200, "--limit", metavar="N", help="With --scan: the first N failing rows."),
    samples_dir: Optional[Path] = typer.Option(
        None, "--samples-dir", metavar="DIR",
        help="With --scan: write the rows into DIR (new or empty), where the goldens and prompts saved in the TUI "
             "stay; without it they go into a temporary folder removed on quit."),
) -> None:
    """Open the workbench: edit SCHEMA (a response_schema or a response_template) and watch it
    parse SAMPLE live."""
    from ..store.document import SchemaDocument
    from ..store.samples import discover, family_schema, load
    from ..store.prompts import STARTER_TEMPLATE
    from ..store.files import check_json_depth
    from .template_parse import tools_from

    # The probes live in a folder of their own for as long as the app runs, removed when it ends
    # (normally or by an exception).
    # So do a scan's failing rows (--scan).
    folder = (tempfile.TemporaryDirectory(prefix="workbench-scan-" if scan is not None else "workbench-probes-",
                                          ignore_cleanup_errors=True)
              if chat_template is not None or scan is not None else contextlib.nullcontext())
    with folder as probes:
        notes: dict = {}
        try:
            if template and schema is not None:
                raise InputError("give --schema FILE or --template, not both")
            if samples_dir is not None and scan is None:
                raise InputError("--samples-dir goes with --scan RESULT")
            if scan is not None:
                _check_rows_folder(samples_dir)
                paths, notes, schema, runtime = _scan_samples(scan, Path(probes), limit, sample, schema, template,
                                                              chat_template, runtime)
                if samples_dir is not None:
                    paths, notes = _move_rows(paths, notes, Path(probes), samples_dir)
            elif sample is None and (chat_template is None or schema is None):
                raise InputError("give a SAMPLE, or --chat-template with --schema FILE, or --scan RESULT")
            else:
                paths = discover(sample) if sample is not None else []
            samples = [load(p) for p in paths]
            for sample_ in samples:  # --scan: what the scan said of each row, shown when it parses
                sample_.note = notes.get(sample_.path, "")
            tool_definitions = tools_from(tools)
            if schema is None:
                schema = family_schema(paths[0], template=template)
            if template and schema is None:
                # No family template yet: a starter one, saved where the family's would be.
                document = SchemaDocument(_starter_path(paths[0], STARTER_TEMPLATE), STARTER_TEMPLATE)
            else:
                document = SchemaDocument.open(schema)
            # Not-JSON text opens (the editor shows where it breaks); JSON nested deeper than
            # anything reads is refused here, before the screen starts.
            check_json_depth(document.saved_text, str(document.path))
            tui_runtime = _tui_runtime(document.saved_text, runtime)
            if chat_template is not None:
                samples += _probe_samples(chat_template, document, variable, Path(probes), render_budget(render_timeout),
                                          tui_runtime)
        except InputError as exc:
            raise stop(f"error: {exc}", UNUSABLE)
        from ..tui.app import WorkbenchApp  # Textual is imported only for the TUI

        if scan is None:
            run_app(WorkbenchApp(document, samples, tools=tool_definitions, runtime=tui_runtime))
            return
        kept = samples_dir is not None
        where = (f"The rows are in {samples_dir}: goldens and prompts saved beside them stay" if kept else
                 f"The rows are in a temporary folder, removed on quit, with any golden or prompt saved beside them "
                 "(--samples-dir DIR keeps them)")
        try:
            run_app(WorkbenchApp(document, samples, tools=tool_definitions, runtime=tui_runtime,
                                 temporary=None if kept else Path(probes), start_notice=where))
        finally:
            if kept:
                say(f"the rows, and the goldens and prompts saved beside them, are in {samples_dir}")


def run_app(app) -> None:
    """Run the TUI in the terminal until it quits (shared with ``new``), then say where unsaved edits
    went if it stopped on an error, and exit with its code."""
    app.run()
    for line in app.rescued:  # an unexpected error or a signal closed it: where the unsaved edits went
        try:
            say(line)
        except OSError:  # the terminal is gone (SIGHUP): the files are there all the same
            pass
    if app.return_code:
        raise typer.Exit(app.return_code)


def _tui_runtime(text: str, value: Optional[str]):
    """The release the TUI starts at for ``--runtime value``: a template's as ``parse`` takes it; for
    a schema, a release that reads schemas (5.3–5.14, refused otherwise), and the template
    release it names for a template pasted over it later (the newest below 5.13)."""
    from ..engine.releases import NEWEST, UnknownRelease, release
    from ..formats import format_of_text

    if value is None:
        return NEWEST
    fmt = format_of_text(text)  # not JSON: by its keys (the editor shows where it breaks)
    try:
        chosen = fmt.runtime(value)
    except ValueError as exc:
        raise InputError(f"--runtime {value}: {exc}") from None
    if fmt.releases_differ:
        return chosen.release
    try:
        return release(value)
    except UnknownRelease:
        return NEWEST


def _starter_path(sample: Path, starter: str) -> Path | None:
    """Where the family's parser of the starter's format would be (``schemas/<family><suffix>``) for a
    sample under sample_outputs/<family>/, whether or not the family has a parser yet."""
    from ..formats import format_of_text
    from ..store.samples import family_of, family_parser_path

    # a new model has no schemas/<family>.json yet: its samples folder still names the family
    schema = family_parser_path(sample)
    return schema.with_name(family_of(schema) + format_of_text(starter).suffix) if schema is not None else None


def _scan_samples(scan: Path, folder: Path, limit: int, sample, schema, template: bool, chat_template,
                  runtime: Optional[str]) -> tuple[list[Path], dict, Path, Optional[str]]:
    """``--scan RESULT``: its first ``limit`` failing rows as samples in ``folder`` (which the caller
    removes), in row order, what the scan said of each (by path), and the parser and release to open
    them with: the scan's, unless ``--schema`` / ``--runtime`` say otherwise. No failing row: said,
    and the command ends (exit 0) without opening."""
    from ..scan.failures import read_back

    if sample is not None:
        raise InputError("give a SAMPLE or --scan RESULT, not both")
    if chat_template is not None:
        raise InputError("give --chat-template or --scan RESULT, not both")
    if template:
        raise InputError("--template opens a family's template; with --scan, give the parser to run instead of the "
                         "scan's as --schema FILE")
    if limit < 1:
        raise InputError("--limit is at least 1")
    found = read_back(scan, folder, limit, schema)
    meta = found.meta
    scanned = meta.get("rows_written", meta.get("rows")) if meta.get("partial") else meta.get("rows")
    partial = f" (a partial scan: {scanned} of {meta.get('rows')} rows)" if meta.get("partial") else ""
    if not found.samples:
        emit_line(f"{scan}: no failing rows among the {scanned} row{'' if scanned == 1 else 's'} scanned{partial}; "
                  "nothing to open")
        raise typer.Exit(OK)
    if found.more or partial:
        shown = len(found.samples)
        rows = f"{shown} failing row{'' if shown == 1 else 's'}"
        say(f"{scan}: " + (f"the first {rows} (--limit N for more)" if found.more else rows) + partial)
    options = meta.get("options")
    scan_runtime = options.get("runtime") if isinstance(options, dict) and schema is None else None
    scan_runtime = scan_runtime if isinstance(scan_runtime, str) else None
    return found.samples, found.notes, found.parser, runtime if runtime is not None else scan_runtime


def _check_rows_folder(folder: Optional[Path]) -> None:
    """``--samples-dir DIR``: a folder that does not exist yet, or an empty one (nothing in it is
    written over or mixed with the rows; ``workbench open DIR`` opens rows written there before)."""
    if folder is None:
        return
    if folder.exists() and not folder.is_dir():
        raise InputError(f"--samples-dir {folder}: a file, not a folder")
    if folder.is_dir() and any(folder.iterdir()):
        raise InputError(f"--samples-dir {folder}: holds files already; give a new or empty folder (workbench open "
                         f"{folder} opens rows written there before)")


def _move_rows(paths: list[Path], notes: dict, written: Path, folder: Path) -> tuple[list[Path], dict]:
    """The rows (with their prompts and goldens) read back into ``written`` written again into
    ``folder`` (created), all at once; the samples' paths and notes there."""
    from ..store.files import atomic_write_all, read_text

    files = [(folder / p.name, read_text(p, "sample")) for p in sorted(written.iterdir()) if p.is_file()]
    _check_rows_folder(folder)  # still empty: nothing of the user's is written over
    try:
        folder.mkdir(parents=True, exist_ok=True)
        atomic_write_all(files)
    except OSError as exc:
        raise InputError(f"--samples-dir {folder}: could not write the rows there ({exc.strerror or exc})") from None
    return [folder / p.name for p in paths], {folder / p.name: note for p, note in notes.items()}


def _probe_samples(chat_template: Path, document, variables: list[str], folder: Path, budget=None, runtime=None) -> list:
    """The round-trip probes as samples (output, prompt, golden) written into ``folder`` (which the
    caller removes): the sample bar gives each its verdict as the parser is edited. A progress line
    shows while the probes render, before the TUI starts."""
    from ..store.chat_template_files import load_chat_template
    from ..store.files import parse_schema_text
    from ..jobs.probes import parser_of, run_probes, template_file, template_variables, write_probe_samples
    from ..store.samples import discover, load
    from .output import ProgressLine

    model = load_chat_template(chat_template)
    fmt, parse = parser_of(document.path or Path("schema"), parse_schema_text(document.saved_text, str(document.path)), runtime)
    variables_ = template_variables(variables)
    with ProgressLine(f"rendering {template_file(model, None)}: ") as progress:
        results = run_probes(model, None, parse, variables_, budget or RenderBudget(), progress)
    write_probe_samples(folder, [(results, fmt)])
    return [load(p) for p in discover(folder)]
