"""Peak memory of ``workbench scan`` on the two datasets that grew it with the data (issue 33):

(a) 1,000 rows of 2 MB each (in-flight work was bounded in rows: 5.9 GB RSS);
(b) 300,000 rows whose outputs hold distinct keys the model wrote, which reach ``where`` (a
    ``differs`` at ``/tool_calls/0/function/arguments/key_N``): one cluster per row (891 MB).

Each scan runs as a user runs it (``python -m workbench scan … --num-proc 2 --no-cache``), in a
subprocess whose process tree (the scan and its workers) is sampled from /proc every 50 ms: the
peak of the tree's summed RSS is printed with the wall time, and the largest single process's
peak (``ru_maxrss`` of the children). Linux only (/proc).

    python benchmarks/scan_memory.py [--big-rows 1000] [--big-mb 2] [--key-rows 300000] [--code DIR]

``--code DIR`` runs the workbench found in DIR (a checkout, e.g. ``git archive`` of an older
commit) to compare before and after. The data is generated in a temporary folder (about 2 GB for
(a), written as Parquet) with the caches beside it, and removed at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "schemas" / "qwen3.template.json"


def _big_rows(path: Path, rows: int, megabytes: float) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    size = int(megabytes * 1_000_000)
    words = "the model answers at length, word after word, " * (size // 46 + 1)
    with pq.ParquetWriter(str(path), pa.schema([("text", pa.large_string())])) as writer:
        for start in range(0, rows, 25):
            texts = [f"Answer {i}. {words[: size - 30]}<|im_end|>" for i in range(start, min(rows, start + 25))]
            writer.write_table(pa.table({"text": pa.array(texts, pa.large_string())}))
    return path


def _key_rows(path: Path, rows: int) -> Path:
    with path.open("w", encoding="utf-8") as out:
        for i in range(rows):
            key = f"key_{i}_{'k' * 40}"
            text = f'<tool_call>\n{{"name": "get_weather", "arguments": {{"{key}": 1}}}}\n</tool_call><|im_end|>'
            expected = {"role": "assistant", "tool_calls": [{"type": "function", "function": {
                "name": "get_weather", "arguments": {key: 2}}}]}
            out.write(json.dumps({"text": text, "expected": json.dumps(expected)}) + "\n")
    return path


def _tree(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def measure(args: list[str], env: dict, folder: Path) -> tuple[float, int, int, int]:
    """(seconds, peak summed RSS of the tree, largest single process's peak, exit code)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "workbench", *args], cwd=folder, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = 0
    while proc.poll() is None:
        peak = max(peak, sum(_rss(pid) for pid in _tree(proc.pid)))
        time.sleep(0.05)
    seconds = time.monotonic() - start
    err = proc.stderr.read().decode("utf-8", "replace") if proc.stderr else ""
    if proc.returncode not in (0, 1):
        print(f"  exit {proc.returncode}: {err[-2000:]}", file=sys.stderr)
    single = max(before, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) * 1024
    return seconds, peak, single, proc.returncode


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--big-rows", type=int, default=1000)
    ap.add_argument("--big-mb", type=float, default=2.0)
    ap.add_argument("--key-rows", type=int, default=300_000)
    ap.add_argument("--code", type=Path, default=ROOT, help="the checkout whose workbench to run")
    ap.add_argument("--only", choices=("big", "keys"), default=None)
    opts = ap.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="scan-memory-"))
    try:
        env = {**os.environ, "PYTHONPATH": str(opts.code.resolve()), "HF_DATASETS_CACHE": str(folder / "datasets"),
               "HF_HOME": str(folder / "hf"), "WORKBENCH_CACHE": str(folder / "workbench"), "HF_HUB_OFFLINE": "1",
               "HF_DATASETS_OFFLINE": "1"}
        template = str(TEMPLATE)
        runs = []
        if opts.only in (None, "big"):
            data = _big_rows(folder / "big.parquet", opts.big_rows, opts.big_mb)
            runs.append((f"(a) {opts.big_rows} rows of {opts.big_mb:g} MB", ["scan", str(data), "--template", template]))
        if opts.only in (None, "keys"):
            data = _key_rows(folder / "keys.jsonl", opts.key_rows)
            runs.append((f"(b) {opts.key_rows} rows, a distinct key each in where",
                         ["scan", str(data), "--template", template, "--expected-column", "expected"]))
        print(f"workbench from {opts.code.resolve()}")
        for name, args in runs:
            out = folder / "out.parquet"
            seconds, peak, single, code = measure(
                args + ["--num-proc", "2", "--no-cache", "-o", str(out), "--json", str(folder / "summary.json"),
                        "--force"], env, folder)
            print(f"{name}: {seconds:.1f} s, peak RSS of the process tree {peak / 2**20:.0f} MB "
                  f"(largest process {single / 2**20:.0f} MB), exit {code}")
            shutil.rmtree(folder / "datasets", ignore_errors=True)  # the Arrow copy of (a) is 2 GB
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
