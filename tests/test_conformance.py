"""The conformance suite: outputs and expected parses transcribed from peers' tests (llama.cpp,
vLLM, SGLang, ...; tests/conformance/README.md), run through both shipped parsers of the family.

Every case is one of:
- agree: both formats give what the peer asserts, as a consumer reads the message;
- decided: a documented choice of ours (``"decision"``, stated in the family's row of
  schemas/README.md);
- open: a known disagreement not fixed yet (``"open"``).
A marked case names the formats that differ (``"formats"``, default: all the family ships); the
test asserts that exactly those still differ, so fixing a parser forces updating the case.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance_check import CASE_KEYS, CHECKS, DEFAULT_CHECKS, CASES_DIR, SCHEMA, TEMPLATE, formats_of, load_cases, marked_formats, outcome, table

CASES = load_cases()
FAMILIES = {p.name.removesuffix(".template.json").removesuffix(".json") for p in (CASES_DIR.parent.parent / "schemas").glob("*.json")}


def test_the_suite_is_large_and_wide():
    assert len(CASES) >= 150
    assert len({case.data["source"]["repo"] for case in CASES}) >= 3


def test_every_case_is_well_formed():
    ids = [case.id for case in CASES]
    assert len(ids) == len(set(ids)), "case ids are unique"
    for case in CASES:
        data = case.data
        assert set(data) <= CASE_KEYS, (case.id, set(data) - CASE_KEYS)
        assert case.family in FAMILIES, case.id
        assert {"repo", "file", "test"} <= set(data["source"]), case.id
        assert isinstance(data["output"], str) and isinstance(data.get("prompt", ""), str), case.id
        assert set(data["expected"]) <= {"content", "reasoning", "tool_calls"}, case.id
        for call in data["expected"].get("tool_calls", []):
            assert set(call) <= {"name", "arguments", "id"} and isinstance(call["name"], str) and isinstance(call["arguments"], dict), case.id
        assert data.get("compare", "exact") in ("exact", "stripped"), case.id
        assert set(data.get("checks", DEFAULT_CHECKS)) <= set(CHECKS) and data.get("checks", DEFAULT_CHECKS), case.id
        if "content_contains" in data.get("checks", ()):
            pieces = data["expected"].get("content")
            assert "content" not in data["checks"] and isinstance(pieces, list) and pieces and all(isinstance(p, str) and p for p in pieces), case.id
        else:
            assert isinstance(data["expected"].get("content", ""), str), case.id
        assert not ("decision" in data and "open" in data), case.id
        if "formats" in data:
            assert case.marker is not None and set(data["formats"]) <= set(formats_of(case.family)) and data["formats"], case.id
        if case.marker is not None:
            assert isinstance(case.marker[1], str) and case.marker[1].strip(), case.id


def test_decided_cases_name_their_family_row():
    """A decision is a limit the family's row in schemas/README.md states: the reason quotes the row
    by naming the family."""
    for case in CASES:
        if case.verdict == "decided":
            assert f"{case.family} row" in case.marker[1], (case.id, case.marker[1])


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_case(case):
    results = {fmt: outcome(case, fmt) for fmt in formats_of(case.family)}
    want = json.dumps(case.data["expected"], ensure_ascii=False)
    if case.marker is None:
        differing = {fmt: got for fmt, (agrees, got) in results.items() if not agrees}
        assert not differing, f"unmarked disagreement with {case.data['source']['repo']}: expected {want}, got {differing}"
        return
    kind, reason = case.marker
    should_differ = set(marked_formats(case))
    for fmt, (agrees, got) in results.items():
        if fmt in should_differ:
            assert not agrees, f"{case.id} is marked {kind} ({reason}) but the {fmt} now gives what the peer expects: update the case"
        else:
            assert agrees, f"{case.id}: the {fmt} is not marked as differing but gives {got}, expected {want}"


def test_both_formats_run_where_the_family_ships_both():
    """The suite runs the schema through transformers 5.14's semantics and the template through
    5.23's: a family with both has both results."""
    for case in CASES:
        fmts = formats_of(case.family)
        assert TEMPLATE in fmts, case.id
        if (CASES_DIR.parent.parent / "schemas" / f"{case.family}.json").is_file():
            assert SCHEMA in fmts, case.id


def test_the_schemas_readme_shows_the_current_table():
    readme = (Path(__file__).resolve().parent.parent / "schemas" / "README.md").read_text(encoding="utf-8")
    assert table(CASES) in readme, "regenerate the table in schemas/README.md: python tests/conformance_check.py --table"
