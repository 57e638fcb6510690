"""What each transformers release reads of a tokenizer folder holding a response_schema, a
response_template or both (docs/response-template.md#releases-at-a-glance), and whether what it
gives agrees with the workbench: the per-format facts of ``export --verify`` (verify.py runs the
releases; this says what each one reads and compares)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..engine.difference import first_difference
from ..engine.errors import RegexTimeout
from ..engine.releases import (CHECKED_VERSIONS, FIRST_MINOR, NEWEST_MINOR, OLDEST, SCHEMA_DROPPED, SCHEMA_MINORS, Release,
                                behaviours, just_before, minor_of, span)
from ..engine.visible import visible
from . import DEFAULT_TIME_LIMIT, RESPONSE_SCHEMA, RESPONSE_TEMPLATE, Format
from .schema import REMEDY


def _checked_in(first: Release, last: Release) -> str:
    """The version of CHECKED_VERSIONS that stands for the run first–last (the newest in it)."""
    return [v for v in CHECKED_VERSIONS if first.minor <= minor_of(v) <= last.minor][-1]


# The release that stands for each run of releases that behave alike (from SCHEMA_DROPPED on).
RANGE_RUNTIME = {first.minor: _checked_in(first, last) for first, last in behaviours() if first.minor >= SCHEMA_DROPPED}
# A range never spans these: the newest release and the one before it are always both checked.
ALWAYS_SPLIT = (NEWEST_MINOR,)


@dataclass
class Verification:
    ok: bool = True
    lines: list[str] = field(default_factory=list)

    def fail(self, line: str) -> None:
        self.ok = False
        self.lines.append(line)


@dataclass
class Range:
    """Releases from 5.15 on that the workbench finds alike on the samples, and the one checked."""

    first: Release
    last: Release
    check: str  # the release run for the whole range

    @property
    def label(self) -> str:
        return span(self.first, self.last)


def template_ranges(template: Any, samples: list) -> list[Range]:
    """The ranges of releases from 5.15 on to check the template with: consecutive runs of
    releases that behave alike (releases.behaviours) join while the workbench gives the same
    results for them on ``samples`` (and loads the template alike), never across ALWAYS_SPLIT."""
    runs = [(first, last) for first, last in behaviours() if first.minor >= SCHEMA_DROPPED]
    prompts = [sample.prompt()[0] for sample in samples]
    ranges: list[Range] = []
    previous = None
    for first, last in runs:
        results = json.dumps(_ours(RESPONSE_TEMPLATE, template, samples, prompts, first)
                             + [RESPONSE_TEMPLATE.load_failure(template, first)])
        if ranges and results == previous and first.minor not in ALWAYS_SPLIT:
            ranges[-1].last, ranges[-1].check = last, RANGE_RUNTIME[first.minor]
        else:
            ranges.append(Range(first, last, RANGE_RUNTIME[first.minor]))
        previous = results
    return ranges


def ranges_to_check(exported: dict[str, Any], samples: list) -> list[Range]:
    """The release ranges from 5.15 on to check a folder with: by its template's results, or one."""
    if RESPONSE_TEMPLATE.name in exported:
        return template_ranges(exported[RESPONSE_TEMPLATE.name], samples)
    return schema_only_ranges()


def schema_only_ranges() -> list[Range]:
    """Without a template, 5.15 and later read nothing: the newest release says so for all."""
    runs = [run for run in behaviours() if run[0].minor >= SCHEMA_DROPPED]
    return [Range(runs[0][0], runs[-1][1], RANGE_RUNTIME[runs[-1][0].minor])]


def reads(exported: dict[str, Any], samples: list, old: dict, new: list[tuple[Range, dict]],
            code: str | None = None) -> Verification:
    """The folder holds a response_schema, a response_template or both (``exported``, by key); each
    release reads what it knows of them (docs/response-template.md#releases-at-a-glance)."""
    prompts = [sample.prompt()[0] for sample in samples]
    schema, template = (exported.get(fmt.name) for fmt in (RESPONSE_SCHEMA, RESPONSE_TEMPLATE))

    def ours(fmt: Format, value: Any, release: Release | None) -> list[dict] | None:
        return None if value is None else _ours(fmt, value, samples, prompts, release)

    names = [s.path.stem for s in samples]
    result = Verification()
    schema_from, schema_to = (Release(minor) for minor in SCHEMA_MINORS)
    result.lines.append(f"{span(Release(FIRST_MINOR), just_before(SCHEMA_MINORS[0]))} read neither key (not checked)")
    if code:
        result.lines.append(f"the folder's auto_map names custom tokenizer code ({visible(code)}); checked with transformers' own "
                            "tokenizer class, which is what loading without trust_remote_code=True gives")

    if _loaded(result, old, exported, (RESPONSE_SCHEMA.name, RESPONSE_TEMPLATE.name)):
        release = old["transformers"]
        if schema is not None:
            upto = just_before(OLDEST.minor) if template is not None else schema_to
            _compare(result, f"{span(schema_from, upto)} read response_schema", release, old["legacy"], ours(RESPONSE_SCHEMA, schema, None), names)
        else:
            result.lines.append(f"{span(schema_from, just_before(OLDEST.minor))} read neither key: they do not know "
                                "response_template")
        if template is not None:
            why = " (preferred over response_schema; parse_response then needs prefix=)" if schema is not None else " (parse_response needs prefix=)"
            _compare(result, f"{span(OLDEST, schema_to)} read response_template{why}", release, old["default"],
                     ours(RESPONSE_TEMPLATE, template, schema_to), names)

    for checked, answer in new:
        if not _loaded(result, answer, exported, (RESPONSE_TEMPLATE.name,)):
            continue
        if template is not None:
            _compare(result, f"{checked.label} read response_template (checked with {answer['transformers']})",
                     answer["transformers"], answer["default"], ours(RESPONSE_TEMPLATE, template, checked.last), names)
        else:
            result.lines.append(f"{checked.label} read nothing: they drop response_schema when the tokenizer loads, "
                                f"so parse_response raises AttributeError; {REMEDY}")
    return result


