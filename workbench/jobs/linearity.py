"""``workbench check --linear``: every schema and template parses in linear time on its samples grown large.

transformers runs a response schema with no time limit, so a regex that backtracks over a long
whitespace run (a model stuck emitting spaces) or a long output holds ``parse_response`` for
minutes. This check feeds each schema and each template (with the
sample's prompt, which is not grown), for every sample of its family:

- **whitespace runs**: the sample with a run of 200,000 whitespace characters inserted at one
  token boundary (see ``boundaries``), for every boundary kept. The run is one of four kinds:
  spaces, tabs, newlines, or mixed (`` \\t\\r\\n`` repeated). At the start and the end of the text
  all four kinds are tried; elsewhere the kinds take turns, boundary after boundary, continuing
  from sample to sample, so each kind meets every part of a family's outputs;
- **repetition**: the sample repeated to 2 MB (10 times a ~200 KB repetition);
- **plain answers**: a plain answer (``Hello.``, no marker) after a run of 200,000 whitespace
  characters, alone, after each delimiter of the family (the markers its samples hold: ``<think>``,
  ``</think>``, ``<response>``, ``[TOOL_CALLS]``…), inside each delimiter (at every token boundary
  in it: ``</think`` run ``>``) and between each two delimiters that follow one another in a sample,
  with a run after each. No sample has to be a plain answer: a model stuck in spaces before one is
  enough, and a regex that looks ahead for a closer it never finds rescans the run from each of its
  characters. A template parses each with every prompt of the family, taking turns (all of them for
  the lone run before the answer).

An input passes when no regex call of its parse runs past ``WALL_SLACK`` times the engine's time limit (``RegexTimeout``) nor
grows faster than linearly: the time at 10× the input (200,000 vs 20,000 inserted characters,
2 MB vs 200 KB) is at most ``MAX_GROWTH`` times the time at 1×. A parse that fails with an
ordinary error passes: linearity is about time, the goldens are ``workbench check``'s business.
A sample stops at its first timeout (the rest would mostly cost the limit again each).
"""

from __future__ import annotations

import math
import re
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..engine.errors import RegexTimeout
from ..formats import DEFAULT_TIME_LIMIT, format_of
from ..store.files import InputError, read_sample
from ..store.samples import Sample
from .families import Family, FamilyResult, family_parsers

RUN = 200_000  # whitespace characters inserted at 10×
REPEATED = 2_000_000  # characters of the repeated sample at 10×
SCALE = 10
MAX_GROWTH = 20.0  # linear is 10, quadratic 100; the rest is slack for noise (below) and for the
# check's two worker processes sharing the CPU caches, which slows the 2 MB parse more than the 200 KB one
# (a linear template measured 15.8x and 17.3x there, 10.8x alone)
# Below this, a 1× time says little: it is mostly the parse's fixed cost, scheduling noise on a
# shared 2-core machine, and a cache effect (a 200 KB text fits in the CPU caches, 2 MB does not,
# so a linear parse of the repeated sample measures up to 14× for 10× the input, alone). So the 1× time
# is counted as at least FLOOR, and the growth test only bites once the 10× input takes over
# MAX_GROWTH * FLOOR (0.75 s). A quadratic pattern still fails: over a 200,000-character run, or
# once per repetition over 2 MB, it needs about 10^10 steps and hits the time limit.
FLOOR = 0.05
# The engine's limit is wall clock, per regex call: on a loaded machine (CI, two workers here) a
# linear 2 MB parse of 0.5 CPU-s passed 2 s of wall clock and failed as a timeout. The check lets
# each call run this many times the limit before it calls it a timeout; what it judges is the
# growth in CPU time, and a backtracking regex (10^10 steps over a 200,000-character run) still
# runs past any such limit.
WALL_SLACK = 5
KINDS = {"spaces": " ", "tabs": "\t", "newlines": "\n", "mixed": " \t\r\n"}

# Lexical tokens of a raw output: special-token-like markers (<think>, <|im_end|>, <｜tool▁call▁begin｜>,
# <steptml:invoke name="f">), [TAG]s ([TOOL_CALLS], [ARGS]), whitespace runs, word runs (letters and
# digits) and punctuation runs. "_" is punctuation, so get_weather is three tokens: a run inside a
# snake_case name or key is a place a model can stall too.
_MARKER = r"<[^<>\s][^<>\n]{0,80}>|\[[A-Z][A-Z_]*\]"
TOKEN = re.compile(
    rf"(?P<marker>{_MARKER})|(?P<space>\s+)|(?P<word>[^\W_]+)|(?P<punct>(?:(?!{_MARKER})[^\w\s]|_)+)"
)


