"""Shipping a parser: as a JSON file, or as the ``response_schema`` or ``response_template`` key
(by the file's format) of a tokenizer folder.

Both refuse a schema that ``validate`` finds errors in, or a template transformers would reject
when it loads, and write atomically: a refused or interrupted export leaves every file byte for
byte as it was. A file is never written over one of the command's inputs, nor over an existing file
without ``force``. A tokenizer folder's config is read, changed and written under a lock on the
folder, and a check (``export --verify``) runs on a staged copy of the folder before the write.
The CLI and the TUI call these.
"""

from __future__ import annotations

import json
import shlex
import shutil
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from ..store.files import InputError, WriteError, atomic_write_all, check_outputs, dump_json, parse_schema_text, read_text
from ..store.locks import folder_lock
from ..engine.problems import Problem
from ..formats import RESPONSE_SCHEMA, format_of

CONFIG_NAME = "tokenizer_config.json"

def version_note(value: Any) -> str:
    return format_of(value).version_note


class ExportRefused(Exception):
    """Nothing was written; the message says why, naming the file or the schema path."""


class VerificationFailed(ExportRefused):
    """The staged folder was checked and a release disagrees; nothing was written (``force``
    writes anyway). The checker has already said what differs."""


@dataclass
class ExportReport:
    written: list[Path] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    forced: bool = False  # verification failed, and the files were written anyway (force)
    notices: list[str] = field(default_factory=list)  # a hard link broken, a symlink written through
    serving: list[str] = field(default_factory=list)  # why vLLM would refuse the template (a warning)
    warnings_of: int | None = None  # which of the parsers the warnings are about (its index)
    serving_of: int | None = None  # which of the parsers vLLM would refuse


def _checked(parser: Any) -> list[Problem]:
    refused, warnings = format_of(parser).export_problems(parser)
    if refused is not None:
        raise ExportRefused(refused)
    return warnings


def export_schema(schema: Any, out: str | Path | None = None, tokenizer_dir: str | Path | None = None,
                  force: bool = False) -> ExportReport:
    """Write ``schema`` to ``out`` and/or into ``tokenizer_dir``'s config, or refuse and write nothing."""
    return export_parsers([schema], out=out, tokenizer_dir=tokenizer_dir, force=force)


def export_parsers(parsers: list[Any], out: str | Path | None = None, tokenizer_dir: str | Path | None = None, *,
                   force: bool = False, inputs: Sequence[str | Path] = (), verify: Callable[[Path], bool] | None = None,
                   waiting: Callable[[], None] | None = None) -> ExportReport:
    """Write one parser, or a schema and a template together, into ``tokenizer_dir``'s config (each
    as its own key; one parser may also go to ``out``), or refuse and write nothing.

    ``out`` is never one of ``inputs`` (the files the parsers and samples came from) and replaces an
    existing file only with ``force``. The config is read, changed and written under an exclusive
    lock on the folder, so two exports into one folder at once each keep the other's key.
    ``verify(staged)``, if given, checks a staged copy of the folder holding the new config before
    anything is written (under the same lock): False stops the export (VerificationFailed), unless
    ``force``; whatever it raises stops it too."""
    if out is None and tokenizer_dir is None:
        raise ExportRefused("say where to export: an output file, a tokenizer folder, or both")
    if not 1 <= len(parsers) <= 2:
        raise ExportRefused("export takes one file, or two: a response_schema and a response_template")
    formats = [format_of(parser) for parser in parsers]
    if len(set(formats)) != len(formats):
        raise ExportRefused(f"both files are a {formats[0]}: give one response_schema and one response_template")
    if out is not None and len(parsers) > 1:
        raise ExportRefused("-o writes one file: with a schema and a template, export into a tokenizer folder")
    if verify is not None and tokenizer_dir is None:
        raise ExportRefused("verifying checks a tokenizer folder: give one")
    report = ExportReport()
    for i, parser in enumerate(parsers):
        warnings = _checked(parser)
        if warnings:
            report.warnings.extend(warnings)
            report.warnings_of = i
        refused = format_of(parser).serving_refusal(parser)
        if refused is not None:  # written all the same: transformers runs it
            report.serving.append(refused)
            report.serving_of = i
    files: list[tuple[Path, str]] = []
    if out is not None:
        out = Path(out)
        if out.is_dir():
            raise ExportRefused(f"{out}: is a folder; give a file name, such as {out / 'response_schema.json'}")
        if not out.parent.is_dir():
            raise ExportRefused(f"{out.parent}: no such folder")
        config = [Path(tokenizer_dir) / CONFIG_NAME] if tokenizer_dir is not None else []
        _check_outputs([out, *config], inputs, force=True)  # one path twice, or an input: never
        _check_outputs([out], inputs, force=force)  # an existing file: only with force
        files.append((out, dump_json(parsers[0])))
    if tokenizer_dir is None:
        report.notices += _write(files)
        report.written.extend(path for path, _ in files)
        return report
    folder = Path(tokenizer_dir)
    if not folder.is_dir():
        raise ExportRefused(f"{folder}: no such tokenizer folder")
    # Read, check, write: all under the folder's lock, so no other export's key is lost between
    # our read and our write, and what was verified is what is written.
    with folder_lock(folder, waiting):
        config_path, config_text = _config_with(folder, parsers)
        if verify is not None:
            with staged_folder(folder, config_text) as staged:
                good = verify(staged)
            if not good and not force:
                raise VerificationFailed(f"verification failed: nothing was written to {config_path}"
                                         + (f" or {out}" if out is not None else ""))
            report.forced = not good
        files.append((config_path, config_text))
        report.notices += _write(files)
    report.written.extend(path for path, _ in files)
    return report


