"""``workbench new NAME --chat-template SRC`` (issue 23): a family's samples, both parsers, a passing
``check`` and the TUI on them, from the chat template alone; nothing written over without --force."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import workbench.cli.open
from workbench.cli.app import app
from workbench.engine.chat_template.roundtrip import PROBES
from workbench.store.files import load_schema
from workbench.formats import RESPONSE_SCHEMA, RESPONSE_TEMPLATE, format_of

CHAT = Path(__file__).parent / "chat_templates"


def invoke(*args) -> object:
    return CliRunner().invoke(app, [str(a) for a in args])


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_new_writes_the_family_and_check_passes_on_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the default folders: schemas/ and sample_outputs/ here
    result = invoke("new", "qwen3x", "--chat-template", CHAT / "qwen3.jinja", "--no-open")
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    assert "wrote schemas/qwen3x.template.json and schemas/qwen3x.json" in result.output
    assert "7 probes: no difference is the parser's fault" in result.output
    assert "1 of 1 schemas pass" in result.output and "1 of 1 templates pass" in result.output

    folder = tmp_path / "sample_outputs" / "qwen3x"
    assert format_of(load_schema(tmp_path / "schemas" / "qwen3x.template.json")) is RESPONSE_TEMPLATE
    assert format_of(load_schema(tmp_path / "schemas" / "qwen3x.json")) is RESPONSE_SCHEMA
    for probe in PROBES:  # output, prompt and a golden for each format
        for suffix in (".txt", ".prompt.txt", ".expected.json", ".template.expected.json"):
            assert (folder / f"{probe}{suffix}").is_file(), f"{probe}{suffix}"
    assert (folder / "probes.json").is_file()

    checked = invoke("check", "schemas", "sample_outputs", "--family", "qwen3x")
    assert checked.exit_code == 0, checked.output
    assert "pass 7/7" in checked.output


async def test_new_opens_the_tui_on_the_template_with_the_new_samples(tmp_path, monkeypatch):
    from tui_helpers import SIZE, settle

    from workbench.store.samples import MATCHES

    opened = []
    monkeypatch.setattr(workbench.cli.open, "run_app", opened.append)  # no real terminal: keep the app built
    result = invoke("new", "qwen3x", "--chat-template", CHAT / "qwen3.jinja",
                    "--schemas", tmp_path / "s", "--samples", tmp_path / "o")
    assert result.exit_code == 0, result.output
    [tui] = opened
    async with tui.run_test(size=SIZE) as pilot:
        await settle(pilot, tui)
        assert tui.document.path == tmp_path / "s" / "qwen3x.template.json"
        assert {sample.path.stem for sample in tui.samples} == set(PROBES)
        assert all(sample.path.parent == tmp_path / "o" / "qwen3x" for sample in tui.samples)
        verdicts = tui.main.verdicts
        assert len(verdicts) == len(PROBES) and all(v.status == MATCHES for v in verdicts.values()), verdicts


async def test_the_app_building_function_opens_the_written_family(tmp_path):
    from tui_helpers import SIZE, settle

    from workbench.cli.new import build_app
    from workbench.store.samples import MATCHES

    result = invoke("new", "hermesx", "--chat-template", CHAT / "hermes.jinja", "--no-open",
                    "--schemas", tmp_path / "s", "--samples", tmp_path / "o")
    assert result.exit_code in (0, 1), result.output  # whatever the draft gives, the TUI opens on it
    tui = build_app(tmp_path / "s" / "hermesx.template.json", tmp_path / "o" / "hermesx")
    async with tui.run_test(size=SIZE) as pilot:
        await settle(pilot, tui)
        assert tui.main.sample is not None and tui.main.raw.text == tui.main.sample.text
        if result.exit_code == 0:
            assert all(v.status == MATCHES for v in tui.main.verdicts.values())


def test_new_refuses_to_write_over_the_family_and_force_replaces_it(tmp_path):
    where = ["--schemas", tmp_path / "s", "--samples", tmp_path / "o", "--no-open"]
    assert invoke("new", "fam", "--chat-template", CHAT / "qwen3.jinja", *where).exit_code == 0
    before = snapshot(tmp_path)
    again = invoke("new", "fam", "--chat-template", CHAT / "qwen3.jinja", *where)
    assert again.exit_code == 2, again.output
    assert "already exists; pass --force to replace it (nothing written)" in again.output
    assert "Traceback" not in again.output and isinstance(again.exception, (SystemExit, type(None)))
    assert snapshot(tmp_path) == before
    forced = invoke("new", "fam", "--chat-template", CHAT / "qwen3.jinja", *where, "--force")
    assert forced.exit_code == 0, forced.output
    assert snapshot(tmp_path) == before  # the same template drafts the same family


def test_one_existing_sample_file_stops_the_whole_write(tmp_path):
    """All or nothing: a probe's file already there (the parsers are not) leaves everything as it was."""
    folder = tmp_path / "o" / "fam"
    folder.mkdir(parents=True)
    (folder / "one_call.txt").write_text("mine\n", encoding="utf-8")
    before = snapshot(tmp_path)
    result = invoke("new", "fam", "--chat-template", CHAT / "qwen3.jinja", "--schemas", tmp_path / "s",
                    "--samples", tmp_path / "o", "--no-open")
    assert result.exit_code == 2, result.output
    assert f"{folder / 'one_call.txt'}: already exists" in result.output
    assert snapshot(tmp_path) == before and not (tmp_path / "s").exists()


