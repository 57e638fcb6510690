"""The batches a local scan feeds its workers (workbench/scan/local.py): every row once, in order,
as ``datasets`` gives it, whatever the dataset is; and a dataset read from its Arrow files does not
stay resident in the scanning process."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

datasets = pytest.importorskip("datasets")

from workbench.scan import local  # noqa: E402


def _rows(pairs) -> dict[str, list]:
    out: dict[str, list] = {}
    expected_first = 0
    for first, batch in pairs:
        assert first == expected_first
        lengths = {len(values) for values in batch.values()}
        assert len(lengths) == 1 and 0 < lengths.pop() <= 7
        for name, values in batch.items():
            out.setdefault(name, []).extend(values)
        expected_first += len(next(iter(batch.values())))
    return out


@pytest.fixture
def loaded(tmp_path, monkeypatch):
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "cache")
    rows = []
    for i in range(40):
        tools = [{"type": "function", "function": {"name": f"tool_{i % 3}", "strict": True if i % 2 else None}}]
        rows.append({"text": f"<think>row {i} ✓</think>" + "x" * (i * 7), "prompt": None if i % 5 == 0 else f"p{i}",
                     "tools": tools if i % 4 else None, "id": 1000 + i})
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    from workbench.scan.source import open_dataset

    return open_dataset(str(path))


def _variants(dataset, tmp_path):
    saved = tmp_path / "saved"
    dataset.save_to_disk(str(saved))
    yield "loaded", dataset
    yield "saved", datasets.load_from_disk(str(saved))
    yield "columns selected", dataset.select_columns(["id", "text", "tools", "prompt"])
    yield "in memory", datasets.Dataset.from_dict(dataset.to_dict(), features=dataset.features)
    yield "filtered", dataset.filter(lambda row: row["id"] % 3 != 0)
    yield "sliced", dataset.select(range(5, 33))
    yield "shuffled", dataset.shuffle(seed=1)
    yield "renamed", dataset.rename_columns({"text": "prompt", "prompt": "text"})  # the two swapped
    yield "cast", dataset.cast_column("id", datasets.Value("string"))
    yield "concatenated", datasets.concatenate_datasets([dataset, datasets.load_from_disk(str(saved))])


@pytest.mark.parametrize("columns", [["text"], ["text", "prompt", "tools", "id"], ["id", "text"]])
def test_every_row_once_in_order_as_datasets_gives_it(loaded, tmp_path, columns):
    # read from their files (a cast is written anew by datasets); the others through datasets
    streamed = {"loaded", "saved", "columns selected", "cast", "concatenated"}
    for name, dataset in _variants(loaded, tmp_path / "-".join(columns)):
        assert (local._arrow_files(dataset, columns) is not None) == (name in streamed), name
        expected = dataset.select_columns(columns)[:]
        got = _rows(local.batches(dataset, columns, size=7))
        assert got == {c: expected[c] for c in columns}, name
    assert local._arrow_files(loaded.with_format("numpy"), columns) is None  # its own formatting: through datasets


def test_a_dataset_read_from_its_files_does_not_stay_resident(tmp_path):
    """Reading every batch of a 64 MB dataset leaves the process's RSS about where it was: a
    memory-mapped dataset kept every page it had read resident (RSS grew with the rows)."""
    if not Path("/proc/self/status").exists():
        pytest.skip("reads /proc/self/status (Linux)")
    script = textwrap.dedent(f"""
        import os
        os.environ["HF_DATASETS_CACHE"] = {str(tmp_path / "cache")!r}
        import datasets
        from workbench.scan import local

        def rss():
            for line in open("/proc/self/status"):
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024

        rows = 16_000
        datasets.Dataset.from_dict({{"text": [f"{{i:08d}}" + "y" * 4000 for i in range(rows)]}}).save_to_disk({str(tmp_path / "d")!r})
        dataset = datasets.load_from_disk({str(tmp_path / "d")!r})
        for first, batch in local.batches(dataset, ["text"], local.BATCH):  # once, so that the code and buffers are warm
            break
        before = rss()
        seen = 0
        for first, batch in local.batches(dataset, ["text"], local.BATCH):
            seen += len(batch["text"])
        print(seen, rss() - before)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    seen, grown = map(int, done.stdout.split())
    assert seen == 16_000
    assert grown < 16 * 2**20, f"RSS grew by {grown / 2**20:.0f} MB over 64 MB of rows"
