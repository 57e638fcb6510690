"""Issue 23's friction: the round trip's report (both parsers side by side, differences shown where
they are), and small things in the TUI and the CLI's help."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from typer.testing import CliRunner

from workbench.cli.app import app
from workbench.cli.roundtrip import difference_line
from workbench.engine.chat_template.roundtrip import PROBES, roundtrip

ROOT = Path(__file__).resolve().parent.parent
CHAT = Path(__file__).parent / "chat_templates"


def run(*args):
    result = CliRunner().invoke(app, [*map(str, args)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def test_a_difference_past_the_preview_length_is_shown_in_both_values():
    def parse(output, prompt):  # gives the probe back with one argument's type changed, deep inside
        message = copy.deepcopy(PROBES["one_call"])
        message["tool_calls"][0]["function"]["arguments"]["filters"]["limit"] = "5"
        return message
    source = (CHAT / "thinking_chatml.jinja").read_text(encoding="utf-8")
    result = next(r for r in roundtrip(source, parse) if r.name == "one_call")
    line = difference_line(result.differences[0])
    assert '"limit": 5' in line and '"limit": "5"' in line, line


def test_the_reasoning_difference_names_the_probes_own_key():
    result = run("roundtrip", "--chat-template", CHAT / "thinking_chatml.jinja", "--template", ROOT / "schemas" / "hermes.template.json")
    assert "the parser is wrong: /thinking" in result.stdout
    assert "the parser is wrong: /reasoning_content" in result.stdout
    report = json.loads(run("roundtrip", "--chat-template", CHAT / "thinking_chatml.jinja", "--template",
                            ROOT / "schemas" / "hermes.template.json", "--json").stdout)
    paths = {r["probe"]: [d["path"] for d in r["differences"]] for r in report}
    assert "/thinking" in paths["reasoning_as_thinking"]


def test_schema_and_template_together_are_judged_side_by_side():
    args = ("roundtrip", "--chat-template", CHAT / "thinking_chatml.jinja",
            "--schema", ROOT / "schemas" / "qwen3.json", "--template", ROOT / "schemas" / "hermes.template.json")
    result = run(*args)
    assert result.exit_code == 1, result.output  # the worse of the two: the template is wrong
    header = next(line for line in result.stdout.splitlines() if "probe" in line)
    assert "schema" in header and "template" in header and "differences" in header
    row = next(line for line in result.stdout.splitlines() if "reasoning_as_thinking" in line)
    assert "round-trips" in row and "parser wrong" in row and "template: the parser is wrong: /thinking" in row
    report = json.loads(run(*args, "--json").stdout)
    assert set(report) == {"schema", "template"}
    assert all(r["differences"] == [] for r in report["schema"])
    assert any(r["differences"] for r in report["template"])
    # both round-trip: 0
    good = run("roundtrip", "--chat-template", CHAT / "thinking_chatml.jinja",
               "--schema", ROOT / "schemas" / "qwen3.json", "--template", ROOT / "schemas" / "qwen3.template.json")
    assert good.exit_code == 0, good.output
    # the schema wrong, the template right: still 1
    bad_schema = run("roundtrip", "--chat-template", CHAT / "thinking_chatml.jinja",
                     "--schema", ROOT / "schemas" / "hermes.json", "--template", ROOT / "schemas" / "qwen3.template.json")
    assert bad_schema.exit_code == 1, bad_schema.output


def test_write_samples_with_both_parsers_writes_both_goldens(tmp_path):
    out = tmp_path / "probes"
    result = run("roundtrip", "--chat-template", CHAT / "thinking_chatml.jinja", "--schema", ROOT / "schemas" / "qwen3.json",
                 "--template", ROOT / "schemas" / "qwen3.template.json", "--write-samples", out)
    assert result.exit_code == 0, result.output
    assert (out / "one_call.expected.json").is_file() and (out / "one_call.template.expected.json").is_file()
    assert "wrote 7 samples" in result.stderr


def test_help_shows_flags_without_a_type_label():
    commands = [name for name in ("parse", "validate", "export", "check", "migrate", "open", "roundtrip", "draft")]
    for args in ([], *([c] for c in commands)):
        result = CliRunner().invoke(app, [*args, "--help"], terminal_width=100)
        assert result.exit_code == 0, result.output
        assert "<bool>" not in result.output, (args, result.output)
    assert "--json" in CliRunner().invoke(app, ["check", "--help"]).output
    # the flags still work as flags
    assert run("roundtrip", "--chat-template", CHAT / "thinking_chatml.jinja", "--template",
               ROOT / "schemas" / "qwen3.template.json", "--json").stdout.lstrip().startswith("[")


def test_exporting_a_template_without_transformers_advises_a_release_that_reads_templates(tmp_path, monkeypatch):
    import sys

    import pytest

    from workbench.jobs.export import ExportRefused, verify_tokenizer_dir

    monkeypatch.setitem(sys.modules, "transformers", None)  # import fails: as if not installed
    template = json.loads((ROOT / "schemas" / "qwen3.template.json").read_text(encoding="utf-8"))
    with pytest.raises(ExportRefused) as refused:
        verify_tokenizer_dir(tmp_path, template)
    assert "<5.15" not in str(refused.value) and "transformers>=5.15" in str(refused.value)
    schema = json.loads((ROOT / "schemas" / "qwen3.json").read_text(encoding="utf-8"))
    with pytest.raises(ExportRefused) as refused:
        verify_tokenizer_dir(tmp_path, schema)
    assert "<5.15" in str(refused.value)  # a schema is read only before 5.15


async def test_the_status_line_lists_only_the_fields_the_message_has(workdir):
    from tests.tui_helpers import SIZE, make_app, settle

    app = make_app(workdir, "plain_answer.txt")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        assert set(app.main.analysis.value) == {"role", "content"}
        status = str(app.main.status.render())
        assert "parses: role, content" in status and "thinking" not in status and "tool_calls" not in status


async def test_the_tree_cursor_on_a_top_level_field_lights_its_value_not_the_whole_output(workdir):
    from tests.tui_helpers import SIZE, make_app, settle

    app = make_app(workdir, "tool_call.txt")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        tree, raw = app.main.tree, app.main.raw
        tree.focus()
        tree.move_cursor(next(n for n in tree.root.children if n.data.key == "thinking"))
        await pilot.pause()
        text = raw.text
        assert raw.selected and all(e - s < len(text) for s, e in raw.selected), raw.selected
        assert [text[s:e] for s, e in raw.selected] == [app.main.analysis.value["thinking"]]


def _new_family(tmp_path: Path) -> Path:
    """A new model: samples under sample_outputs/newfam/, no schemas/ folder at all."""
    folder = tmp_path / "sample_outputs" / "newfam"
    folder.mkdir(parents=True)
    sample = folder / "plain.txt"
    sample.write_text("Hello there.<|im_end|>", encoding="utf-8")
    return sample


def test_open_with_template_on_a_new_family_proposes_the_familys_template_file(tmp_path, monkeypatch):
    from workbench.tui.app import WorkbenchApp

    sample = _new_family(tmp_path)
    opened = []
    monkeypatch.setattr(WorkbenchApp, "run", lambda self, *a, **k: opened.append(self.document))
    monkeypatch.chdir(tmp_path / "sample_outputs")  # not where the template belongs
    result = run("open", sample, "--template")
    assert result.exit_code == 0, result.output
    assert opened[0].path == tmp_path.resolve() / "schemas" / "newfam.template.json"


async def test_saving_a_new_familys_template_asks_with_the_full_path_and_writes_there(tmp_path):
    from tests.tui_helpers import SIZE, settle
    from workbench.store.document import SchemaDocument
    from workbench.store.prompts import STARTER_TEMPLATE
    from workbench.store.samples import load
    from workbench.tui.app import WorkbenchApp
    from workbench.tui.screens.prompt import PromptScreen

    sample = _new_family(tmp_path)
    target = tmp_path / "schemas" / "newfam.template.json"
    app = WorkbenchApp(SchemaDocument(target, STARTER_TEMPLATE), [load(sample)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen)  # schemas/ does not exist: asked, not made silently
        assert app.screen.query_one("#answer").value == str(target)
        await pilot.press("enter")
        await pilot.pause()
    assert json.loads(target.read_text(encoding="utf-8")) == json.loads(STARTER_TEMPLATE)


async def test_a_parser_without_a_file_is_proposed_with_its_full_path(tmp_path, monkeypatch):
    from tests.tui_helpers import SIZE, settle
    from workbench.store.document import SchemaDocument
    from workbench.store.prompts import STARTER_TEMPLATE
    from workbench.store.samples import load
    from workbench.tui.app import WorkbenchApp
    from workbench.tui.screens.prompt import PromptScreen

    monkeypatch.chdir(tmp_path)
    app = WorkbenchApp(SchemaDocument(None, STARTER_TEMPLATE), [load(_new_family(tmp_path))])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen)
        assert app.screen.query_one("#answer").value == str(tmp_path / "template.json")
