"""Every shipped golden equals what the runtime gives (transformers 5.14.1 for schemas, 5.23.0 for
templates, with the sample's prompt), and every family checks out in both formats.

Template-only families (no ``schemas/<family>.json``, tests/families.py) have no schema goldens;
those whose template needs transformers 5.24 (``python-call-list``) have their goldens compared
with 5.24.0 in tests/test_python_calls.py instead of with the 5.23.0 oracle here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from families import has_schema, needs_5_24
from oracle import RAISED, oracle_parse, run_oracle, same
from workbench.jobs.check import check
from families import TEMPLATE_SUFFIX
from workbench.store.samples import ERROR_SUFFIX, Sample, family_schema, is_sample_file
from workbench.engine.versions import TEMPLATE

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted(p for p in (ROOT / "sample_outputs").glob("*/*.txt") if is_sample_file(p))
SCHEMA_SAMPLES = [p for p in SAMPLES if has_schema(p.parent.name)]


def oracle_message(text: str, schema) -> str | None:
    try:
        oracle_parse(text, schema)
    except Exception as exc:  # noqa: BLE001 - any error the runtime raises
        return str(exc)
    return None


@pytest.mark.parametrize("sample", SCHEMA_SAMPLES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_golden_equals_transformers(sample: Path):
    schema = json.loads((ROOT / "schemas" / f"{sample.parent.name}.json").read_text(encoding="utf-8"))
    text = sample.read_bytes().decode("utf-8")
    value_golden = sample.with_name(sample.stem + ".expected.json")
    error_golden = sample.with_name(sample.stem + ERROR_SUFFIX)
    assert value_golden.exists() != error_golden.exists(), "exactly one golden per sample"
    got = run_oracle(text, schema)
    if value_golden.exists():
        assert got is not RAISED, oracle_message(text, schema)
        assert same(got, json.loads(value_golden.read_text(encoding="utf-8")))
    else:
        phrase = error_golden.read_text(encoding="utf-8").strip()
        message = oracle_message(text, schema)
        assert message is not None, "transformers parses this sample, but the golden expects an error"
        assert phrase.lower() in message.lower()


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_template_golden_equals_transformers(sample: Path, release, release_oracle):
    """Every shipped template's golden is what each release gives (the goldens hold for 5.23.0 and
    5.24.0 alike), but for the pythonic families, which 5.24 reads first."""
    template_oracle = release_oracle
    if needs_5_24(sample.parent.name) and tuple(int(n) for n in release.version.split(".")[:2]) < (5, 24):
        pytest.skip("needs transformers 5.24 (python-call-list): refused before, tests/test_pythonic_families.py")
    template_path = ROOT / "schemas" / f"{sample.parent.name}{TEMPLATE_SUFFIX}"
    assert template_path.is_file(), f"{sample.parent.name} has no response_template"
    template = json.loads(template_path.read_text(encoding="utf-8"))
    case = Sample(sample, sample.read_bytes().decode("utf-8"))
    prompt, _ = case.prompt()
    value_golden, error_golden = case.expected_value_path(TEMPLATE), case.expected_error_path(TEMPLATE)
    assert value_golden.exists() != error_golden.exists(), "exactly one template golden per sample"
    got = template_oracle.parse(case.text, template, prefix=prompt)
    if value_golden.exists():
        assert got[0] == "value", got
        assert got[1] == json.loads(value_golden.read_text(encoding="utf-8"))
    else:
        phrase = error_golden.read_text(encoding="utf-8").strip()
        assert got[0] == "error", f"transformers {release.version} parses this sample, but the golden expects an error"
        assert phrase.lower() in f"{got[1]}: {got[2]}".lower()


def test_every_family_passes_workbench_check():
    results = check(ROOT / "schemas", ROOT / "sample_outputs")
    assert {r.format for r in results} == {"response_schema", TEMPLATE}
    failing = {(r.family, r.format): r.problem or [c.difference for c in r.cases if c.status != "pass"] for r in results if not r.ok}
    assert not failing


def test_every_sample_opens_with_its_family_schema_and_template():
    for sample in SAMPLES:
        schema = ROOT / "schemas" / f"{sample.parent.name}.json"
        assert family_schema(sample) == (schema.resolve() if schema.is_file() else None)
        assert family_schema(sample, template=True) == (ROOT / "schemas" / f"{sample.parent.name}{TEMPLATE_SUFFIX}").resolve()


def test_schemas_readme_lists_every_family_with_its_sample_count():
    """The family table users choose from names every shipped family (schema, template or both)
    and how many samples prove it."""
    import re

    readme = (ROOT / "schemas" / "README.md").read_text(encoding="utf-8")
    families_section = readme.split("\n## Families\n", 1)[1].split("\n## ", 1)[0]
    counts = {}
    for line in families_section.splitlines():
        if m := re.match(r"\| `([^`]+)` \|", line):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            counts[m.group(1)] = cells[4]
    families = {p.name.removesuffix(TEMPLATE_SUFFIX).removesuffix(".json") for p in (ROOT / "schemas").glob("*.json")}
    assert set(counts) == families
    for family in families:
        folder = ROOT / "sample_outputs" / family
        assert counts[family] == str(len([p for p in folder.glob("*.txt") if is_sample_file(p)])), family
    assert f"{len(families)} families, {len(SAMPLES)} samples." in readme


def test_schemas_readme_says_where_each_template_differs_from_its_schema():
    """The response templates' table has a row for every shipped template."""
    import re

    readme = (ROOT / "schemas" / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Response templates\n", 1)[1].split("\n## ", 1)[0]
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| `([^`]+)` \| (.+) \|$", section, re.M)}
    templates = {p.name.removesuffix(TEMPLATE_SUFFIX) for p in (ROOT / "schemas").glob(f"*{TEMPLATE_SUFFIX}")}
    assert set(rows) == templates
    assert all(len(row) > 40 for row in rows.values())