def _check_outputs(outputs: list[Path], inputs: Sequence[str | Path], force: bool) -> None:
    try:
        check_outputs(outputs, list(inputs), force=force)
    except InputError as exc:
        # check_outputs says "nothing written" its own way; ExportRefused's readers add it.
        raise ExportRefused(str(exc).removesuffix(" (nothing written)").removesuffix("; nothing written")) from None


def _write(files: list[tuple[Path, str]]) -> list[str]:
    """Write them all or none; what the user may not expect (a hard link broken, a symlink
    written through) comes back as notices."""
    # Everything is checked, and every file staged, before anything is replaced.
    try:
        return atomic_write_all(files)
    except WriteError as exc:
        raise ExportRefused(str(exc)) from None


@contextmanager
def staged_folder(folder: Path, config_text: str) -> Iterator[Path]:
    """A copy of ``folder`` in a temporary folder, its config replaced by ``config_text``: what the
    folder will be once written, for transformers to load. The other entries are links to the
    originals (a model folder may hold gigabytes of weights), copies where links cannot be made."""
    with tempfile.TemporaryDirectory(prefix="workbench-verify-") as tmp:
        staged = Path(tmp) / (folder.resolve().name or "tokenizer")
        staged.mkdir()
        for entry in folder.iterdir():
            if entry.name == CONFIG_NAME:
                continue
            try:
                (staged / entry.name).symlink_to(entry.absolute(), target_is_directory=entry.is_dir())
            except OSError:
                if entry.is_dir():
                    shutil.copytree(entry, staged / entry.name)
                else:
                    shutil.copy2(entry, staged / entry.name)
        (staged / CONFIG_NAME).write_text(config_text, encoding="utf-8", newline="")
        yield staged


def _config_with(folder: Path, parsers: list[Any]) -> tuple[Path, str]:
    path = folder / CONFIG_NAME
    try:
        config = parse_schema_text(read_text(path, "tokenizer config"), str(path))
    except InputError as exc:
        raise ExportRefused(str(exc)) from None
    if not isinstance(config, dict):
        raise ExportRefused(f"{path}: a tokenizer config must be a JSON object")
    # Replacing the value keeps the key where it was; a new key goes last. Nothing else changes.
    for parser in parsers:
        config[format_of(parser).name] = parser
    return path, dump_json(config)


def export_to(schema_text: str, target: Path, sample_text: str | None = None, force: bool = False,
              verifier: Callable[..., "Verification"] | None = None, source: Path | None = None) -> list[str]:
    """Export a schema's text to a .json file, or into a tokenizer folder and verify it there if
    transformers is installed (the TUI's export): the lines to show, the first saying what was
    written. Raises ExportRefused, and then nothing was written. An existing .json file is
    replaced only with ``force`` (the TUI asks first).

    ``verifier`` stands in for ``verify_tokenizer_dir`` (same arguments): the TUI runs it in a
    child process, since transformers' parse has no time limit. What it raises, other than
    ExportRefused (no transformers: the export goes on unverified), stops the export; the staged
    folder is removed either way. ``source``: the file the text is saved in, for the command that
    checks every release range (``one_release_checked``)."""
    verifier = verifier or verify_tokenizer_dir
    try:
        schema = parse_schema_text(schema_text, "schema")
    except InputError as exc:
        raise ExportRefused(str(exc)) from None
    if not target.is_dir():
        report = export_schema(schema, out=target, force=force)
        lines = [f"Exported to {report.written[0]}", *report.notices]
    else:
        # As `export --verify`: the folder is checked as it will be (a staged copy) before
        # anything is written, here with the transformers this process has, if any.
        checked: list[str] = []

        def check(staged: Path) -> bool:
            try:
                result = verifier(staged, schema, sample_text, shown=target)
            except ExportRefused as exc:  # no transformers here: the export goes on, unverified
                checked.append(f"not verified: {exc}")
                return True
            checked.extend(result.lines)
            checked.append(one_release_checked(result.release, target, source))
            return result.ok

        try:
            report = export_parsers([schema], tokenizer_dir=target, verify=check)
        except VerificationFailed:
            raise ExportRefused("VERIFY FAILED, nothing written: " + "; ".join(checked)) from None
        lines = [f"Exported into {report.written[0]}", *report.notices, *checked]
    if report.warnings:
        lines.append(f"{len(report.warnings)} warning(s)")
    return lines + [version_note(schema)] + [f"Warning: {line}" for line in report.serving]


