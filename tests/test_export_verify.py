"""``export --verify`` checks a staged copy of the folder before anything is written (issue 20,
finding 8): a release range that disagrees, a runtime that is broken, hangs or answers nonsense, a
folder that needs its own code, or no samples, each leave the folder as it was, with one sentence
naming the release (and the sample) and the documented exit code.

The failure paths run against fake runtimes (a shell script standing in for a release's Python, so
they are fast and deterministic); the others against the real releases."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_export import QWEN, QWEN_PATH, ROOT, SAMPLE, run, snapshot, tokenizer_dir  # noqa: F401 - the fixture

import workbench.cli.export
import workbench.jobs.runtimes
import workbench.jobs.verify
from workbench.jobs.runtimes import SCHEMA_RUNTIME, TEMPLATE_RUNTIMES

TEMPLATE_PATH = ROOT / "schemas" / "qwen3.template.json"


def fake_python(tmp_path: Path, name: str, body: str) -> Path:
    """A stand-in for a release's Python. runtimes.py runs it as ``PY -I runtime_probe.py REQUEST
    ANSWER``: in the script, $3 is the request file and $4 the answer file."""
    path = tmp_path / name
    path.write_text("#!/bin/sh\n" + body + "\n", encoding="utf-8")
    path.chmod(0o755)
    return path


def invoke(monkeypatch, pythons: dict[str, Path], *args: str):
    """``workbench export`` in this process, with the releases' Pythons replaced."""
    from typer.testing import CliRunner

    from workbench.cli.app import app

    monkeypatch.setattr(workbench.cli.export, "prepare_runtimes", lambda say=None: pythons)
    return CliRunner().invoke(app, ["export", *args])


def both(python: Path) -> dict[str, Path]:
    return {SCHEMA_RUNTIME: python, **{release: python for release in TEMPLATE_RUNTIMES}}


@pytest.fixture(scope="module")
def real_pythons() -> dict[str, Path]:
    from workbench.jobs.verify import prepare_runtimes

    return prepare_runtimes()


def assert_untouched(result, folder: Path, before: dict[str, bytes], code: int = 2) -> None:
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "wrote" not in result.output and "nothing was written" in result.output
    assert snapshot(folder) == before


# ----- a disagreement stops the write; --force writes anyway and says so --------------------------


DISAGREEING_PROBE = """#!{python}
# A release that answers every parse with a message the workbench does not give.
import json, sys
request = json.load(open(sys.argv[3], encoding="utf-8"))
answers = []
for job in request["jobs"]:
    config = json.load(open(job["dir"] + "/tokenizer_config.json", encoding="utf-8"))
    answers.append({{"transformers": "{version}", "load_error": None, "remote_code": False, "legacy": None,
                    "loaded": {{key: config.get(key) for key in ("response_schema", "response_template")}},
                    "default": [{{"value": {{"role": "assistant", "content": "not what the workbench gives"}}}}
                                for _ in job["samples"]]}})
open(sys.argv[4], "w", encoding="utf-8").write(json.dumps({{"answers": answers}}) + "\\n")
"""


def disagreeing_runtimes(tmp_path: Path, version: str = "5.24.0") -> Path:
    """A runtimes folder where transformers ``version`` is a stand-in that disagrees on every
    sample, and every other release is the real one (built once under .oracles/runtimes)."""
    folder = tmp_path / "runtimes"
    for release in dict.fromkeys(TEMPLATE_RUNTIMES):
        env = folder / f"transformers-{release}"
        (env / "bin").mkdir(parents=True)
        python = env / "bin" / "python"
        if release == version:
            python.write_text(DISAGREEING_PROBE.format(python=sys.executable, version=version), encoding="utf-8")
        else:  # the real release (a symlink would lose its environment)
            python.write_text(f'#!/bin/sh\nexec "{workbench.jobs.runtimes.runtime_python(release)}" "$@"\n', encoding="utf-8")
        python.chmod(0o755)
        (env / workbench.jobs.runtimes.STAMP).write_text(json.dumps(workbench.jobs.runtimes._stamp(release)), encoding="utf-8")
    return folder


