"""How ``workbench scan`` reads its data (workbench/scan/source.py): as stored, with no feature
decoding and no re-encoding, CSV cells as their text on both engines, and Arrow copies in a
temporary folder that goes with the dataset."""

from __future__ import annotations

import gc
import json
import tempfile
from pathlib import Path

import pytest

pytest.importorskip("datasets")

from workbench.store.files import InputError  # noqa: E402
from workbench.scan import source  # noqa: E402


def _jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_a_column_of_mixed_types_is_read_as_stored_text(tmp_path):
    # datasets JSON-encodes every value of a mixed column, strings too: "</think>bad" came back as
    # '"<\\/think>bad"'; and a column of strings in one file, numbers in another, is mixed too
    (tmp_path / "d").mkdir()
    _jsonl(tmp_path / "d" / "a.jsonl", [{"id": "r0", "text": "</think>bad"}, {"id": "r1", "text": "plain"}])
    _jsonl(tmp_path / "d" / "b.jsonl", [{"id": 2, "text": 5}, {"id": 3, "text": {"k": [1]}}, {"id": None, "text": None}])
    data = source.open_dataset(str(tmp_path / "d"))
    assert data["text"] == ["</think>bad", "plain", "5", '{"k": [1]}', None]
    assert data["id"] == ["r0", "r1", "2", "3", None]


def test_one_file_whose_columns_do_not_mix_is_read_by_datasets_as_it_is(tmp_path):
    data = source.open_dataset(str(_jsonl(tmp_path / "a.jsonl", [{"text": "</think>x", "n": 1}, {"text": "y", "n": 2.5}])))
    assert data["text"] == ["</think>x", "y"] and data["n"] == [1.0, 2.5]
    assert source.read_as(data) == [str(tmp_path / "a.jsonl")]


@pytest.mark.parametrize("line, says", [
    (b'{"text": "a\xffb"}', "a.jsonl:2: not UTF-8"),
    (b'{"text": "x", "deep": ' + b"[" * 20_000 + b"]" * 20_000 + b"}", "a.jsonl:2: JSON nested deeper"),
    (b'["not", "an", "object"]', "a.jsonl:2: not a JSON object"),
    (b'{"text": ', "a.jsonl:2: not a JSON object"),
], ids=["utf8", "deep", "not-object", "cut"])
def test_json_lines_are_checked_before_pyarrow_reads_them(tmp_path, line, says):
    path = tmp_path / "a.jsonl"
    path.write_bytes(b'{"text": "fine"}\n' + line + b"\n")
    with pytest.raises(InputError, match=says):
        source.open_dataset(str(path))


def test_parquet_features_are_not_decoded(tmp_path):
    # an Image declared in the metadata: datasets would open the path (or fetch the URL) on read
    import pyarrow as pa
    import pyarrow.parquet as pq

    struct = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    table = pa.table({"text": ["a", "b"], "picture": pa.array([{"bytes": None, "path": "/etc/hostname"},
                                                               {"bytes": None, "path": "http://127.0.0.1:9/x.png"}], struct)})
    meta = {"info": {"features": {"text": {"dtype": "string", "_type": "Value"}, "picture": {"_type": "Image"}}}}
    pq.write_table(table.replace_schema_metadata({"huggingface": json.dumps(meta)}), tmp_path / "a.parquet")
    data = source.open_dataset(str(tmp_path / "a.parquet"))
    assert data[1]["picture"] == {"bytes": None, "path": "http://127.0.0.1:9/x.png"}
    # and a dataset saved with such a feature is read as stored too (bytes, as save_to_disk keeps them)
    import datasets

    saved = pa.table({"text": ["a"], "picture": pa.array([{"bytes": b"not a png", "path": None}], struct)})
    datasets.Dataset(saved.replace_schema_metadata({"huggingface": json.dumps(meta)})).save_to_disk(str(tmp_path / "s"))
    assert datasets.load_from_disk(str(tmp_path / "s")).features["picture"] == datasets.Image()
    assert source.open_dataset(str(tmp_path / "s"))[0]["picture"] == {"bytes": b"not a png", "path": None}


def test_a_folder_link_to_a_file_outside_is_refused(tmp_path):
    (tmp_path / "d").mkdir()
    _jsonl(tmp_path / "d" / "a.jsonl", [{"text": "x"}])
    _jsonl(tmp_path / "secret.jsonl", [{"text": "secret"}])
    (tmp_path / "d" / "b.jsonl").symlink_to(tmp_path / "secret.jsonl")
    (tmp_path / "d" / "c.jsonl").symlink_to(tmp_path / "d" / "a.jsonl")  # inside: fine
    with pytest.raises(InputError, match="b.jsonl: a link to .*secret.jsonl, outside"):
        source.open_dataset(str(tmp_path / "d"))
    (tmp_path / "d" / "b.jsonl").unlink()
    assert source.open_dataset(str(tmp_path / "d"))["text"] == ["x", "x"]


@pytest.mark.parametrize("name", ["row", "verdict", "kind", "where", "detail", "seconds", "compare_verdict"])
def test_an_id_column_named_like_a_results_column_is_refused(tmp_path, name):
    from workbench.scan.row import Columns

    data = source.open_dataset(str(_jsonl(tmp_path / "a.jsonl", [{"text": "x", name: 1}])))
    with pytest.raises(InputError, match=f"--id-column {name}: the results have a column of that name"):
        source.check_columns(data, Columns(id=name), "a.jsonl")


def _csv(tmp_path: Path) -> Path:
    path = tmp_path / "a.csv"
    path.write_text('id,text\n1,NA\n2,null\n3,nan\n4,""\n5,\n6,N/A\n', encoding="utf-8")
    return path


def test_csv_cells_are_their_text_locally(tmp_path):
    assert source.open_dataset(str(_csv(tmp_path)))["text"] == ["NA", "null", "nan", "", "", "N/A"]


def test_csv_cells_are_the_same_text_on_ray(tmp_path):
    pytest.importorskip("ray")
    import ray

    from workbench.scan.on_ray import read

    path = _csv(tmp_path)
    data = source.open_dataset(str(path))
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        rows = read(str(path), data).take_all()
    finally:
        ray.shutdown()
    assert [r["text"] for r in rows] == data["text"]


def test_a_cluster_address_that_does_not_answer_is_said_at_once():
    from workbench.scan.on_ray import check_address

    with pytest.raises(InputError, match="--ray-address nosuchhost:1: cannot reach"):
        check_address("nosuchhost:1")
    with pytest.raises(InputError, match="not a cluster address"):
        check_address("head")


def test_the_arrow_copy_is_temporary_and_the_datasets_cache_untouched(tmp_path, monkeypatch):
    import datasets

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    cache = tmp_path / "hf-datasets"
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", cache)
    data = source.open_dataset(str(_jsonl(tmp_path / "a.jsonl", [{"text": f"row {i}"} for i in range(100)])))
    copies = list((tmp_path / "tmp").iterdir())
    assert len(copies) == 1 and copies[0].name.startswith("workbench-scan-")
    assert any(p.suffix == ".arrow" for p in copies[0].rglob("*"))
    assert len(data) == 100
    del data
    gc.collect()
    assert list((tmp_path / "tmp").iterdir()) == []
    assert not cache.exists() or not any(cache.rglob("*.arrow"))


def test_a_hub_id_is_read_from_the_cache_only(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    with pytest.raises(InputError, match="not a Hub dataset in the cache"):
        source.open_dataset("some-org/some-dataset")