@dataclass(frozen=True)
class Boundary:
    offset: int
    left: str  # the token before ("" at the start)
    right: str  # the token after ("" at the end)

    def describe(self) -> str:
        return f"offset {self.offset} ({_quote(self.left) or 'start'} | {_quote(self.right) or 'end'})"


def boundaries(text: str) -> list[Boundary]:
    """The places a whitespace run goes: the start, the end, and every boundary between two tokens,
    less those that look alike. Inserting at either end of a whitespace run lengthens the same run,
    so a run's end is skipped; and a boundary is kept only the first time its look occurs in the
    text: the same section (the last marker before it) between the same tokens (words and
    whitespace by class, markers and punctuation as written). Later look-alikes sit in the same
    part of the output, where a schema's regexes do the same thing."""
    tokens = list(TOKEN.finditer(text))
    found, seen, section = [], set(), None
    for i in range(len(tokens) + 1):
        before = tokens[i - 1] if i else None
        after = tokens[i] if i < len(tokens) else None
        if before is not None and before.lastgroup == "space" and after is not None:
            continue  # the end of a whitespace run: the same as its start
        if before is not None and before.lastgroup == "marker":
            section = before.group()
        look = (section, _look(before), _look(after))
        if look in seen and before is not None and after is not None:
            continue
        seen.add(look)
        offset = after.start() if after is not None else len(text)
        found.append(Boundary(offset, before.group() if before else "", after.group() if after else ""))
    return found


def _look(token: re.Match | None) -> str:
    if token is None:
        return ""
    return token.lastgroup if token.lastgroup in ("space", "word") else token.group()


def _quote(token: str) -> str:
    token = token if len(token) <= 24 else token[:21] + "..."
    return repr(token)[1:-1] and f"`{repr(token)[1:-1]}`"


# -- measuring ----------------------------------------------------------------------------------


@dataclass
class Trial:
    """One grown input: where it was grown, and how the schema fared."""

    family: str
    case: str
    variant: str  # "whitespace" or "repeat"
    where: str  # the boundary, or "whole sample"
    kind: str  # the whitespace kind, or "x{repetitions}"
    size: int  # characters of the 10× input
    seconds: float | None  # the 10× parse; None when it hit the time limit
    growth: float | None = None  # time at 10× / time at 1× (floored), when measured

    @property
    def timed_out(self) -> bool:
        return self.seconds is None

    @property
    def ok(self) -> bool:
        return not self.timed_out and (self.growth is None or self.growth <= MAX_GROWTH)

    def badness(self) -> tuple:
        """Orders trials worst last: a timeout, then too much growth, then the slowest."""
        return (self.timed_out, not self.ok, self.seconds or 0.0)


def growth(small: float, large: float) -> float:
    """How much the time grew from 1× to 10×, with the 1× time counted as at least FLOOR."""
    return large / max(small, FLOOR)


def timed_parse(text: str, schema: Any, time_limit: float, prompt: str = "") -> float | None:
    """CPU seconds one parse takes, or None when a regex call runs past ``WALL_SLACK`` times the
    time limit. Other failures count as done. ``schema`` may be a template, which parses with
    ``prompt``. CPU time, not wall time: on a shared machine a linear parse's wall time grows with
    the load on the other cores and with waits for one, and the growth test would then blame the
    parser for the neighbours."""
    started = time.process_time()
    try:
        format_of(schema).parse(schema, text, prompt, time_limit=time_limit * WALL_SLACK)
    except RegexTimeout:
        return None
    except Exception:  # noqa: BLE001 - a parse error is an answer; only the time matters here
        pass
    return time.process_time() - started


def measure(small: str, large: str, schema: Any, time_limit: float, prompt: str = "") -> tuple[float | None, float | None]:
    """(time of the 10× parse or None on a timeout, growth or None when too fast to matter). Too
    much growth is measured again, best of three, before it counts: one slow run may be noise."""
    large_time = timed_parse(large, schema, time_limit, prompt)
    if large_time is None or large_time <= MAX_GROWTH * FLOOR:
        return large_time, None
    small_time = timed_parse(small, schema, time_limit, prompt)
    if small_time is None:
        return None, None
    ratio = growth(small_time, large_time)
    for _ in range(2):
        if ratio <= MAX_GROWTH:
            break
        again_small, again_large = timed_parse(small, schema, time_limit, prompt), timed_parse(large, schema, time_limit, prompt)
        if again_small is None or again_large is None:
            return None, None
        small_time, large_time = min(small_time, again_small), min(large_time, again_large)
        ratio = growth(small_time, large_time)
    return large_time, ratio