def test_a_release_that_disagrees_leaves_the_folder_as_it_was(tokenizer_dir, tmp_path):
    before = snapshot(tokenizer_dir)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    runtimes = disagreeing_runtimes(tmp_path)
    result = subprocess.run([sys.executable, "-m", "workbench", "export", str(TEMPLATE_PATH), "--tokenizer-dir",
                             str(tokenizer_dir), "--verify", "--sample", str(SAMPLE)], capture_output=True, text=True,
                            encoding="utf-8", cwd=ROOT, timeout=300,
                            env={**os.environ, "TMPDIR": str(scratch), "WORKBENCH_RUNTIMES_DIR": str(runtimes)})
    assert result.returncode == 1, result.stdout + result.stderr
    assert "verify: 5.16–5.23 read response_template (checked with 5.23.0): parse_response agrees" in result.stdout
    assert "verify: 5.24 read response_template (checked with 5.24.0): parse_response differs" in result.stdout
    assert "wrote" not in result.stdout
    assert (f"error: verification failed: nothing was written to {tokenizer_dir / 'tokenizer_config.json'} "
            "(--force writes anyway)") in result.stderr
    assert snapshot(tokenizer_dir) == before
    assert list(scratch.iterdir()) == []  # the staged copy and the probe's files are gone


def test_force_writes_despite_a_disagreement_and_says_so(tokenizer_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_RUNTIMES_DIR", str(disagreeing_runtimes(tmp_path)))
    result = run("export", str(TEMPLATE_PATH), "--tokenizer-dir", str(tokenizer_dir), "--verify", "--sample", str(SAMPLE), "--force")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "parse_response differs" in result.stdout and f"wrote {tokenizer_dir / 'tokenizer_config.json'}" in result.stdout
    assert "verification failed (see above), and the files were written anyway (--force)" in result.stderr
    config = json.loads((tokenizer_dir / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert config["response_template"] == json.loads(TEMPLATE_PATH.read_text(encoding="utf-8"))


def test_messages_name_the_folder_not_its_staged_copy(tokenizer_dir):
    """transformers' load error speaks of the folder it was given: the user's, not the temporary copy."""
    (tokenizer_dir / "tokenizer.json").write_text("{broken", encoding="utf-8")
    before = snapshot(tokenizer_dir)
    result = run("export", str(QWEN_PATH), "--tokenizer-dir", str(tokenizer_dir), "--verify", "--sample", str(SAMPLE))
    assert result.returncode == 1, result.stdout + result.stderr
    assert "verify: transformers 5.14.1 could not load the folder" in result.stdout
    assert "workbench-verify-" not in result.stdout
    assert snapshot(tokenizer_dir) == before


# ----- a runtime that cannot answer: exit 2, nothing written --------------------------------------


def test_a_broken_runtime_writes_nothing(tokenizer_dir, tmp_path, monkeypatch):
    python = fake_python(tmp_path, "python", 'echo "ModuleNotFoundError: No module named \'tokenizers\'" >&2\nexit 1')
    before = snapshot(tokenizer_dir)
    result = invoke(monkeypatch, both(python), str(QWEN_PATH), "--tokenizer-dir", str(tokenizer_dir), "--verify", "--sample", str(SAMPLE))
    assert_untouched(result, tokenizer_dir, before)
    assert (f"error: transformers 5.14.1 ({python}) could not run the check (exit 1): "
            "ModuleNotFoundError: No module named 'tokenizers'; nothing was written") in " ".join(result.output.split())


@pytest.mark.parametrize("body, message", [
    ('echo "Do you wish to run the custom code? [y/N]"; exit 0', "gave no answer: its answer file is missing"),
    ('echo \'{"answers": [\' > "$4"', "gave no answer: the last line of its answer is not JSON"),
    ('echo \'{"at": [0, null]}\' > "$4"', "gave no answer: the last line of its answer holds no answers"),
    ('echo \'{"answers": []}\' > "$4"', "gave a malformed answer: expected a list of 1 answer(s)"),
    ('echo \'{"answers": [{}]}\' > "$4"', "gave a malformed answer: an answer lacks transformers, loaded, load_error, default, legacy"),
    ('echo \'{"answers": [{"transformers": "5.14.1", "loaded": {"response_schema": null, "response_template": null}, '
     '"load_error": null, "default": [], "legacy": null}]}\' > "$4"',
     "gave a malformed answer: default does not hold one outcome per sample (1)"),
    ('echo \'{"answers": [{"transformers": "5.14.1", "loaded": {"response_schema": null, "response_template": null}, '
     '"load_error": null, "default": [{"oops": 1}], "legacy": null}]}\' > "$4"',
     "gave a malformed answer: an outcome in default is neither a value, an error nor a timeout"),
    ('echo \'{"answers": [{"transformers": "4.57.0", "loaded": {}, "load_error": "x", "default": [], "legacy": null}]}\' > "$4"',
     "gave a malformed answer: the environment runs transformers '4.57.0'"),
])
def test_a_malformed_answer_is_an_error_naming_the_release(tokenizer_dir, tmp_path, monkeypatch, body, message):
    python = fake_python(tmp_path, "python", body)
    before = snapshot(tokenizer_dir)
    result = invoke(monkeypatch, both(python), str(QWEN_PATH), "--tokenizer-dir", str(tokenizer_dir), "--verify", "--sample", str(SAMPLE))
    assert_untouched(result, tokenizer_dir, before)
    assert f"error: transformers 5.14.1 ({python}) {message}; nothing was written" in " ".join(result.output.split())


@pytest.mark.parametrize("progress, where", [
    ('{"at": [0, null]}', "it was loading {folder}"),  # the user's folder, not the staged copy
    ('{"at": [0, 0]}', "it was running parse_response on sample parallel_calls.txt"),
])
def test_a_probe_that_hangs_is_stopped_naming_the_release_and_the_sample(tokenizer_dir, tmp_path, monkeypatch, progress, where):
    # It reports how far it got, then never finishes.
    python = fake_python(tmp_path, "python", f"echo '{progress}' > \"$4\"\nexec sleep 60")
    monkeypatch.setattr(workbench.jobs.runtimes, "probe_limit", lambda jobs, time_limit: 1.5)
    before = snapshot(tokenizer_dir)
    result = invoke(monkeypatch, both(python), str(QWEN_PATH), "--tokenizer-dir", str(tokenizer_dir), "--verify", "--sample", str(SAMPLE))
    assert_untouched(result, tokenizer_dir, before)
    assert (f"error: transformers 5.14.1 did not finish the check within 1.5 s ({where.format(folder=tokenizer_dir)}); "
            "nothing was written") in " ".join(result.output.split())


def test_the_probes_wall_clock_limit_covers_start_up_loads_and_each_parse():
    jobs = [(Path("a"), [{}] * 3), (Path("b"), [{}])]
    limit = workbench.jobs.runtimes.probe_limit(jobs, 2.0)
    assert limit == workbench.jobs.runtimes.PROBE_START + 2 * workbench.jobs.runtimes.PROBE_LOAD + 8 * (2.0 + workbench.jobs.runtimes.PROBE_PARSE_SLACK)


def test_the_probe_gets_no_stdin_and_its_stdout_carries_no_answer(tokenizer_dir, tmp_path, monkeypatch, real_pythons):
    """Whatever a release prints (a trust_remote_code question, progress, half a JSON object) cannot
    garble the answer, and a question it asks gets end-of-file, not the request."""
    stubs = {}
    for release, real in real_pythons.items():
        stubs[release] = fake_python(tmp_path, f"python-{release}", (
            'echo "Do you wish to run the custom code? [y/N]"\n'
            'echo \'{"answers": "not this"}\'\n'
            'if read line; then echo "stdin was not empty: $line" >&2; exit 3; fi\n'
            f'exec "{real}" "$@"'
        ))
    result = invoke(monkeypatch, stubs, str(QWEN_PATH), str(TEMPLATE_PATH), "--tokenizer-dir", str(tokenizer_dir), "--verify",
                    "--sample", str(SAMPLE))
    assert result.exit_code == 0, result.output
    assert "verify: 5.16–5.23 read response_template (checked with 5.23.0): parse_response agrees with the workbench on 1 of 1 samples" in result.output
    assert "verify: 5.24 read response_template (checked with 5.24.0): parse_response agrees with the workbench on 1 of 1 samples" in result.output
    assert f"wrote {tokenizer_dir / 'tokenizer_config.json'}" in result.output
    config = json.loads((tokenizer_dir / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert config["response_schema"] == QWEN


# ----- a folder whose tokenizer is custom code ----------------------------------------------------


def with_custom_code(folder: Path, tokenizer_class: str) -> None:
    config_path = folder / "tokenizer_config.json"
    config = json.loads(config_path.read_text(encoding="utf-8"))
    config["auto_map"] = {"AutoTokenizer": ["tokenization_custom.CustomTokenizer", None]}
    config["tokenizer_class"] = tokenizer_class
    config_path.write_text(json.dumps(config, indent=2), encoding="utf-8")
    (folder / "tokenization_custom.py").write_text(
        "import pathlib\npathlib.Path(__file__).with_name('CUSTOM_CODE_RAN').touch()\n"
        "from transformers import PreTrainedTokenizerFast\n\n\nclass CustomTokenizer(PreTrainedTokenizerFast):\n    pass\n",
        encoding="utf-8",
    )


def test_a_folder_that_needs_its_own_tokenizer_code_is_refused_in_a_sentence(tokenizer_dir):
    with_custom_code(tokenizer_dir, "CustomTokenizer")
    before = snapshot(tokenizer_dir)
    result = subprocess.run([sys.executable, "-m", "workbench", "export", str(QWEN_PATH), "--tokenizer-dir", str(tokenizer_dir),
                             "--verify", "--sample", str(SAMPLE)], capture_output=True, text=True, encoding="utf-8", cwd=ROOT,
                            timeout=300)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr and "wrote" not in result.stdout
    assert (f"error: transformers 5.14.1 loads {tokenizer_dir} only by running the custom tokenizer code its auto_map names "
            "(tokenization_custom.CustomTokenizer), which needs trust_remote_code; --verify never runs a folder's code, "
            "so nothing was verified; nothing was written") in result.stderr
    assert snapshot(tokenizer_dir) == before  # and the code never ran: no CUSTOM_CODE_RAN


def test_a_folder_with_custom_code_and_a_known_class_is_checked_with_the_known_class(tokenizer_dir):
    """Loaded without trust_remote_code, transformers uses its own class named by tokenizer_class:
    that is what is checked, and the output says so."""
    with_custom_code(tokenizer_dir, "PreTrainedTokenizerFast")
    result = run("export", str(QWEN_PATH), "--tokenizer-dir", str(tokenizer_dir), "--verify", "--sample", str(SAMPLE))
    assert result.returncode == 0, result.stdout + result.stderr
    assert ("verify: the folder's auto_map names custom tokenizer code (tokenization_custom.CustomTokenizer); checked with "
            "transformers' own tokenizer class") in result.stdout
    assert not (tokenizer_dir / "CUSTOM_CODE_RAN").exists()


# ----- time limits ------------------------------------------------------------------------------


def test_a_regex_that_backtracks_is_stopped_at_the_parse_time_limit_in_the_release(tokenizer_dir, tmp_path):
    """transformers has no time limit; the check gives each parse the workbench's (2 s) and names
    the release and the sample, instead of hanging for minutes."""
    schema = {"type": "object", "properties": {"role": {"const": "assistant"}, "content": {"type": "string", "x-regex": "^((?:a+)+)b"}}}
    schema_path = tmp_path / "slow.json"
    schema_path.write_text(json.dumps(schema), encoding="utf-8")
    sample = tmp_path / "slow.txt"
    sample.write_text("a" * 40 + "!", encoding="utf-8")
    before = snapshot(tokenizer_dir)
    result = subprocess.run([sys.executable, "-m", "workbench", "export", str(schema_path), "--tokenizer-dir", str(tokenizer_dir),
                             "--verify", "--sample", str(sample)], capture_output=True, text=True, encoding="utf-8", cwd=ROOT,
                            timeout=120)
    assert result.returncode == 1, result.stdout + result.stderr
    assert ("verify: 5.3–5.14 read response_schema: transformers 5.14.1 did not finish parse_response on slow within 2 s "
            "(the workbench's time limit for a parse): a regex there backtracks too much") in result.stdout
    assert "wrote" not in result.stdout and snapshot(tokenizer_dir) == before


# ----- nothing to check -------------------------------------------------------------------------


def without_chat_template(folder: Path) -> None:
    config_path = folder / "tokenizer_config.json"
    config = json.loads(config_path.read_text(encoding="utf-8"))
    del config["chat_template"]
    config_path.write_text(json.dumps(config, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def test_verify_without_samples_is_not_a_pass(tokenizer_dir, tmp_path):
    schema_path = tmp_path / "qwen3.json"  # not under schemas/: no family samples beside it
    schema_path.write_text(json.dumps(QWEN), encoding="utf-8")
    without_chat_template(tokenizer_dir)  # and no chat template to render probes with (see below)
    before = snapshot(tokenizer_dir)
    result = run("export", str(schema_path), "--tokenizer-dir", str(tokenizer_dir), "--verify")
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr and "wrote" not in result.stdout
    assert f"error: --verify has no samples to check {schema_path} with" in result.stderr
    assert "give --sample; nothing was verified and nothing was written" in result.stderr
    assert snapshot(tokenizer_dir) == before


def test_verify_without_samples_renders_the_folders_chat_template(tokenizer_dir, tmp_path):
    """No --sample and no family folder, but the tokenizer folder has a chat template: the round-trip
    probes it renders (in the sandbox) are the samples, and the export says so."""
    from typer.testing import CliRunner

    from workbench.cli.app import app

    template_path = tmp_path / "qwen3.template.json"  # not under schemas/: no family samples beside it
    template_path.write_text(TEMPLATE_PATH.read_text(encoding="utf-8"), encoding="utf-8")
    result = CliRunner().invoke(app, ["export", str(template_path), "--tokenizer-dir", str(tokenizer_dir), "--verify"])
    assert result.exit_code == 0, result.output
    assert ("note: no --sample and no sample_outputs/<family>/: verifying with the 7 round-trip probes rendered by "
            f"{tokenizer_dir / 'tokenizer_config.json'}") in result.output
    assert "verify: 5.24 read response_template (checked with 5.24.0): parse_response agrees with the workbench on 7 of 7 samples" \
        in result.output
    assert f"wrote {tokenizer_dir / 'tokenizer_config.json'}" in result.output
    config = json.loads((tokenizer_dir / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert config["response_template"] == json.loads(TEMPLATE_PATH.read_text(encoding="utf-8"))


def test_verify_with_a_chat_template_that_renders_nothing_writes_nothing(tokenizer_dir, tmp_path, monkeypatch):
    (tokenizer_dir / "chat_template.jinja").write_text("{{ raise_exception('broken') }}", encoding="utf-8")
    template_path = tmp_path / "qwen3.template.json"  # no family samples beside it
    template_path.write_text(TEMPLATE_PATH.read_text(encoding="utf-8"), encoding="utf-8")
    before = snapshot(tokenizer_dir)
    result = invoke(monkeypatch, {}, str(template_path), "--tokenizer-dir", str(tokenizer_dir), "--verify")
    assert_untouched(result, tokenizer_dir, before)
    assert f"{tokenizer_dir / 'chat_template.jinja'}: the chat template renders none of the probe messages" in result.output


def test_verify_many_refuses_folders_without_samples(tokenizer_dir):
    from workbench.jobs.runtimes import RuntimeUnavailable
    from workbench.jobs.verify import verify_many

    with pytest.raises(RuntimeUnavailable, match="no samples to check .* so nothing was verified"):
        verify_many([(tokenizer_dir, {"response_schema": QWEN}, [])], {})


# ----- what a runtime holds ---------------------------------------------------------------------


def test_built_runtimes_hold_jmespath_and_old_ones_are_rebuilt(tmp_path, monkeypatch):
    """transformers does not install jmespath, which a schema's x-parser-args transform needs (the
    shipped qwen3 schema has one): an environment without it gave a false 'jmespath is not
    installed' failure. Environments are built with it, and one built before is rebuilt."""
    commands = []

    def fake_run(command, failure):
        commands.append(command)
        if command[1:3] == ["-m", "venv"]:
            (Path(command[3]) / "bin").mkdir(parents=True)
            (Path(command[3]) / "bin" / "python").touch()

    monkeypatch.setattr(workbench.jobs.runtimes, "installed_version", lambda: None)
    monkeypatch.setattr(workbench.jobs.runtimes, "runtimes_dir", lambda: tmp_path)
    monkeypatch.setattr(workbench.jobs.runtimes, "_run", fake_run)
    old = tmp_path / "transformers-5.14.1"
    (old / "bin").mkdir(parents=True)
    (old / "bin" / "python").touch()
    (old / "workbench-runtime.json").write_text(json.dumps({"transformers": "5.14.1"}), encoding="utf-8")  # before jmespath
    python = workbench.jobs.runtimes.runtime_python("5.14.1")
    assert python == old / "bin" / "python"
    install = commands[-1]
    assert "transformers==5.14.1" in install and "jmespath" in install
    commands.clear()
    assert workbench.jobs.runtimes.runtime_python("5.14.1") == python and commands == []  # built once


def test_the_real_runtimes_import_jmespath(real_pythons):
    for release, python in real_pythons.items():
        result = subprocess.run([str(python), "-I", "-c", "import jmespath, transformers; print(transformers.__version__)"],
                                capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
        assert result.returncode == 0, result.stderr
        assert result.stdout.split()[-1] == release


def test_the_shipped_qwen3_schema_verifies_in_a_built_runtime(tokenizer_dir, monkeypatch):
    """The false failure this fixes: in an environment the workbench built for 5.14.1 (not the
    test environment, which has jmespath through workbench), the qwen3 schema's x-parser-args
    transform raised 'jmespath is not installed'. Built once under WORKBENCH_RUNTIMES_DIR."""
    from typer.testing import CliRunner

    from workbench.cli.app import app

    monkeypatch.setattr(workbench.jobs.runtimes, "installed_version", lambda: None)  # build 5.14.1 as a user without it would
    assert "x-parser-args" in QWEN_PATH.read_text(encoding="utf-8")
    result = CliRunner().invoke(app, ["export", str(QWEN_PATH), "--tokenizer-dir", str(tokenizer_dir), "--verify", "--sample",
                                      str(ROOT / "sample_outputs" / "qwen3")])
    assert result.exit_code == 0, result.output
    assert "verify: 5.3–5.14 read response_schema: parse_response agrees with the workbench on" in result.output
    assert str(workbench.jobs.runtimes.runtimes_dir() / "transformers-5.14.1") in " ".join(
        str(p) for p in workbench.jobs.verify.prepare_runtimes().values())
