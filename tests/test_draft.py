"""`workbench draft`: a response template read off a chat template by rendering probes that differ
in one thing; it round-trips the formats it recognises and says what it guessed or left out."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from oracle import RAISED, run_oracle, same
from workbench.cli.app import app
from workbench.engine import validate
from workbench.engine.chat_template.draft import draft
from workbench.engine.template import load_template
from workbench.engine.template.slow_delimiters import slow_delimiters

CHAT = Path(__file__).parent / "chat_templates"
# Exit 1, and the draft says what it could not read (a phrase of its findings or guesses):
# - pythonic: the drafted schema cannot read Python-expression calls (the drafted template reads
#   them with python-call-list, transformers 5.24+);
# - kimi_k3: XTML markers are three tokens each and every call and argument carries attributes that
#   change from one to the next (index="N", type="string|number|object|…"): the draft leaves the
#   reasoning out (its guess says so) and reads only the attribute values its probes showed, so
#   neither drafted parser reads the calls (schemas/kimi_k3.* do);
# - gigachat3: the call is a turn of its own ("function call", after the assistant turn's end), which
#   the draft does not look into: it says the template does not render the call's name and leaves the
#   calls out (schemas/gigachat3.* read them);
# - olmo3: Olmo 3 writes one Python call per line between <function_calls> and </function_calls>, with
#   no [...] around them; python-call-list reads only a list (it starts by expecting "[") and a
#   template cannot add the brackets, so neither drafted parser reads the calls (no release through
#   5.24 can) and the draft says so; its answers and reasoning round-trip.
NOT_ROUND_TRIPPED = {"pythonic": "Python expressions", "kimi_k3": "reasoning delimiters unclear",
                     "gigachat3": "does not render the call's name",
                     "olmo3": "not one [...] list python-call-list could read"}
# Exit 1: the draft cannot find the text before each call's name (Inkling writes the name right after
# the same <|message_model|> that opens every block), leaves tool_calls out of both parsers and says
# so; every probe without a call round-trips.
# Muse Glimmer (ATEM) is exit 1 the same way, said in its findings: consecutive calls to one tool share
# one `<|start|>assistant to=NAME` channel, one <atem:invoke> each, so an opener per channel would merge
# the second call into the first; its plain-text recipients (` to=self`, ` to=user`) are read.
CALLS_LEFT_OUT = {"inkling": "tool calls: no text before each call's name; tool_calls left out",
                  "muse_glimmer": "two calls to the same tool are written under one header"}
# every test chat template, the shapes real templates expect included (all but those that raise on purpose)
TEMPLATES = [p for p in sorted(CHAT.glob("*.jinja")) + sorted((CHAT / "shapes").glob("*.jinja")) if not p.stem.startswith("raises")]


def run(*args):
    result = CliRunner().invoke(app, ["draft", *map(str, args)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


@pytest.fixture
def python_call_list(monkeypatch):
    """Our engine with ``python-call-list`` in its parser table, as registered for 5.24+ (put there
    for the test if the engine does not have it yet)."""
    from workbench.engine.template import parsers
    from workbench.engine.template.python_calls import parse_python_call_list

    if "python-call-list" not in parsers.PARSERS:
        monkeypatch.setitem(parsers.PARSERS, "python-call-list", parse_python_call_list)


@pytest.mark.parametrize("chat", TEMPLATES, ids=lambda p: p.stem)
def test_the_draft_of_every_test_template_loads_is_linear_and_round_trips(chat, tmp_path, python_call_list):
    out, schema_out = tmp_path / "draft.template.json", tmp_path / "draft.json"
    result = run("--chat-template", chat, "-o", out, "--schema-out", schema_out, "--json")
    report = json.loads(result.stdout)
    template = json.loads(out.read_text(encoding="utf-8"))
    assert template == report["template"] and json.loads(schema_out.read_text(encoding="utf-8")) == report["schema"]
    load_template(template)
    assert list(slow_delimiters(template)) == []
    assert [p for p in validate(report["schema"]) if p.severity != "note"] == []  # valid, and no slow regex
    if "tool_calls" in template["fields"] and template["fields"]["tool_calls"]["content"] != "python-call-list":
        # a call's name is never empty: each name class is repeated with + (python-call-list reads names itself)
        names = re.findall(r"\(\?P<name>\[\^(?:\\.|[^\]\\])*\](.)", template["fields"]["tool_calls"]["open_pattern"])
        assert names and all(q == "+" for q in names), names
    wrong = [r["probe"] for r in report["roundtrip"] + report["schema_roundtrip"] if any(d["kind"] == "parser" for d in r["differences"])]
    if chat.stem in CALLS_LEFT_OUT:
        said = CALLS_LEFT_OUT[chat.stem]
        assert result.exit_code == 1 and any(said in f for f in report["guesses"] + report["findings"]), report["findings"]
        assert "tool_calls" not in template["fields"] and "tool_calls" not in report["schema"]["properties"]
        calls = {r["probe"] for r in report["roundtrip"] if r["message"].get("tool_calls")}
        assert calls and set(wrong) == calls, (wrong, calls)
    elif chat.stem in NOT_ROUND_TRIPPED:
        said = NOT_ROUND_TRIPPED[chat.stem]
        assert result.exit_code == 1 and wrong and any(said in f for f in report["findings"] + report["guesses"]), report["guesses"]
        if chat.stem == "pythonic":
            # the template reads every probe; only the schema, which cannot express the calls, does not
            assert not [r["probe"] for r in report["roundtrip"] if any(d["kind"] == "parser" for d in r["differences"])]
        if chat.stem == "olmo3":
            # only the calls are not read: every probe without a call round-trips in both parsers
            assert "tool_calls" not in template["fields"] and "tool_calls" not in report["schema"]["properties"]
            calls = {r["probe"] for r in report["roundtrip"] if r["message"].get("tool_calls")}
            assert calls and set(wrong) == calls, (wrong, calls)
    else:
        assert result.exit_code == 0 and not wrong, wrong


@pytest.mark.parametrize("chat", TEMPLATES, ids=lambda p: p.stem)
def test_the_runtimes_read_the_drafts_as_the_workbench_does(chat, newest_oracle):
    """The drafted template under the newest supported transformers (5.24.0, which the workbench runs
    unless told otherwise) and the drafted schema under 5.14.1 give each probe output the message (or
    the failure) the round trip reported."""
    # Gemma 4 with thinking off pre-writes an empty thought no history holds, so nothing would be parsed.
    variables = ["--var", "enable_thinking=true"] if chat.stem == "gemma4" else []
    report = json.loads(run("--chat-template", chat, *variables, "--json").stdout)
    parsed = [r for r in report["roundtrip"] + report["schema_roundtrip"] if r["output"] is not None]
    assert parsed or chat.stem == "deepseek_r1"  # its prompt pre-writes <think>, which no history holds
    for r in (r for r in report["roundtrip"] if r["output"] is not None):
        got = newest_oracle.parse(r["output"], report["template"], prefix=r["prompt"])
        assert got[0] == ("error" if r["error"] else "value") and (r["error"] or got[1] == r["parsed"]), (r["probe"], got)
    for r in (r for r in report["schema_roundtrip"] if r["output"] is not None):
        expected = RAISED if r["error"] else r["parsed"]
        assert same(run_oracle(r["output"], report["schema"]), expected), r["probe"]


@pytest.mark.parametrize("chat", ["qwen3", "hermes", "glm45", "qwen3_coder", "kimi_k2"])
def test_a_draft_gives_back_the_text_before_between_and_after_the_calls(chat, newest_oracle):
    """Both drafted parsers follow the join rule (docs/join-rule.md), as transformers reads them:
    a sentence before the probe's two calls and one after them come back joined by a blank line."""
    report = json.loads(run("--chat-template", CHAT / f"{chat}.jinja", "--json").stdout)
    template, schema = report["template"], report["schema"]
    assert template["fields"]["content"]["join"] == "\n\n"
    found = draft((CHAT / f"{chat}.jinja").read_text(encoding="utf-8"))
    probe = next(r for r in report["roundtrip"] if r["output"] and len((r["parsed"] or {}).get("tool_calls") or []) == 2)
    output = probe["output"]
    opener = (found.call["section_open"] or found.call["open"]).strip()
    calls = output[output.index(opener):]
    calls = calls[: calls.index(found.end)] if found.end and found.end in calls else calls
    text = "Let me check.\n" + calls.strip() + "\nBoth are in." + found.end
    got = newest_oracle.parse(text, template, prefix="")
    assert got[0] == "value" and got[1].get("content") == "Let me check.\n\nBoth are in.", (text, got)
    assert len(got[1]["tool_calls"]) == 2
    message = run_oracle(text, schema)
    assert message["content"] == "Let me check.\n\nBoth are in." and len(message["tool_calls"]) == 2, (text, message)


