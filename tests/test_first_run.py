"""The first run on a long output is traced without filling the subtree cache (the user waits for
its first paint); the cache fills while the analysis process waits, and later runs use it. Either
way every run gives what a fresh trace gives."""

from __future__ import annotations

import json
from pathlib import Path

from workbench.live.analysis import analyze
from workbench.formats import Format
from workbench.formats.schema import FIRST_RUN_UNCACHED

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = (ROOT / "schemas" / "qwen3.json").read_text(encoding="utf-8")
UNIT = (ROOT / "sample_outputs" / "qwen3" / "parallel_calls.txt").read_text(encoding="utf-8")
LONG = UNIT * (FIRST_RUN_UNCACHED // len(UNIT) + 1)


def _edited(text: str) -> str:
    schema = json.loads(text)
    schema["properties"]["content"]["x-regex"] += "?"
    return json.dumps(schema)


def test_the_first_long_run_leaves_the_cache_for_the_pause_and_later_runs_use_it():
    kept: dict = {}
    first = analyze(SCHEMA, LONG, kept=kept)
    assert "idle" in kept and len(kept["cache"]) == 0  # nothing cached yet: the reply went first
    assert first.value == analyze(SCHEMA, LONG).value
    Format.idle(kept)
    assert "idle" not in kept and len(kept["cache"]) > 0
    edited = analyze(_edited(SCHEMA), LONG, kept=kept)
    fresh = analyze(_edited(SCHEMA), LONG)
    assert edited.value == fresh.value and edited.runs == fresh.runs
    assert "idle" not in kept  # only the first run defers


def test_a_short_output_fills_the_cache_on_its_first_run():
    kept: dict = {}
    analyze(SCHEMA, UNIT, kept=kept)
    assert "idle" not in kept and len(kept["cache"]) > 0