@pytest.mark.parametrize("name", ["../up", ".hidden", "a/b", "x.template", ""])
def test_a_name_that_is_no_family_name_is_refused_in_a_sentence(tmp_path, name):
    result = invoke("new", name, "--chat-template", CHAT / "qwen3.jinja", "--schemas", tmp_path / "s",
                    "--samples", tmp_path / "o", "--no-open")
    assert result.exit_code == 2, result.output
    assert "is not a family name" in result.output and "Traceback" not in result.output
    assert list(tmp_path.iterdir()) == []


def test_a_chat_template_that_renders_nothing_is_unusable_and_nothing_is_written(tmp_path):
    broken = tmp_path / "broken.jinja"
    broken.write_text("{{ raise_exception('broken') }}", encoding="utf-8")
    result = invoke("new", "fam", "--chat-template", broken, "--schemas", tmp_path / "s", "--samples", tmp_path / "o",
                    "--no-open")
    assert result.exit_code == 2, result.output
    assert "broken.jinja: line 1: the template raised: broken" in result.output and "Traceback" not in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken.jinja"]


def test_new_never_writes_into_a_folder_of_curated_samples_even_with_force(tmp_path):
    """A shipped family's samples (no probes.json names them) are not new's to replace or mix with."""
    folder = tmp_path / "o" / "fam"
    folder.mkdir(parents=True)
    (folder / "plain_answer.txt").write_text("curated\n", encoding="utf-8")
    (folder / "plain_answer.expected.json").write_text('{"role": "assistant", "content": "curated"}\n', encoding="utf-8")
    (folder / "odd_case.txt").write_text("mine\n", encoding="utf-8")
    before = snapshot(tmp_path)
    for force in ([], ["--force"]):
        result = invoke("new", "fam", "--chat-template", CHAT / "qwen3.jinja", "--schemas", tmp_path / "s",
                        "--samples", tmp_path / "o", "--no-open", *force)
        assert result.exit_code == 2, result.output
        assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1, result.output
        assert snapshot(tmp_path) == before and not (tmp_path / "s").exists()
    assert f"{folder} holds files that no earlier workbench new wrote (odd_case.txt, plain_answer.expected.json, " \
           "plain_answer.txt;" in result.output.replace("\n", "")


def test_new_force_leaves_no_golden_of_a_probe_it_no_longer_writes(tmp_path):
    where = ["--schemas", tmp_path / "s", "--samples", tmp_path / "o", "--no-open"]
    assert invoke("new", "fam", "--chat-template", CHAT / "qwen3.jinja", *where).exit_code == 0
    folder = tmp_path / "o" / "fam"
    # as an earlier template left it: a probe this one does not render, with its goldens
    probes = json.loads((folder / "probes.json").read_text(encoding="utf-8"))
    (folder / "probes.json").write_text(json.dumps({**probes, "gone": {"role": "assistant", "content": "x"}}),
                                        encoding="utf-8")
    for name in ("gone.txt", "gone.prompt.txt", "gone.expected.json", "gone.template.expected.json"):
        (folder / name).write_text("{}\n", encoding="utf-8")
    forced = invoke("new", "fam", "--chat-template", CHAT / "qwen3.jinja", *where, "--force")
    assert forced.exit_code == 0, forced.output
    assert not list(folder.glob("gone*"))
    assert "gone" not in json.loads((folder / "probes.json").read_text(encoding="utf-8"))
    assert "removed 4 files of the earlier new fam's probes that no longer render" in forced.output.replace("\n", " ")