def test_what_the_analysis_finds_in_a_thinking_chatml_format():
    found = draft((CHAT / "qwen3.jinja").read_text(encoding="utf-8"))
    assert found.start_anchor == "<|im_start|>assistant\n"
    assert found.reasoning == ("<think>", "</think>") and found.end == "<|im_end|>"
    assert found.call["open"].startswith("<tool_call>") and found.arguments == "object"


def test_a_plain_text_recipient_before_the_answer_is_part_of_its_opener():
    """Muse Glimmer writes the answer's recipient as plain text after the prompt's `<|start|>assistant`:
    the answer opens with ` to=user<|message|>`, and reasoning's ` to=self<|message|>` closes before
    `<|start|>assistant`, never before ` to=user` (the opener once began at `<|message|>`, which every
    channel's header holds, and the finding did not say the recipient was lost)."""
    found = draft((CHAT / "muse_glimmer.jinja").read_text(encoding="utf-8"))
    assert found.content_open == "to=user<|message|>" and "the answer opens with 'to=user<|message|>'" in found.findings
    assert found.reasoning == ("to=self<|message|>", "<|eom|><|start|>assistant")
    assert found.template["fields"]["content"]["open_pattern"] == r"to=user<\|message\|>"
    assert found.call is None and "tool_calls" not in found.template["fields"]


