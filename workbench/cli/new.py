"""``workbench new NAME --chat-template SRC``: a new model family in one step. It drafts a response
template and schema from the chat template (as ``draft`` does), writes them as
``schemas/NAME.template.json`` and ``schemas/NAME.json`` with the round-trip probes as the family's
samples in ``sample_outputs/NAME/`` (as ``roundtrip --write-samples`` writes them, with a golden for
each format), runs ``check`` on the family and opens the TUI on the template with those samples.

Exit codes, as ``draft``'s: 0 only when both parsers give back every probe (and ``check`` passes); 1
when some probe does not come back, could not be rendered, or the draft lacks a field the template
has; 2 for unusable input, and then nothing is written. Nothing is written over without ``--force``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Optional

import typer

from ..jobs.check import check as run_check
from ..engine.chat_template import RenderBudget
from ..engine.visible import visible
from ..store.files import InputError, WriteError, atomic_write_all, check_outputs, dump_json
from ..formats import FORMATS, format_of
from ..formats.runtime_choice import template_runtime
from ..jobs.probes import draft_and_roundtrip, missing_fields, probe_files, template_file, template_variables
from ..store.samples import ERROR_SUFFIX, EXPECTED_SUFFIX, PROBES, PROMPT_SUFFIX, discover, load, read_probes
from .check import print_table as print_check_table
from .model_source import chat_template_option, model_from, renderer_option, trust_renderer_option
from .output import FAILED, UNUSABLE, ProgressLine, emit_text, render_budget, render_timeout_option, say, stop
from .roundtrip import both_table, exit_code

# A family name becomes a file and a folder name: a plain name, so it cannot point elsewhere
# (``../x``), hide (``.x``) or read as another format's file (``x.template`` gives x.template.json).
_FAMILY_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


def new(
    name: str = typer.Argument(..., help="The new family: schemas/NAME.json, sample_outputs/NAME/."),
    chat_template: Optional[Path] = chat_template_option(),
    renderer: Optional[str] = renderer_option(),
    trust_renderer: bool = trust_renderer_option(),
    schemas_dir: Path = typer.Option(Path("schemas"), "--schemas", help="Where the family's parsers go."),
    samples_dir: Path = typer.Option(Path("sample_outputs"), "--samples", help="Where the family's sample folder goes."),
    template_name: Optional[str] = typer.Option(None, "--name", help="Which of the model's named chat templates to analyse."),
    variable: list[str] = typer.Option([], "--var", help="A template variable, NAME=JSON (e.g. enable_thinking=true); repeatable."),
    force: bool = typer.Option(False, "--force", help="Write over the family's existing files (never over the chat template)."),
    no_open: bool = typer.Option(False, "--no-open", help="Do not open the TUI afterwards."),
    render_timeout: float = render_timeout_option(RenderBudget.seconds),
) -> None:
    """Start a model family from its chat template: draft both parsers, write the round-trip probes
    as its samples, check it, and open the TUI on the template."""
    family = name
    chosen = template_runtime(None)  # a new family is drafted for the newest release, as check and open run it
    folder = samples_dir / family

    def parser_path(fmt) -> Path:  # schemas/NAME.json, schemas/NAME.template.json: the suffix is the format's
        return schemas_dir / f"{family}{fmt.suffix}"

    try:
        if not _FAMILY_NAME.fullmatch(family) or family.endswith(".template"):
            raise InputError(f"{visible(family)!r} is not a family name: use letters, digits, '_', '-' and '.', "
                             "starting with a letter or digit (and not ending in .template)")
        for where in (schemas_dir, samples_dir, folder):
            if where.exists() and not where.is_dir():
                raise InputError(f"{where} is a file, not a folder")
        model = model_from(chat_template, renderer, trust_renderer)
        variables, budget = template_variables(variable), render_budget(render_timeout)
        # Before the renders, what can be known of the plan; every file again once the probes are known.
        check_outputs([*map(parser_path, FORMATS), folder / PROBES], model.files, force)
        with ProgressLine(f"rendering {template_file(model, template_name)}: ") as progress:
            found, through_template, through_schema = draft_and_roundtrip(model, template_name, variables, budget, chosen, progress)
        template_path, schema_path = parser_path(format_of(found.template)), parser_path(format_of(found.schema))
        files = [(template_path, dump_json(found.template)), (schema_path, dump_json(found.schema))]
        # The probes' outputs and prompts are the same for both parsers; each adds its own golden.
        sample_files: dict[Path, str] = {}
        for value, results in ((found.template, through_template), (found.schema, through_schema)):
            for path, text in probe_files(folder, results, format_of(value)):
                sample_files.setdefault(path, text)
        names = {r.name for results in (through_template, through_schema) for r in results if r.output is not None}
        if folder / PROBES in sample_files:  # these probes only: not an earlier new's that no longer render
            kept = json.loads(sample_files[folder / PROBES])
            sample_files[folder / PROBES] = dump_json({k: v for k, v in kept.items() if k in names})
        files += list(sample_files.items())
        check_outputs([path for path, _ in files], model.files, force)
        stale = _earlier_samples(folder, set(sample_files))
        notices = _write(files, [schemas_dir, samples_dir, folder])
        for path in stale:  # after the write: a failed write leaves the earlier family whole
            path.unlink(missing_ok=True)
    except (InputError, WriteError, OSError) as exc:
        raise stop(f"error: {exc}", UNUSABLE)

    lines = [f"found: {line}" for line in found.findings] + [f"guessed: {line}" for line in found.guesses]
    emit_text("\n".join(lines) + "\nround trip of the drafted parsers:\n" + both_table(through_schema, through_template))
    say(f"wrote {template_path} and {schema_path}")
    say(f"wrote {len(discover(folder))} samples with their prompts and goldens (both formats) to {folder}")
    if stale:
        say(f"removed {len(stale)} file{'' if len(stale) == 1 else 's'} of the earlier new {family}'s probes that "
            f"no longer render ({_names(stale)})")
    for notice in notices:
        say(f"note: {notice}")
    try:
        checked = run_check(schemas_dir, samples_dir, [family])
    except InputError as exc:
        raise stop(f"error: {exc}", UNUSABLE)
    emit_text(f"workbench check {schemas_dir} {samples_dir} --family {family}:\n")
    print_check_table(checked)
    shortfalls = missing_fields(found.template, through_template)
    for sentence in shortfalls:
        say(f"not a success: {sentence}")
    if not (checked and all(r.ok for r in checked)):
        say(f"not a success: workbench check fails on {family}")
    code = FAILED if shortfalls or not (checked and all(r.ok for r in checked)) else exit_code(through_template + through_schema)
    if not no_open:
        from .open import run_app

        run_app(build_app(template_path, folder))
    raise typer.Exit(code)


def _earlier_samples(folder: Path, written: set[Path]) -> list[Path]:
    """The files of ``folder`` an earlier ``new`` wrote (its probes.json names each probe) that this
    one does not write again (``written``: what it writes): removed, so no golden of a probe that no longer renders stays beside
    the new ones. Anything else in the folder (a shipped family's curated samples, a user's own) is
    never written over or mixed with the probes, even with --force: an ``InputError`` names it."""
    if not folder.is_dir():
        return []
    earlier = set(read_probes(folder))
    endings = [".txt", PROMPT_SUFFIX] + [f"{f.golden_infix}{end}" for f in FORMATS for end in (EXPECTED_SUFFIX, ERROR_SUFFIX)]
    ours = {PROBES} | {f"{name}{end}" for name in earlier for end in endings}
    foreign = sorted(p for p in folder.iterdir() if p.name not in ours)
    if foreign:
        raise InputError(f"{folder} holds files that no earlier workbench new wrote ({_names(foreign)}; its "
                         f"{PROBES} does not name them): new writes only into an empty folder or one of its own, "
                         "even with --force; give another with --samples DIR, or move them")
    return sorted(p for p in folder.iterdir() if p not in written)


def _names(paths: list[Path], shown: int = 5) -> str:
    more = f" and {len(paths) - shown} more" if len(paths) > shown else ""
    return ", ".join(visible(p.name) for p in paths[:shown]) + more


def _write(files: list[tuple[Path, str]], folders: list[Path]) -> list[str]:
    """All the family's files or none; a folder made for them is removed again if the write fails."""
    made = [f for f in dict.fromkeys(folders) if not f.exists()]
    for f in made:
        f.mkdir(parents=True, exist_ok=True)
    try:
        return atomic_write_all(files)
    except BaseException:
        for f in reversed(made):
            try:
                f.rmdir()  # only if still empty: atomic_write_all removed its temporary files
            except OSError:
                pass
        raise


def build_app(template_path: Path, folder: Path):
    """The TUI on the family's template with its samples (tests drive this with ``run_test``)."""
    from ..store.document import SchemaDocument
    from ..engine.releases import NEWEST
    from ..tui.app import WorkbenchApp  # Textual is imported only for the TUI

    return WorkbenchApp(SchemaDocument.open(template_path), [load(p) for p in discover(folder)], runtime=NEWEST)
