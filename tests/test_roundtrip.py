"""`workbench roundtrip`: probe messages rendered by a chat template come back from the parser, and
every difference is told apart (the parser's fault, data the template drops, a prompt that is not a
prefix, a message the template cannot render)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from workbench.cli.app import app
from workbench.engine.chat_template.roundtrip import (
    CANNOT_RENDER, NOT_PREFIX, PARSER, PROBES, TEMPLATE_DROPS, roundtrip, tools_for,
)
from workbench.engine.template import parse_response

ROOT = Path(__file__).resolve().parent.parent
CHAT = Path(__file__).parent / "chat_templates"
QWEN3_TEMPLATE = json.loads((ROOT / "schemas" / "qwen3.template.json").read_text(encoding="utf-8"))


def run(*args: str):
    result = CliRunner().invoke(app, ["roundtrip", *map(str, args)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def kinds(results) -> dict[str, set[str]]:
    return {r.name: {d.kind for d in r.differences} for r in results}


def template_parser(template):
    return lambda output, prompt: parse_response(output, template, prefix=prompt)


def test_the_shipped_qwen3_schema_and_template_round_trip_a_qwen3_style_template():
    for parser in ("--schema", ROOT / "schemas" / "qwen3.json"), ("--template", ROOT / "schemas" / "qwen3.template.json"):
        result = run("--chat-template", CHAT / "thinking_chatml.jinja", *parser, "--json")
        assert result.exit_code == 0, result.output
        report = json.loads(result.stdout)
        assert [r["probe"] for r in report] == list(PROBES)
        assert all(r["differences"] == [] for r in report), report
        call = next(r for r in report if r["probe"] == "one_call")
        assert call["prompt"].endswith("<|im_start|>assistant\n") and call["output"].lstrip().startswith("<tool_call>")


def test_a_parser_that_misses_the_reasoning_is_wrong_and_exits_1():
    result = run("--chat-template", CHAT / "thinking_chatml.jinja", "--template", ROOT / "schemas" / "hermes.template.json")
    assert result.exit_code == 1
    assert "the parser is wrong: /reasoning" in result.stdout and "3 of 7 probes: the parser is wrong" in result.stdout


def test_reasoning_the_template_does_not_render_is_the_templates_doing():
    results = roundtrip((CHAT / "chatml_tools.jinja").read_text(encoding="utf-8"), template_parser(QWEN3_TEMPLATE))
    assert kinds(results)["reasoning_answer"] == {TEMPLATE_DROPS}
    assert kinds(results)["one_call"] == set()
    result = run("--chat-template", CHAT / "chatml_tools.jinja", "--template", ROOT / "schemas" / "qwen3.template.json")
    assert result.exit_code == 0 and "the template drops data: /reasoning" in result.stdout


def test_a_generation_prompt_the_history_does_not_start_with():
    # The generation prompt pre-writes <think>, but a rendered history writes no empty reasoning block.
    source = ("{% for m in messages %}<|{{ m.role }}|>{% if m.reasoning_content %}<think>{{ m.reasoning_content }}</think>{% endif %}"
              "{{ m.content | default('') }}<|end|>{% endfor %}{% if add_generation_prompt %}<|assistant|><think>{% endif %}")
    results = roundtrip(source, template_parser(QWEN3_TEMPLATE))
    assert kinds(results)["plain_answer"] == {NOT_PREFIX}
    assert NOT_PREFIX not in kinds(results)["reasoning_answer"]  # there the history does begin with <think>


def test_a_message_the_template_cannot_render():
    source = ("{% for m in messages %}{% if m.tool_calls is defined %}{{ raise_exception('no tool calls here') }}{% endif %}"
              "<|{{ m.role }}|>{{ m.content }}\n{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}")
    results = roundtrip(source, template_parser(QWEN3_TEMPLATE))
    assert kinds(results)["one_call"] == {CANNOT_RENDER}
    assert "no tool calls here" in results[3].differences[0].note


def test_a_parser_that_keeps_the_markup_is_wrong_on_every_probe():
    results = roundtrip((CHAT / "thinking_chatml.jinja").read_text(encoding="utf-8"), lambda o, p: {"role": "assistant", "content": o})
    assert all(PARSER in k for k in kinds(results).values()), kinds(results)


def test_tools_are_derived_from_the_probe_calls():
    tools = tools_for(PROBES["parallel_calls"])
    assert [t["function"]["name"] for t in tools] == ["search_docs", "get_time"]
    assert tools[0]["function"]["parameters"]["properties"]["filters"] == {"type": "object"}
    assert tools_for(PROBES["plain_answer"]) is None


def test_unusable_inputs_are_clear_errors(tmp_path):
    template = ROOT / "schemas" / "qwen3.template.json"
    missing = run("--chat-template", tmp_path / "nope", "--template", template)
    assert missing.exit_code == 2 and "no such chat template file or tokenizer folder" in missing.stderr
    (tmp_path / "empty").mkdir()
    empty = run("--chat-template", tmp_path / "empty", "--template", template)
    assert empty.exit_code == 2 and "no chat template here" in empty.stderr
    broken = tmp_path / "broken.jinja"
    broken.write_text("{% for m in messages %}\n{{ m.content }\n", encoding="utf-8")
    syntax = run("--chat-template", broken, "--template", template)
    assert syntax.exit_code == 2 and "broken.jinja: line 2: template syntax error" in syntax.stderr
    # both parsers together are a side-by-side run now (tests/test_friction.py); none is unusable
    neither = run("--chat-template", CHAT / "chatml_tools.jinja")
    assert neither.exit_code == 2 and "give a parser" in neither.stderr
    swapped = run("--chat-template", CHAT / "chatml_tools.jinja", "--schema", template)
    assert swapped.exit_code == 2 and "pass it with --template" in swapped.stderr


def test_write_samples_gives_a_folder_check_and_the_tui_read(tmp_path):
    from workbench.jobs.check import check

    family = tmp_path / "samples" / "qwen3"
    args = ("--chat-template", CHAT / "thinking_chatml.jinja", "--template", ROOT / "schemas" / "qwen3.template.json", "--write-samples", family)
    assert run(*args).exit_code == 0
    assert sorted(p.name for p in family.glob("one_call*")) == ["one_call.prompt.txt", "one_call.template.expected.json", "one_call.txt"]
    assert json.loads((family / "reasoning_answer.template.expected.json").read_text(encoding="utf-8"))["thinking"].startswith("The user wants")
    results = [r for r in check(ROOT / "schemas", tmp_path / "samples", families=["qwen3"]) if r.format == "response_template"]
    assert results and all(r.ok for r in results), results
    again = run(*args)
    assert again.exit_code == 2 and "pass --force" in again.stderr
    assert run(*args, "--force").exit_code == 0


FAMILY_TEMPLATES = sorted(p for p in CHAT.glob("*.jinja") if (ROOT / "schemas" / f"{p.stem}.json").is_file())
# (family, format) -> the probes whose round trip the shipped parser fails, and why (schemas/README.md says so too).
_NONE = "a None argument: the template cannot turn the dialect's bare None into null (schemas/README.md, gemma4)"
KNOWN_FAULTS: dict[tuple[str, str], dict[str, str]] = {
    ("gemma4", "template"): {"one_call": _NONE, "parallel_calls": _NONE, "reasoning_answer_call": _NONE},
}
# Variables a family's samples were rendered with (Gemma 4's prompt switches thinking on, Hy3's
# reasoning_effort high leaves the think block open; without them every probe's prompt pre-writes an
# empty thought the history does not hold; DeepSeek-V4's samples are in thinking mode, which its test
# template leaves off by default, dropping the final reasoning).
VARIABLES = {"gemma4": ["--var", "enable_thinking=true"], "hy_v3": ["--var", "reasoning_effort=high"],
             "deepseek_v4": ["--var", "thinking=true"]}


@pytest.mark.parametrize("chat", FAMILY_TEMPLATES, ids=lambda p: p.stem)
@pytest.mark.parametrize("fmt", ["schema", "template"])
def test_every_family_parser_round_trips_its_chat_format(chat: Path, fmt: str):
    """Each shipped family's schema and template give back what the family's chat template (written
    here from the format) renders, except where the template drops the data."""
    parser = ROOT / "schemas" / (f"{chat.stem}.json" if fmt == "schema" else f"{chat.stem}.template.json")
    report = json.loads(run("--chat-template", chat, f"--{fmt}", parser, *VARIABLES.get(chat.stem, []), "--json").stdout)
    wrong = {r["probe"]: [d for d in r["differences"] if d["kind"] == PARSER] for r in report}
    wrong = {probe: diffs for probe, diffs in wrong.items() if diffs}
    assert set(wrong) == set(KNOWN_FAULTS.get((chat.stem, fmt), {})), wrong


@pytest.mark.parametrize("fmt", ["schema", "template"])
def test_the_deepseek_v4_parsers_also_read_the_v4_1_dialect(fmt: str):
    """DeepSeek-V4.1 writes the DSML tags with a leading space (<｜DSML｜ calls>, <｜DSML｜ invoke>,
    <｜DSML｜ parameter>); the deepseek_v4 schema and template read it as they read V4's names."""
    parser = ROOT / "schemas" / ("deepseek_v4.json" if fmt == "schema" else "deepseek_v4.template.json")
    result = run("--chat-template", CHAT / "deepseek_v4.jinja", f"--{fmt}", parser, "--var", "thinking=true", "--var", "v4_1=true", "--json")
    report = json.loads(result.stdout)
    calls = [r for r in report if r["probe"] == "parallel_calls"][0]
    assert "<｜DSML｜ calls>" in calls["output"] and "<｜DSML｜ invoke" in calls["output"]
    assert result.exit_code == 0 and all(r["differences"] == [] for r in report), report


