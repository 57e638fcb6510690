"""Samples: raw outputs on disk, their prompts and goldens, and how a parser fares on each.

A sample is ``<case>.txt``. Its golden for the family's response schema is ``<case>.expected.json``
(the parsed message) or ``<case>.expected-error.txt`` (a phrase of the error transformers raises);
for the family's response template, ``<case>.template.expected.json`` or
``<case>.template.expected-error.txt``. A template also needs the generation prompt (``prefix=``):
``<case>.prompt.txt``, else the folder's ``default.prompt.txt``, else none (``prefix=""``).
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ..engine.difference import first_difference
from ..formats import FORMATS, MatrixSample, by_name, by_noun, format_of
from .files import InputError, parse_schema_text, read_sample, read_text

ERROR_SUFFIX = ".expected-error.txt"
EXPECTED_SUFFIX = ".expected.json"
PROMPT_SUFFIX = ".prompt.txt"
DEFAULT_PROMPT = "default" + PROMPT_SUFFIX  # the prompt of every case in its folder without its own
PROBES = "probes.json"  # in a folder of round-trip samples: each case's probe message, by case name


@dataclass
class Sample:
    path: Path
    text: str
    stamp: int | None = None  # mtime when read, to notice changes by other programs
    note: str = ""  # what was said of it elsewhere, shown when it parses (open --scan: the scan's verdict)

    @property
    def name(self) -> str:
        return self.path.name

    def expected_value_path(self, fmt: str | None = None) -> Path:
        """The golden message of this sample for a parser of format ``fmt`` (a schema by default)."""
        return self.path.with_name(self.path.stem + _infix(fmt) + EXPECTED_SUFFIX)

    def expected_error_path(self, fmt: str | None = None) -> Path:
        return self.path.with_name(self.path.stem + _infix(fmt) + ERROR_SUFFIX)

    def prompt(self) -> tuple[str, Path | None]:
        """The generation prompt a template parses this sample with, and the file it came from."""
        path = prompt_file(self.path)
        return (read_sample(path), path) if path is not None else ("", None)


def _infix(fmt: Any) -> str:
    return by_name(str(fmt)).golden_infix if fmt is not None else ""


def is_sample_file(path: Path) -> bool:
    return path.suffix == ".txt" and not path.name.endswith((ERROR_SUFFIX, PROMPT_SUFFIX))


def prompt_file(sample_path: Path) -> Path | None:
    """``<case>.prompt.txt`` beside the sample, else the folder's ``default.prompt.txt``."""
    for candidate in (sample_path.with_name(sample_path.stem + PROMPT_SUFFIX), sample_path.with_name(DEFAULT_PROMPT)):
        if candidate.is_file():
            return candidate
    return None


def discover(target: str | Path) -> list[Path]:
    """The sample files named by ``target``: the file itself, or every sample in a folder."""
    target = Path(target)
    if target.is_dir():
        named = sorted(p for p in target.iterdir() if is_sample_file(p))
        found = [p for p in named if p.is_file()]
        if not found:
            # A FIFO, device or folder named *.txt is never read (it could block or never end).
            odd = [p.name for p in named if not p.is_file()]
            raise InputError(f"{target}: no sample files (*.txt) in this folder"
                             + (f" (not regular files, so not read: {', '.join(odd[:5])}{' …' if len(odd) > 5 else ''})" if odd else ""))
        return found
    if not target.exists():
        raise InputError(f"{target}: no such sample file")
    return [target]


def load(path: Path) -> Sample:
    text = read_sample(path)
    return Sample(path, text, path.stat().st_mtime_ns)


def family_schema(sample_path: Path, template: bool = False) -> Path | None:
    """``schemas/<family>.json`` (or, with ``template``, ``schemas/<family>.template.json``) for a
    sample under ``sample_outputs/<family>/``, if it exists."""
    candidate = family_parser_path(sample_path, template)
    return candidate if candidate is not None and candidate.is_file() else None