def _loaded(result: Verification, answer: dict, exported: dict[str, Any], reads: tuple[str, ...]) -> bool:
    """Whether the release loaded the folder and got back, unchanged, each exported key it reads."""
    release = f"transformers {answer['transformers']}"
    if answer["load_error"]:
        result.fail(f"{release} could not load the folder: {answer['load_error']}")
        return False
    good = True
    for key in (k for k in reads if k in exported):
        if json.dumps(answer["loaded"].get(key)) != json.dumps(exported[key]):  # strict: key order and 1 vs 1.0 count
            result.fail(f"{release}: the loaded {key} differs from the exported one")
            good = False
    if good:
        kept = " and ".join(k for k in reads if k in exported)
        dropped = "; response_schema is dropped when the tokenizer loads" if RESPONSE_SCHEMA.name in exported.keys() - set(reads) else ""
        result.lines.append(f"{release}: {kept or 'the folder'} loaded back unchanged{dropped}")
    return good


def _compare(result: Verification, what: str, release: str, theirs: list[dict] | None, ours: list[dict] | None,
             names: list[str]) -> None:
    """One release range's verdict: every sample must agree, and a parse that ran past the time limit
    (in transformers, or in the workbench) is a failure naming the release and the sample."""
    theirs = theirs if theirs is not None else [{"error": "AttributeError", "message": "no response_schema loaded"}] * len(names)
    ours = ours or []
    timed = [i for i, (a, b) in enumerate(zip(theirs, ours)) if "timeout" in a or "timeout" in b]
    differing = [i for i, (a, b) in enumerate(zip(theirs, ours)) if i not in timed and not _agree(a, b)]
    if not differing and not timed and names and all("error" in a for a in theirs):
        # Both refuse (a template a release cannot load, say): "agrees" would read as a working parser.
        result.lines.append(f"{what}: parse_response fails on every sample, as the workbench does: {_said(theirs[0])}")
        return
    if not differing and not timed:
        result.lines.append(f"{what}: parse_response agrees with the workbench on {len(names)} of {len(names)} samples")
        return
    if differing:
        result.fail(f"{what}: parse_response differs from the workbench on {len(differing)} of {len(names)} samples "
                    "(expected: what transformers gave; got: the workbench)")
    for i in differing[:5]:
        a, b = theirs[i], ours[i]
        if "value" in a and "value" in b:
            result.lines.append(f"  {visible(names[i])}: {first_difference(a['value'], b['value'])}")
        else:
            result.lines.append(f"  {visible(names[i])}: transformers gave {_said(a)}, the workbench {_said(b)}")
    for i in timed:
        if "timeout" in theirs[i]:
            result.fail(f"{what}: transformers {release} did not finish parse_response on {visible(names[i])} within "
                        f"{theirs[i]['timeout']:g} s (the workbench's time limit for a parse): a regex there backtracks too much")
        else:
            result.fail(f"{what}: the workbench stopped parse_response on {visible(names[i])} at its time limit "
                        f"({ours[i]['timeout']:g} s), so it cannot be compared with transformers {release}")


def _agree(theirs: dict, ours: dict) -> bool:
    """Values must be the same JSON, key order included; errors agree in that both fail."""
    if "error" in theirs or "error" in ours:
        return "error" in theirs and "error" in ours
    return json.dumps(theirs["value"]) == json.dumps(ours["value"])


def _said(outcome: dict) -> str:
    if "error" in outcome:
        return visible(f"{outcome['error']}: {(outcome['message'].splitlines() or [''])[0][:120]}")
    text = json.dumps(outcome["value"], ensure_ascii=False)
    return visible(text if len(text) <= 160 else text[:157] + "...")


def _ours(fmt: Format, value: Any, samples: list, prompts: list[str], release: Release | None) -> list[dict]:
    """The workbench's outcome for each sample, in order, with the parser loaded once: as a tokenizer
    parses with the one parser it holds (before 5.21 a template's list default carries over)."""
    try:
        loaded = fmt.load(value, release)
    except Exception as exc:  # noqa: BLE001 - what transformers raises, named as it names it
        return [{"error": type(exc).__name__, "message": str(exc)}] * len(samples)
    outcomes = []
    for sample, prompt in zip(samples, prompts):
        try:
            value = fmt.parse(loaded, sample.text, prompt, time_limit=DEFAULT_TIME_LIMIT)
            outcomes.append({"value": json.loads(json.dumps(value))})  # as returned, before a later parse
        except RegexTimeout:
            outcomes.append({"timeout": DEFAULT_TIME_LIMIT})
        except Exception as exc:
            if fmt.failure(exc) is None:
                raise
            outcomes.append({"error": type(exc).__name__, "message": str(exc)})
    return outcomes
