"""``workbench parse`` on the changes 5.24 made (the hand-written cases named 524-… in
tests/test_template_engine.py), as a user runs it: by default it gives what transformers 5.24.0
gives, and with ``--runtime 5.23`` what 5.23.0 gives; one-shot, and ``--stream`` at chunks of 1, 4
and 7 characters, event for event."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from test_template_engine import CASES
from workbench.cli.app import app

CHANGED = [name for name, case in CASES.items() if name.startswith("524-") and case[3] is None]


def run(*args) -> object:
    return CliRunner().invoke(app, [str(a) for a in args])


def files(tmp_path: Path, name: str) -> tuple[Path, Path, Path]:
    template, text, prefix, _, _ = CASES[name]
    paths = tmp_path / "t.template.json", tmp_path / "sample.txt", tmp_path / "prompt.txt"
    paths[0].write_text(json.dumps(template), encoding="utf-8")
    paths[1].write_text(text, encoding="utf-8", newline="")
    paths[2].write_text(prefix, encoding="utf-8", newline="")
    return paths


def runtime_args(release) -> list[str]:
    """The default is the newest release; an older one is asked for with --runtime."""
    return [] if release.version == "5.24.0" else ["--runtime", release.runtime]


def test_every_change_has_cases():
    assert len(CHANGED) >= 25
    for change in ("json-keys", "merge", "close", "hold", "pcl"):
        assert sum(f"524-{change}" in name for name in CHANGED) >= 3, change


@pytest.mark.parametrize("name", CHANGED)
def test_parse_gives_what_the_release_gives(name, release, release_oracle, tmp_path):
    template_path, sample, prompt = files(tmp_path, name)
    template, text, prefix, _, _ = CASES[name]
    theirs = release_oracle.parse(text, template, prefix=prefix)
    result = run("parse", sample, "--schema", template_path, "--prefix-file", prompt, *runtime_args(release))
    if theirs[0] == "value":
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout) == theirs[1]
    else:
        # 2: the release refuses the template when it loads (its ValueError's words); 1: the parse fails.
        assert result.exit_code in (1, 2), result.output
        assert result.exit_code == 2 or f"{theirs[1]}: " in result.output
        assert theirs[2].splitlines()[0] in " ".join(result.output.split())


@pytest.mark.parametrize("chunk", [1, 4, 7])
@pytest.mark.parametrize("name", CHANGED)
def test_parse_stream_gives_the_releases_events(name, chunk, release, release_oracle, tmp_path):
    template_path, sample, prompt = files(tmp_path, name)
    template, text, prefix, _, _ = CASES[name]
    pieces = [text[i : i + chunk] for i in range(0, len(text), chunk)]
    theirs = release_oracle.stream(pieces, template, prefix=prefix)
    result = run("parse", sample, "--schema", template_path, "--prefix-file", prompt, "--stream", "--chunk", chunk,
                 *runtime_args(release))
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    if theirs["error"] is not None:
        assert result.exit_code in (1, 2), result.output
        assert theirs["error"]["message"].splitlines()[0] in " ".join(result.output.split()), (result.output, theirs["error"])
        feeds = [line["events"] for line in lines if line["step"] == "feed"]
        assert feeds == theirs["events"][: len(feeds)]
        return
    assert result.exit_code == 0, result.output
    assert [line["events"] for line in lines if line["step"] == "initial"] == [theirs["initial_events"]]
    assert [line["events"] for line in lines if line["step"] == "feed"] == theirs["events"]
    assert [line["events"] for line in lines if line["step"] == "finalize"] == [theirs["final_events"]]
    assert lines[-1] == {"step": "message", "message": theirs["message"]}