def family_parser_path(sample_path: Path, template: bool = False) -> Path | None:
    """Where the family's schema (or template) belongs for a sample under
    ``sample_outputs/<family>/``, whether or not it exists yet (a new model's first parser)."""
    parts = sample_path.resolve().parts
    for i in range(len(parts) - 2, -1, -1):
        if parts[i] == "sample_outputs" and i + 1 < len(parts) - 1:
            return Path(*parts[:i]) / "schemas" / (parts[i + 1] + by_noun("template" if template else "schema").suffix)
    return None


def parser_files(schemas_dir: Path, family: str) -> list[tuple[Path, str]]:
    """The family's parsers in ``schemas_dir`` with their formats: ``<family>.json`` and
    ``<family>.template.json``, whichever exist (the schema, missing, when neither does)."""
    found = [(schemas_dir / f"{family}{fmt.suffix}", fmt) for fmt in FORMATS]
    return [(path, fmt) for path, fmt in found if path.exists()] or found[:1]


def family_of(parser_path: Path) -> str:
    """The family a parser file is for: ``schemas/<family><suffix>`` for its format's suffix."""
    name = parser_path.name
    suffix = max((f.suffix for f in FORMATS if name.endswith(f.suffix)), key=len, default="")
    return name[: -len(suffix)] if suffix else parser_path.stem


def family_folder(parser_path: Path) -> Path | None:
    """``sample_outputs/<family>/`` beside ``schemas/<family>.template.json`` (or
    ``schemas/<family>.json``), if it exists: the samples a family's parser goes with."""
    family = family_of(parser_path)
    folder = parser_path.resolve().parent
    if folder.name != "schemas":
        return None
    candidate = folder.parent / "sample_outputs" / family
    return candidate if candidate.is_dir() else None


def matrix_samples(paths: list[Path], skipped: list[str] | None = None) -> list:
    """Samples as the release matrix runs them (``MatrixSample``: each with its prompt). A sample
    or prompt that cannot be read raises InputError, or, given ``skipped``, is left out and its
    reason added there."""
    found = []
    for path in paths:
        try:
            sample = load(path)
            prompt, _ = sample.prompt()
        except InputError as exc:
            if skipped is None:
                raise
            skipped.append(str(exc))
            continue
        found.append(MatrixSample(path.name, sample.text, prompt))
    return found


def template_samples(parser_path: Path, given: Path | None = None, skipped: list[str] | None = None) -> list | None:
    """The release matrix's samples for a template file: ``given`` (a folder or a file; one that
    cannot be read raises InputError), else its family's folder by the repository's layout (one that
    cannot be read is left out, its reason added to ``skipped``); None when there are none to find."""
    if given is not None:
        return matrix_samples(discover(given))
    folder = family_folder(parser_path)
    if folder is None:
        return None
    paths = sorted(p for p in folder.iterdir() if is_sample_file(p) and p.is_file())
    return matrix_samples(paths, [] if skipped is None else skipped) if paths else None


# Statuses of a schema on one sample
PARSES, FAILS, MATCHES, DIFFERS = "parses", "fails", "matches expected", "differs from expected"


@dataclass
class Verdict:
    status: str
    detail: str = ""
    value: Any = None  # the parsed message, when it parses
    error: str | None = None  # the failure, when it fails
    golden: bool = False  # whether the sample has a golden to compare with
    golden_problem: str | None = None  # the golden is there but unusable (file:line: why)

    @property
    def good(self) -> bool:
        return self.status in (PARSES, MATCHES)


def expected_of(sample: Sample, fmt: str | None = None) -> tuple[str, Any] | None:
    """("value", message) or ("error", phrase) from the sample's golden for format ``fmt``, or None
    when it has none. A golden that is there but cannot be used (not UTF-8, not JSON, cut short,
    git conflict markers, an empty phrase, or two goldens that contradict each other) raises
    InputError naming the file and line: taken
    for "no golden", ``check --update`` would write over it.

    Read once per version of the file (see ``_on_disk``): the TUI asks on every keystroke for every
    open sample. The message is shared between callers: do not change it."""
    value_path, error_path = sample.expected_value_path(fmt), sample.expected_error_path(fmt)
    value_stamp, error_stamp = _stamp(value_path), _stamp(error_path)
    if value_stamp is not _MISSING and error_stamp is not _MISSING:
        # One says it parses, the other that it fails: neither can be taken without a word.
        raise InputError(f"{value_path}: two goldens for one sample (also {error_path.name}); keep the right one")
    if value_stamp is not _MISSING:
        return _on_disk(value_path, value_stamp, _read_value_golden)
    if error_stamp is not _MISSING:
        return _on_disk(error_path, error_stamp, _read_error_golden)
    return None


