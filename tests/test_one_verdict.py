"""What the CLI and the TUI share is computed once: `workbench validate` prints the problems the
editor's problem list shows (same keys, same messages), and `workbench roundtrip` and the sample bar
give each probe the same verdict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from workbench.live.analysis import analyze
from workbench.cli.app import app
from workbench.engine.problems import ERROR, WARNING
from workbench.engine.visible import visible
from workbench.formats import format_of
from workbench.store.samples import Sample, discover, load
from workbench.live.process import AnalysisClient

ROOT = Path(__file__).resolve().parent.parent
CHAT = Path(__file__).parent / "chat_templates"
SHIPPED = sorted((ROOT / "schemas").glob("*.json"))
QWEN3_TEMPLATE = json.loads((ROOT / "schemas" / "qwen3.template.json").read_text(encoding="utf-8"))
QWEN3_SCHEMA = json.loads((ROOT / "schemas" / "qwen3.json").read_text(encoding="utf-8"))


def _changed(value: dict, change) -> dict:
    copy = json.loads(json.dumps(value))
    change(copy)
    return copy


BROKEN = {
    "template_unknown_key": _changed(QWEN3_TEMPLATE, lambda t: t["fields"]["content"].update(type="string")),
    "template_content_dict": _changed(QWEN3_TEMPLATE, lambda t: t["fields"]["content"].update(content={"a": 1})),
    "template_bad_regex": _changed(QWEN3_TEMPLATE, lambda t: t["fields"]["thinking"].update(open_pattern="(")),
    "template_quadratic_opener": _changed(QWEN3_TEMPLATE, lambda t: t["fields"]["tool_calls"].update(open_pattern=r"\s*<tool_call>")),
    "template_join_at_5_24": _changed(QWEN3_TEMPLATE, lambda t: t["fields"]["content"].update(repeats=True, join="")),
    "template_unknown_top_key": dict(QWEN3_TEMPLATE, extra=1),
    "schema_bad_regex": _changed(QWEN3_SCHEMA, lambda s: s["properties"]["content"].update({"x-regex": "("})),
    "schema_unknown_type": _changed(QWEN3_SCHEMA, lambda s: s["properties"]["content"].update(type="text")),
    "schema_unknown_x_key": _changed(QWEN3_SCHEMA, lambda s: s["properties"]["content"].update({"x-regexp": "a"})),
    "schema_quadratic_trim": _changed(QWEN3_SCHEMA, lambda s: s["properties"]["content"].update({"x-regex": r"(.*?)\s*$"})),
}


def _cases():
    cases = [pytest.param(path.read_text(encoding="utf-8"), id=path.name) for path in SHIPPED]
    return cases + [pytest.param(json.dumps(value, indent=2), id=name) for name, value in BROKEN.items()]


@pytest.mark.parametrize("text", _cases())
def test_validate_prints_the_problems_the_editor_lists(tmp_path, text):
    path = tmp_path / "parser.json"
    path.write_text(text, encoding="utf-8")
    printed = CliRunner().invoke(app, ["validate", str(path)])
    assert printed.exit_code in (0, 1), printed.output
    editor = analyze(text, "")
    fmt = format_of(json.loads(text))
    listed = [p for p in editor.problems if p.severity in (ERROR, WARNING)]
    # Every error and warning of the editor's list, in its order, with its key; nothing else.
    problem_lines = [line for line in printed.stdout.splitlines() if line.startswith(f"{path}: error") or line.startswith(f"{path}: warning")]
    assert problem_lines == [visible(f"{path}: {fmt.error_line(p)}") for p in listed]  # as the terminal shows text
    for problem in listed:
        assert problem.path == "" or problem.path in "\n".join(problem_lines)
    assert (printed.exit_code == 1) == bool(editor.errors)
    # The editor's notes (which releases give this result, and why) are the CLI's release lines.
    for note in (p for p in editor.problems if p.severity == "note" and p.path and "vLLM" not in p.message):
        assert note.path in printed.stdout, note


# ----- the round trip ---------------------------------------------------------------------------

ROUND_TRIP_PARSERS = {
    "shipped": QWEN3_TEMPLATE,
    # An empty content where the probe has none: the round trip forgives it (consumers read no content).
    "empty_content": _changed(QWEN3_TEMPLATE, lambda t: t["defaults"].update(content="")),
    "loses_calls": _changed(QWEN3_TEMPLATE, lambda t: t["fields"].pop("tool_calls")),
}


@pytest.mark.parametrize("name", ROUND_TRIP_PARSERS)
def test_roundtrip_and_the_sample_bar_give_each_probe_one_verdict(tmp_path, name):
    parser = tmp_path / "parser.template.json"
    parser.write_text(json.dumps(ROUND_TRIP_PARSERS[name]), encoding="utf-8")
    folder = tmp_path / "probes"
    result = CliRunner().invoke(app, ["roundtrip", "--chat-template", str(CHAT / "thinking_chatml.jinja"), "--template", str(parser),
                                      "--write-samples", str(folder), "--json"])
    assert result.exit_code in (0, 1), result.output
    said = {r["probe"]: r for r in json.loads(result.stdout)}
    samples = {str(p): load(p) for p in discover(folder)}
    assert samples
    client = AnalysisClient()
    try:
        client.set_samples(samples, {key: s.prompt()[0] for key, s in samples.items()})
        first = next(iter(samples))
        shown = client.analyze(1, parser.read_text(encoding="utf-8"), first, 2.0, lambda: False,
                               prefix=samples[first].prompt()[0])
        verdicts = client.verdicts(1, lambda: False) or {}
        verdicts[first] = shown.verdict  # the shown sample's verdict comes with its analysis
    finally:
        client.close()
    assert set(verdicts) == set(samples)
    for key, verdict in verdicts.items():
        probe = said[Path(key).stem]
        parser_wrong = any(d["kind"] == "parser" for d in probe["differences"])
        assert verdict.good == (not parser_wrong), (key, verdict, probe["differences"])
    if name == "loses_calls":
        assert any(not v.good for v in verdicts.values())


def test_a_probe_sample_is_judged_by_the_round_trip_rule_also_without_the_worker(tmp_path):
    """`workbench check` and the sample bar both read probes.json (samples.verdict_of)."""
    from workbench.store.samples import judge

    folder = tmp_path / "probes"
    parser = ROUND_TRIP_PARSERS["empty_content"]
    parser_path = tmp_path / "p.template.json"
    parser_path.write_text(json.dumps(parser), encoding="utf-8")
    result = CliRunner().invoke(app, ["roundtrip", "--chat-template", str(CHAT / "thinking_chatml.jinja"), "--template",
                                      str(parser_path), "--write-samples", str(folder), "--json"])
    said = {r["probe"]: r for r in json.loads(result.stdout)}
    for path in discover(folder):
        verdict = judge(Sample(path, path.read_text(encoding="utf-8")), parser)
        parser_wrong = any(d["kind"] == "parser" for d in said[path.stem]["differences"])
        assert verdict.good == (not parser_wrong), (path.name, verdict)