# Muse Glimmer's headers with one channel per call (no two calls share one): the call's name is written
# twice, in the channel's recipient and in the invoke, and the answer beside calls ends with <|eom|>.
ONE_CHANNEL_PER_CALL = """\
{%- for m in messages %}{%- if m.role == 'assistant' %}{%- set calls = m.tool_calls | default([], true) %}
{%- if m.reasoning_content %}<|start|>assistant to=self<|message|>{{ m.reasoning_content }}\
{{ '<|eot|>' if not m.content and not calls else '<|eom|>' }}{% endif %}
{%- if m.content %}<|start|>assistant to=user<|message|>{{ m.content }}{{ '<|eom|>' if calls else '<|eot|>' }}{% endif %}
{%- for call in calls %}<|start|>assistant to={{ call.function.name }}<|message|><atem:function_calls>
<atem:invoke name="{{ call.function.name }}">
{% for k, v in call.function.arguments.items() %}<atem:parameter name="{{ k }}">\
{{ v if v is string else v | tojson }}</atem:parameter>
{% endfor %}</atem:invoke>
</atem:function_calls>{{ '<|eot|>' if loop.last else '<|eom|>' }}{% endfor %}
{%- else %}<|start|>{{ m.role }}<|message|>{{ m.content }}<|eot|>{% endif %}{% endfor %}
{%- if add_generation_prompt %}<|start|>assistant{% endif %}"""


def test_a_call_name_written_twice_is_read_and_the_guess_says_the_second_is_not_checked(tmp_path):
    chat = tmp_path / "one_channel_per_call.jinja"
    chat.write_text(ONE_CHANNEL_PER_CALL, encoding="utf-8")
    result = run("--chat-template", chat, "--json")
    report = json.loads(result.stdout)
    assert result.exit_code == 0, report["findings"]
    load_template(report["template"])
    assert list(slow_delimiters(report["template"])) == []
    assert [p for p in validate(report["schema"]) if p.severity != "note"] == []  # valid, and no slow regex
    assert any("the call's name is written again after it" in g for g in report["guesses"])
    assert "beside calls, the answer ends with '<|eom|><|start|>assistant'" in report["findings"]
    opener = report["template"]["fields"]["tool_calls"]["open_pattern"]
    assert "qz_first_tool" not in opener and opener.startswith("to=(?P<name>")
    # the schema's calls start where a call does, not at `to=self` or `to=user`
    assert report["schema"]["properties"]["tool_calls"]["x-regex-iterator"].startswith("to=([^")
    assert not [r["probe"] for r in report["roundtrip"] + report["schema_roundtrip"] if any(d["kind"] == "parser" for d in r["differences"])]