def test_open_with_a_chat_template_adds_the_probes_as_samples_with_goldens(tmp_path):
    from workbench.cli.open import _probe_samples
    from workbench.store.document import SchemaDocument
    from workbench.store.samples import MATCHES, judge

    document = SchemaDocument.open(ROOT / "schemas" / "qwen3.template.json")
    samples = _probe_samples(CHAT / "thinking_chatml.jinja", document, [], tmp_path / "qwen3")
    assert [s.path.stem for s in samples] == sorted(PROBES)
    for sample in samples:
        assert sample.expected_value_path("response_template").is_file()
        assert sample.prompt()[0].endswith("<|im_start|>assistant\n")
    hermes = SchemaDocument.open(ROOT / "schemas" / "hermes.template.json")
    wrong = [s.path.stem for s in _probe_samples(CHAT / "thinking_chatml.jinja", hermes, [], tmp_path / "hermes")
             if judge(s, json.loads(hermes.saved_text)).status != MATCHES]
    assert sorted(wrong) == ["reasoning_answer", "reasoning_answer_call", "reasoning_as_thinking"]


def test_open_needs_a_sample_or_a_chat_template_with_a_parser():
    result = CliRunner().invoke(app, ["open", "--chat-template", str(CHAT / "thinking_chatml.jinja")])
    assert result.exit_code == 2 and "give a SAMPLE, or --chat-template with --schema FILE" in result.stderr