@dataclass
class SampleResult:
    case: str
    inputs: int = 0
    worst: Trial | None = None
    failures: list[Trial] = field(default_factory=list)


def check_sample(family: str, case: str, text: str, schema: Any, first_kind: int = 0,
                 time_limit: float = DEFAULT_TIME_LIMIT, prompt: str = "") -> SampleResult:
    result = SampleResult(case)

    def record(trial: Trial) -> bool:
        result.inputs += 1
        if result.worst is None or trial.badness() > result.worst.badness():
            result.worst = trial
        if not trial.ok:
            result.failures.append(trial)
        return not trial.timed_out

    if text:
        reps = math.ceil(REPEATED / SCALE / len(text))
        seconds, ratio = measure(text * reps, text * (reps * SCALE), schema, time_limit, prompt)
        if not record(Trial(family, case, "repeat", "whole sample", f"x{reps * SCALE}", len(text) * reps * SCALE, seconds, ratio)):
            return result
    kinds = list(KINDS)
    turn = first_kind
    for boundary in boundaries(text):
        if boundary.offset in (0, len(text)):
            tried = kinds
        else:
            tried, turn = [kinds[turn % len(kinds)]], turn + 1
        for kind in tried:
            unit = KINDS[kind]
            small = text[: boundary.offset] + unit * (RUN // SCALE // len(unit)) + text[boundary.offset :]
            large = text[: boundary.offset] + unit * (RUN // len(unit)) + text[boundary.offset :]
            seconds, ratio = measure(small, large, schema, time_limit, prompt)
            if not record(Trial(family, case, "whitespace", boundary.describe(), kind, len(large), seconds, ratio)):
                return result
    return result


ANSWER = "Hello."
_MARKER_RE = re.compile(_MARKER)
_INNER = re.compile(r"\s+|[^\W_]+|(?:[^\w\s]|_)+")  # the tokens inside a marker: `</`, `think`, `>`


_NAMED = re.compile(r'"[^"]*"|=[^>\s"]+')  # a name in a marker: `"get_weather"`, `=location`


def _form(marker: str) -> str:
    """A marker with its names taken out: `<invoke name="f">` and `<invoke name="g">` are one form."""
    return _NAMED.sub(lambda m: '""' if m.group().startswith('"') else "=", marker)


def delimiters(texts: list[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """The family's delimiters (the markers its samples hold, in order of first sight, one per form:
    a marker that differs from an earlier one only in a name it carries is left out) and the pairs
    of them that follow one another in a sample (each pair of forms once)."""
    found: dict[str, str] = {}
    pairs: dict[tuple[str, str], tuple[str, str]] = {}
    for text in texts:
        previous = None
        for match in _MARKER_RE.finditer(text):
            marker = found.setdefault(_form(match.group()), match.group())
            if previous is not None:
                pairs.setdefault((_form(previous), _form(marker)), (previous, marker))
            previous = marker
    return list(found.values()), list(pairs.values())


def plain_inputs(markers: list[str], pairs: list[tuple[str, str]]) -> list[tuple[str, list[str], str]]:
    """(where, parts, kinds) of each plain-answer input: the input is ``parts`` joined by a
    whitespace run; ``kinds`` is "all" for the lone run before the answer, else "turn"."""
    inputs = [("run + answer", ["", ANSWER], "all")]
    for marker in markers:
        inputs.append((f"{_quote(marker)} + run + answer", [marker, ANSWER], "turn"))
        inputs.append((f"run + {_quote(marker)} + answer", ["", marker + ANSWER], "turn"))
        inside = [m.end() for m in _INNER.finditer(marker)][:-1]
        for cut in inside:
            inputs.append((f"{_quote(marker[:cut])} + run + {_quote(marker[cut:])} + answer",
                           [marker[:cut], marker[cut:] + ANSWER], "turn"))
    for first, second in pairs:
        inputs.append((f"{_quote(first)} + run + {_quote(second)} + run + answer", [first, second, ANSWER], "turn"))
    return inputs


def check_plain(family: str, markers: list[str], pairs: list[tuple[str, str]], schema: Any, prompts: list[str],
                time_limit: float = DEFAULT_TIME_LIMIT) -> SampleResult:
    """The plain-answer inputs (see the module's docstring) of one parser; stops at a timeout."""
    result = SampleResult("plain answer")
    kinds, turn = list(KINDS), 0
    prompts = prompts or [""]
    for where, parts, how in plain_inputs(markers, pairs):
        if how == "all":
            tried = [(kind, prompt) for kind in kinds for prompt in prompts]
        else:
            tried, turn = [(kinds[turn % len(kinds)], prompts[turn % len(prompts)])], turn + 1
        for kind, prompt in tried:
            unit = KINDS[kind]
            small = (unit * (RUN // SCALE // len(unit))).join(parts)
            large = (unit * (RUN // len(unit))).join(parts)
            seconds, ratio = measure(small, large, schema, time_limit, prompt)
            label = where + (f" (prompt {prompts.index(prompt) + 1} of {len(prompts)})" if len(prompts) > 1 else "")
            trial = Trial(family, "plain answer", "whitespace", label, kind, len(large), seconds, ratio)
            result.inputs += 1
            if result.worst is None or trial.badness() > result.worst.badness():
                result.worst = trial
            if not trial.ok:
                result.failures.append(trial)
            if trial.timed_out:
                return result
    return result


# -- families ---------------------------------------------------------------------------------


def _job(args: tuple) -> SampleResult:
    if args[1] is _PLAIN:
        return check_plain(args[0], *args[2:])
    return check_sample(*args)


_PLAIN = None  # the case of _family_work's plain-answer job


def check_linear(schemas_dir: str | Path = "schemas", samples_dir: str | Path = "sample_outputs",
                 families: list[str] | None = None, jobs: int = 2,
                 time_limit: float = DEFAULT_TIME_LIMIT) -> list[FamilyResult]:
    """Every family's schema and template on its samples grown large. ``jobs`` processes share the
    samples (1: in this process); each parse runs under the engine's timer in its process's main thread."""
    results, work = [], []
    for family in family_parsers(schemas_dir, samples_dir, families):
        result, parser = family.open()
        results.append(result)
        work.extend((result, args) for args in _family_work(result, family, parser, time_limit))
    # Slowest first (the longest texts), so the pool does not wait on one big sample at the end.
    work.sort(key=lambda item: -_size(item[1]))
    if jobs <= 1:
        outcomes = [_job(args) for _, args in work]
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            outcomes = list(pool.map(_job, [args for _, args in work]))
    for (result, _), outcome in zip(work, outcomes):
        result.samples.append(outcome)
    for result in results:
        result.samples.sort(key=lambda s: s.case)
    return results


def _size(args: tuple) -> int:
    """How long a job takes, roughly: its sample's length, or for the plain answers the length of
    their runs."""
    if args[1] is _PLAIN:
        return RUN * len(plain_inputs(args[2], args[3])) // 4
    return len(args[2])


def _family_work(result: FamilyResult, family: Family, parser: Any, time_limit: float) -> list[tuple]:
    """The arguments of check_sample for each of the family's samples, or none (and ``problem`` set)."""
    if parser is None:
        return []
    failure = result.format.load_failure(parser)
    if failure is not None:
        result.problem = f"{result.schema}: {failure}"
        return []
    paths = family.sample_paths()
    if not paths:
        result.problem = family.no_samples
    work, texts, prompts = [], [], {}
    for i, path in enumerate(paths):
        try:
            sample = Sample(path, read_sample(path))
            prompt = sample.prompt()[0] if result.format.reads_prompt else ""
        except InputError as exc:
            result.problem = str(exc)
            return []
        work.append((result.family, path.stem, sample.text, parser, i, time_limit, prompt))
        texts.append(sample.text)
        prompts.setdefault(prompt)
    if work:
        markers, pairs = delimiters(texts)
        work.append((result.family, _PLAIN, markers, pairs, parser, list(prompts), time_limit))
    return work


def as_json(results: list[FamilyResult]) -> list[dict]:
    def trial(t: Trial | None) -> dict | None:
        return None if t is None else {k: v for k, v in asdict(t).items() if k != "family"} | {"ok": t.ok}

    return [
        {"family": r.family, "format": str(r.format), "schema": r.schema, "ok": r.ok, "problem": r.problem, "inputs": r.inputs,
         "worst": trial(r.worst), "failures": [trial(t) for t in r.failures]}
        for r in results
    ]