def test_an_answer_on_another_channel_beside_calls_is_read_as_content():
    found = draft((CHAT / "gpt_oss.jinja").read_text(encoding="utf-8"))
    assert found.content_open == "<|channel|>final<|message|>"
    assert found.beside_calls == ("<|channel|>commentary<|message|>", "<|end|><|start|>assistant")
    plain = draft((CHAT / "hermes.jinja").read_text(encoding="utf-8"))
    assert plain.beside_calls is None


def test_xml_style_parameters_are_read_with_xml_inline():
    found = draft((CHAT / "qwen3_coder.jinja").read_text(encoding="utf-8"))
    calls = found.template["fields"]["tool_calls"]
    assert calls["content"] == "xml-inline" and calls["content_args"]["tag_pattern"].startswith("<parameter=(?P<key>")
    glm = draft((CHAT / "glm45.jinja").read_text(encoding="utf-8"))
    assert glm.template["fields"]["tool_calls"]["content_args"]["tag_pattern"].startswith("<arg_key>(?P<key>")


def test_a_format_the_draft_cannot_read_is_said():
    found = draft((CHAT / "gemma4.jinja").read_text(encoding="utf-8"), enable_thinking=True)
    assert "tool_calls" not in found.template["fields"]
    assert any("XML-style parameters or a dialect" in guess for guess in found.guesses)


def test_unusable_input_and_an_existing_output(tmp_path):
    missing = run("--chat-template", tmp_path / "nope")
    assert missing.exit_code == 2 and "no such chat template" in missing.stderr
    out = tmp_path / "t.json"
    out.write_text("{}", encoding="utf-8")
    kept = run("--chat-template", CHAT / "hermes.jinja", "-o", out)
    assert kept.exit_code == 2 and "exists; pass --force" in kept.stderr and out.read_text(encoding="utf-8") == "{}"
    assert run("--chat-template", CHAT / "hermes.jinja", "-o", out, "--force").exit_code == 0


def test_pythonic_calls_are_reported_as_not_expressible_before_5_24():
    found = draft((CHAT / "pythonic.jinja").read_text(encoding="utf-8"), runtime="5.23")
    assert "tool_calls" not in found.template["fields"]
    assert any(f.startswith("tool calls are Python expressions (NAME(key=value, ...)): neither a response template nor a response "
                            "schema") and "transformers 5.24+ reads a list of them with python-call-list" in f for f in found.findings)


@pytest.mark.parametrize("runtime", [None, "5.24", "5.24.0"])
def test_pythonic_calls_are_read_with_python_call_list_from_5_24(runtime):
    found = draft((CHAT / "pythonic.jinja").read_text(encoding="utf-8"), runtime=runtime)
    calls = found.template["fields"]["tool_calls"]
    assert calls["content"] == "python-call-list" and calls["transform_each"] is True
    assert calls["transform"] == {"type": "function", "function": {"name": "{name}", "arguments": "{arguments}"}}
    assert calls["open_pattern"] == r"^\s*(?=\[)" and calls["close_pattern"] == r"(?<=\])(?=\s*(?:<\|eot_id\|>|\Z))"
    assert "tool_calls" not in found.schema["properties"]
    assert any("read with python-call-list (transformers 5.24+)" in f for f in found.findings)


def test_a_runtime_that_is_not_a_release_is_refused():
    with pytest.raises(ValueError, match="expected a transformers release"):
        draft((CHAT / "pythonic.jinja").read_text(encoding="utf-8"), runtime="latest")


def test_the_pythonic_draft_reads_as_transformers_5_24_does(python_call_list):
    """The drafted template under transformers 5.24.0 gives each probe output the message the round trip reported."""
    from python_calls_oracle import CallListOracle, find_python, where_looked

    python = find_python()
    if python is None:
        pytest.skip(f"no transformers 5.24.0 oracle environment (looked in: {where_looked()})")
    report = json.loads(run("--chat-template", CHAT / "pythonic.jinja", "--json").stdout)
    probes = [r for r in report["roundtrip"] if r["output"] is not None]
    assert any(r["probe"] == "parallel_calls" for r in probes)
    with CallListOracle(python) as oracle:
        for r in probes:
            got = oracle.parse_response(r["output"], report["template"], r["prompt"])
            assert got[0] == ("error" if r["error"] else "value") and (r["error"] or got[1] == r["parsed"]), (r["probe"], got)


