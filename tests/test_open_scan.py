"""``workbench open --scan RESULT``: a scan's failing rows in the TUI, in row order, each named by
its verdict, with its prompt and the parser the scan ran; one-line errors when the results, the
data or the parser are not what the metadata says."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("datasets")
pytest.importorskip("pyarrow")

import workbench.cli.open  # noqa: E402
from workbench.cli.app import app  # noqa: E402
from workbench.scan.job import Columns, ScanJob, run_scan  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PROMPT = "<|im_start|>user\n[@click=app.quit]Q[/] [b]hi[/b]<|im_end|>\n<|im_start|>assistant\n"
CUT_OFF = 'Let me look. [bold red]now[/]\n<tool_call>\n{"name": "get_weather", "arguments": {"city"'
CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call><|im_end|>'
LEFT = "The reasoning ends at </think>, and then the answer.<|im_end|>"
ROWS = [
    {"text": "Fine.<|im_end|>", "prompt": PROMPT},
    {"text": CUT_OFF, "prompt": PROMPT},  # raised: the call's JSON is cut off
    {"text": CALL, "prompt": PROMPT},
    {"text": LEFT, "prompt": PROMPT},  # suspect: a marker of the parser left in the content
    {"text": "[a=\"].txt <tool_call>\n{\"name\": \"x\", \"arguments\": {", "prompt": PROMPT},  # raised; markup breaks on it
]
# (row, name in the sample bar, the TUI's verdict on it)
FAILING = [(1, "row-000001.raised.txt", "fails"), (3, "row-000003.suspect-marker_left.txt", "parses"),
           (4, "row-000004.raised.txt", "fails")]


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def scanned(tmp_path: Path, rows: list[dict], name: str = "rows") -> tuple[Path, Path, Path]:
    """(results, data, parser): ``rows`` scanned by a copy of qwen3's template, both in ``tmp_path``."""
    data = tmp_path / f"{name}.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    parser = tmp_path / "qwen3.template.json"
    if not parser.exists():
        shutil.copy(ROOT / "schemas" / "qwen3.template.json", parser)
    results = tmp_path / f"{name}.scan.parquet"
    run_scan(ScanJob(data=str(data), parser=parser, columns=Columns("text", "prompt"), output=results, num_proc=1,
                     use_cache=False))
    return results, data, parser


def drive(monkeypatch, check) -> list:
    """Run ``check(pilot, app)`` on the app ``open`` builds, while ``open`` runs it (its samples'
    folder is there until it returns); what ``check`` returns, and the folder, are kept."""
    seen = []

    def run_app(tui) -> None:
        async def go():
            async with tui.run_test(size=(180, 50)) as pilot:
                from tui_helpers import settle

                await settle(pilot, tui)
                seen.append((await check(pilot, tui), tui.samples[0].path.parent))

        asyncio.run(go())

    monkeypatch.setattr(workbench.cli.open, "run_app", run_app)
    return seen


def bar_text(tui) -> str:
    from workbench.tui.widgets.sample_bar import SampleBar

    return str(tui.main.query_one(SampleBar).render())