@dataclass
class Verification:
    ok: bool
    lines: list[str]
    release: str | None = None  # the transformers version that checked the folder


def one_release_checked(version: str | None, target: Path, source: Path | None = None) -> str:
    """What ``verify_tokenizer_dir`` covered, for the TUI's export: the one transformers installed
    here, where ``export --verify`` (jobs/verify.py) checks every release range, each with a
    release of its own in its own environment, which takes minutes the first time."""
    command = shlex.join(["workbench", "export", str(source) if source else "FILE", "--tokenizer-dir", str(target),
                          "--verify"])
    return (f"checked with one release only, transformers {version or '(unknown)'}, the one installed here; "
            f"to check every release range: {command}")


def install_advice(value: Any = None) -> str:
    """The transformers to install to check ``value``: the releases that read its format (a
    schema only before 5.15, a template from 5.13, its tools= casting from 5.15)."""
    return (format_of(value) if value is not None else RESPONSE_SCHEMA).install_advice


def require_transformers(value: Any = None):
    """transformers' AutoTokenizer, or ExportRefused saying how to install a release that reads
    ``value`` (the parser to check). Callers that verify after writing ask this first, so a
    missing transformers stops them before any write."""
    try:
        import transformers  # noqa: F401 - optional: only the verifier needs it
        from transformers import AutoTokenizer
    except ImportError:
        raise ExportRefused(f"checking the export needs transformers: {install_advice(value)}") from None
    return AutoTokenizer


def verify_tokenizer_dir(tokenizer_dir: str | Path, schema: Any, sample_text: str | None = None,
                         shown: str | Path | None = None) -> Verification:
    """Load the folder with transformers and check it holds ``schema`` and parses like we do
    (``shown``: the folder to name in messages, when ``tokenizer_dir`` is its staged copy). The
    folder's own tokenizer code is never run (trust_remote_code=False)."""
    AutoTokenizer = require_transformers(schema)
    import importlib.metadata

    version = importlib.metadata.version("transformers")
    lines = [f"loaded with transformers {version}"]
    try:
        tokenizer = AutoTokenizer.from_pretrained(str(tokenizer_dir), trust_remote_code=False)
    except Exception as exc:  # whatever the loader raises, the user needs its words
        return Verification(False, lines + [f"transformers could not load {shown or tokenizer_dir}: {exc}"], version)
    fmt = format_of(schema)
    key = fmt.name
    loaded = getattr(tokenizer, key, None)
    if json.dumps(loaded) != json.dumps(schema):  # strict: key order and 1 vs 1.0 count
        lines.append(f"the loaded tokenizer's {key} differs from the exported one"
                     + (f" (this transformers does not read {key})" if loaded is None else ""))
        return Verification(False, lines, version)
    lines.append(f"{key} loaded back unchanged")
    if sample_text is not None:
        # A format that reads the generation prompt gets prefix="" from both sides, as a sample has none.
        prompt = {"prefix": ""} if fmt.reads_prompt else {}

        def theirs_call():
            return tokenizer.parse_response(sample_text, **prompt)

        def ours_call():
            return fmt.parse(schema, sample_text, "")
        theirs, ours = _outcome(theirs_call), _outcome(ours_call)
        if theirs[0] != ours[0] or (theirs[0] == "value" and theirs != ours):
            lines.append(f"parse_response differs on the sample: transformers gave {theirs[1]!r}, the workbench {ours[1]!r}")
            return Verification(False, lines, version)
        lines.append("parse_response on the sample agrees with the workbench" + (' (prefix="")' if fmt.reads_prompt else ""))
    return Verification(True, lines, version)


def _outcome(call) -> tuple[str, str]:
    """("value", its JSON) or ("error", its first line): values must match exactly, errors in kind."""
    try:
        return "value", json.dumps(call())
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        return "error", str(exc).splitlines()[0] if str(exc) else type(exc).__name__