def test_schemas_readme_names_every_family_whose_chat_format_is_tested():
    readme = (ROOT / "schemas" / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Round trips through the chat format\n", 1)[1].split("\n## ", 1)[0]
    assert all(f"`{chat.stem}`" in section for chat in FAMILY_TEMPLATES)


async def test_the_tuis_sample_bar_gives_each_probe_its_verdict(tmp_path):
    """`open --chat-template`: the probes are samples of the TUI; a parser that misses the reasoning
    differs from the golden on exactly the reasoning probes, in the sample bar's verdicts."""
    from tui_helpers import SIZE, settle

    from workbench.cli.open import _probe_samples
    from workbench.store.document import SchemaDocument
    from workbench.store.samples import DIFFERS, MATCHES
    from workbench.tui.app import WorkbenchApp

    for parser, wrong in (("qwen3.template.json", set()),
                          ("hermes.template.json", {"reasoning_answer", "reasoning_as_thinking", "reasoning_answer_call"})):
        document = SchemaDocument.open(ROOT / "schemas" / parser)
        samples = _probe_samples(CHAT / "thinking_chatml.jinja", document, [], tmp_path / parser)
        app = WorkbenchApp(document, samples)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, app)
            verdicts = {samples[i].path.stem: v.status for i, v in app.main.verdicts.items()}
        assert set(verdicts) == set(PROBES), verdicts
        assert {name for name, status in verdicts.items() if status == DIFFERS} == wrong, verdicts
        assert all(status in (MATCHES, DIFFERS) for status in verdicts.values())


# Templates that reject a probe for its shape (tests/chat_templates/shapes/): each probe is retried in
# the shapes real templates expect, and the convention that made it render is reported.
SHAPES = CHAT / "shapes"


def report_of(chat: Path, *parser) -> tuple[int, list[dict]]:
    result = run("--chat-template", chat, *parser, "--json")
    return result.exit_code, json.loads(result.stdout)


def by_probe(report: list[dict]) -> dict[str, dict]:
    return {r["probe"]: r for r in report}