def test_open_scan_lists_the_failing_rows_in_order_and_opens_each_with_its_prompt(tmp_path, monkeypatch):
    from tui_helpers import settle

    results, _data, parser = scanned(tmp_path, ROWS)

    async def check(pilot, tui):
        got = {"names": [s.name for s in tui.samples], "bar": bar_text(tui), "document": tui.document.path,
               "verdicts": {i: v.status for i, v in tui.main.verdicts.items()}}
        got["first"] = (tui.main.raw.text, tui.main.prompt.text, str(tui.main.status.render()))
        await pilot.press("ctrl+pagedown")  # the next failing row: the suspect one
        await settle(pilot, tui)
        got["second"] = (tui.main.raw.text, tui.main.prompt.text)
        got["second status"] = str(tui.main.status.render())
        tui.main.reload_sample()  # as when the file changes on disk: the note stays
        await settle(pilot, tui)
        got["reloaded status"] = str(tui.main.status.render())
        await pilot.press("ctrl+pagedown")
        await settle(pilot, tui)
        got["third"] = (tui.main.raw.text, str(tui.main.status.render()), bar_text(tui))
        got["running"] = tui.is_running  # the markup in the rows and prompts did not end it
        return got

    seen = drive(monkeypatch, check)
    result = invoke("open", "--scan", results)
    assert result.exit_code == 0, (result.output, result.exception)
    [(got, folder)] = seen
    assert got["names"] == [name for _, name, _ in FAILING]
    bar = got["bar"]
    assert [bar.index(name) for _, name, _ in FAILING] == sorted(bar.index(name) for _, name, _ in FAILING)
    assert got["verdicts"] == {i: verdict for i, (_, _, verdict) in enumerate(FAILING)}
    assert got["document"] == parser  # the parser the scan ran, opened to edit
    text, prompt, status = got["first"]
    assert text == CUT_OFF and prompt == PROMPT
    assert "Parse fails in tool_calls" in status
    assert got["second"] == (LEFT, PROMPT)
    # it parses in the TUI; what the scan found in it is said beside
    # (the notes: 5.13–5.15 and vLLM do not load qwen3's joining template)
    assert ("parses: role, content · 2 notes under the template · the scan said: suspect marker_left at /content: "
            "holds '</think>'") in got["second status"]
    assert got["reloaded status"] == got["second status"]
    text, status, bar = got["third"]
    assert text == ROWS[4]["text"] and "Parse fails in tool_calls" in status
    assert "sample 3/3" in bar and "fails" in bar
    assert got["running"]
    assert not folder.exists()  # the rows' folder goes when the app ends


def test_open_scan_takes_another_parser_and_the_first_n_rows(tmp_path, monkeypatch):
    results, _data, _parser = scanned(tmp_path, ROWS)
    schema = ROOT / "schemas" / "qwen3.json"

    async def check(pilot, tui):
        return [s.name for s in tui.samples], tui.document.path

    seen = drive(monkeypatch, check)
    result = invoke("open", "--scan", results, "--schema", schema, "--limit", 2)
    assert result.exit_code == 0, (result.output, result.exception)
    [((names, document), _)] = seen
    assert names == [name for _, name, _ in FAILING[:2]] and document == schema
    assert "the first 2 failing rows" in result.output and "--limit N for more" in result.output


async def test_many_failing_rows_keep_the_sample_bar_short(tmp_path):
    """200 rows in the bar: it shows those around the open one in a few lines, not a screen of names."""
    from tui_helpers import settle

    from workbench.store.document import SchemaDocument
    from workbench.store.samples import load
    from workbench.scan.failures import read_back
    from workbench.tui.app import WorkbenchApp
    from workbench.tui.widgets.sample_bar import MAX_LINES, SampleBar

    rows = [{"text": f"{i} {CUT_OFF}", "prompt": PROMPT} for i in range(250)]
    results, _data, parser = scanned(tmp_path, rows)
    found = read_back(results, tmp_path / "rows", 200)
    assert len(found.samples) == 200 and found.more
    tui = WorkbenchApp(SchemaDocument.open(parser), [load(p) for p in found.samples])
    async with tui.run_test(size=(180, 50)) as pilot:
        await settle(pilot, tui)
        bar = tui.main.query_one(SampleBar)
        assert bar.size.height <= MAX_LINES
        assert "row-000000.raised.txt" in bar_text(tui) and "after" in bar_text(tui)
    tui = WorkbenchApp(SchemaDocument.open(parser), [load(p) for p in found.samples], start=119)
    async with tui.run_test(size=(180, 50)) as pilot:
        await settle(pilot, tui)
        await pilot.press("ctrl+pagedown")
        await settle(pilot, tui)
        bar = tui.main.query_one(SampleBar)
        assert bar.size.height <= MAX_LINES
        shown = bar_text(tui)
        assert "sample 121/200" in shown and "row-000000.raised.txt" not in shown
        before, _, after = shown.partition("row-000120.raised.txt")
        assert "before" in before and "row-000119" in before and "row-000121" in after and "after" in after
        assert tui.main.raw.size.height > 5  # the raw pane keeps its room


