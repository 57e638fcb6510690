"""Timing shared by the benchmarks: contenders run in turn, ratios taken per round."""

from __future__ import annotations

import statistics
import time


def timed(contenders: list, repeat: int) -> list[list[float]]:
    """Seconds per run for each contender, interleaved run by run (the order rotating every
    round) so that noise from the shared machine falls on all of them alike."""
    for fn in contenders:
        fn()  # warm caches (compiled regexes) for every contender alike
    samples: list[list[float]] = [[] for _ in contenders]
    order = list(range(len(contenders)))
    for round_ in range(repeat):
        for i in order[round_ % len(order):] + order[: round_ % len(order)]:
            start = time.perf_counter()
            contenders[i]()
            samples[i].append(time.perf_counter() - start)
    return samples


def paired_ratio(ours: list[float], oracle: list[float]) -> float:
    """The median over rounds of ours/oracle within one round: a burst of load from another
    process slows both runs of a round, so the per-round ratio cancels it where a ratio of
    medians would not."""
    return statistics.median(a / b for a, b in zip(ours, oracle))


def p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
