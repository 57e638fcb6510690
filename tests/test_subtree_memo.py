"""The per-field memo of colour runs and path index gives exactly what a fresh computation gives."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.live.analysis import analyze
from workbench.engine import trace
from workbench.engine.paint import flatten
from workbench.engine.schema.highlights import trace_paints
from workbench.engine.schema.subtree_cache import SubtreeCache
from workbench.engine.schema.subtree_memo import SubtreeMemo
from workbench.store.samples import family_schema

from families import has_schema  # schema families only (tests/families.py)

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted(p for p in (ROOT / "sample_outputs").glob("*/*.txt") if not p.name.endswith("-error.txt") and has_schema(p.parent.name))


def fresh_index(result):
    index = {}
    for node in result.root.walk():
        index.setdefault(node.path, []).append(node)
    return index


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_memo_equals_a_fresh_computation_before_and_after_an_edit(sample):
    text = sample.read_text(encoding="utf-8")
    schema = json.loads(family_schema(sample).read_text(encoding="utf-8"))
    cache, memo = SubtreeCache(), SubtreeMemo()
    edited = json.loads(json.dumps(schema))
    first = next(iter(edited.get("properties", {})), None)
    if first is not None:
        edited["properties"][first]["description"] = "edited"  # a change in one field only
    for version in (schema, edited, schema):
        result = trace(text, version, cache=cache)
        assert memo.runs(result) == (trace_paints(result)[0], flatten(trace_paints(result)[1]))
        assert memo.index(result) == fresh_index(result)


def test_memo_on_a_large_output_after_an_edit_in_one_field():
    calls = "".join(f'<tool_call>\n{{"name": "f", "arguments": {{"i": {i}}}}}\n</tool_call>\n' for i in range(300))
    text = "<think>\nplan\n</think>\n\n" + calls + "<|im_end|>"
    schema_text = (ROOT / "schemas" / "qwen3.json").read_text(encoding="utf-8")
    cache, memo = SubtreeCache(), SubtreeMemo()
    first = analyze(schema_text, text, cache=cache, memo=memo)
    edited = schema_text.replace("(?:</think>|$)\"", "(?:</think>|$)x\"", 1)
    assert edited != schema_text
    for version in (edited, schema_text):
        got = analyze(version, text, cache=cache, memo=memo)
        plain = analyze(version, text)
        assert got.runs == plain.runs and got.fields == plain.fields
    assert got.runs == first.runs