def test_a_file_that_is_not_a_scans_results_is_refused_in_a_sentence(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    results, data, _parser = scanned(tmp_path, ROWS)
    plain = tmp_path / "plain.parquet"
    pq.write_table(pa.table({"row": [1]}), str(plain))
    for target, said in ((data, "not the results of workbench scan"), (plain, "not the results of workbench scan"),
                         (tmp_path / "gone.parquet", "no such results file"), (tmp_path, "not a file")):
        result = invoke("open", "--scan", target)
        assert result.exit_code == 2, result.output
        assert said in result.output and "Traceback" not in result.output, result.output
        assert len(result.output.strip().splitlines()) == 1


def test_the_data_or_the_parser_gone_or_changed_is_said(tmp_path):
    results, data, parser = scanned(tmp_path, ROWS)
    kept = data.read_text(encoding="utf-8")
    data.write_text(kept + json.dumps(ROWS[0]) + "\n", encoding="utf-8")
    changed = invoke("open", "--scan", results)
    assert changed.exit_code == 2 and "has 6 rows, the scan read 5: the data changed" in changed.output
    data.unlink()
    gone = invoke("open", "--scan", results)
    assert gone.exit_code == 2 and f"{data}: the data is no longer there" in gone.output, gone.output
    data.write_text(kept, encoding="utf-8")
    parser.unlink()
    no_parser = invoke("open", "--scan", results)
    assert no_parser.exit_code == 2, no_parser.output
    assert f"{parser}: the parser is no longer there" in no_parser.output and "--schema FILE" in no_parser.output
    for result in (changed, gone, no_parser):
        assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1


def test_no_failing_rows_is_said_and_nothing_opens(tmp_path, monkeypatch):
    opened = []
    monkeypatch.setattr(workbench.cli.open, "run_app", opened.append)
    results, _data, _parser = scanned(tmp_path, [ROWS[0], ROWS[2]], "good")
    result = invoke("open", "--scan", results)
    assert result.exit_code == 0, result.output
    assert "no failing rows among the 2 rows scanned" in result.output and not opened


@pytest.mark.parametrize("extra, said", [(["sample.txt"], "give a SAMPLE or --scan RESULT, not both"),
                                         (["--template"], "with --scan, give the parser"),
                                         (["--limit", "0"], "--limit is at least 1")])
def test_open_scan_refuses_what_does_not_go_with_it(tmp_path, extra, said):
    results, _data, _parser = scanned(tmp_path, ROWS)
    result = invoke("open", "--scan", results, *extra)
    assert result.exit_code == 2 and said in result.output and "Traceback" not in result.output, result.output


def test_a_row_that_differs_from_its_expected_column_opens_with_it_as_its_golden(tmp_path, monkeypatch):
    from workbench.store.samples import DIFFERS

    good = {"role": "assistant", "content": "Fine."}
    rows = [{**ROWS[0], "expected": json.dumps(good)},
            {**ROWS[0], "expected": json.dumps({**good, "content": "Not what it says."})}]
    data = tmp_path / "expected.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    results = tmp_path / "expected.scan.parquet"
    run_scan(ScanJob(data=str(data), parser=ROOT / "schemas" / "qwen3.template.json", output=results, num_proc=1,
                     columns=Columns("text", "prompt", expected="expected"), use_cache=False))

    async def check(pilot, tui):
        return [s.name for s in tui.samples], {i: v.status for i, v in tui.main.verdicts.items()}, bar_text(tui)

    seen = drive(monkeypatch, check)
    result = invoke("open", "--scan", results, "--schema", ROOT / "schemas" / "qwen3.template.json")
    assert result.exit_code == 0, (result.output, result.exception)
    [((names, verdicts, bar), _)] = seen
    assert names == ["row-000001.differs.txt"] and verdicts == {0: DIFFERS}
    assert "/content" in bar


def test_open_scan_parses_as_the_release_the_scan_ran(tmp_path, monkeypatch):
    from workbench.engine.releases import release
    from workbench.scan.job import Options

    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in ROWS), encoding="utf-8")
    results = tmp_path / "rows.scan.parquet"
    run_scan(ScanJob(data=str(data), parser=ROOT / "schemas" / "qwen3.template.json", output=results, num_proc=1,
                     columns=Columns("text", "prompt"), options=Options(runtime="5.20"), use_cache=False))

    async def check(pilot, tui):
        return tui.main.runtime

    seen = drive(monkeypatch, check)
    result = invoke("open", "--scan", results, "--schema", tmp_path / "nowhere.json")
    assert result.exit_code == 2 and "nowhere.json: no such parser file" in result.output
    result = invoke("open", "--scan", results)
    assert result.exit_code == 0, (result.output, result.exception)
    [(runtime, _)] = seen
    assert runtime == release("5.20")