# Templates that reject a message for its shape (tests/chat_templates/shapes/): the draft renders
# them in the shape they expect, says so, and is a success only when every probe rendered and came back.
SHAPES = CHAT / "shapes"


@pytest.mark.parametrize("chat, convention", [
    ("content_beside_calls", 'content "" beside tool_calls'), ("string_arguments", "arguments as a JSON string"),
])
def test_a_template_that_needs_a_shape_for_calls_is_drafted_with_its_calls(chat, convention):
    result = run("--chat-template", SHAPES / f"{chat}.jinja", "--json")
    report = json.loads(result.stdout)
    assert result.exit_code == 0 and "tool_calls" in report["template"]["fields"] and "tool_calls" in report["schema"]["properties"]
    assert any(convention in f for f in report["findings"]), report["findings"]
    calls = [r for r in report["roundtrip"] if r["probe"] == "one_call"][0]
    assert calls["rendered"] and calls["differences"] == []


def test_a_bare_template_using_special_tokens_is_drafted_with_defaults():
    result = run("--chat-template", SHAPES / "bare_tokens.jinja", "--json")
    report = json.loads(result.stdout)
    assert result.exit_code == 0 and any("default special tokens" in f for f in report["findings"])
    assert report["template"]["fields"]["content"]["close_pattern"].removeprefix(r"^\s+|").startswith(r"<\|im_end\|></s>")


def test_at_least_twenty_test_chat_templates_are_drafted():
    assert len(TEMPLATES) >= 20


def test_a_call_id_after_the_arguments_is_read_from_5_24_and_named_before():
    newest = json.loads(run("--chat-template", SHAPES / "call_ids.jinja", "--json").stdout)
    assert newest["template"]["fields"]["tool_calls"]["transform"]["id"] == "{id}"
    parallel = next(r for r in newest["roundtrip"] if r["probe"] == "parallel_calls")
    assert [c["id"] for c in parallel["parsed"]["tool_calls"]] == ["Qz7call01", "Qz7call02"]
    older = run("--chat-template", SHAPES / "call_ids.jinja", "--runtime", "5.23", "--json")
    report = json.loads(older.stdout)
    assert older.exit_code == 1 and any("reads no group before transformers 5.24" in g for g in report["guesses"])
    assert "id" not in report["template"]["fields"]["tool_calls"]["transform"]


def test_call_ids_of_the_checked_form_let_the_draft_read_the_calls():
    report = json.loads(run("--chat-template", SHAPES / "call_ids.jinja", "--json").stdout)
    assert "tool_calls" in report["template"]["fields"]
    assert [r["conventions"] for r in report["roundtrip"] if r["probe"] == "one_call"] == [["call_ids"]]


def test_a_template_that_renders_nothing_is_unusable_and_nothing_is_written(tmp_path):
    out = tmp_path / "draft.template.json"
    result = run("--chat-template", SHAPES / "raises_always.jinja", "-o", out)
    assert result.exit_code == 2 and result.stdout == "" and "line 3" in result.stderr and not out.exists()


def test_a_draft_whose_call_probes_do_not_render_is_not_a_success(tmp_path):
    chat = tmp_path / "no_calls.jinja"
    chat.write_text("{% for m in messages %}{% if m.tool_calls is defined %}{{ raise_exception('no tool calls here') }}{% endif %}"
                    "<|{{ m.role }}|>{{ m.content }}\n{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}", encoding="utf-8")
    result = run("--chat-template", chat, "--json")
    report = json.loads(result.stdout)
    assert result.exit_code == 1 and "tool_calls" not in report["template"]["fields"]
    assert "not a success: the tool-call probes one_call" in result.stderr
    assert {r["probe"] for r in report["roundtrip"] if not r["rendered"]} == {"one_call", "parallel_calls", "empty_arguments", "reasoning_answer_call"}


def test_draft_runtime_drafts_for_that_release():
    # --runtime 5.23 drafts what 5.23 can read: Python-expression calls named, not a 5.24-only parser it would refuse
    result = run("--chat-template", CHAT / "pythonic.jinja", "--runtime", "5.23", "--json")
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    assert "tool_calls" not in report["template"]["fields"]
    assert any("draft for 5.24" in line for line in report["findings"])
