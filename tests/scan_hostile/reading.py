"""Hostile cases about how a scan reads its data: as stored (no feature decoding, no re-encoding),
offline, inside its folder, and one sentence for what it cannot read."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from . import Case, good_rows, parser, write_jsonl


def _args(data: Path | str, folder: Path, *more: str) -> list[str]:
    return ["scan", str(data), "--template", str(parser(folder)), "--prompt-column", "prompt", "--num-proc", "2",
            *more]


def _good(folder: Path, url: str) -> list[str]:
    # The baseline of writes.py, copied: a plain scan of a local JSONL fetches nothing (datasets
    # counted a download of its json loader on s3.amazonaws.com for every load_dataset).
    return _args(write_jsonl(folder / "gens.jsonl", good_rows()), folder)


def _image_metadata(folder: Path, url: str) -> list[str]:
    """A Parquet file whose ``huggingface`` metadata says its id column is an Image (stored as
    Image stores it: bytes and a path): datasets would open the path and fetch the URL its rows
    name when the scan reads them (or stop on a missing Pillow)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    outside = folder.parent / f"{folder.name}-outside.png"
    outside.write_bytes(b"not an image")
    rows = good_rows(4)
    pictures = [{"bytes": None, "path": p} for p in (f"{url}/cat.png", str(outside), f"{url}/dog.png", None)]
    table = pa.table({"text": [r["text"] for r in rows], "prompt": [r["prompt"] for r in rows],
                      "picture": pa.array(pictures, pa.struct([("bytes", pa.binary()), ("path", pa.string())]))})
    features = {"text": {"dtype": "string", "_type": "Value"}, "prompt": {"dtype": "string", "_type": "Value"},
                "picture": {"_type": "Image"}}
    table = table.replace_schema_metadata({"huggingface": json.dumps({"info": {"features": features}})})
    pq.write_table(table, folder / "images.parquet")
    return _args(folder / "images.parquet", folder, "--id-column", "picture")


def _results_rows(n: int, name: str):
    def check(folder: Path, outcome) -> None:
        import pyarrow.parquet as pq

        assert pq.read_table(folder / name).num_rows == n, outcome.shown()
    return check


def _hub_id(folder: Path, url: str) -> list[str]:
    return _args("some-org/some-dataset", folder)


def _link_out(folder: Path, url: str) -> list[str]:
    (folder / "data").mkdir()
    write_jsonl(folder / "data" / "a.jsonl", good_rows(4))
    write_jsonl(folder / "secret.jsonl", [{"text": "a secret", "prompt": ""}])
    (folder / "data" / "b.jsonl").symlink_to(folder / "secret.jsonl")
    return _args(folder / "data", folder)


def _bad_utf8(folder: Path, url: str) -> list[str]:
    data = write_jsonl(folder / "gens.jsonl", good_rows(4))
    lines = data.read_bytes().split(b"\n")
    lines[2] = lines[2].replace(b"Answer", b"Ans\xff\xfewer", 1).replace(b"Step", b"St\xffep", 1).replace(
        b"get_weather", b"get_\xffweather", 1)
    data.write_bytes(b"\n".join(lines))
    return _args(data, folder)


def _deep(folder: Path, url: str) -> list[str]:
    data = write_jsonl(folder / "gens.jsonl", good_rows(4))
    with data.open("a", encoding="utf-8") as out:
        out.write('{"text": "x", "prompt": "", "meta": ' + "[" * 20_000 + "]" * 20_000 + "}\n")
    return _args(data, folder)


def _id_row(folder: Path, url: str) -> list[str]:
    rows = [{**r, "row": i} for i, r in enumerate(good_rows())]
    return _args(write_jsonl(folder / "gens.jsonl", rows), folder, "--id-column", "row")


def _mixed_ids(folder: Path, url: str) -> list[str]:
    (folder / "data").mkdir()
    rows = good_rows()
    write_jsonl(folder / "data" / "a.jsonl", rows[:4])
    write_jsonl(folder / "data" / "b.jsonl", [{**r, "id": i} for i, r in enumerate(rows[4:])])
    return _args(folder / "data", folder, "--id-column", "id")


def _mixed_text(folder: Path, url: str) -> list[str]:
    (folder / "data").mkdir()
    rows = good_rows()
    write_jsonl(folder / "data" / "a.jsonl", rows[:4])
    write_jsonl(folder / "data" / "b.jsonl", rows[4:] + [{"id": "n", "text": 5, "prompt": rows[0]["prompt"]}])
    return _args(folder / "data", folder)


def _csv(engine: str):
    def build(folder: Path, url: str) -> list[str]:
        rows = good_rows(4) + [{"id": v or "empty", "text": v, "prompt": good_rows(1)[0]["prompt"]}
                               for v in ("NA", "null", "nan", "")]
        with (folder / "gens.csv").open("w", newline="", encoding="utf-8") as out:
            writer = csv.DictWriter(out, ["id", "text", "prompt"])
            writer.writeheader()
            writer.writerows(rows)
        return _args(folder / "gens.csv", folder, "--engine", engine, "-o", f"out-{engine}.parquet")
    return build


def _csv_as_text(engine: str):
    def check(folder: Path, outcome) -> None:
        import pyarrow.parquet as pq

        verdicts = pq.read_table(folder / f"out-{engine}.parquet").column("verdict").to_pylist()
        # "NA", "null", "nan" are plain answers and "" an empty one: none is a null (which raises)
        assert verdicts[4:] == ["parsed", "parsed", "parsed", "parsed"], (verdicts, outcome.shown())
    return check


def _ray_typo(folder: Path, url: str) -> list[str]:
    data = write_jsonl(folder / "gens.jsonl", good_rows())
    return _args(data, folder, "--engine", "ray", "--ray-address", "nosuchhost:1")


CASES = [
    Case("reading-good-data", _good, frozenset({1}), outputs=("gens.parser.scan.parquet",)),
    Case("reading-image-metadata", _image_metadata, frozenset({1}), outputs=("images.parser.scan.parquet",),
         check=_results_rows(4, "images.parser.scan.parquet")),
    Case("reading-hub-id-offline", _hub_id, frozenset({2}), says="not a Hub dataset in the cache", deadline=30),
    Case("reading-folder-link-out", _link_out, frozenset({2}), says="outside"),
    Case("reading-bad-utf8", _bad_utf8, frozenset({2}), says="gens.jsonl:3: not UTF-8"),
    Case("reading-deep-json", _deep, frozenset({2}), says="gens.jsonl:5: JSON nested deeper"),
    Case("reading-id-column-row", _id_row, frozenset({2}), says="--id-column row"),
    Case("reading-mixed-ids", _mixed_ids, frozenset({1}), outputs=("data.parser.scan.parquet",),
         check=_results_rows(8, "data.parser.scan.parquet")),
    Case("reading-mixed-text", _mixed_text, frozenset({1}), outputs=("data.parser.scan.parquet",),
         check=_results_rows(9, "data.parser.scan.parquet")),
    Case("reading-csv-na-local", _csv("local"), frozenset({1}), outputs=("out-local.parquet",),
         check=_csv_as_text("local")),
    Case("reading-csv-na-ray", _csv("ray"), frozenset({1}), outputs=("out-ray.parquet",), check=_csv_as_text("ray")),
    Case("reading-ray-address-typo", _ray_typo, frozenset({2}), says="--ray-address nosuchhost:1", deadline=30),
]