def test_a_results_file_from_anyone_writes_only_into_the_samples_folder(tmp_path, monkeypatch):
    """Verdict and kind come from the file: a name made of them stays a name in the folder; a row
    number outside the data is refused."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from workbench.scan.results import META_KEY

    results, _data, _parser = scanned(tmp_path, ROWS)
    meta = pq.read_schema(str(results)).metadata[META_KEY]
    forged = tmp_path / "forged.parquet"

    def forge(rows, kinds):
        n = len(rows)
        table = pa.table({"row": rows, "verdict": ["suspect"] * n, "kind": kinds, "where": [""] * n,
                          "detail": [""] * n, "seconds": [0.0] * n})
        pq.write_table(table.replace_schema_metadata({META_KEY: meta}), str(forged))

    async def check(pilot, tui):
        return [s.name for s in tui.samples]

    seen = drive(monkeypatch, check)
    forge([3, 1, 3], ["[b]x[/b]", "../../../escaped", "again"])  # out of order, row 3 twice: in order, once
    result = invoke("open", "--scan", forged)
    assert result.exit_code == 0, (result.output, result.exception)
    [(names, folder)] = seen
    assert names == ["row-000001.suspect-_________escaped.txt", "row-000003.suspect-_b_x__b_.txt"]
    assert not list(tmp_path.rglob("*escaped*"))
    for rows in ([7], [-1]):
        forge(rows, [""])
        result = invoke("open", "--scan", forged)
        assert result.exit_code == 2 and "the scan read rows 0 to 4" in result.output, result.output
        assert "Traceback" not in result.output


def test_scan_says_how_to_open_its_failing_rows(tmp_path):
    data = tmp_path / "my rows.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in ROWS), encoding="utf-8")
    out = tmp_path / "my results.parquet"
    result = invoke("scan", data, "--template", ROOT / "schemas" / "qwen3.template.json", "--prompt-column", "prompt",
                    "--num-proc", 1, "--no-cache", "-o", out)
    assert result.exit_code == 1, result.output
    assert f"to open the failing rows in the TUI: workbench open --scan '{out}'" in result.output
    data.write_text("".join(json.dumps(row) + "\n" for row in (ROWS[0], ROWS[2])), encoding="utf-8")
    good = invoke("scan", data, "--template", ROOT / "schemas" / "qwen3.template.json", "--prompt-column", "prompt",
                  "--num-proc", 1, "--no-cache", "-o", out, "--force")
    assert good.exit_code == 0 and "workbench open --scan" not in good.output, good.output


def test_a_partial_scan_opens_and_says_it_is_partial(tmp_path, monkeypatch):
    import pyarrow.parquet as pq

    from workbench.scan.results import META_KEY

    results, _data, _parser = scanned(tmp_path, ROWS)
    table = pq.read_table(str(results)).slice(0, 4)  # as Ctrl+C leaves it: the rows done, marked partial
    meta = {**json.loads(table.schema.metadata[META_KEY]), "partial": True, "rows_written": 4}
    pq.write_table(table.replace_schema_metadata({META_KEY: json.dumps(meta).encode()}), str(results))

    async def check(pilot, tui):
        return [s.name for s in tui.samples]

    seen = drive(monkeypatch, check)
    result = invoke("open", "--scan", results)
    assert result.exit_code == 0, (result.output, result.exception)
    assert seen[0][0] == [name for _, name, _ in FAILING[:2]]
    assert ": 2 failing rows (a partial scan: 4 of 5 rows)" in result.output


def test_other_data_with_as_many_rows_is_refused(tmp_path):
    """The row count alone would open other rows under the scan's verdicts: the data's digest is
    compared too."""
    results, data, _parser = scanned(tmp_path, ROWS)
    data.write_text("".join(json.dumps({**row, "text": row["text"] + " "}) + "\n" for row in ROWS), encoding="utf-8")
    result = invoke("open", "--scan", results)
    assert result.exit_code == 2, result.output
    assert f"{data}: not the data {results.name} was scanned from" in result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1


@pytest.mark.parametrize("key, value", [("split", "../x"), ("split", ["train"]), ("data", 3), ("columns", "text"),
                                        ("options", [1]), ("rows", "5"), ("data_digest", {})])
def test_crafted_metadata_is_refused_in_a_sentence(tmp_path, key, value):
    import pyarrow.parquet as pq

    from workbench.scan.results import META_KEY

    results, _data, _parser = scanned(tmp_path, ROWS)
    table = pq.read_table(str(results))
    meta = {**json.loads(table.schema.metadata[META_KEY]), key: value}
    pq.write_table(table.replace_schema_metadata({META_KEY: json.dumps(meta).encode()}), str(results))
    result = invoke("open", "--scan", results)
    assert result.exit_code == 2, (result.output, result.exception)
    assert f"its metadata's {key} is" in result.output and "Traceback" not in result.output, result.output


def test_a_golden_saved_in_the_temporary_rows_folder_is_said_to_be_temporary_and_quitting_asks(tmp_path, monkeypatch):
    """Without --samples-dir the rows are in a folder removed on quit: a golden written there says
    so when written, and quitting asks before it goes."""
    from tui_helpers import settle

    from workbench.tui.screens.confirm import ConfirmScreen

    results, _data, _parser = scanned(tmp_path, ROWS)

    async def check(pilot, tui):
        got = {"notices": [n.message for n in tui._notifications]}
        tui.action_write_golden()
        await settle(pilot, tui)
        got["status"] = str(tui.main.status.render())
        got["goldens"] = sorted(p.name for p in tui.samples[0].path.parent.glob("*expected*"))
        await pilot.press("ctrl+q")
        await settle(pilot, tui)
        got["asked"] = tui.screen.question if isinstance(tui.screen, ConfirmScreen) else None
        await pilot.press("escape")
        await settle(pilot, tui)
        got["running"] = tui.is_running
        return got

    seen = drive(monkeypatch, check)
    result = invoke("open", "--scan", results)
    assert result.exit_code == 0, (result.output, result.exception)
    [(got, folder)] = seen
    assert any("temporary folder, removed on quit" in n and "--samples-dir DIR" in n for n in got["notices"]), got
    assert got["goldens"] == ["row-000001.raised.template.expected-error.txt"]
    assert "row-000001.raised.template.expected-error.txt" in got["status"]
    assert "in a temporary folder, removed on quit" in got["status"].replace("\n", "")
    assert got["asked"] is not None and "row-000001.raised.template.expected-error.txt" in got["asked"]
    assert "temporary folder removed on quit" in got["asked"] and "Quit and lose them?" in got["asked"]
    assert got["running"]  # escape: not quit
    assert not folder.exists()


def test_samples_dir_keeps_the_rows_and_what_is_saved_beside_them(tmp_path, monkeypatch):
    from tui_helpers import settle

    results, _data, _parser = scanned(tmp_path, ROWS)
    rows = tmp_path / "kept" / "rows"

    async def check(pilot, tui):
        got = {"notices": [n.message for n in tui._notifications]}
        tui.action_write_golden()
        await settle(pilot, tui)
        got["status"] = str(tui.main.status.render())
        await pilot.press("ctrl+q")  # nothing to lose: it quits
        await settle(pilot, tui)
        return got

    seen = drive(monkeypatch, check)
    result = invoke("open", "--scan", results, "--samples-dir", rows)
    assert result.exit_code == 0, (result.output, result.exception)
    [(got, folder)] = seen
    assert folder == rows
    assert sorted(p.name for p in rows.iterdir()) == sorted(
        [name for _, name, _ in FAILING] + [name.replace(".txt", ".prompt.txt") for _, name, _ in FAILING]
        + ["row-000001.raised.template.expected-error.txt"])
    assert "temporary" not in got["status"] and any(f"The rows are in {rows}" in n for n in got["notices"])
    assert f"the rows, and the goldens and prompts saved beside them, are in {rows}" in result.output.replace("\n", "")
    # A folder that holds files already is not written into (rows from before open with `open DIR`).
    again = invoke("open", "--scan", results, "--samples-dir", rows)
    assert again.exit_code == 2 and "holds files already" in again.output, again.output
    lone = invoke("open", "sample.txt", "--samples-dir", tmp_path / "x")
    assert lone.exit_code == 2 and "--samples-dir goes with --scan RESULT" in lone.output, lone.output
