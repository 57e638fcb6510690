"""The template-only families that read Python-style calls with python-call-list (transformers 5.24+):
under the default (5.24) ``workbench parse`` gives what transformers 5.24.0 gives on every sample,
and under ``--runtime 5.23`` the template is refused with the error transformers 5.23.0 raises."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from families import needs_5_24
from workbench.cli.app import app
from workbench.store.samples import discover

ROOT = Path(__file__).resolve().parent.parent
FAMILIES = sorted(p.name for p in (ROOT / "sample_outputs").iterdir() if p.is_dir() and needs_5_24(p.name))


def run(*args) -> object:
    return CliRunner().invoke(app, [str(a) for a in args])


def test_there_are_three_pythonic_families():
    assert {"llama3_2_pythonic", "llama4_pythonic", "lfm2_pythonic"} <= set(FAMILIES)


@pytest.mark.parametrize("family", FAMILIES)
def test_the_default_release_parses_every_sample_as_5_24_does(family, newest_oracle):
    template_path = ROOT / "schemas" / f"{family}.template.json"
    template = json.loads(template_path.read_text(encoding="utf-8"))
    samples = discover(ROOT / "sample_outputs" / family)
    assert len(samples) >= 5
    for sample in samples:
        prompt = (ROOT / "sample_outputs" / family / "default.prompt.txt").read_text(encoding="utf-8")
        theirs = newest_oracle.parse(sample.read_text(encoding="utf-8"), template, prefix=prompt)
        result = run("parse", sample, "--schema", template_path)
        if theirs[0] == "value":
            assert result.exit_code == 0, result.output
            assert json.loads(result.stdout) == theirs[1]
        else:
            assert result.exit_code == 1 and theirs[1] == "ValueError", (result.output, theirs)


@pytest.mark.parametrize("family", FAMILIES)
def test_5_23_refuses_the_template_in_its_own_words(family, template_oracle):
    template_path = ROOT / "schemas" / f"{family}.template.json"
    template = json.loads(template_path.read_text(encoding="utf-8"))
    kind, error_type, message = template_oracle.parse("", template, prefix="")
    assert (kind, error_type) == ("error", "ValueError") and "unknown content parser 'python-call-list'" in message
    sample = discover(ROOT / "sample_outputs" / family)[0]
    result = run("parse", sample, "--schema", template_path, "--runtime", "5.23")
    assert result.exit_code == 2
    assert message in " ".join(result.output.split()), result.output
    validated = run("validate", template_path, "--runtime", "5.23")
    assert validated.exit_code == 1 and message in validated.output
