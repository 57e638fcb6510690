"""What vLLM 0.33 makes of a response_template (workbench/engine/template/serving.py;
docs/response-template.md#serving-in-vllm): every rule on a small template, checked against vLLM's
own rules run from its wheel (the `vllm_oracle` fixture, tests/vllm_oracle.py); every shipped
template's verdict; and what `validate` and `export` print."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from fallback_templates import QWEN3
from typer.testing import CliRunner

from workbench.cli.app import app
from workbench.engine.template import parse_response
from workbench.engine.template.serving import NOTE, REFUSED, refusals, vllm_problems, vllm_verdict

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = sorted((ROOT / "schemas").glob("*.template.json"))

# A template vLLM serves: thinking, an implicit content, tool calls.
BASE = {
    "defaults": {"role": "assistant"},
    "start_anchor": "<|im_start|>assistant\n",
    "fields": {
        "thinking": {"open": "<think>", "close": "</think>"},
        "tool_calls": {"open": "<tool_call>", "close": "</tool_call>", "content": "json", "repeats": True},
        "content": {"close": "<|im_end|>"},
    },
}


def changed(edit) -> dict:
    template = copy.deepcopy(BASE)
    edit(template)
    return template


def found(template) -> dict[str, str]:
    return {problem.path: problem.severity for problem in vllm_problems(template)}


# (id, edit, the pointers vLLM refuses, the name vLLM's message holds)
REFUSALS = [
    ("field reasoning", lambda t: t["fields"].update(reasoning=t["fields"].pop("thinking")), ["/fields/reasoning"], "reasoning"),
    ("field with a slash", lambda t: t["fields"].update({"a/b": {"open": "<a>", "close": "</a>"}}), ["/fields/a~1b"], "a/b"),
    ("default content", lambda t: t["defaults"].update(content=""), ["/defaults/content"], "content"),
    ("default tool_calls", lambda t: t["defaults"].update(tool_calls=[]), ["/defaults/tool_calls"], "tool_calls"),
    ("thinking json", lambda t: t["fields"]["thinking"].update(content="json"), ["/fields/thinking/content"], "thinking"),
    ("content kv-lines", lambda t: t["fields"]["content"].update(content="kv-lines"), ["/fields/content/content"], "content"),
    ("thinking transform", lambda t: t["fields"]["thinking"].update(transform={"text": "{content}"}),
     ["/fields/thinking/transform"], "thinking"),
    ("content join", lambda t: t["fields"]["content"].update(repeats=True, join=""), ["/fields/content/join"], "content"),
    ("two at once", lambda t: (t["fields"].update(notes={"open": "<n>", "close": "</n>"}),
                               t["fields"]["thinking"].update(repeats=True, join="\n")),
     ["/fields/notes", "/fields/thinking/join"], "notes"),
]
SERVED = [
    ("as it is", lambda t: None),
    ("content text written out", lambda t: t["fields"]["content"].update(content="text")),
    ("transform null", lambda t: t["fields"]["thinking"].update(transform=None)),
    ("tool_calls transform and default role only", lambda t: t["fields"]["tool_calls"].update(
        transform={"type": "function", "function": "{content}"})),
    ("no defaults", lambda t: t.pop("defaults")),
]


@pytest.mark.parametrize("edit,refused,name", [case[1:] for case in REFUSALS], ids=[case[0] for case in REFUSALS])
def test_each_rule_vllm_refuses(edit, refused, name, vllm_oracle):
    template = changed(edit)
    assert [p.path for p in refusals(template)] == refused
    verdict = vllm_verdict(template)
    assert verdict.startswith(f"vLLM 0.33 refuses it: {refused[0]}: ")
    [answer] = vllm_oracle.serve([template])
    assert not answer["ok"] and answer["type"] == "ValueError"
    assert repr(name) in answer["message"]  # vLLM names the same field or default first


@pytest.mark.parametrize("edit", [case[1] for case in SERVED], ids=[case[0] for case in SERVED])
def test_what_vllm_serves(edit, vllm_oracle):
    template = changed(edit)
    assert refusals(template) == []
    assert vllm_verdict(template) == "vLLM 0.33 can serve it"
    assert vllm_oracle.serve([template])[0]["ok"]


def test_every_shipped_template_gets_the_verdict_vllm_gives(vllm_oracle):
    templates = [json.loads(path.read_text(encoding="utf-8")) for path in SHIPPED]
    assert templates
    for path, template, answer in zip(SHIPPED, templates, vllm_oracle.serve(templates)):
        verdict = vllm_verdict(template)
        assert verdict.startswith("vLLM 0.33 "), path
        assert (verdict == "vLLM 0.33 can serve it") == answer["ok"], (path.name, verdict, answer)


def test_every_shipped_template_is_served_once_it_no_longer_joins(vllm_oracle):
    """vLLM refuses `join` on content and thinking and keeps every segment itself (docs/join-rule.md): a
    shipped template with `repeats` and `join` taken off them is served (but the pythonic families,
    whose python-call-list vLLM 0.33 does not know), and validate names the key to take off."""
    from families import needs_5_24

    stripped = []
    for path in SHIPPED:
        template = json.loads(path.read_text(encoding="utf-8"))
        joined = [name for name in ("thinking", "content") if "join" in template["fields"].get(name, {})]
        if joined:  # (a pythonic family's first refusal is its content parser)
            assert any(p.path == f"/fields/{joined[0]}/join" for p in refusals(template)) or \
                needs_5_24(path.name.removesuffix(".template.json")), path.name
        for name in joined:
            for key in ("repeats", "join"):
                template["fields"][name].pop(key, None)
        stripped.append(template)
    for path, template, answer in zip(SHIPPED, stripped, vllm_oracle.serve(stripped)):
        served = vllm_verdict(template) == "vLLM 0.33 can serve it"
        assert served == answer["ok"], (path.name, answer)
        assert served or needs_5_24(path.name.removesuffix(".template.json")), (path.name, answer)


def test_variants_of_the_shipped_templates_agree_with_vllm(vllm_oracle):
    """Each shipped template with one rule broken: refused by both, for the same first reason."""
    edits = [
        lambda t: t["fields"].update(extra={"open": "<x>", "close": "</x>"}),
        lambda t: t.setdefault("defaults", {}).update(content=""),
        lambda t: t["fields"].setdefault("content", {}).update(content="json"),
        lambda t: t["fields"].setdefault("thinking", {"open": "<t>", "close": "</t>"}).update(
            transform="{content}"),
    ]
    variants = []
    for path in SHIPPED:
        for edit in edits:
            template = json.loads(path.read_text(encoding="utf-8"))
            edit(template)
            variants.append(template)
    for template, answer in zip(variants, vllm_oracle.serve(variants)):
        refused = refusals(template)
        assert bool(refused) == (not answer["ok"]), (template, answer)


def test_the_transformers_fallback_field_name_is_refused(vllm_oracle):
    assert vllm_verdict(QWEN3).startswith("vLLM 0.33 refuses it: /fields/reasoning_content: ")
    assert not vllm_oracle.serve([QWEN3])[0]["ok"]


def test_a_required_field_is_noted_and_vllm_serves_without_it(vllm_oracle):
    template = changed(lambda t: t["fields"]["thinking"].update(optional=False))
    assert found(template)["/fields/thinking/optional"] == NOTE
    assert refusals(template) == []
    with pytest.raises(ValueError):  # transformers: the required field was never written
        parse_response("Hello.<|im_end|>", template, prefix="")
    [served] = vllm_oracle.serve([template])
    assert served["ok"] and all(served["fields"].values())
    [parsed] = vllm_oracle.parse([(template, "", "Hello.<|im_end|>")])
    assert parsed == {"ok": True, "message": {"role": "assistant", "content": "Hello."}}
    assert "/fields/content/optional" not in found(changed(lambda t: t["fields"]["content"].update(optional=True)))


def test_the_implicit_content_vllm_adds_is_noted(vllm_oracle):
    template = changed(lambda t: t["fields"].pop("content"))
    assert found(template)["/fields"] == NOTE
    assert any("implicit content" in p.message for p in vllm_problems(template))
    assert parse_response("Hi <think>x</think>there", template, prefix="") == {"role": "assistant", "thinking": "x"}
    [served] = vllm_oracle.serve([template])
    assert served["implicit"] == "content"
    [parsed] = vllm_oracle.parse([(template, "", "Hi <think>x</think>there")])
    assert parsed["message"]["content"] == "there" and parsed["message"]["thinking"] == "x"
    # An implicit field of another name: nothing is added.
    other = changed(lambda t: (t["fields"].pop("content"), t["fields"]["thinking"].pop("open")))
    assert not any("implicit content" in p.message for p in vllm_problems(other))
    assert vllm_oracle.serve([other])[0]["implicit"] == "thinking"


def test_notes_on_flags_repeats_and_requests():
    thinking_only = changed(lambda t: t["fields"].pop("tool_calls"))
    assert any("--tool-call-parser hf" in p.message for p in vllm_problems(thinking_only))
    assert not any("tool_choice" in p.message for p in vllm_problems(thinking_only))
    tools_only = changed(lambda t: t["fields"].pop("thinking"))
    assert any("--reasoning-parser hf" in p.message for p in vllm_problems(tools_only))
    content_only = {"start_anchor": "<a>", "fields": {"content": {}}}
    assert any("raw output" in p.message for p in vllm_problems(content_only))
    request_note = [p for p in vllm_problems(BASE) if p.path == "/fields/tool_calls"]
    assert len(request_note) == 1 and request_note[0].severity == NOTE
    for guarantee in ("strict", "required", "named tool choice", "parallel_tool_calls"):
        assert guarantee in request_note[0].message
    repeating = changed(lambda t: t["fields"]["thinking"].update(repeats=True))
    assert found(repeating)["/fields/thinking/repeats"] == NOTE
    assert all(p.severity in (REFUSED, NOTE) for p in vllm_problems(repeating))


def test_what_the_loader_refuses_is_not_looked_at_again():
    assert vllm_problems([]) == [] and vllm_problems({"fields": []}) == []
    assert vllm_verdict({"fields": "x"}) == "vLLM 0.33 can serve it"


# ---------------------------------------------------------------------------------------------
# The CLI


def run(*args: str):
    return CliRunner().invoke(app, list(args))


@pytest.mark.parametrize("path", SHIPPED, ids=[p.name for p in SHIPPED])
def test_validate_prints_the_verdict_of_every_shipped_template(path):
    result = run("validate", str(path))
    assert result.exit_code == 0, result.output
    template = json.loads(path.read_text(encoding="utf-8"))
    assert f"{path}: {vllm_verdict(template)}\n" in result.stdout


def test_validate_prints_what_vllm_refuses_and_still_passes(tmp_path):
    template = changed(lambda t: (t["fields"].update(reasoning=t["fields"].pop("thinking")),
                                  t["defaults"].update(content="")))
    path = tmp_path / "template.json"
    path.write_text(json.dumps(template), encoding="utf-8")
    result = run("validate", str(path))
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert f"{path}: vLLM 0.33 refuses it: /fields/reasoning: not a field vLLM serves" in result.stdout
    assert "(and 1 more)" in result.stdout
    assert f"{path}:   vllm refused: /defaults/content: not a default vLLM allows (only role)" in lines
    assert any(line.startswith(f"{path}:   vllm note: /fields/tool_calls: ") for line in lines)


def test_validate_shows_a_field_name_from_the_file_safely(tmp_path):
    template = changed(lambda t: t["fields"].update({"x\x1b]0;owned\x07": {"open": "<x>", "close": "</x>"}}))
    path = tmp_path / "template.json"
    path.write_text(json.dumps(template), encoding="utf-8")
    result = run("validate", str(path))
    assert result.exit_code == 0
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    assert "vLLM 0.33 refuses it: /fields/x␛]0;owned␇: " in result.stdout


def test_export_warns_when_vllm_would_refuse_and_writes_all_the_same(tmp_path):
    refused = tmp_path / "refused.template.json"
    refused.write_text(json.dumps(changed(lambda t: t["fields"]["thinking"].update(content="json"))), encoding="utf-8")
    out = tmp_path / "out.json"
    result = run("export", str(refused), "-o", str(out))
    assert result.exit_code == 0, result.output
    assert out.exists()
    assert f"warning: {refused}: vLLM 0.33 refuses it: /fields/thinking/content: " in result.stderr
    served = tmp_path / "served.template.json"
    served.write_text(json.dumps(BASE), encoding="utf-8")
    result = run("export", str(served), "-o", str(tmp_path / "out2.json"))
    assert result.exit_code == 0 and "vLLM" not in result.stderr


def test_vllm_drops_a_region_that_fails_to_parse_where_transformers_raises(vllm_oracle):
    """vLLM's copy of the engine ends a failing region with a `region_malformed` event and goes on
    (the server logs and drops the tool call): documented, not a per-template note, since any
    non-text field can fail on some output."""
    text = '<tool_call>{"name": "a", </tool_call>Done.<|im_end|>'
    with pytest.raises(ValueError):
        parse_response(text, BASE, prefix="")
    [parsed] = vllm_oracle.parse([(BASE, "", text)])
    assert parsed == {"ok": True, "message": {"role": "assistant", "content": "Done."}}