def _read_value_golden(path: Path) -> tuple[str, Any]:
    text = read_text(path, "golden")
    _no_conflict_markers(path, text)
    return "value", parse_schema_text(text, str(path))


def _read_error_golden(path: Path) -> tuple[str, Any]:
    text = read_text(path, "golden")
    _no_conflict_markers(path, text)
    phrase = text.strip()
    if not phrase:
        raise InputError(f"{path}:1: empty golden: it would match any error")
    return "error", phrase


# ----- goldens and probes, read once per version of the file ------------------------------------------
# path -> (stamp, what reading it gave: a value, or the InputError it raised). A stamp is what one
# stat tells of the file; an atomic write (a new inode) or an edit by hand (a new mtime or size)
# changes it, so a golden written by "write golden" or an editor is seen at the next keystroke.
_MISSING = object()  # no such file (nor a symlink of that name)
_READ: dict[Path, tuple[tuple, Any]] = {}
_READ_MAX = 4096  # files remembered before the cache starts afresh (`check` over every family reads ~600)


def _stamp(path: Path) -> Any:
    """_MISSING, the file's (mtime_ns, size, inode, device), or None: there, but not a regular file
    one stat can vouch for (a dangling symlink, a FIFO, an error): never cached, so reading it says
    what is wrong each time."""
    try:
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode):
            info = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return _MISSING if not os.path.islink(path) else None
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    return info.st_mtime_ns, info.st_size, info.st_ino, info.st_dev


def _on_disk(path: Path, stamp: tuple | None, read: Callable[[Path], Any]) -> Any:
    """``read(path)``, or what it gave when the file had this stamp (an InputError raised again)."""
    if stamp is None:
        return read(path)
    found = _READ.get(path)
    if found is None or found[0] != stamp:
        try:
            result: Any = read(path)
        except InputError as exc:
            result = exc
        if len(_READ) >= _READ_MAX:
            _READ.clear()
        found = _READ[path] = (stamp, result)
    if isinstance(found[1], InputError):
        raise found[1].with_traceback(None)
    return found[1]


_CONFLICT = re.compile(r"^(?:<{7}|={7}|>{7})(?: |$)", re.MULTILINE)


def _no_conflict_markers(path: Path, text: str) -> None:
    found = _CONFLICT.search(text)
    if found:
        line = text.count("\n", 0, found.start()) + 1
        raise InputError(f"{path}:{line}: git conflict marker {found.group().strip()!r}: resolve the merge first")


def judge(sample: Sample, parser: Any, *, time_limit: float = 2.0, runtime: Any = None) -> Verdict:
    """How ``parser`` (a schema or a template) fares on ``sample``, against its golden when it has
    one (the TUI's sample bar and ``workbench check`` both ask this); as transformers ``runtime``
    runs it (a release name or ``Release``; None: the format's default)."""
    fmt = format_of(parser)
    try:
        prompt = sample.prompt()[0] if fmt.reads_prompt else ""
    except InputError as exc:
        return Verdict(FAILS, str(exc), error=str(exc))
    return judge_with(fmt, sample, parser, prompt, time_limit=time_limit, runtime=runtime)


def judge_with(fmt: Any, sample: Sample, parser: Any, prompt: str, *, tools: Any = None, time_limit: float = 2.0,
               runtime: Any = None) -> Verdict:
    """``judge`` with the prompt given (the TUI's, perhaps being edited, rather than the one on disk)."""
    try:
        value, error = fmt.parse(parser, sample.text, prompt, tools=tools, time_limit=time_limit, runtime=runtime), None
    except Exception as exc:
        error = fmt.failure(exc)
        if error is None:
            raise
        value = None
    return verdict_of(sample, value, error, fmt)


