"""Running a scan's rows with bounds (workbench/scan/row.py, local.py, summary.py): a wall-clock
budget per row, batches sized in bytes, a dead worker said and the rest kept, clusters capped."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from workbench.scan import local, row as row_module
from workbench.scan.row import Columns, Options, RowScanner
from workbench.scan.summary import CLUSTERS, Summary, lines

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = (ROOT / "schemas" / "qwen3.template.json").read_text()


def test_a_row_of_many_slow_regex_calls_is_bounded_by_its_budget():
    """Sixty calls each under --time-limit made a row of 9 s 'parsed'; a row has 5x the limit, at
    least 5 s (the verdict says it was cut: uncut, the row parses)."""
    scanner = RowScanner(TEMPLATE, Columns(), Options(time_limit=0.2))
    loaded = scanner.load()[0]

    def slow(text, prompt, tools, limit):
        for _ in range(60):
            time.sleep(0.15)  # a regex call that stays under its limit
        return {"role": "assistant", "content": text}, []

    loaded.run = slow
    got = scanner.row("Hi.")
    assert got["verdict"] == "timeout" and "budget of 5 s" in got["detail"], got


def test_no_finite_limit_is_no_limit():
    assert Options(time_limit=float("inf")).row_limit() is None
    got = RowScanner(TEMPLATE, Columns(), Options(time_limit=float("inf"))).row("Hi.<|im_end|>")
    assert got["verdict"] != "timeout", got


def test_cut_by_bytes():
    assert list(local._pieces([3, 3, 3, 10, 1, 1], size=256, max_bytes=6)) == [(0, 2), (2, 1), (3, 1), (4, 2)]
    assert list(local._pieces([1] * 5, size=2, max_bytes=100)) == [(0, 2), (2, 2), (4, 1)]


def test_batches_of_big_rows_are_sized_in_bytes(tmp_path, monkeypatch):
    datasets = pytest.importorskip("datasets")
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "cache")
    from workbench.scan.source import open_dataset

    path = tmp_path / "big.jsonl"
    path.write_text("".join(json.dumps({"text": chr(97 + i % 26) * 3_000_000}) + "\n" for i in range(12)))
    dataset = open_dataset(str(path))
    for variant in (dataset, dataset.select(range(12))):  # read from its files, and through datasets
        seen = 0
        for first, batch in local.batches(variant, ["text"], local.BATCH):
            assert first == seen
            assert sum(len(t) for t in batch["text"]) <= local.BATCH_BYTES
            seen += len(batch["text"])
        assert seen == 12


def test_a_dead_worker_is_said_and_the_rest_kept(tmp_path):
    """A worker killed (the OOM killer, kill -9) left the scan waiting forever; now the rows of its
    batch are 'raised' saying so, and every other batch is scanned, in order."""
    script = textwrap.dedent(f"""
        import os, signal, sys
        sys.path.insert(0, {str(ROOT)!r})
        from workbench.scan import local
        from workbench.scan.row import Columns, Options, RowScanner

        class Killing(RowScanner):
            def __call__(self, batch, first=None):
                if first == 8:
                    os.kill(os.getpid(), signal.SIGKILL)
                return super().__call__(batch, first=first)

        class Rows:
            column_names = ["text"]
            data = None
            _indices = None
            def __len__(self): return 20
            def select_columns(self, columns): return self
            def __getitem__(self, s): return {{"text": ["Hi.<|im_end|>"] * len(range(20)[s])}}

        scanner = Killing(open({str(ROOT / "schemas" / "qwen3.template.json")!r}).read(), Columns(), Options())
        got = []
        local.run(Rows(), scanner, ["text"], num_proc=2, done=got.append, size=4)
        rows = [r for b in got for r in b["row"]]
        assert rows == list(range(20)), rows
        died = [b["detail"][0] for b in got if b["row"][0] == 8][0]
        assert died == "the worker scanning rows 8–11 died (signal 9)", died
        assert all(v == "raised" for b in got if b["row"][0] == 8 for v in b["verdict"])
        assert all(v != "raised" for b in got if b["row"][0] != 8 for v in b["verdict"])
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "ok", done.stderr


def test_clusters_are_capped():
    summary = Summary()
    n = CLUSTERS + 500
    summary.add({"row": list(range(n)), "verdict": ["differs"] * n, "kind": [""] * n,
                 "where": [f"/tool_calls/0/function/arguments/key_{i}" + "x" * 1000 for i in range(n)],
                 "seconds": [0.0] * n})
    out = summary.as_dict()
    assert len(out["clusters"]) == CLUSTERS
    assert out["other_places"]["count"] == 500
    assert all(len(c["where"]) <= 200 for c in out["clusters"])
    assert any("500 failing rows in other places" in text for _, text in lines(out))


def test_result_text_is_valid_utf8():
    assert row_module._utf8("key \ud800") == "key \\ud800"
    assert len(row_module._utf8("x" * 10_000)) == 300
