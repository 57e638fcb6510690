"""Hostile cases about running the rows: tool schemas that fetch, break or backtrack, values nested
too deep, text the results cannot hold as it is, limits that are not limits, a scan killed mid-way."""

from __future__ import annotations

import json
import signal
from pathlib import Path

from . import PROMPT, Case, Outcome, good_rows, parser, write_jsonl

RESULTS = "gens.parser.scan.parquet"


def _call(arguments: str, name: str = "get_weather") -> str:
    return f'<tool_call>\n{{"name": "{name}", "arguments": {arguments}}}\n</tool_call><|im_end|>'


def _tool(parameters: dict, name: str = "get_weather") -> str:
    return json.dumps([{"type": "function", "function": {"name": name, "parameters": parameters}}])


def _scan(folder: Path, rows: list[dict], *extra: str) -> list[str]:
    data = write_jsonl(folder / "gens.jsonl", rows)
    return ["scan", str(data), "--template", str(parser(folder)), "--prompt-column", "prompt", "--num-proc", "2", *extra]


def _results(folder: Path) -> dict[str, list]:
    import pyarrow.parquet as pq

    return pq.read_table(folder / RESULTS).to_pydict()


def _details_say(*phrases: str):
    def check(folder: Path, got: Outcome) -> None:
        details = _results(folder)["detail"]
        for phrase in phrases:
            assert any(phrase in d for d in details), f"no row says {phrase!r}: {details}\n{got.shown()}"
    return check


def _ref_to_server(folder: Path, url: str) -> list[str]:
    # the schema names the local server: a scan that fetched it would show there (and traced back)
    parameters = {"type": "object", "properties": {"city": {"$ref": f"{url}/city.schema.json"}}}
    rows = [{"text": _call('{"city": "Paris"}'), "prompt": PROMPT, "tools": _tool(parameters)} for _ in range(6)]
    return _scan(folder, rows, "--tools-column", "tools")


def _broken_schemas(folder: Path, url: str) -> list[str]:
    broken = [
        {"type": "object", "properties": {"city": {"type": "town"}}},  # an unknown type
        {"type": "object", "properties": {"city": {"type": "string", "pattern": "(unclosed"}}},
        {"type": "object", "properties": {"city": {"type": "string", "maxLength": "x"}}},
        {"type": "object", "properties": {"city": {"$ref": "#/$defs/nowhere"}}},  # a dangling $ref
        {"type": "object", "properties": {"city": {"$ref": "file:///etc/passwd"}}},
    ]
    rows = [{"text": _call('{"city": "Paris"}'), "prompt": PROMPT, "tools": _tool(p)} for p in broken]
    return _scan(folder, rows, "--tools-column", "tools")


def _backtracking_pattern(folder: Path, url: str) -> list[str]:
    # jsonschema runs `pattern` with re and no limit: (a|aa)+$ on 60 a's and a b never ends
    parameters = {"type": "object", "properties": {"city": {"type": "string", "pattern": "^(a|aa)+$"}}}
    rows = [{"text": _call(json.dumps({"city": "a" * 60 + "b"})), "prompt": PROMPT, "tools": _tool(parameters)}]
    return _scan(folder, rows + good_rows(3), "--tools-column", "tools", "--time-limit", "0.5")


def _surrogate_key(folder: Path, url: str) -> list[str]:
    # the model wrote a key "\ud800" (a JSON escape of a lone surrogate): it reaches `where`
    expected = {"role": "assistant", "tool_calls": [{"type": "function", "function": {
        "name": "get_weather", "arguments": {"\ud800": 2}}}]}
    rows = [{"text": _call('{"\\ud800": 1}'), "prompt": PROMPT, "expected": json.dumps(expected)}] * 3
    return _scan(folder, rows, "--expected-column", "expected")


def _deep_columns(folder: Path, url: str) -> list[str]:
    deep = "[" * 20000 + "]" * 20000
    rows = [{"text": "Hi.<|im_end|>", "prompt": PROMPT, "expected": deep, "tools": None},
            {"text": _call('{"city": "Paris"}'), "prompt": PROMPT, "expected": None, "tools": deep},
            {"text": "Hi.<|im_end|>", "prompt": PROMPT, "expected": None, "tools": None}]
    return _scan(folder, rows, "--expected-column", "expected", "--tools-column", "tools")


def _time_limit(value: str):
    def build(folder: Path, url: str) -> list[str]:
        return _scan(folder, good_rows(), "--time-limit", value)
    return build


def _killed_mid_scan(folder: Path, url: str) -> list[str]:
    return _scan(folder, good_rows(40000), "--no-cache")


def _surrogate_check(folder: Path, got: Outcome) -> None:
    where = _results(folder)["where"]
    assert where[0] == "/tool_calls/0/function/arguments/\\ud800", got.shown()


CASES = [
    Case("tools-ref-to-server", _ref_to_server, frozenset({1}), outputs=(RESULTS,),
         check=_details_say("resolves to nothing")),
    Case("tools-broken-schemas", _broken_schemas, frozenset({1}), outputs=(RESULTS,),
         check=_details_say("the tool's schema is broken: SchemaError", "'/$defs/nowhere' resolves to nothing", "file:///etc/passwd")),
    Case("tools-backtracking-pattern", _backtracking_pattern, frozenset({1}), outputs=(RESULTS,), deadline=60,
         check=_details_say("ran past --time-limit")),
    Case("surrogate-in-where", _surrogate_key, frozenset({1}), outputs=(RESULTS,), check=_surrogate_check),
    Case("deep-expected-and-tools", _deep_columns, frozenset({1}), outputs=(RESULTS,),
         check=_details_say("nested too deep")),
    Case("time-limit-inf", _time_limit("inf"), frozenset({2}), says="--time-limit"),
    Case("time-limit-nan", _time_limit("nan"), frozenset({2}), says="--time-limit"),
    # SIGKILL cannot be caught: the scan's hidden partial file stays, and its workers must not
    Case("parent-killed-mid-scan", _killed_mid_scan, frozenset({-signal.SIGKILL}),
         outputs=(f".{RESULTS}.*.partial",), signal=(signal.SIGKILL, f".{RESULTS}.*.partial")),
]
