"""The release matrix: a template and its samples run as every release runs them, and where the
results part (the CLI's ``validate``/``check`` and the TUI's sample bar read this one result).

Each run of releases that behaves the same (releases.behaviours) loads the template once and
parses every sample with it, in order, as a server on that release would: before 5.21 a list
default is shared by the parses of one template, so a later sample can see an earlier one's items.
A release that refuses the template is reported once, for loading; samples are compared among the
releases that load it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterable

from ..difference import first_difference
from .errors import DEFAULT_TIME_LIMIT
from .load import describe_load_error, load_template
from ..releases import Release, behaviours, span
from .stream import parse_response


@dataclass(frozen=True)
class MatrixSample:
    name: str
    text: str
    prefix: str = ""
    tools: Any = None


LOADS = "\x00loads"  # a load that succeeds, in the load row


@dataclass
class Part:
    """A run of releases that give one outcome: ``value`` (a message) or ``error`` (one line)."""

    first: Release
    last: Release
    value: Any = None
    error: str | None = None

    @property
    def releases(self) -> str:
        return span(self.first, self.last)

    def describe(self) -> str:
        if self.error is not None:
            return f"{self.releases}: {self.error}"
        if self.value is LOADS:
            return f"{self.releases}: loads"
        text = json.dumps(self.value, ensure_ascii=False)
        return f"{self.releases}: {text if len(text) <= 100 else text[:97] + '...'}"


@dataclass
class Split:
    """A sample (or, with ``sample`` None, the template's loading) whose outcome depends on the release."""

    sample: str | None
    parts: list[Part]
    where: str  # the first difference between the first two parts

    def describe(self) -> str:
        what = "loading the template" if self.sample is None else self.sample
        return f"{what}: " + "; ".join(part.describe() for part in self.parts) + f" ({self.where})"


@dataclass
class ReleaseMatrix:
    checked: int  # samples run
    splits: list[Split] = field(default_factory=list)
    loads_nowhere: bool = False  # no release loads the template: nothing was parsed

    @property
    def same(self) -> bool:
        return not self.splits and not self.loads_nowhere

    def split_samples(self) -> set[str]:
        return {split.sample for split in self.splits if split.sample is not None}

    def lines(self) -> list[str]:
        first, last = behaviours()[0][0], behaviours()[-1][1]
        samples = f"{self.checked} sample{'s' if self.checked != 1 else ''}"
        if self.loads_nowhere:
            return [f"releases: no release from {first} to {last} loads the template, so no sample was run"]
        if self.same:
            what = f"its {samples}" if self.checked else "loading (no samples to run)"
            return [f"releases: {span(first, last)} give the same result on {what}"]
        split = len(self.split_samples())
        lines = [f"releases: the result depends on the release for {split} of {samples}" if split
                 else "releases: whether the template loads depends on the release"]
        lines += [f"  {split.describe()}" for split in self.splits]
        if not split and self.checked:
            loading = [part.releases for split in self.splits if split.sample is None
                       for part in split.parts if part.error is None]
            lines.append(f"releases: {', '.join(loading)} (where it loads) give the same result on its {samples}")
        return lines


def _outcome(call) -> tuple[Any, str | None]:
    try:
        return call(), None
    except Exception as exc:  # noqa: BLE001 - what the runtime raises is the outcome
        return None, describe_load_error(exc) if isinstance(exc, ValueError) else f"{type(exc).__name__}: {exc}"


def _parts(outcomes: list[tuple[Release, Release, Any, str | None]]) -> list[Part]:
    parts: list[Part] = []
    for first, last, value, error in outcomes:
        if parts and parts[-1].error == error and json.dumps(parts[-1].value) == json.dumps(value):
            parts[-1].last = last
        else:
            parts.append(Part(first, last, value, error))
    return parts


def _where(parts: list[Part]) -> str:
    """Where the first two parts differ: a path into the message, or / when one is an error."""
    a, b = parts[0], parts[1]
    if a.error is not None or b.error is not None:
        return "differs at /"
    difference = first_difference(a.value, b.value)
    return "differs at " + (difference.partition(": ")[0] or "/")


def release_matrix(
    template: Any, samples: Iterable[MatrixSample], *, time_limit: float | None = DEFAULT_TIME_LIMIT
) -> ReleaseMatrix:
    samples = list(samples)
    runs = behaviours()
    loads, results = [], []
    for first, last in runs:
        loaded, error = _outcome(lambda: load_template(template, first))
        loads.append((first, last, LOADS if error is None else None, error))
        row = []
        for sample in samples:
            if loaded is None:
                row.append((first, last, None, error))
                continue
            value, failure = _outcome(lambda: parse_response(
                sample.text, loaded, prefix=sample.prefix, tools=sample.tools, time_limit=time_limit
            ))
            # As it was when returned: a later parse may still append to a shared list default.
            row.append((first, last, json.loads(json.dumps(value)) if failure is None else None, failure))
        results.append(row)
    matrix = ReleaseMatrix(len(samples), loads_nowhere=all(error is not None for _, _, _, error in loads))
    load_parts = _parts(loads)
    if len(load_parts) > 1:
        matrix.splits.append(Split(None, load_parts, "refused in " + ", ".join(
            part.releases for part in load_parts if part.error is not None)))
    # Where a release refuses the template, the load line says so once: a sample is split only by
    # the releases that load it.
    loading = [i for i, (_, _, _, error) in enumerate(loads) if error is None]
    for index, sample in enumerate(samples):
        parts = _parts([results[i][index] for i in loading])
        if len(parts) > 1:
            matrix.splits.append(Split(sample.name, parts, _where(parts)))
    return matrix