def test_a_template_that_needs_content_beside_calls_gets_an_empty_one():
    code, report = report_of(SHAPES / "content_beside_calls.jinja", "--template", ROOT / "schemas" / "qwen3.template.json")
    probes = by_probe(report)
    assert code == 0 and all(r["rendered"] for r in report)
    assert probes["plain_answer"]["conventions"] == [] and probes["plain_answer"]["rendered_as"] is None
    assert probes["one_call"]["conventions"] == ["content_beside_calls"] and probes["one_call"]["rendered_as"]["content"] == ""
    assert probes["one_call"]["differences"] == []
    table = run("--chat-template", SHAPES / "content_beside_calls.jinja", "--template", ROOT / "schemas" / "qwen3.template.json")
    assert 'rendered with content "" beside tool_calls' in table.stdout


def test_arguments_concatenated_as_a_string_render_as_one_and_compare_as_the_object(tmp_path):
    from workbench.jobs.check import check

    args = ("--chat-template", SHAPES / "string_arguments.jinja", "--template", ROOT / "schemas" / "qwen3.template.json")
    code, report = report_of(*args[1:])
    call = by_probe(report)["one_call"]
    assert code == 0 and call["conventions"] == ["string_arguments"] and call["differences"] == []
    assert isinstance(call["rendered_as"]["tool_calls"][0]["function"]["arguments"], str)
    assert call["parsed"]["tool_calls"][0]["function"]["arguments"] == PROBES["one_call"]["tool_calls"][0]["function"]["arguments"]
    # the samples written keep the object as the golden, and check judges them as the round trip does
    family = tmp_path / "samples" / "qwen3"
    assert run(*args, "--write-samples", family).exit_code == 0
    golden = json.loads((family / "one_call.template.expected.json").read_text(encoding="utf-8"))
    assert golden["tool_calls"][0]["function"]["arguments"] == PROBES["one_call"]["tool_calls"][0]["function"]["arguments"]
    results = [r for r in check(ROOT / "schemas", tmp_path / "samples", families=["qwen3"]) if r.format == "response_template"]
    assert results and all(r.ok for r in results), results


def test_call_ids_of_the_checked_form_are_given_and_come_back():
    code, report = report_of(SHAPES / "call_ids.jinja", "--template", ROOT / "schemas" / "mistral.template.json")
    probes = by_probe(report)
    assert code == 0, [r["differences"] for r in report]
    for name in ("one_call", "parallel_calls", "empty_arguments"):
        assert probes[name]["conventions"] == ["call_ids"]
        ids = [c["id"] for c in probes[name]["rendered_as"]["tool_calls"]]
        assert all(len(i) == 9 and i.isalnum() for i in ids) and len(set(ids)) == len(ids)
        assert [c["id"] for c in probes[name]["parsed"]["tool_calls"]] == ids  # the template writes them: they must come back
        assert probes[name]["differences"] == []


def test_a_bare_template_using_bos_and_eos_tokens_renders_with_defaults(tmp_path):
    parser = tmp_path / "bare.template.json"
    parser.write_text(json.dumps({"version": 1, "defaults": {"role": "assistant"}, "start_anchor": "<|im_start|>assistant\n",
                                  "fields": {"content": {"close_pattern": r"<\|im_end\|></s>\s*", "content": "text"}}}), encoding="utf-8")
    code, report = report_of(SHAPES / "bare_tokens.jinja", "--template", parser)
    answer = by_probe(report)["plain_answer"]
    assert code == 0 and answer["conventions"] == ["special_tokens"] and answer["differences"] == []
    assert answer["prompt"].startswith("<s>") and answer["output"].endswith("<|im_end|></s>\n")


def test_a_template_that_renders_no_probe_is_unusable_input():
    result = run("--chat-template", SHAPES / "raises_always.jinja", "--template", ROOT / "schemas" / "qwen3.template.json", "--json")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "renders none of the probe messages" in result.stderr and "line 3" in result.stderr


def test_a_probe_that_renders_in_no_shape_is_named_and_fails_the_run(tmp_path):
    chat = tmp_path / "no_calls.jinja"
    chat.write_text("{% for m in messages %}{% if m.tool_calls is defined %}{{ raise_exception('no tool calls here') }}{% endif %}"
                    "<|{{ m.role }}|>{{ m.content }}\n{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}", encoding="utf-8")
    code, report = report_of(chat, "--template", ROOT / "schemas" / "qwen3.template.json")
    call = by_probe(report)["one_call"]
    assert code == 1 and not call["rendered"] and call["output"] is None
    note = call["differences"][0]["note"]
    assert call["differences"][0]["kind"] == CANNOT_RENDER and "line 1" in note and "no tool calls here" in note and '"search_docs"' in note
    table = run("--chat-template", chat, "--template", ROOT / "schemas" / "qwen3.template.json")
    assert table.exit_code == 1 and "4 of 7 probes could not be rendered" in table.stdout
