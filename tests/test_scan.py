"""``workbench scan`` (issue 25): realistic rows with planted failures of every verdict and kind,
as JSON lines and as Parquet, through the command; each planted row comes back with its verdict
and kind, and nothing else fails. Also: both engines write the same rows, --compare, the cache,
an interrupted scan, --write-samples through ``check``, and bad input said in one line."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from workbench.cli.app import app
from workbench.scan import local
from workbench.scan.job import Columns, Interrupted, Options, ScanJob, run_scan
from workbench.scan.row import RowScanner
from workbench.store.samples import load

ROOT = Path(__file__).resolve().parent.parent
PROMPT = "<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>user\nHelp me.<|im_end|>\n<|im_start|>assistant\n"
TOOLS = [{"type": "function", "function": {"name": "get_weather", "description": "The weather in a city.", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}, "required": ["city"]}}}]
CITIES = ["Paris", "Zürich", "Kyoto", "Lagos", "Lima", "Oslo", "Hobart", "Quito"]


def _call(city: str, days: int) -> str:
    return f'<tool_call>\n{{"name": "get_weather", "arguments": {{"city": "{city}", "days": {days}}}}}\n</tool_call>'


def clean_rows(n: int = 40) -> list[dict]:
    """Outputs qwen3 writes: answers, reasoning, one call, two calls; each parses right."""
    rng = random.Random(7)
    rows = []
    for i in range(n):
        city, days = rng.choice(CITIES), rng.randint(1, 9)
        shape = i % 4
        if shape == 0:
            text = f"The capital of France is Paris. It has {rng.randint(2, 9)} million people.<|im_end|>"
        elif shape == 1:
            text = f"<think>\nThey ask about {city}; I know it well.\n</think>\n\n{city} is lovely in spring.<|im_end|>"
        elif shape == 2:
            text = f"<think>\nI need the forecast for {city}.\n</think>\n\n{_call(city, days)}<|im_end|>"
        else:
            text = f"{_call(city, days)}\n{_call(rng.choice(CITIES), 1)}<|im_end|>"
        rows.append({"text": text, "prompt": PROMPT, "tools": json.dumps(TOOLS), "expected": None})
    return rows


# Each planted row: its text (and expected message), and the verdict and kind the scan must give.
PLANTED = {
    "raised": ('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Par', None, ("raised", "")),
    "timeout": ("x" * 60, None, ("timeout", "")),
    "differs": ("Paris is the capital.<|im_end|>", {"role": "assistant", "content": "Paris is the capital of France."},
                ("differs", "")),
    "marker_left": ("The tag <tool_call> starts a call in this format.<|im_end|>", None, ("suspect", "marker_left")),
    "overwritten": (f"Let me check both.\n{_call('Oslo', 2)}\nAnd then the second.\n{_call('Lima', 3)}<|im_end|>", None,
                    ("suspect", "overwritten")),
    "empty_message": ("<think>\n\n</think>\n\n<|im_end|>", None, ("suspect", "empty_message")),
    "unknown_tool": ('<tool_call>\n{"name": "delete_everything", "arguments": {}}\n</tool_call><|im_end|>', None,
                     ("suspect", "unknown_tool")),
    "arguments_off_schema": ('<tool_call>\n{"name": "get_weather", "arguments": {"city": 42}}\n</tool_call><|im_end|>', None,
                             ("suspect", "arguments_off_schema")),
}


def qwen3_before_join() -> dict:
    """The shipped qwen3 template as a maintainer wrote it before ``join`` (transformers 5.16): its
    content keeps one piece, so a second replaces the first (the overwrite to plant). The shipped
    template joins every piece."""
    template = json.loads((ROOT / "schemas" / "qwen3.template.json").read_text(encoding="utf-8"))
    template["fields"]["content"] = {k: v for k, v in template["fields"]["content"].items() if k not in ("repeats", "join")}
    return template


def qwen3_with_a_slow_field() -> dict:
    """qwen3's template before join plus a field whose opener backtracks without end on a run of
    "x" (a defect a maintainer could write): the timeout to plant."""
    template = qwen3_before_join()
    template["fields"]["aside"] = {"open_pattern": "(?:x|xx)+y", "close": "</aside>", "content": "text"}
    return template


def planted_rows() -> tuple[list[dict], dict[int, tuple[str, str]]]:
    rows = clean_rows()
    expected = {}
    rng = random.Random(3)
    for name, (text, message, verdict) in PLANTED.items():
        at = rng.randint(0, len(rows))
        rows.insert(at, {"text": text, "prompt": PROMPT, "tools": json.dumps(TOOLS),
                         "expected": json.dumps(message) if message else None})
        expected = {(k + 1 if k >= at else k): v for k, v in expected.items()}
        expected[at] = verdict
    return rows, expected


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def write_parquet(path: Path, rows: list[dict]) -> Path:
    """As Parquet, the tools and the expected message as nested columns (structs), not JSON text."""
    def nested(value):
        return json.loads(value) if isinstance(value, str) else value

    pq.write_table(pa.Table.from_pylist([{**r, "tools": nested(r["tools"]), "expected": nested(r["expected"])} for r in rows]),
                   str(path))
    return path


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)


def cli(*args) -> object:
    return CliRunner().invoke(app, ["scan", *map(str, args)])


def scan_args(data: Path, parser: Path, out: Path, *more) -> list:
    return [data, "--template", parser, "--prompt-column", "prompt", "--tools-column", "tools",
            "--expected-column", "expected", "--time-limit", "0.3", "-o", out, *more]


def verdicts(path: Path) -> dict[int, tuple[str, str]]:
    table = pq.read_table(str(path)).to_pydict()
    return {row: (v, k) for row, v, k in zip(table["row"], table["verdict"], table["kind"])}


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    folder = tmp_path_factory.mktemp("planted")
    rows, expected = planted_rows()
    parser = folder / "qwen3_slow.template.json"
    parser.write_text(json.dumps(qwen3_with_a_slow_field()), encoding="utf-8")
    return folder, rows, expected, parser


def write_saved(path: Path, rows: list[dict]) -> Path:
    import datasets

    datasets.Dataset.from_list(rows).save_to_disk(str(path))
    return path


def write_folder(path: Path, rows: list[dict]) -> Path:
    path.mkdir()
    write_jsonl(path / "a.jsonl", rows[: len(rows) // 2])
    write_jsonl(path / "b.jsonl", rows[len(rows) // 2 :])
    return path


WRITERS = {"jsonl": write_jsonl, "parquet": write_parquet, "saved": write_saved, "folder": write_folder}


@pytest.mark.parametrize("kind", list(WRITERS))
def test_every_planted_row_gets_its_verdict_and_nothing_else_fails(planted, tmp_path, kind):
    folder, rows, expected, parser = planted
    data = WRITERS[kind](tmp_path / f"rows.{kind}", rows)
    result = cli(*scan_args(data, parser, tmp_path / "out.parquet", "--num-proc", "1", "--json", tmp_path / "summary.json"))
    assert result.exit_code == 1, result.output  # rows fail: exit 1
    got = verdicts(tmp_path / "out.parquet")
    assert len(got) == len(rows)
    failing = {row: v for row, v in got.items() if v[0] != "parsed"}
    assert failing == expected
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["rows"] == len(rows)
    assert summary["verdicts"]["suspect"] == {"count": 5, "rate": round(5 / len(rows), 6), "of": len(rows)}
    assert summary["kinds"]["marker_left"] == {"count": 1, "rate": 0.2, "of": 5}
    clusters = {(c["verdict"], c["kind"]): c for c in summary["clusters"]}
    raised = [row for row, v in expected.items() if v[0] == "raised"]
    assert clusters[("raised", "")]["examples"] == raised and clusters[("raised", "")]["where"] == "/fields/tool_calls/content"
    assert clusters[("timeout", "")]["where"] == "/fields/aside/open_pattern"
    assert clusters[("differs", "")]["where"] == "/content"
    shown = result.output.splitlines()
    assert shown[0] == f"{len(rows)} rows" and any(line.split()[:2] == ["timeout", "1"] for line in shown)


def test_the_template_traps_dropped_text_and_a_stream_that_differs(tmp_path):
    """The two kinds the qwen3 template cannot show: text a template without an implicit field
    throws away (gpt_oss), and a streamed parse that parts from the one-shot one: a thinking
    closer with an optional tail (``</think>(?:<answer>)?``, the defect the scan found in shipped
    templates) commits without the tail when a chunk ends inside it, and ``<answer>`` leaks into
    the content."""
    gpt = [{"text": "<|channel|>analysis<|message|>Easy.<|end|><|start|>assistant<|channel|>final<|message|>Hi!<|return|>"},
           {"text": "<|channel|>analysis<|message|>Easy.<|end|>some words the model wrote<|start|>assistant"
                    "<|channel|>final<|message|>Hi!<|return|>"}]
    for row in gpt:
        row["prompt"] = "<|start|>user<|message|>Hi<|end|><|start|>assistant"
    data = write_jsonl(tmp_path / "gpt.jsonl", gpt)
    result = cli(data, "--template", ROOT / "schemas/gpt_oss.template.json", "--prompt-column", "prompt", "-o", tmp_path / "g.parquet")
    assert result.exit_code == 1, result.output
    assert verdicts(tmp_path / "g.parquet") == {0: ("parsed", ""), 1: ("suspect", "dropped")}

    template = json.loads((ROOT / "schemas" / "qwen3.template.json").read_text(encoding="utf-8"))
    template["fields"]["thinking"] = {"open_pattern": "^\\s*<think>", "close_pattern": "</think>(?:<answer>)?", "content": "text"}
    parser = tmp_path / "answer_tail.template.json"
    parser.write_text(json.dumps(template), encoding="utf-8")
    rows = [{"text": "The capital is Paris.<|im_end|>", "prompt": PROMPT},
            {"text": "<think>\nA thought.\n</think><answer>The answer is four.<|im_end|>", "prompt": PROMPT}]
    data = write_jsonl(tmp_path / "tail.jsonl", rows)
    for runtime in ("5.23", "5.24"):
        args = [data, "--template", parser, "--runtime", runtime, "--prompt-column", "prompt", "-o", tmp_path / "d.parquet", "--force"]
        assert cli(*args).exit_code == 0  # without streaming, both parse
        assert cli(*args, "--chunkings", "4").exit_code == 1
        table = pq.read_table(str(tmp_path / "d.parquet")).to_pydict()
        assert list(zip(table["verdict"], table["kind"])) == [("parsed", ""), ("suspect", "stream_differs")]
        assert 'got "<answer>The answer is four."' in table["detail"][1]
    # the shipped deepseek_v3_1 template, which the scan found streaming wrong, now streams as it parses
    folder = ROOT / "sample_outputs/deepseek_v3_1"
    samples = [load(folder / f"{case}.txt") for case in ("plain_answer", "tool_call", "parallel_calls")]
    data = write_jsonl(tmp_path / "ds.jsonl", [{"text": s.text, "prompt": s.prompt()[0]} for s in samples])
    assert cli(data, "--template", ROOT / "schemas/deepseek_v3_1.template.json", "--runtime", "5.24", "--prompt-column",
               "prompt", "--chunkings", "4", "-o", tmp_path / "ds.parquet").exit_code == 0


def test_two_processes_and_ray_write_the_same_rows(planted, tmp_path):
    folder, rows, expected, parser = planted
    data = write_jsonl(tmp_path / "rows.jsonl", rows)
    scanner = RowScanner(parser.read_text(), Columns(prompt="prompt", tools="tools", expected="expected"), Options(time_limit=0.3))
    from workbench.scan.source import open_dataset

    dataset = open_dataset(str(data))
    one, two = [], []
    local.run(dataset, scanner, ["text", "prompt", "tools", "expected"], num_proc=1, done=one.append, size=5)
    local.run(dataset, scanner, ["text", "prompt", "tools", "expected"], num_proc=2, done=two.append, size=5)

    def rows_of(batches):
        return [(r, v, k, w) for b in batches for r, v, k, w in zip(b["row"], b["verdict"], b["kind"], b["where"])]

    assert rows_of(one) == rows_of(two) and len(rows_of(two)) == len(rows)
    assert cli(*scan_args(data, parser, tmp_path / "here.parquet", "--num-proc", "1")).exit_code == 1
    result = cli(*scan_args(data, parser, tmp_path / "ray.parquet", "--engine", "ray", "--num-proc", "2", "--no-cache"))
    assert result.exit_code == 1, result.output
    here, there = (pq.read_table(str(tmp_path / p)).drop(["seconds"]) for p in ("here.parquet", "ray.parquet"))
    assert there.to_pydict() == here.to_pydict()


def test_compare_counts_where_two_parsers_disagree(tmp_path):
    """The schema of qwen3 and its template as written before join, on the same rows: they agree but
    where text stands between calls (the schema joins both sentences, the old template keeps the last)."""
    rows = clean_rows(12) + [{"text": PLANTED["overwritten"][0], "prompt": PROMPT, "tools": None, "expected": None}]
    data = write_jsonl(tmp_path / "rows.jsonl", rows)
    old = tmp_path / "old.template.json"
    old.write_text(json.dumps(qwen3_before_join()), encoding="utf-8")
    result = cli(data, "--schema", ROOT / "schemas/qwen3.json", "--compare", old,
                 "--prompt-column", "prompt", "--json", tmp_path / "s.json", "-o", tmp_path / "c.parquet")
    summary = json.loads((tmp_path / "s.json").read_text())
    disagree = summary["compare"]["disagree"]
    assert disagree["of"] == 13 and disagree["count"] >= 1
    assert any(12 in c["examples"] and c["where"] == "/content" for c in summary["compare"]["clusters"])
    assert "disagree on" in result.output


def test_a_rerun_reuses_the_scan_and_an_edit_of_the_parser_does_not(planted, tmp_path):
    folder, rows, expected, parser = planted
    data = write_jsonl(tmp_path / "rows.jsonl", rows)
    mine = tmp_path / "mine.template.json"
    mine.write_text(parser.read_text())
    first = cli(*scan_args(data, mine, tmp_path / "a.parquet"))
    again = cli(*scan_args(data, mine, tmp_path / "b.parquet"))
    assert "reused" not in first.output and "reused" in again.output
    assert verdicts(tmp_path / "a.parquet") == verdicts(tmp_path / "b.parquet")
    edited = json.loads(mine.read_text())
    del edited["fields"]["aside"]  # the slow field goes: the timeout row now parses
    mine.write_text(json.dumps(edited))
    third = cli(*scan_args(data, mine, tmp_path / "c.parquet"))
    assert "reused" not in third.output
    timeout_row = next(r for r, v in expected.items() if v[0] == "timeout")
    assert verdicts(tmp_path / "c.parquet")[timeout_row][0] == "parsed"


def test_an_interrupted_scan_keeps_the_rows_done(planted, tmp_path):
    folder, rows, expected, parser = planted
    data = write_jsonl(tmp_path / "rows.jsonl", rows * 3)
    job = ScanJob(str(data), parser, Columns(prompt="prompt"), Options(time_limit=0.3), output=tmp_path / "p.parquet",
                  num_proc=1)
    seen = []

    def ctrl_c_after_the_first_batch(done, total):
        seen.append(done)
        raise KeyboardInterrupt

    local_batch = local.BATCH
    try:
        local.BATCH = 16
        with pytest.raises(Interrupted) as stopped:
            run_scan(job, ctrl_c_after_the_first_batch)
    finally:
        local.BATCH = local_batch
    from workbench.scan.results import read_meta

    assert stopped.value.done.partial and stopped.value.done.rows == seen[0] > 0
    assert pq.read_table(str(tmp_path / "p.parquet")).num_rows == seen[0] < len(rows) * 3
    assert read_meta(tmp_path / "p.parquet")["partial"] is True
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".partial")]


def test_failing_rows_become_samples_that_check_reads(planted, tmp_path):
    folder, rows, expected, parser = planted
    data = write_jsonl(tmp_path / "rows.jsonl", rows)
    (tmp_path / "parsers").mkdir()
    (tmp_path / "parsers" / "mine.template.json").write_text(parser.read_text())
    samples = tmp_path / "samples" / "mine"
    result = cli(*scan_args(data, tmp_path / "parsers/mine.template.json", tmp_path / "o.parquet",
                            "--write-samples", samples, "--limit", "3"))
    assert "3 failing rows written as samples" in result.output
    first3 = sorted(expected)[:3]
    assert sorted(p.name for p in samples.iterdir()) == sorted(
        [f"row-{r:06d}.txt" for r in first3] + [f"row-{r:06d}.prompt.txt" for r in first3])
    assert (samples / f"row-{first3[0]:06d}.txt").read_text() == rows[first3[0]]["text"]
    checked = CliRunner().invoke(app, ["check", str(tmp_path / "parsers"), str(tmp_path / "samples"), "--json"])
    listed = json.loads(checked.output)
    assert {case["case"] for fam in listed for case in fam["cases"]} >= {f"row-{r:06d}" for r in first3}


@pytest.mark.parametrize("args, said", [
    (["missing.jsonl"], "missing.jsonl: no such file"),
    (["rows.jsonl", "--text-column", "output"], "no column 'output' (it has 'text', 'prompt'"),
    (["bad.jsonl"], "bad.jsonl:2: not a JSON object on this line"),
    (["rows.jsonl", "--engine", "spark"], "--engine spark: choose local or ray"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, said):
    write_jsonl(tmp_path / "rows.jsonl", [{"text": "Hi", "prompt": PROMPT}])
    (tmp_path / "bad.jsonl").write_text('{"text": "a"}\n{"text": \n')
    result = cli(*args, "--template", ROOT / "schemas/qwen3.template.json")
    assert result.exit_code == 2
    assert said in result.output and "Traceback" not in result.output


def test_an_existing_output_is_not_replaced_without_force(tmp_path):
    data = write_jsonl(tmp_path / "rows.jsonl", [{"text": "Hi", "prompt": PROMPT}])
    (tmp_path / "out.parquet").write_text("mine")
    result = cli(data, "--template", ROOT / "schemas/qwen3.template.json", "-o", tmp_path / "out.parquet")
    assert result.exit_code == 2 and "already exists" in result.output
    assert (tmp_path / "out.parquet").read_text() == "mine"


def test_the_row_function_pickles_without_its_compiled_parser(planted):
    import pickle

    folder, rows, expected, parser = planted
    scanner = RowScanner(parser.read_text(), Columns(prompt="prompt"))
    scanner.row("Hi", prompt=PROMPT)
    assert scanner._loaded and not pickle.loads(pickle.dumps(scanner))._loaded
    assert os.path.getsize(parser) * 2 > len(pickle.dumps(scanner))


def test_a_hub_id_that_cannot_be_reached_is_one_line(tmp_path):
    """Offline, a Hub id not in the cache: one sentence naming it (exit 2), no traceback."""
    import subprocess
    import sys

    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf")}
    result = subprocess.run([sys.executable, "-m", "workbench", "scan", "nobody-here/no-such-dataset", "--template",
                             str(ROOT / "schemas/qwen3.template.json")], capture_output=True, text=True, env=env, cwd=tmp_path,
                            timeout=120)
    assert result.returncode == 2
    assert result.stderr.startswith("error: nobody-here/no-such-dataset: ") and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


# Issue 33, the write side: signals, a full disk, the cache.

def _small_job(tmp_path, rows, **more) -> ScanJob:
    data = write_jsonl(tmp_path / "rows.jsonl", rows)
    return ScanJob(str(data), ROOT / "schemas/qwen3.template.json", Columns(prompt="prompt"), output=tmp_path / "p.parquet",
                   num_proc=1, **more)


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP"])
def test_a_signal_ends_a_scan_as_ctrl_c_does_and_a_second_one_loses_nothing(tmp_path, monkeypatch, signame):
    """SIGTERM or SIGHUP after the first batch: the rows done are written and marked partial, the
    signal is told; a Ctrl+C while the partial file is finished is ignored, not a lost file."""
    import signal

    from workbench.scan import results
    from workbench.scan.results import read_meta

    signum = getattr(signal, signame)
    job = _small_job(tmp_path, clean_rows(200), summary_json=tmp_path / "s.json")
    finish = results.ResultWriter.finish

    def ctrl_c_while_finishing(self, partial):
        os.kill(os.getpid(), signal.SIGINT)
        finish(self, partial)

    monkeypatch.setattr(results.ResultWriter, "finish", ctrl_c_while_finishing)
    monkeypatch.setattr(local, "BATCH", 16)
    before = signal.getsignal(signum), signal.getsignal(signal.SIGINT)
    with pytest.raises(Interrupted) as stopped:
        run_scan(job, lambda done, total: os.kill(os.getpid(), signum))
    assert stopped.value.signum == signum and stopped.value.done.rows == 16
    assert read_meta(tmp_path / "p.parquet")["partial"] is True and read_meta(tmp_path / "p.parquet")["rows_written"] == 16
    assert pq.read_table(str(tmp_path / "p.parquet")).num_rows == 16
    assert json.loads((tmp_path / "s.json").read_text())["partial"] is True
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".partial")]
    assert (signal.getsignal(signum), signal.getsignal(signal.SIGINT)) == before  # handlers given back


def test_a_full_disk_is_one_sentence_and_leaves_no_partial_file(tmp_path, monkeypatch):
    import errno

    import pyarrow.parquet

    def full(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    write_jsonl(tmp_path / "rows.jsonl", clean_rows(8))
    monkeypatch.setattr(pyarrow.parquet.ParquetWriter, "write_table", full)
    result = cli(tmp_path / "rows.jsonl", "--template", ROOT / "schemas/qwen3.template.json", "-o", tmp_path / "o.parquet",
                 "--num-proc", "1")
    assert result.exit_code == 2, result.output
    assert result.output.startswith(f"error: {tmp_path / 'o.parquet'}: cannot write: No space left on device")
    assert len(result.output.strip().splitlines()) == 1 and "Traceback" not in result.output
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "cache") == ["rows.jsonl"]


def test_a_full_disk_for_the_summary_keeps_the_results(tmp_path, monkeypatch):
    import errno

    from workbench.scan import job as scan_job

    def full(path, text, **kwargs):
        from workbench.store.files import WriteError

        raise WriteError(f"{path}: cannot write: {os.strerror(errno.ENOSPC)}")

    write_jsonl(tmp_path / "rows.jsonl", clean_rows(8))
    monkeypatch.setattr(scan_job, "atomic_write", full)
    result = cli(tmp_path / "rows.jsonl", "--template", ROOT / "schemas/qwen3.template.json", "-o", tmp_path / "o.parquet",
                 "--json", tmp_path / "s.json", "--num-proc", "1")
    assert result.exit_code == 2 and "No space left on device" in result.output and "results are written to" in result.output
    assert pq.read_table(str(tmp_path / "o.parquet")).num_rows == 8


def test_a_reused_scan_names_this_scans_paths(tmp_path):
    """Two checkouts, the same parser text and data: the second scan reuses the first's verdicts,
    but its results name its own parser and data (open --scan edits the file the metadata names)."""
    from workbench.scan.results import read_meta

    rows = clean_rows(8)
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        write_jsonl(tmp_path / name / "rows.jsonl", rows)
        (tmp_path / name / "mine.template.json").write_text((ROOT / "schemas/qwen3.template.json").read_text())
    first = cli(tmp_path / "a/rows.jsonl", "--template", tmp_path / "a/mine.template.json", "-o", tmp_path / "a/o.parquet")
    second = cli(tmp_path / "b/rows.jsonl", "--template", tmp_path / "b/mine.template.json", "-o", tmp_path / "b/o.parquet")
    assert "(reused:" not in first.output and "(reused:" in second.output
    meta = read_meta(tmp_path / "b/o.parquet")
    assert meta["parser"] == str((tmp_path / "b/mine.template.json").resolve())
    assert meta["data"] == str((tmp_path / "b/rows.jsonl").resolve())
    assert verdicts(tmp_path / "a/o.parquet") == verdicts(tmp_path / "b/o.parquet")


def test_a_corrupt_cache_entry_is_scanned_again_and_replaced(tmp_path):
    data = write_jsonl(tmp_path / "rows.jsonl", clean_rows(8))
    args = [data, "--template", ROOT / "schemas/qwen3.template.json"]
    assert cli(*args, "-o", tmp_path / "a.parquet").exit_code == 0
    (entry,) = (tmp_path / "cache/scan").glob("*.parquet")
    entry.write_bytes(entry.read_bytes()[:100])  # truncated
    again = cli(*args, "-o", tmp_path / "b.parquet")
    assert again.exit_code == 0 and "reused" not in again.output and "Traceback" not in again.output, again.output
    assert pq.read_table(str(entry)).num_rows == 8  # replaced by the new scan
    assert "reused" in cli(*args, "-o", tmp_path / "c.parquet").output


def test_the_cache_keeps_the_newest_entries(tmp_path, monkeypatch):
    from workbench.scan import results

    monkeypatch.setattr(results, "CACHE_ENTRIES", 2)
    for n in (3, 4, 5):
        data = write_jsonl(tmp_path / f"rows{n}.jsonl", clean_rows(n))
        assert cli(data, "--template", ROOT / "schemas/qwen3.template.json", "-o", tmp_path / f"o{n}.parquet").exit_code == 0
    kept = sorted(pq.read_table(str(p)).num_rows for p in (tmp_path / "cache/scan").glob("*.parquet"))
    assert kept == [4, 5]


def test_a_saved_dataset_whose_arrow_changed_is_not_reused(tmp_path):
    """save_to_disk's state.json (its fingerprint) unchanged, its Arrow file rewritten with other
    outputs: the cache keys on the bytes, so the old verdicts are not reused."""
    import datasets

    good = [{"text": "Paris.<|im_end|>", "prompt": PROMPT}] * 4
    bad = [{"text": '<tool_call>\n{"name": "f", "arguments": {"a": "', "prompt": PROMPT}] * 4
    saved = tmp_path / "saved"
    datasets.Dataset.from_list(good).save_to_disk(str(saved))
    args = [saved, "--template", ROOT / "schemas/qwen3.template.json"]
    assert cli(*args, "-o", tmp_path / "a.parquet").exit_code == 0
    state = (saved / "state.json").read_text()
    other = tmp_path / "other"
    datasets.Dataset.from_list(bad).save_to_disk(str(other))
    for arrow in other.glob("*.arrow"):
        (saved / arrow.name).write_bytes(arrow.read_bytes())
    assert (saved / "state.json").read_text() == state
    again = cli(*args, "-o", tmp_path / "b.parquet")
    assert again.exit_code == 1 and "reused" not in again.output, again.output
    assert {v for v, _ in verdicts(tmp_path / "b.parquet").values()} == {"raised"}
