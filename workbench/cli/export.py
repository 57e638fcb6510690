"""``workbench export``: ship a response schema and/or template as a JSON file or inside a tokenizer
folder (as the ``response_schema`` and ``response_template`` keys, by each file's format)."""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path
from typing import Any, Optional

import typer

from ..jobs.export import ExportRefused, VerificationFailed, export_parsers
from ..formats import format_of, reading_notes
from ..store.chat_template_files import has_chat_template, load_chat_template
from ..engine.chat_template import RenderBudget
from ..engine.releases import CHECKED_VERSIONS
from ..engine.chat_template.roundtrip import unusable
from ..store.files import InputError, WriteError, load_schema
from ..jobs.probes import parser_of, run_probes, template_file, write_probe_samples
from ..jobs.runtimes import RuntimeUnavailable
from ..store.samples import discover, family_of, load
from ..jobs.verify import prepare_runtimes, verify_releases
from .output import FAILED, UNUSABLE, ProgressLine, emit_line, say, stop


def export(
    files: list[Path] = typer.Argument(..., help="A response schema, a response template, or one of each (JSON)."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Write the file (one only) as clean JSON here."),
    tokenizer_dir: Optional[Path] = typer.Option(
        None, "--tokenizer-dir",
        help="Set response_schema and/or response_template in DIR/tokenizer_config.json, keeping every other key."
    ),
    verify: bool = typer.Option(
        False, "--verify",
        help="Before writing, load a staged copy of the folder with one real transformers release per release range "
             f"(of {', '.join(CHECKED_VERSIONS)}) and compare parse_response with the workbench on the samples; write "
             "only if every release range agrees."
    ),
    sample: list[Path] = typer.Option(
        [], "--sample", help="With --verify: a sample or a folder of them (repeatable; default: the family's sample_outputs/<family>/, else "
                              "the round-trip probes rendered by the folder's chat template)."
    ),
    force: bool = typer.Option(
        False, "--force", help="Replace an existing -o file; with --verify, write even when a release disagrees."
    ),
) -> None:
    """Export FILES after checking them; nothing is written if anything is wrong."""
    if verify and tokenizer_dir is None:
        raise stop("error: --verify checks a tokenizer folder: give --tokenizer-dir", UNUSABLE)
    # Probes rendered from the folder's chat template live here until the export is done.
    folder = (tempfile.TemporaryDirectory(prefix="workbench-probes-", ignore_cleanup_errors=True) if verify
              else contextlib.nullcontext())
    with folder as probes:
        _export(files, out, tokenizer_dir, verify, sample, force, probes and Path(probes))


def _export(files: list[Path], out: Optional[Path], tokenizer_dir: Optional[Path], verify: bool, sample: list[Path], force: bool,
            probes: Optional[Path]) -> None:
    try:
        parsers = [load_schema(path) for path in files]
        sample_paths = [p for target in (sample or _family_samples(files)) for p in discover(target)] if verify else []
        if verify and not sample_paths and has_chat_template(tokenizer_dir):
            sample_paths = _probe_samples(tokenizer_dir, files, parsers, probes)
        if verify and not sample_paths:
            raise stop(f"error: --verify has no samples to check {', '.join(map(str, files))} with (no --sample, and no "
                       "sample_outputs/<family>/ beside schemas/<family>.json, and no chat template in "
                       f"{tokenizer_dir} to render the round-trip probes with): give --sample; nothing was verified and "
                       "nothing was written", UNUSABLE)
        samples = [load(p) for p in sample_paths]
        # Before anything is written: exit 2 promises an untouched folder.
        pythons = prepare_runtimes(say=lambda line: say(f"note: {line}")) if verify else {}
        check = _checker(parsers, samples, pythons, tokenizer_dir) if verify else None
        report = export_parsers(parsers, out=out, tokenizer_dir=tokenizer_dir, force=force, inputs=[*files, *sample_paths],
                                verify=check, waiting=lambda: say(f"note: waiting for another export into {tokenizer_dir}"))
    except VerificationFailed as exc:
        raise stop(f"error: {exc} (--force writes anyway)", FAILED)
    except (InputError, ExportRefused, RuntimeUnavailable, WriteError) as exc:
        raise stop(f"error: {exc}; nothing was written", UNUSABLE)
    for path, parser in zip(files, parsers):
        say(f"note: {path} is a {format_of(parser)}")
    for problem in report.warnings:
        say(f"{files[report.warnings_of]}: {problem}")
    for line in report.serving:
        say(f"warning: {files[report.serving_of]}: {line}")
    for path in report.written:
        emit_line(f"wrote {path}")
    for notice in report.notices:
        say(f"note: {notice}")
    _say_releases(parsers)
    if report.forced:
        raise stop("error: verification failed (see above), and the files were written anyway (--force)", FAILED)


def _checker(parsers: list[Any], samples: list, pythons: dict, tokenizer_dir: Path):
    """``verify(staged)`` for export_parsers: check the staged folder, print what each release
    range gives (naming the real folder), and say whether all agree."""
    exported = {format_of(parser): parser for parser in parsers}

    def check(staged: Path) -> bool:
        result = verify_releases(staged, exported, samples, pythons, shown=tokenizer_dir)
        for line in result.lines:
            emit_line(f"verify: {line}")
        return result.ok

    return check


def _probe_samples(tokenizer_dir: Path, files: list[Path], parsers: list[Any], folder: Path) -> list[Path]:
    """With no samples given or found: the round-trip probes rendered by the folder's own chat template
    (in the sandbox, under roundtrip's budget), written into ``folder`` as samples with their prompts.
    The parse each needs for its golden is the template's if one is exported (else the schema's);
    verification compares transformers with the workbench on the outputs, not with the goldens."""
    model = load_chat_template(tokenizer_dir)
    # The parser whose releases differ is the template, which parses with the probes' prompts.
    path, parser = next(((p, v) for p, v in zip(files, parsers) if format_of(v).releases_differ), (files[0], parsers[0]))
    fmt, parse = parser_of(path, parser)
    with ProgressLine(f"rendering {template_file(model, None)}: ") as progress:
        results = run_probes(model, None, parse, {}, RenderBudget(), progress)
    why = unusable(results)
    if why is not None:
        raise InputError(f"{template_file(model, None)}: {why}, so it gives no samples to verify with")
    count = write_probe_samples(folder, [(results, fmt)])
    say(f"note: no --sample and no sample_outputs/<family>/: verifying with the {count} round-trip probes rendered by "
        f"{template_file(model, None)}")
    return discover(folder)


def _say_releases(parsers: list[Any]) -> None:
    for level, line in reading_notes(parsers):
        say(f"{level}: {line}")


def _family_samples(files: list[Path]) -> list[Path]:
    """``sample_outputs/<family>/`` beside ``schemas/<family>.json`` (or ``.template.json``)."""
    for path in files:
        family = family_of(path)
        folder = path.resolve().parent.parent / "sample_outputs" / family
        if path.resolve().parent.name == "schemas" and folder.is_dir():
            return [folder]
    return []
