"""A generation prompt's prefill (a pre-written ``<think>``) opens a region in the prompt's tail and
is never part of the start anchor; and what the tools write passes their own validator."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from workbench.cli.app import app
from workbench.store.document import STARTER_SCHEMA
from workbench.engine.chat_template.budget import renderer_for
from workbench.engine.chat_template.draft import draft
from workbench.engine.chat_template.render import ChatTemplateError
from workbench.engine.chat_template.roundtrip import USER_TURN, missing_tokens
from workbench.engine.migrate import derive_start_anchor
from workbench.engine.prefill import prefill_note, prefill_of, split_prefill
from workbench.formats import format_of
from workbench.store.prompts import STARTER_TEMPLATE

ROOT = Path(__file__).parent.parent
CHAT = Path(__file__).parent / "chat_templates"
DRAFTABLE = [p for p in sorted(CHAT.glob("*.jinja")) if p.stem != "raises"]


def _draft(path: Path):
    try:
        return draft(path.read_text(encoding="utf-8"))
    except ChatTemplateError:
        return None


PREFILLED = [p for p in DRAFTABLE if (found := _draft(p)) is not None and found.prefill.strip()]


def loud(value) -> list:
    """The errors and warnings ``workbench validate`` gives (notes are fine)."""
    return [(p.severity, p.message) for p in format_of(value).check(value).problems if p.severity in ("error", "warning")]


def test_the_rule_cuts_the_prompt_after_the_header():
    split = split_prefill("<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n")
    assert split.header == "<|im_start|>assistant\n" and split.prefill == "<think>\n"
    assert prefill_of("<｜User｜>Hi<｜Assistant｜></think>") == "</think>"
    assert prefill_of("<|im_start|>assistant\n") == "" and prefill_of("no header here") == ""


def test_the_prompt_pane_note_shows_the_prefill_and_warns_when_the_anchor_takes_it_in():
    prompt = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n"
    header_end = prompt.index("<think>")
    assert prefill_note(prompt, header_end) == "prefill '<think>⏎'"
    assert prefill_note(prompt, None) == "prefill '<think>⏎'"  # the anchor not found: still the prompt's
    assert prefill_note(prompt.removesuffix("<think>\n"), header_end) == ""  # no prefill
    assert prefill_note("no header here", None) == ""
    swallowed = prefill_note(prompt, len(prompt))  # the anchor ``<|im_start|>assistant\n<think>\n``
    assert swallowed.startswith("⚠ the start anchor takes in the prefill '<think>⏎'") and "the tail the parser reads does not hold it" in swallowed
    # A stranger's prefill is shown with its controls as symbols.
    assert prefill_note("<|im_start|>assistant\n\x1b]0;x\x07", None) == "prefill '␛]0;x␇'"


def test_our_prefilled_templates_are_among_those_tested():
    assert {"prefill_think", "prefill_think_tools", "deepseek_r1"} <= {p.stem for p in PREFILLED}


@pytest.mark.parametrize("chat", PREFILLED, ids=lambda p: p.stem)
def test_a_prefilled_template_drafts_an_anchor_without_the_prefill_and_round_trips(chat, tmp_path):
    found = _draft(chat)
    assert found.prefill.strip() and found.prefill.strip() not in found.start_anchor
    out, schema_out = tmp_path / "t.json", tmp_path / "s.json"
    result = CliRunner().invoke(app, ["draft", "--chat-template", str(chat), "-o", str(out), "--schema-out", str(schema_out)])
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text(encoding="utf-8"))["start_anchor"] == found.start_anchor


@pytest.mark.parametrize("chat", PREFILLED, ids=lambda p: p.stem)
def test_migrate_derives_the_anchor_without_the_prefill(chat):
    found = _draft(chat)
    renderer = renderer_for(chat.read_text(encoding="utf-8"), None, {})
    prompt = renderer.render([USER_TURN], add_generation_prompt=True, defaults=missing_tokens(renderer))
    assert prompt.endswith(found.prefill)
    anchor = derive_start_anchor([prompt])
    assert anchor == found.start_anchor.lstrip() and found.prefill.strip() not in anchor


@pytest.mark.parametrize("chat", DRAFTABLE, ids=lambda p: p.stem)
def test_every_draft_passes_its_own_validator(chat):
    found = _draft(chat)
    assert found is not None
    assert loud(found.template) == [] and loud(found.schema) == []


@pytest.mark.parametrize("name,text", [("schema", STARTER_SCHEMA), ("template", STARTER_TEMPLATE)])
def test_the_starters_pass_their_own_validator(name, text):
    assert loud(json.loads(text)) == []


SCHEMAS = sorted(p for p in (ROOT / "schemas").glob("*.json") if not p.name.endswith(".template.json"))


@pytest.mark.parametrize("schema_file", SCHEMAS, ids=lambda p: p.stem)
def test_every_migrated_template_passes_its_own_validator(schema_file, tmp_path):
    out = tmp_path / "t.json"
    args = ["migrate", str(schema_file), "-o", str(out)]
    if not any((ROOT / "sample_outputs" / schema_file.stem).glob("*.prompt.txt")):
        args += ["--start-anchor", "<|assistant|>"]  # as test_migrate runs it
    CliRunner().invoke(app, args)
    if out.exists():  # where migrate writes a template
        assert loud(json.loads(out.read_text(encoding="utf-8"))) == []
