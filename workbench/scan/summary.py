"""What a scan found, in numbers: counts and rates per verdict and per kind (each with its
denominator), clusters of failures (same verdict, kind and place, with example rows), the slowest
rows, and where two parsers disagree. Fed batch by batch, so its memory does not grow with the
number of rows (each cluster keeps five examples, at most ``CLUSTERS`` clusters are kept and the
failing rows of any other place are counted together as "other places", a place is cut to
``PLACE`` characters; the slowest are a bounded heap): ``where`` can hold keys the model wrote."""

from __future__ import annotations

import heapq
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from .verdicts import FAILING, PARSED, SUSPECT, VERDICTS

EXAMPLES = 5
SLOWEST = 10
CLUSTERS = 1000  # distinct (verdict, kind, place) kept; later ones count as "other places"
PLACE = 200  # characters of a place kept


@dataclass
class Summary:
    rows: int = 0
    verdicts: Counter = field(default_factory=Counter)
    kinds: Counter = field(default_factory=Counter)
    clusters: dict = field(default_factory=dict)  # (verdict, kind, where) -> [count, [rows]]
    slowest: list = field(default_factory=list)  # heap of (seconds, row)
    seconds: float = 0.0
    compared: int = 0
    disagree: int = 0
    disagreements: dict = field(default_factory=dict)  # (verdict, other verdict, where) -> [count, [rows]]
    failing_rows: list = field(default_factory=list)  # the first failing rows, for --write-samples
    keep_failing: int = 0
    other_places: int = 0  # failing rows whose cluster came after the first CLUSTERS
    other_disagreements: int = 0

    def add(self, batch: dict[str, list]) -> None:
        rows = batch["row"]
        compare = batch.get("compare_verdict")
        for i, row in enumerate(rows):
            verdict, kind, where, seconds = batch["verdict"][i], batch["kind"][i] or "", batch["where"][i] or "", batch["seconds"][i]
            self.rows += 1
            self.verdicts[verdict] += 1
            self.seconds += seconds
            if verdict == SUSPECT:
                self.kinds[kind] += 1
            if verdict in FAILING:
                if not _count(self.clusters, (verdict, kind, _place(where)), row):
                    self.other_places += 1
                if len(self.failing_rows) < self.keep_failing:
                    self.failing_rows.append(row)
            if len(self.slowest) < SLOWEST:
                heapq.heappush(self.slowest, (seconds, row))
            elif seconds > self.slowest[0][0]:
                heapq.heapreplace(self.slowest, (seconds, row))
            if compare is not None:
                self.compared += 1
                other, other_where = compare[i], batch["compare_where"][i] or ""
                if other_where:
                    self.disagree += 1
                    if not _count(self.disagreements, (verdict, other, _place(other_where)), row):
                        self.other_disagreements += 1

    def as_dict(self) -> dict[str, Any]:
        """The summary as ``--json`` writes it."""
        failing = sum(self.verdicts[v] for v in FAILING)
        suspects = self.verdicts[SUSPECT]
        out: dict[str, Any] = {
            "rows": self.rows,
            "verdicts": {v: {"count": self.verdicts[v], "rate": _rate(self.verdicts[v], self.rows), "of": self.rows}
                         for v in VERDICTS},
            "failing": {"count": failing, "rate": _rate(failing, self.rows), "of": self.rows},
            "kinds": {k: {"count": n, "rate": _rate(n, suspects), "of": suspects} for k, n in self.kinds.most_common()},
            "clusters": [{"verdict": v, "kind": k, "where": w, "count": n, "examples": ex}
                         for (v, k, w), (n, ex) in sorted(self.clusters.items(), key=lambda kv: (-kv[1][0], kv[0]))],
            "other_places": {"count": self.other_places, "clusters_kept": CLUSTERS},
            "slowest": [{"row": row, "seconds": s} for s, row in sorted(self.slowest, reverse=True)],
            "seconds": {"total": self.seconds, "mean": self.seconds / self.rows if self.rows else 0.0},
        }
        if self.compared:
            out["compare"] = {
                "disagree": {"count": self.disagree, "rate": _rate(self.disagree, self.compared), "of": self.compared},
                "clusters": [{"verdict": v, "other_verdict": o, "where": w, "count": n, "examples": ex}
                             for (v, o, w), (n, ex) in sorted(self.disagreements.items(), key=lambda kv: (-kv[1][0], kv[0]))],
                "other_places": {"count": self.other_disagreements, "clusters_kept": CLUSTERS},
            }
        return out


def _count(clusters: dict, key: tuple, row: int) -> bool:
    """Count ``row`` in its cluster; False when it is a new one and ``CLUSTERS`` are already kept."""
    entry = clusters.get(key)
    if entry is None:
        if len(clusters) >= CLUSTERS:
            return False
        clusters[key] = [1, [row]]
    else:
        entry[0] += 1
        if len(entry[1]) < EXAMPLES:
            entry[1].append(row)
    return True


_INDEX = re.compile(r"/\d+(?=/|$)")


def _place(where: str) -> str:
    """Where a failure is, with list indices as ``*``: the same node of the 1st and the 3rd call
    is one cluster."""
    place = _INDEX.sub("/*", where)
    return place if len(place) <= PLACE else place[: PLACE - 1] + "…"


def _rate(count: int, of: int) -> float:
    return round(count / of, 6) if of else 0.0


def lines(summary: dict, top: int = 10) -> list[tuple[str, str]]:
    """The summary as (style, text) lines for the screen; styles are rich's, texts are plain."""
    n = summary["rows"]
    said = [("bold", f"{n} rows")]
    for verdict, entry in summary["verdicts"].items():
        if entry["count"] or verdict == PARSED:
            said.append(("green" if verdict == PARSED else "red" if verdict != SUSPECT else "yellow",
                         f"  {verdict:<8} {entry['count']:>9}  {entry['rate']:7.2%} of {entry['of']}"))
    for kind, entry in summary["kinds"].items():
        said.append(("yellow", f"    {kind:<22} {entry['count']:>7}  {entry['rate']:7.2%} of {entry['of']} suspect"))
    if summary["clusters"]:
        said.append(("bold", "clusters (verdict, kind, where: count, example rows)"))
        for c in summary["clusters"][:top]:
            said.append(("", f"  {c['verdict']} {c['kind'] or '-'} {c['where'] or '/'}: {c['count']}  rows {', '.join(map(str, c['examples']))}"))
        if len(summary["clusters"]) > top:
            said.append(("dim", f"  … {len(summary['clusters']) - top} more clusters (--json FILE has them all)"))
    other = summary.get("other_places", {}).get("count", 0)
    if other:
        said.append(("dim", f"  … and {other} failing rows in other places (past the first "
                            f"{summary['other_places']['clusters_kept']} clusters, counted together)"))
    if summary["slowest"]:
        said.append(("bold", "slowest rows"))
        said.append(("", "  " + ", ".join(f"{s['row']} ({s['seconds'] * 1000:.1f} ms)" for s in summary["slowest"][:5])))
    if "compare" in summary:
        d = summary["compare"]["disagree"]
        said.append(("bold", f"the two parsers disagree on {d['count']} of {d['of']} rows ({d['rate']:.2%})"))
        for c in summary["compare"]["clusters"][:top]:
            said.append(("", f"  {c['verdict']} vs {c['other_verdict']} at {c['where'] or '/'}: {c['count']}  rows {', '.join(map(str, c['examples']))}"))
        other = summary["compare"].get("other_places", {}).get("count", 0)
        if other:
            said.append(("dim", f"  … and {other} rows where they disagree in other places (counted together)"))
    return said
