"""Goldens and probes are read once per version of the file (issue 34): the analysis process judges
every open sample on every keystroke, and a keystroke must cost one stat per file, not a read and
a JSON parse. A golden written by "write golden" (an atomic replace) or by hand is seen at once."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest

from workbench.live import process
from workbench.store import samples as samples_module
from workbench.store.files import InputError
from workbench.store.goldens import Golden
from workbench.store.samples import DIFFERS, MATCHES, Sample, expected_of, load, read_probes, verdict_of


@pytest.fixture
def reads(monkeypatch) -> Counter:
    """How often each file was read by the samples module."""
    counted: Counter = Counter()
    real = samples_module.read_text

    def counting(path, what="sample"):
        counted[Path(path).name] += 1
        return real(path, what)

    monkeypatch.setattr(samples_module, "read_text", counting)
    getattr(samples_module, "_READ", {}).clear()  # start cold
    return counted


class _Pipe:
    def send_bytes(self, data: bytes) -> None:  # the "parsed" notice the process sends; nobody listens here
        pass


def _edit(workdir: Path, samples: dict[str, Sample], generation: int, schema_text: str) -> dict:
    """What the analysis process does for one keystroke: the open sample's analysis and verdict, then
    every other sample's verdict."""
    first = next(iter(samples))
    request = process.AnalyzeRequest(generation, schema_text, first, 2.0)
    reply = process._analysis_reply(request, samples, {}, {}, _Pipe())
    verdicts = process._verdicts(request, reply.analysis, samples, {}, lambda: False)
    verdicts[first] = reply.analysis.verdict
    return verdicts


def test_two_keystrokes_read_each_golden_once(workdir: Path, reads: Counter):
    folder = workdir / "sample_outputs" / "qwen3"
    samples = {str(p): load(p) for p in sorted(folder.glob("*.txt")) if samples_module.is_sample_file(p)}
    schema_text = (workdir / "schemas" / "qwen3.json").read_text(encoding="utf-8")
    first = _edit(workdir, samples, 1, schema_text)
    assert all(v.status == MATCHES for v in first.values()), first
    goldens = {n for n in reads if n.endswith((".expected.json", ".expected-error.txt"))}
    assert len(goldens) == len(samples) and all(reads[n] == 1 for n in goldens), reads
    before = Counter(reads)
    second = _edit(workdir, samples, 2, schema_text + " ")
    assert reads == before, "a keystroke with nothing changed on disk read a golden again"
    assert {k: v.status for k, v in second.items()} == {k: v.status for k, v in first.items()}


def test_a_golden_written_by_write_golden_or_by_hand_is_seen_at_once(tmp_path: Path, reads: Counter):
    sample = Sample(tmp_path / "case.txt", "hello")
    sample.path.write_text("hello", encoding="utf-8")
    golden = sample.expected_value_path()
    golden.write_text('{"a": 1}', encoding="utf-8")
    assert verdict_of(sample, {"a": 1}, None).status == MATCHES
    assert verdict_of(sample, {"a": 1}, None).status == MATCHES
    assert reads[golden.name] == 1
    # "Write result as golden": an atomic replace, same size, within the same clock tick.
    Golden(golden, '{"a": 2}', sample.expected_error_path()).write()
    assert verdict_of(sample, {"a": 1}, None).status == DIFFERS
    assert verdict_of(sample, {"a": 2}, None).status == MATCHES
    # By hand, in place: a new size, or the same size with a new mtime.
    golden.write_text('{"a": 33}', encoding="utf-8")
    assert verdict_of(sample, {"a": 33}, None).status == MATCHES
    golden.write_text('{"a": 44}', encoding="utf-8")
    stamp = golden.stat().st_mtime_ns + 1_000_000
    os.utime(golden, ns=(stamp, stamp))
    assert verdict_of(sample, {"a": 44}, None).status == MATCHES
    # Gone, then an error golden in its place.
    golden.unlink()
    assert expected_of(sample) is None
    sample.expected_error_path().write_text("boom\n", encoding="utf-8")
    assert expected_of(sample) == ("error", "boom")


def test_an_unusable_golden_says_why_every_time_and_two_goldens_are_refused(tmp_path: Path, reads: Counter):
    sample = Sample(tmp_path / "case.txt", "hello")
    golden = sample.expected_value_path()
    golden.write_text('{"a": ', encoding="utf-8")
    for _ in range(2):
        with pytest.raises(InputError, match="case.expected.json"):
            expected_of(sample)
        assert verdict_of(sample, {"a": 1}, None).golden_problem is not None
    assert reads[golden.name] == 1  # the failure is remembered with the file's stamp too
    sample.expected_error_path().write_text("boom\n", encoding="utf-8")
    with pytest.raises(InputError, match="two goldens"):
        expected_of(sample)
    dangling = Sample(tmp_path / "other.txt", "hello")
    dangling.expected_value_path().symlink_to(tmp_path / "nowhere.json")
    with pytest.raises(InputError, match="no such golden file"):
        expected_of(dangling)


def test_probes_are_read_once_and_a_change_is_seen(tmp_path: Path, reads: Counter):
    probes = tmp_path / "probes.json"
    probes.write_text(json.dumps({"case": {"role": "assistant", "content": "hi"}}), encoding="utf-8")
    sample = Sample(tmp_path / "case.txt", "hi")
    for _ in range(3):
        verdict_of(sample, {"role": "assistant", "content": "hi"}, None)
    assert reads["probes.json"] == 1
    copy = read_probes(tmp_path)
    copy.clear()  # what read_probes returns is the caller's to change
    assert read_probes(tmp_path) == {"case": {"role": "assistant", "content": "hi"}}
    probes.write_text(json.dumps({"case": {"role": "assistant", "content": "bye"}}), encoding="utf-8")
    assert read_probes(tmp_path)["case"]["content"] == "bye"
    probes.unlink()
    assert read_probes(tmp_path) == {}