def verdict_of(sample: Sample, value: Any, error: Exception | None, fmt: str | None = None) -> Verdict:
    """The verdict on one outcome of a parse (its value, or its error) against the sample's golden.
    The TUI judges the sample it shows from the very trace it draws, so bar and tree agree."""
    verdict = Verdict(PARSES, value=value) if error is None else Verdict(FAILS, str(error), error=str(error))
    try:
        probe = _probe_of(sample)
        if probe is not None:
            return _probe_verdict(verdict, probe, sample.text)
        expected = expected_of(sample, fmt)
    except InputError as exc:
        verdict.status, verdict.detail, verdict.golden, verdict.golden_problem = DIFFERS, f"unreadable golden: {exc}", True, str(exc)
        return verdict
    if expected is None:
        return verdict
    verdict.golden = True
    kind, want = expected
    error = verdict.error
    if kind == "error":
        if error is None:
            verdict.status, verdict.detail = DIFFERS, f"expected an error containing {want!r}, but it parses"
        elif want.lower() in error.lower():
            verdict.status, verdict.detail = MATCHES, "fails as expected"
        else:
            verdict.status, verdict.detail = DIFFERS, f"fails, but not with {want!r}: {error}"
    elif error is not None:
        verdict.detail = f"expected a message, but it fails: {error}"
    elif json.dumps(verdict.value) == json.dumps(want):
        verdict.status = MATCHES
    else:
        verdict.status, verdict.detail = DIFFERS, first_difference(want, verdict.value)
    return verdict




def read_probes(folder: Path) -> dict[str, Any]:
    """The folder's round-trip probes (``probes.json``: case name -> the message rendered into that
    sample), or {}; an unreadable file raises InputError naming it. Read once per version of the
    file, as a golden is."""
    return dict(_probes_in(folder))


def _probes_in(folder: Path) -> dict[str, Any]:
    path = folder / PROBES
    stamp = _stamp(path)
    return {} if stamp is _MISSING else _on_disk(path, stamp, _read_probes)


def _read_probes(path: Path) -> dict[str, Any]:
    text = read_text(path, "probes")
    _no_conflict_markers(path, text)
    probes = parse_schema_text(text, str(path))
    if not isinstance(probes, dict) or not all(isinstance(v, dict) for v in probes.values()):
        raise InputError(f"{path}:1: expected an object of case name -> probe message")
    return probes


def _probe_of(sample: Sample) -> dict | None:
    """The round-trip probe a sample was rendered from, or None."""
    return _probes_in(sample.path.parent).get(sample.path.stem)


def _probe_verdict(verdict: Verdict, probe: dict, output: str) -> Verdict:
    """A probe sample is judged as ``workbench roundtrip`` judges it: one rule (round-trip differences
    the parser is not to blame for do not count against it)."""
    # Imported here: the analysis process judges samples, and the round trip's module brings jinja2.
    from ..engine.chat_template.roundtrip import NOT_THE_PARSER, PARSER, ROUND_TRIPS, WHY
    from ..engine.chat_template.roundtrip import judge as judge_probe
    from ..engine.chat_template.roundtrip import verdict as probe_verdict

    differences = judge_probe(probe, verdict.value, verdict.error, output)
    said = probe_verdict(differences)
    verdict.golden = True
    if said == ROUND_TRIPS:
        verdict.status, verdict.detail = MATCHES, said
    elif said == NOT_THE_PARSER:
        verdict.status, verdict.detail = MATCHES, f"{said}: " + "; ".join(f"{d.path or '/'} {WHY[d.kind]}" for d in differences)
    elif verdict.error is None:
        wrong = next(d for d in differences if d.kind == PARSER)
        verdict.status, verdict.detail = DIFFERS, f"{said}: {wrong.path or '/'}"
    else:
        verdict.detail = f"{said}: {verdict.error}"
    return verdict
