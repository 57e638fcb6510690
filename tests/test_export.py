"""Export: clean schema files, tokenizer folders that transformers 5.14.1 loads, and refusals that
leave every byte in place."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from fallback_templates import QWEN3

from workbench.jobs.export import ExportRefused, export_schema, verify_tokenizer_dir

ROOT = Path(__file__).resolve().parent.parent
QWEN_PATH = ROOT / "schemas" / "qwen3.json"
QWEN = json.loads(QWEN_PATH.read_text(encoding="utf-8"))
SAMPLE = ROOT / "sample_outputs" / "qwen3" / "parallel_calls.txt"

CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


@pytest.fixture
def tokenizer_dir(tmp_path: Path) -> Path:
    """A tiny local tokenizer (no hub), with a config shaped like a real chat model's."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from tokenizers import Tokenizer, models, pre_tokenizers
        from transformers import PreTrainedTokenizerFast

    vocab = {"[UNK]": 0, "<|im_start|>": 1, "<|im_end|>": 2, "<|endoftext|>": 3, "hello": 4}
    backend = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    backend.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend, unk_token="[UNK]", eos_token="<|im_end|>", pad_token="<|endoftext|>")
    folder = tmp_path / "tok"
    tokenizer.save_pretrained(folder)
    config_path = folder / "tokenizer_config.json"
    config = json.loads(config_path.read_text())
    config.update({
        "added_tokens_decoder": {
            str(i): {"content": tok, "lstrip": False, "normalized": False, "rstrip": False, "single_word": False, "special": True}
            for tok, i in vocab.items() if tok.startswith("<|")
        },
        "additional_special_tokens": ["<|im_start|>", "<|im_end|>"],
        "bos_token": None,
        "chat_template": CHAT_TEMPLATE,
        "clean_up_tokenization_spaces": False,
        "errors": "replace",
        "model_max_length": 131072,
        "split_special_tokens": False,
        "comment": "café ☕ — kept as written",
    })
    config_path.write_text(json.dumps(config, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return folder


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workbench", *args], capture_output=True, text=True, encoding="utf-8", cwd=ROOT)


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_export_to_file_is_clean_json(tmp_path):
    schema = {"type": "object", "properties": {"thinking": {"type": "string", "x-regex": "<思考>(.*?)</思考>"}, "role": {"const": "assistant"}}}
    source = tmp_path / "s.json"
    source.write_text(json.dumps(schema), encoding="utf-8")
    out = tmp_path / "out.json"
    result = run("export", str(source), "-o", str(out))
    assert result.returncode == 0, result.stderr
    text = out.read_text(encoding="utf-8")
    assert text == json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
    assert "<思考>" in text and list(json.loads(text)["properties"]) == ["thinking", "role"]
    assert result.stderr.count("drop it silently") == 1  # the version truth, said once


def test_export_prints_warnings_but_writes(tmp_path):
    source = tmp_path / "s.json"
    source.write_text(json.dumps({"type": "object", "x-regexp": "typo", "properties": {}}), encoding="utf-8")
    result = run("export", str(source), "-o", str(tmp_path / "out.json"))
    assert result.returncode == 0
    assert "warning: /x-regexp" in result.stderr
    assert (tmp_path / "out.json").exists()


def test_tokenizer_dir_round_trip_with_transformers(tokenizer_dir):
    before = json.loads((tokenizer_dir / "tokenizer_config.json").read_text(encoding="utf-8"))
    result = run("export", str(QWEN_PATH), "--tokenizer-dir", str(tokenizer_dir), "--verify", "--sample", str(SAMPLE))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "verify: transformers 5.14.1: response_schema loaded back unchanged" in result.stdout
    assert "verify: 5.3–5.14 read response_schema: parse_response agrees with the workbench on 1 of 1 samples" in result.stdout
    assert "verify: 5.15–5.24 read nothing: they drop response_schema" in result.stdout
    assert "current transformers (5.15 and later) ignore response_schema" in result.stderr and "workbench migrate" in result.stderr
    after = json.loads((tokenizer_dir / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert after["response_schema"] == QWEN
    # every other key, its value and its place survive
    assert {k: v for k, v in after.items() if k != "response_schema"} == before
    assert [k for k in after if k != "response_schema"] == list(before)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from transformers import AutoTokenizer
    tokenizer = AutoTokenizer.from_pretrained(str(tokenizer_dir))
    assert tokenizer.response_schema == QWEN
    assert tokenizer.chat_template == CHAT_TEMPLATE
    text = SAMPLE.read_text(encoding="utf-8")
    import workbench
    assert tokenizer.parse_response(text) == workbench.parse_response(text, QWEN)


def test_export_replaces_an_existing_schema_in_place(tokenizer_dir):
    config_path = tokenizer_dir / "tokenizer_config.json"
    config = json.loads(config_path.read_text(encoding="utf-8"))
    keys = list(config)
    config = {**{k: config[k] for k in keys[:2]}, "response_schema": {"old": True}, **{k: config[k] for k in keys[2:]}}
    config_path.write_text(json.dumps(config), encoding="utf-8")
    export_schema(QWEN, tokenizer_dir=tokenizer_dir)
    after = json.loads(config_path.read_text(encoding="utf-8"))
    assert list(after).index("response_schema") == 2 and after["response_schema"] == QWEN


@pytest.mark.parametrize("case", ["missing-folder", "missing-config", "bad-config", "schema-errors", "schema-bad-json"])
def test_refusals_write_nothing(tokenizer_dir, tmp_path, case):
    schema_path = tmp_path / "schema.json"
    schema_path.write_text(json.dumps(QWEN), encoding="utf-8")
    target = tokenizer_dir
    if case == "missing-folder":
        target = tmp_path / "nowhere"
    elif case == "missing-config":
        (tokenizer_dir / "tokenizer_config.json").unlink()
    elif case == "bad-config":
        (tokenizer_dir / "tokenizer_config.json").write_text('{"eos_token": "<|im_end|>",\n  oops}')
    elif case == "schema-errors":
        schema_path.write_text(json.dumps({"type": "object", "properties": {"a": {"type": "string", "x-regex": "(a)(b)"}}}))
    else:
        schema_path.write_text("{not json")
    before = snapshot(tokenizer_dir)
    out = tmp_path / "also.json"
    result = run("export", str(schema_path), "--tokenizer-dir", str(target), "-o", str(out))
    assert result.returncode == 2
    assert "nothing was written" in result.stderr and "Traceback" not in result.stderr
    assert snapshot(tokenizer_dir) == before
    assert not out.exists()
    expected = {
        "missing-folder": "no such tokenizer folder",
        "missing-config": "tokenizer_config.json: no such tokenizer config file",
        "bad-config": "tokenizer_config.json:2:3: invalid JSON",
        "schema-errors": "/properties/a/x-regex",
        "schema-bad-json": "schema.json:1:2: invalid JSON",
    }[case]
    assert expected in result.stderr


def test_an_interrupted_write_leaves_the_config_intact(tokenizer_dir, monkeypatch):
    before = snapshot(tokenizer_dir)

    def crash(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(KeyboardInterrupt):
        export_schema(QWEN, tokenizer_dir=tokenizer_dir)
    assert snapshot(tokenizer_dir) == before  # no half-written config, no temporary file left


def test_verify_notices_a_different_schema(tokenizer_dir):
    export_schema(QWEN, tokenizer_dir=tokenizer_dir)
    other = dict(QWEN, properties={**QWEN["properties"], "role": {"const": "model"}})
    result = verify_tokenizer_dir(tokenizer_dir, other)
    assert not result.ok and "differs" in result.lines[-1]


def test_export_needs_a_destination():
    with pytest.raises(ExportRefused):
        export_schema(QWEN)


def test_written_files_keep_their_mode_and_new_ones_follow_the_umask(tokenizer_dir, tmp_path):
    """An export replaces files through a private temporary file; the result must not end up
    private (0600) where the user's tools, or other users, expect to read it."""
    config_path = tokenizer_dir / "tokenizer_config.json"
    config_path.chmod(0o640)
    out = tmp_path / "new.json"
    mask = os.umask(0o022)
    try:
        export_schema(QWEN, out=out, tokenizer_dir=tokenizer_dir)
    finally:
        os.umask(mask)
    assert config_path.stat().st_mode & 0o777 == 0o640
    assert out.stat().st_mode & 0o777 == 0o644


def test_export_onto_an_existing_folder_is_refused_naming_it(tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    result = run("export", str(QWEN_PATH), "-o", str(folder) + "/")
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert f"{folder}: is a folder" in result.stderr and "nothing was written" in result.stderr
    assert list(folder.iterdir()) == [] and [p.name for p in tmp_path.iterdir()] == ["out"]


def test_export_onto_a_folder_with_a_tokenizer_dir_writes_neither(tokenizer_dir, tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    before = snapshot(tokenizer_dir)
    with pytest.raises(ExportRefused, match="is a folder"):
        export_schema(QWEN, out=folder, tokenizer_dir=tokenizer_dir)
    assert snapshot(tokenizer_dir) == before and list(folder.iterdir()) == []


def test_verify_without_its_releases_writes_nothing(tokenizer_dir, tmp_path, monkeypatch):
    """A release that cannot be had (no registry, no disk) stops the export before any write."""
    from typer.testing import CliRunner

    import workbench.jobs.runtimes
    from workbench.cli.app import app

    before = snapshot(tokenizer_dir)
    monkeypatch.setattr(workbench.jobs.runtimes, "installed_version", lambda: None)
    monkeypatch.setattr(workbench.jobs.runtimes, "runtimes_dir", lambda: tmp_path / "runtimes")
    monkeypatch.setattr(sys, "executable", str(tmp_path / "no-python"))  # so the environment cannot be built
    result = CliRunner().invoke(app, ["export", str(QWEN_PATH), "--tokenizer-dir", str(tokenizer_dir), "--verify"])
    assert result.exit_code == 2, result.output
    assert "transformers 5.14.1" in result.output and "nothing was written" in result.output
    assert "wrote" not in result.output
    assert snapshot(tokenizer_dir) == before


def test_write_errors_name_the_target_not_the_temporary_file(tmp_path, monkeypatch):
    from workbench.store.files import WriteError, atomic_write

    target = tmp_path / "s.json"
    target.write_text("old")
    with pytest.raises(WriteError) as folder_error:
        atomic_write(tmp_path, "x")
    assert str(folder_error.value).startswith(f"{tmp_path}: is a folder")
    with pytest.raises(WriteError, match="no such folder"):
        atomic_write(tmp_path / "missing" / "s.json", "x")

    def refuse(source, destination):
        raise OSError(18, "Invalid cross-device link", source, destination)

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(WriteError) as rename_error:
        atomic_write(target, "new")
    assert str(rename_error.value) == f"{target}: cannot write: Invalid cross-device link"
    assert target.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["s.json"]


def test_a_file_that_cannot_be_staged_leaves_the_others_untouched(tmp_path):
    from workbench.store.files import WriteError, atomic_write_all

    first = tmp_path / "a.json"
    first.write_text("old")
    with pytest.raises(WriteError):
        atomic_write_all([(first, "new"), (tmp_path / "missing" / "b.json", "new")])
    assert first.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["a.json"]


def test_a_template_exports_as_response_template_and_verifies(tokenizer_dir, tmp_path):
    template = tmp_path / "template.json"
    template.write_text(json.dumps(QWEN3), encoding="utf-8")
    config_before = json.loads((tokenizer_dir / "tokenizer_config.json").read_text(encoding="utf-8"))
    result = run("export", str(template), "--tokenizer-dir", str(tokenizer_dir), "--verify", "--sample", str(SAMPLE))
    assert result.returncode == 0, result.stderr
    assert "is a response_template" in result.stderr and "5.13 and later read response_template" in result.stderr
    config = json.loads((tokenizer_dir / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert config["response_template"] == QWEN3 and "response_schema" not in config
    assert {k: v for k, v in config.items() if k != "response_template"} == config_before
    assert "verify: transformers 5.14.1: response_template loaded back unchanged" in result.stdout
    assert "verify: 5.3–5.12 read neither key: they do not know response_template" in result.stdout
    assert "verify: 5.13–5.14 read response_template (parse_response needs prefix=): parse_response agrees" in result.stdout
    assert "verify: 5.15–5.23 read response_template (checked with 5.23.0): parse_response agrees with the workbench on 1 of 1 samples" in result.stdout
    assert "verify: 5.24 read response_template (checked with 5.24.0): parse_response agrees with the workbench on 1 of 1 samples" in result.stdout


def test_a_schema_and_a_template_go_in_together_and_verify_per_release_range(tokenizer_dir):
    """The family's samples (and their prompts) are the default; each release range says what it reads."""
    template_path = ROOT / "schemas" / "qwen3.template.json"
    config_before = json.loads((tokenizer_dir / "tokenizer_config.json").read_text(encoding="utf-8"))
    result = run("export", str(QWEN_PATH), str(template_path), "--tokenizer-dir", str(tokenizer_dir), "--verify")
    assert result.returncode == 0, result.stdout + result.stderr
    config = json.loads((tokenizer_dir / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert config["response_schema"] == QWEN
    assert config["response_template"] == json.loads(template_path.read_text(encoding="utf-8"))
    assert list(config)[:-2] == list(config_before)
    cases = len([p for p in (ROOT / "sample_outputs" / "qwen3").iterdir() if p.name.endswith(".txt") and ".prompt" not in p.name and "expected" not in p.name])
    lines = [line for line in result.stdout.splitlines() if line.startswith("verify:")]
    assert lines == [
        "verify: 5.0–5.2 read neither key (not checked)",
        "verify: transformers 5.14.1: response_schema and response_template loaded back unchanged",
        f"verify: 5.3–5.12 read response_schema: parse_response agrees with the workbench on {cases} of {cases} samples",
        # qwen3's template joins its content (5.16+): the releases before refuse it, as the workbench says.
        "verify: 5.13–5.14 read response_template (preferred over response_schema; parse_response then needs prefix=): "
        "parse_response fails on every sample, as the workbench does: ValueError: Field 'content': unknown keys ['join']",
        "verify: transformers 5.15.0: response_template loaded back unchanged; response_schema is dropped when the tokenizer loads",
        "verify: 5.15 read response_template (checked with 5.15.0): parse_response fails on every sample, as the workbench "
        "does: ValueError: Field 'content': unknown keys ['join']",
        "verify: transformers 5.23.0: response_template loaded back unchanged; response_schema is dropped when the tokenizer loads",
        f"verify: 5.16–5.23 read response_template (checked with 5.23.0): parse_response agrees with the workbench on {cases} of {cases} samples",
        "verify: transformers 5.24.0: response_template loaded back unchanged; response_schema is dropped when the tokenizer loads",
        f"verify: 5.24 read response_template (checked with 5.24.0): parse_response agrees with the workbench on {cases} of {cases} samples",
    ]
    assert "5.13 and 5.14 read both and prefer response_template" in result.stderr
    assert ("warning: 5.13 and 5.14 prefer response_template and cannot load this one (Field 'content': unknown keys "
            "['join']), so they parse nothing with this tokenizer, response_schema included") in result.stderr


def test_verify_checks_each_range_where_releases_read_the_template_differently(tokenizer_dir, tmp_path):
    """A dotted placeholder ({content.name}) is resolved from 5.16 on; 5.13–5.15 keep it as text."""
    template = json.loads((ROOT / "schemas" / "qwen3.template.json").read_text(encoding="utf-8"))
    template["fields"]["content"] = {"close_pattern": "<\\|im_end\\|>", "content": "text"}  # no join: 5.13 loads it
    template["fields"]["tool_calls"] = {  # the whole call object as the body, its members by dotted path
        "open": "<tool_call>", "close": "</tool_call>", "repeats": True, "content": "json",
        "transform": {"type": "function", "function": {"name": "{content.name}", "arguments": "{content.arguments}"}},
    }
    path = tmp_path / "dotted.template.json"
    path.write_text(json.dumps(template), encoding="utf-8")
    result = run("export", str(path), "--tokenizer-dir", str(tokenizer_dir), "--verify", "--sample", str(SAMPLE))
    # Each range that behaves differently on the sample is checked with a real release of it, and
    # the workbench gives what each gives: 5.13–5.14 and 5.15 keep "{content.name}" as text.
    assert result.returncode == 0, result.stdout + result.stderr
    for line in (
        "verify: 5.13–5.14 read response_template (parse_response needs prefix=): parse_response agrees with the workbench on 1 of 1 samples",
        "verify: 5.15 read response_template (checked with 5.15.0): parse_response agrees with the workbench on 1 of 1 samples",
        "verify: 5.16–5.23 read response_template (checked with 5.23.0): parse_response agrees with the workbench on 1 of 1 samples",
        "verify: 5.24 read response_template (checked with 5.24.0): parse_response agrees with the workbench on 1 of 1 samples",
    ):
        assert line in result.stdout, result.stdout


@pytest.mark.parametrize("files, message", [
    (["qwen3.json", "qwen3.json"], "both files are a response_schema"),
    (["qwen3.json", "qwen3.template.json", "-o", "OUT"], "-o writes one file"),
])
def test_two_files_must_be_one_of_each_and_go_to_a_folder(tokenizer_dir, tmp_path, files, message):
    before = snapshot(tokenizer_dir)
    args = [str(tmp_path / "out.json") if f == "OUT" else (f if f.startswith("-") else str(ROOT / "schemas" / f)) for f in files]
    result = run("export", *args, "--tokenizer-dir", str(tokenizer_dir))
    assert result.returncode == 2 and message in result.stderr and "nothing was written" in result.stderr
    assert snapshot(tokenizer_dir) == before and not (tmp_path / "out.json").exists()


def test_a_template_transformers_would_reject_is_not_exported(tokenizer_dir, tmp_path):
    template = tmp_path / "template.json"
    template.write_text(json.dumps(dict(QWEN3, version=2)), encoding="utf-8")
    before = snapshot(tokenizer_dir)
    result = run("export", str(template), "--tokenizer-dir", str(tokenizer_dir), "-o", str(tmp_path / "out.json"))
    assert result.returncode == 2
    assert "Unsupported response_template version: 2" in result.stderr and "nothing was written" in result.stderr
    assert snapshot(tokenizer_dir) == before and not (tmp_path / "out.json").exists()


def test_every_family_exported_with_both_keys_parses_its_samples_right_under_both_releases(tokenizer_dir, tmp_path):
    """The promise of one export for every transformers 5.x, family by family: a tokenizer folder
    holding the shipped schema and template loads in 5.14.1 and 5.23.0, and parse_response agrees
    with the workbench on every sample in each release range (each release started once)."""
    import shutil

    from workbench.jobs.export import export_parsers
    from workbench.store.samples import discover, load
    from workbench.jobs.verify import prepare_runtimes, verify_many

    folders = []
    for template_path in sorted((ROOT / "schemas").glob("*.template.json")):
        family = template_path.name.removesuffix(".template.json")
        schema_path = ROOT / "schemas" / f"{family}.json"
        if not schema_path.is_file():
            continue  # a template-only family (transformers 5.24+, tests/families.py): no pair to export
        parsers = [json.loads(p.read_text(encoding="utf-8")) for p in (schema_path, template_path)]
        folder = tmp_path / family
        shutil.copytree(tokenizer_dir, folder)
        export_parsers(parsers, tokenizer_dir=folder)
        samples = [load(p) for p in discover(ROOT / "sample_outputs" / family)]
        folders.append((folder, {"response_schema": parsers[0], "response_template": parsers[1]}, samples))
    assert len(folders) >= 40
    results = verify_many(folders, prepare_runtimes())
    failed = {folder.name: [line for line in r.lines if not line.startswith("verify")] for (folder, _, _), r in zip(folders, results) if not r.ok}
    assert not failed, json.dumps(failed, indent=1, ensure_ascii=False)[:4000]
    for (folder, exported, _), r in zip(folders, results):
        # 5.3–5.12 (the schema), 5.16–5.23 and 5.24 agree; 5.13–5.15 agree too unless the template
        # joins its content, which they cannot load: then they fail as the workbench says they do.
        joins = any("join" in field for field in exported["response_template"]["fields"].values())
        verdicts = [line for line in r.lines if "parse_response" in line]
        agree = [line for line in verdicts if "parse_response agrees with the workbench" in line]
        refused = [line for line in verdicts if "fails on every sample, as the workbench does: ValueError: "
                   "Field '" in line and "': unknown keys ['join']" in line]
        assert len(agree) >= (3 if joins else 4) and len(agree) + len(refused) == len(verdicts), (folder.name, r.lines)
        assert all(line.startswith(("5.13", "5.15 ")) for line in refused), r.lines


# ----- -o never loses a file (issue 20, finding 5) ------------------------------------------------


def test_export_does_not_replace_an_existing_file_without_force(tokenizer_dir, tmp_path):
    out = tmp_path / "out.json"
    out.write_text("mine", encoding="utf-8")
    result = run("export", str(QWEN_PATH), "-o", str(out))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"{out}: already exists; pass --force to replace it; nothing was written" in result.stderr
    assert out.read_text(encoding="utf-8") == "mine"
    result = run("export", str(QWEN_PATH), "-o", str(out), "--force")
    assert result.returncode == 0, result.stderr
    assert json.loads(out.read_text(encoding="utf-8")) == QWEN


def test_export_does_not_replace_a_tokenizer_config_with_the_schema(tokenizer_dir):
    config = tokenizer_dir / "tokenizer_config.json"
    before = snapshot(tokenizer_dir)
    result = run("export", str(QWEN_PATH), "-o", str(config))
    assert result.returncode == 2 and "already exists; pass --force" in result.stderr
    # Naming the config both as -o and through its folder is one path twice, even with --force.
    result = run("export", str(QWEN_PATH), "-o", str(config), "--tokenizer-dir", str(tokenizer_dir), "--force")
    assert result.returncode == 2 and "named twice as an output" in result.stderr and "nothing was written" in result.stderr
    assert snapshot(tokenizer_dir) == before


def test_export_never_writes_over_its_own_input(tmp_path):
    source = tmp_path / "s.json"
    text = json.dumps(QWEN)  # not in the project's style: a rewrite would show
    source.write_text(text, encoding="utf-8")
    for extra in ([], ["--force"]):
        result = run("export", str(source), "-o", str(source), *extra)
        assert result.returncode == 2, result.stderr
        assert f"{source}: is one of this command's inputs; refusing to write over it; nothing was written" in result.stderr
        assert source.read_text(encoding="utf-8") == text
    # also when the same file is reached by another name
    link = tmp_path / "link.json"
    link.symlink_to(source)
    result = run("export", str(link), "-o", str(source), "--force")
    assert result.returncode == 2 and "is one of this command's inputs" in result.stderr
    assert source.read_text(encoding="utf-8") == text


def test_the_tuis_export_replaces_a_file_only_when_told(tmp_path):
    from workbench.jobs.export import export_to

    out = tmp_path / "out.json"
    out.write_text("mine", encoding="utf-8")
    with pytest.raises(ExportRefused, match="already exists"):
        export_to(json.dumps(QWEN), out)
    assert out.read_text(encoding="utf-8") == "mine"
    export_to(json.dumps(QWEN), out, force=True)  # the TUI asked first
    assert json.loads(out.read_text(encoding="utf-8")) == QWEN


# ----- two exports into one folder at once (issue 20, finding 7) ----------------------------------

RACER = r"""
import json, sys
from pathlib import Path
from workbench.jobs.export import export_parsers

folder, kind, rounds, gate = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
key = "response_schema" if kind == "schema" else "response_template"
base = json.loads(Path(sys.argv[5]).read_text(encoding="utf-8"))
import time
(gate / kind).touch()  # ready; start when the other one is too
deadline = time.monotonic() + 120
while len(list(gate.iterdir())) < 2 and time.monotonic() < deadline:
    time.sleep(0.001)
lost = []
for i in range(rounds):
    parser = json.loads(json.dumps(base))
    if kind == "schema":
        parser["properties"]["role"] = {"const": f"assistant-{i}"}
    else:
        parser["defaults"] = {"role": f"assistant-{i}"}
    export_parsers([parser], tokenizer_dir=folder)
    # Only this process writes this key, and every other writer keeps it: it must still be ours.
    config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
    if config.get(key) != parser:
        lost.append(i)
print(json.dumps(lost))
"""


def test_concurrent_exports_into_one_folder_lose_no_key(tokenizer_dir, tmp_path):
    """A schema and a template exported into one folder by two processes at once, many times over:
    the read-modify-write of tokenizer_config.json is under a lock, so each export keeps the other's
    key, and every key holds its own process's last value."""
    script = tmp_path / "racer.py"
    script.write_text(RACER, encoding="utf-8")
    gate = tmp_path / "gate"
    gate.mkdir()
    rounds = 200
    racers = [
        subprocess.Popen([sys.executable, str(script), str(tokenizer_dir), kind, str(rounds), str(gate), str(path)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})  # this tree's workbench
        for kind, path in (("schema", QWEN_PATH), ("template", ROOT / "schemas" / "qwen3.template.json"))
    ]
    outputs = [racer.communicate(timeout=300) for racer in racers]
    for racer, (stdout, stderr) in zip(racers, outputs):
        assert racer.returncode == 0, stderr
        assert json.loads(stdout) == [], f"rounds whose key another export lost: {stdout}"
    config = json.loads((tokenizer_dir / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert config["response_schema"]["properties"]["role"] == {"const": f"assistant-{rounds - 1}"}
    assert config["response_template"]["defaults"] == {"role": f"assistant-{rounds - 1}"}
    # the lock is on the folder itself: no lock file, no temporary file left behind
    assert sorted(p.name for p in tokenizer_dir.iterdir()) == ["tokenizer.json", "tokenizer_config.json"]


def test_the_tuis_export_into_a_folder_verifies_before_it_writes(tmp_path):
    """The TUI's export into a tokenizer folder checks a staged copy first, as `export --verify`
    does: a folder transformers cannot load keeps its config as it was."""
    from workbench.jobs.export import export_to

    folder = tmp_path / "tok"
    folder.mkdir()
    config = folder / "tokenizer_config.json"
    config.write_text('{"tokenizer_class": "NoSuchTokenizerClass"}\n', encoding="utf-8")
    with pytest.raises(ExportRefused, match=f"VERIFY FAILED, nothing written: .*could not load {folder}"):
        export_to(json.dumps(QWEN), folder, "hello")
    assert config.read_text(encoding="utf-8") == '{"tokenizer_class": "NoSuchTokenizerClass"}\n'
    assert sorted(p.name for p in folder.iterdir()) == ["tokenizer_config.json"]
