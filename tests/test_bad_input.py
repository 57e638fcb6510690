"""Bad input gets one sentence naming the file and the documented exit code, never a traceback or a
hang, and nothing it names is changed (issue 20: JSON nested too deeply, regexes and template keys
``re`` and the runtime's own code refuse with errors other than ``re.error`` / ValueError, files
that are not regular files or are too large)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import workbench
from workbench.engine import ParseFailure, errors
from workbench.engine.depth import MAX_JSON_DEPTH, RECURSION_LIMIT, RUNTIME_JSON_DEPTH, deep, too_deep
from workbench.engine.schema.regexes import compile_re
from workbench.engine.template import load_template, parse_response as template_parse_response
from workbench.engine.template.load import describe_load_error
from workbench.store.files import MAX_INPUT_BYTES, InputError, NestingError, load_json, parse_json_text, read_sample

from oracle import oracle_parse, same as _same


def load_failure(spec, runtime):
    """workbench.engine.template.load_failure at a release: None, or what loading ``spec`` raises, in one line."""
    try:
        load_template(spec, runtime=runtime)
    except Exception as exc:  # noqa: BLE001 - whatever the runtime raises on load is the answer
        return describe_load_error(exc)
    return None

ROOT = Path(__file__).resolve().parent.parent
QWEN = ROOT / "schemas" / "qwen3.json"
DEEP_TEXT = "[" * 100_000 + "]" * 100_000
TEMPLATE = {"start_anchor": "@", "fields": {"x": {"open": "<x>", "close": "</x>", "content": "json"}}}
TOOLS_SCHEMA = {
    "type": "object",
    "properties": {
        "tool_calls": {
            "type": "array",
            "x-regex-iterator": "<tool_call>(.*?)</tool_call>",
            "items": {
                "type": "object",
                "x-parser": "json",
                "properties": {"name": {"type": "string"}, "arguments": {"type": "object", "additionalProperties": {}}},
            },
        }
    },
}


def run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "workbench", *args],
        capture_output=True, text=True, encoding="utf-8", cwd=ROOT, stdin=subprocess.DEVNULL, timeout=timeout,
    )


def assert_clean(result: subprocess.CompletedProcess, code: int, *phrases: str, where: str = "stderr") -> None:
    assert result.returncode == code, result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    text = result.stderr if where == "stderr" else result.stdout
    for phrase in phrases:
        assert phrase in text, text


def snapshot(folder: Path) -> dict:
    """Every file under ``folder`` (regular files only) with its content's hash."""
    out = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.is_symlink():
            out[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def same(a: object, b: object) -> bool:
    with deep():  # the comparison recurses two frames a level
        return _same(a, b)


def nested_object_schema(levels: int) -> dict:
    node: dict = {"type": "string"}
    for _ in range(levels):
        node = {"type": "object", "properties": {"a": node}}
    return node


def nested_array_schema(levels: int) -> dict:
    node: dict = {"type": "string"}
    for _ in range(levels):
        node = {"type": "array", "items": node}
    return node


def nested_value(levels: int) -> object:
    value: object = "x"
    for _ in range(levels):
        value = [value]
    return value


def call(arguments_json: str) -> str:
    return '<tool_call>{"name": "f", "arguments": {"a": ' + arguments_json + "}}</tool_call>"


# ---- finding 10: JSON nested too deeply -----------------------------------------------------------


def test_depth_scan_skips_strings_and_finds_the_bracket_that_goes_too_deep():
    assert too_deep("[[[]]]", 3) is None and too_deep("[[[[]]]]" * 2, 3) == 3
    assert too_deep('["[[[[[[[[" , "]]]]"]' * 5, 2) is None  # brackets inside strings do not count
    assert too_deep('["\\"[[[[["]' * 5, 2) is None  # nor after an escaped quote
    assert too_deep(DEEP_TEXT, MAX_JSON_DEPTH) == MAX_JSON_DEPTH


def test_json_at_the_limit_is_read_and_one_level_more_is_refused_naming_line_and_column():
    at_limit = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    value, levels = parse_json_text(at_limit, "x.json"), 0
    while value != []:
        value, levels = value[0], levels + 1
    assert levels == MAX_JSON_DEPTH - 1
    with pytest.raises(NestingError, match=r"^x\.json:2:1001: JSON nested too deeply \(more than 1,000 levels"):
        parse_json_text("\n" + "[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1), "x.json")


def test_a_syntax_error_before_the_depth_is_reported_as_the_syntax_error():
    with pytest.raises(InputError, match=r"x\.json:1:4: invalid JSON: Expecting ',' delimiter") as caught:
        parse_json_text("[1 [" + DEEP_TEXT, "x.json")
    assert not isinstance(caught.value, NestingError)


def test_a_number_past_pythons_digit_limit_is_invalid_json_not_a_traceback():
    with pytest.raises(InputError, match=r"x\.json:1:1: invalid JSON: a number of 5,000 digits, past the 4,300"):
        parse_json_text("1" * 5000, "x.json")


@pytest.mark.parametrize("levels", [400, 490])
def test_a_deep_object_schema_parses_as_transformers_parses_it(levels):
    """A schema nested 400 levels (valid JSON, 801 levels of it) failed with RecursionError in
    engine/parse.py; transformers 5.14.1 handles it, and so do parse_response, trace and validate."""
    schema = nested_object_schema(levels)
    expected = oracle_parse("hello", schema)
    assert same(workbench.parse_response("hello", schema), expected)
    result = workbench.trace("hello", schema)
    assert result.ok and same(result.value, expected)
    with deep():
        assert result.root.to_dict()  # the trace's JSON view walks the same depth (the CLI raises the limit)
    assert workbench.validate(schema) == []


def test_a_deep_array_schema_on_deep_content_parses_as_transformers_parses_it():
    levels = 900  # recursive_parse's own limit is about 995 levels (one frame each)
    schema, content = nested_array_schema(levels), nested_value(levels)
    expected = oracle_parse(content, schema)
    assert same(workbench.parse_response(content, schema), expected)
    assert same(workbench.trace(content, schema).value, expected)
    assert workbench.validate(schema) == []


def test_the_engine_puts_the_recursion_limit_back():
    before = sys.getrecursionlimit()
    workbench.parse_response("hello", nested_object_schema(10))
    workbench.trace("hello", nested_object_schema(10))
    workbench.validate(nested_object_schema(10))
    assert sys.getrecursionlimit() == before
    with deep():
        assert sys.getrecursionlimit() >= RECURSION_LIMIT
        with deep():
            pass
        assert sys.getrecursionlimit() >= RECURSION_LIMIT
    assert sys.getrecursionlimit() == before


def test_tool_arguments_nested_too_deep_fail_at_their_node_where_transformers_raises():
    """transformers' json.loads raises RecursionError on arguments nested 100,000 deep (uncaught,
    even with allow_non_json); ours fails at the node, naming it and saying so."""
    text = call(DEEP_TEXT)
    with pytest.raises(RecursionError):
        oracle_parse(text, TOOLS_SCHEMA)
    lenient = json.loads(json.dumps(TOOLS_SCHEMA))
    lenient["properties"]["tool_calls"]["items"]["x-parser-args"] = {"allow_non_json": True}
    with pytest.raises(RecursionError):
        oracle_parse(text, lenient)
    for schema in (TOOLS_SCHEMA, lenient):
        with pytest.raises(ParseFailure) as caught:
            workbench.parse_response(text, schema)
        assert caught.value.path == "/properties/tool_calls/items"
        assert "RecursionError" in caught.value.message and f"about {RUNTIME_JSON_DEPTH} levels" in caught.value.message
        result = workbench.trace(text, schema)
        assert not result.ok and result.error_path == "/properties/tool_calls/items"


def test_tool_arguments_nested_within_the_runtimes_reach_parse_as_transformers_parses_them():
    text = call("[" * 500 + "]" * 500)
    expected = oracle_parse(text, TOOLS_SCHEMA)
    assert same(workbench.parse_response(text, TOOLS_SCHEMA), expected)
    assert same(workbench.trace(text, TOOLS_SCHEMA).value, expected)


def test_a_syntax_error_in_deep_arguments_stays_the_json_error(tmp_path):
    text = call("[1 [" + "[" * 3000)
    with pytest.raises(ValueError, match="could not parse its contents as JSON"):
        oracle_parse(text, TOOLS_SCHEMA)
    with pytest.raises(ParseFailure, match="Expecting ',' delimiter"):
        workbench.parse_response(text, TOOLS_SCHEMA)


def test_template_json_content_nested_too_deep_raises_what_the_runtime_raises(release, release_oracle):
    text = "@<x>" + DEEP_TEXT + "</x>"
    kind, error_type, message = release_oracle.parse(text, TEMPLATE)
    assert (kind, error_type) == ("error", "RecursionError")
    with pytest.raises(RecursionError) as caught:
        template_parse_response(text, TEMPLATE, prefix="", runtime=release.runtime)
    assert str(caught.value) == message
    shallow = "@<x>" + "[" * 300 + "]" * 300 + "</x>"
    assert release_oracle.parse(shallow, TEMPLATE) == ("value", template_parse_response(shallow, TEMPLATE, prefix="", runtime=release.runtime))


@pytest.fixture
def deep_files(tmp_path: Path) -> Path:
    (tmp_path / "deep.json").write_text(DEEP_TEXT, encoding="utf-8")
    (tmp_path / "sample.txt").write_text("hello", encoding="utf-8")
    (tmp_path / "template.json").write_text(json.dumps(TEMPLATE), encoding="utf-8")
    (tmp_path / "schema.json").write_text(json.dumps(TOOLS_SCHEMA), encoding="utf-8")
    tok = tmp_path / "tok"
    tok.mkdir()
    (tok / "tokenizer_config.json").write_text(DEEP_TEXT, encoding="utf-8")
    proc = tmp_path / "proc"
    proc.mkdir()
    (proc / "chat_template.json").write_text(DEEP_TEXT, encoding="utf-8")
    return tmp_path


NESTED = "JSON nested too deeply (more than 1,000 levels"


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["validate", "{d}/deep.json"], "deep.json"),
        (["parse", "{d}/sample.txt", "--schema", "{d}/deep.json"], "deep.json"),
        (["parse", "{d}/sample.txt", "--schema", "{d}/template.json", "--tools", "{d}/deep.json"], "deep.json"),
        (["parse", "{d}/sample.txt", "--schema", "{d}/template.json", "--prefix-file", "{d}/deep.json"], None),
        (["export", "{d}/deep.json", "-o", "{d}/out.json"], "deep.json"),
        (["export", "{d}/schema.json", "--tokenizer-dir", "{d}/tok"], "tokenizer_config.json"),
        (["migrate", "{d}/deep.json", "-o", "{d}/out.json", "--start-anchor", "@"], "deep.json"),
        (["open", "{d}/sample.txt", "--schema", "{d}/deep.json"], "deep.json"),
        (["open", "{d}/sample.txt", "--schema", "{d}/template.json", "--tools", "{d}/deep.json"], "deep.json"),
        (["roundtrip", "--chat-template", "{d}/tok", "--schema", "{d}/schema.json"], "tokenizer_config.json"),
        (["roundtrip", "--chat-template", "{d}/proc", "--schema", "{d}/schema.json"], "chat_template.json"),
        (["draft", "--chat-template", "{d}/tok"], "tokenizer_config.json"),
    ],
    ids=[
        "validate", "parse-schema", "parse-tools", "parse-prompt-is-text", "export", "export-tokenizer-config",
        "migrate", "open", "open-tools", "roundtrip-tokenizer-config", "roundtrip-chat-template-json", "draft",
    ],
)
def test_every_command_refuses_json_nested_too_deeply_in_one_sentence(deep_files, args, named):
    before = snapshot(deep_files)
    result = run(*[a.format(d=deep_files) for a in args])
    after = snapshot(deep_files)
    assert after == before  # nothing written, nothing changed
    if named is None:  # a prompt is text, not JSON: read as it is
        assert "Traceback" not in result.stdout + result.stderr and result.returncode == 0, result.stderr
        return
    assert_clean(result, 2, named, NESTED)
    assert len([line for line in result.stderr.splitlines() if NESTED in line]) == 1


def test_check_reports_a_schema_nested_too_deeply_in_its_row(tmp_path):
    schemas, samples = tmp_path / "schemas", tmp_path / "sample_outputs" / "fam"
    schemas.mkdir()
    samples.mkdir(parents=True)
    (schemas / "fam.json").write_text(DEEP_TEXT, encoding="utf-8")
    (samples / "a.txt").write_text("hello", encoding="utf-8")
    (samples / "a.expected.json").write_text(DEEP_TEXT, encoding="utf-8")
    before = snapshot(tmp_path)
    result = run("check", str(schemas), str(tmp_path / "sample_outputs"), "--json")
    assert snapshot(tmp_path) == before
    assert_clean(result, 1, "nested too deeply", where="stdout")


def test_check_with_a_golden_nested_too_deeply_does_not_crash(tmp_path):
    schemas, samples = tmp_path / "schemas", tmp_path / "sample_outputs" / "fam"
    schemas.mkdir()
    samples.mkdir(parents=True)
    (schemas / "fam.json").write_text(json.dumps({"type": "object", "properties": {"content": {"type": "string"}}}), encoding="utf-8")
    (samples / "a.txt").write_text("hello", encoding="utf-8")
    (samples / "a.expected.json").write_text(DEEP_TEXT, encoding="utf-8")
    result = run("check", str(schemas), str(tmp_path / "sample_outputs"))
    assert result.returncode == 1 and "Traceback" not in result.stdout + result.stderr


def test_a_deep_schema_and_deep_arguments_work_through_the_cli(tmp_path):
    schema = tmp_path / "schema400.json"
    schema.write_text(json.dumps(nested_object_schema(400)), encoding="utf-8")
    sample = tmp_path / "sample.txt"
    sample.write_text("hello", encoding="utf-8")
    for command in (["validate", str(schema)], ["parse", str(sample), "--schema", str(schema), "--trace"]):
        result = run(*command)
        assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(TOOLS_SCHEMA), encoding="utf-8")
    deep_args = tmp_path / "deep_args.txt"
    deep_args.write_text(call(DEEP_TEXT), encoding="utf-8")
    assert_clean(run("parse", str(deep_args), "--schema", str(tools)), 1, "/properties/tool_calls/items", "RecursionError")
    ok_args = tmp_path / "ok_args.txt"
    ok_args.write_text(call("[" * 900 + "]" * 900), encoding="utf-8")
    result = run("parse", str(ok_args), "--schema", str(tools), "--trace")
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    template = tmp_path / "template.json"
    template.write_text(json.dumps(TEMPLATE), encoding="utf-8")
    content = tmp_path / "content.txt"
    content.write_text("@<x>" + DEEP_TEXT + "</x>", encoding="utf-8")
    for extra in ([], ["--trace"]):
        assert_clean(run("parse", str(content), "--schema", str(template), *extra), 1, "RecursionError: maximum recursion depth exceeded")


# ---- finding 11: regexes and template keys refused with other errors ---------------------------------

OVERFLOW = "(a{4294967295})"
DEEP_GROUPS = "(" * 100_000 + "a" + ")" * 100_000


@pytest.mark.parametrize("pattern", [OVERFLOW, DEEP_GROUPS], ids=["overflow", "deep-groups"])
def test_a_regex_re_refuses_with_any_error_is_an_invalid_regex_at_its_node(pattern):
    with pytest.raises(ParseFailure, match="invalid regex"):
        compile_re(pattern)
    schema = {"type": "object", "properties": {"c": {"type": "string", "x-regex": pattern}}}
    with pytest.raises((OverflowError, RecursionError)):  # what transformers raises
        oracle_parse("aaaa", schema)
    with pytest.raises(ParseFailure) as caught:
        workbench.parse_response("aaaa", schema)
    assert caught.value.path == "/properties/c" and len(str(caught.value)) < 400
    result = workbench.trace("aaaa", schema)
    assert not result.ok and result.error_path == "/properties/c"
    problems = errors(workbench.validate(schema))
    assert [p.path for p in problems] == ["/properties/c/x-regex"]
    assert "Python's re rejects this regex" in problems[0].message


@pytest.mark.parametrize(("levels", "fails"), [(400, False), (600, True)])
def test_groups_nested_past_what_the_runtimes_re_compiles_fail_as_there(levels, fails):
    """Our walks run under a higher recursion limit than transformers', so how deep ``re`` may
    nest groups is decided as the runtime's limit decides it (about 495 levels), not by ours."""
    pattern = "(?:" * (levels - 1) + "(a)" + ")" * (levels - 1)
    schema = {"type": "object", "properties": {"c": {"type": "string", "x-regex": pattern}}}
    if not fails:
        assert same(workbench.parse_response("a", schema), oracle_parse("a", schema))
        assert errors(workbench.validate(schema)) == []
        return
    with pytest.raises(RecursionError):
        oracle_parse("a", schema)
    with pytest.raises(ParseFailure, match="RecursionError: groups nested too deeply") as caught:
        workbench.parse_response("a", schema)
    assert caught.value.path == "/properties/c"
    assert [p.path for p in errors(workbench.validate(schema))] == ["/properties/c/x-regex"]


@pytest.mark.parametrize(
    ("opener", "levels", "fails"),
    [("(", 280, False), ("(", 400, True), ("(?:", 150, False), ("(?:", 300, True), ("(?=", 200, False), ("(?=", 300, True)],
)
def test_template_patterns_nested_past_what_the_runtimes_regex_compiles_fail_as_there(release, release_oracle, opener, levels, fails):
    """The template runtime's ``regex`` spends three to five frames a level of nesting, by kind of
    group; the message of its RecursionError depends on where in its compiler the limit strikes."""
    pattern = opener * levels + "<x>" + ")" * levels
    template = {"start_anchor": "@", "fields": {"x": {"open_pattern": pattern, "close": "</x>"}}}
    if opener == "(":
        template["fields"]["x"]["transform"] = {"content": "{content}"}  # named or not, groups need none
    expected = release_oracle.parse("@<x>hi</x>", template)
    failure = load_failure(template, release.runtime)
    if fails:
        assert expected[:2] == ("error", "RecursionError")
        assert failure.startswith("RecursionError: maximum recursion depth exceeded")
    else:
        assert failure is None and expected == ("value", template_parse_response("@<x>hi</x>", template, prefix="", runtime=release.runtime))


@pytest.mark.parametrize(("levels", "fails"), [(300, False), (700, True)])
def test_template_defaults_nested_past_what_the_runtime_copies_fail_as_there(release, release_oracle, levels, fails):
    defaults: object = "assistant"
    for _ in range(levels):
        defaults = {"a": defaults}
    template = {"start_anchor": "@", "defaults": defaults, "fields": {"x": {}}}
    expected = release_oracle.parse("@hi", template)
    failure = load_failure(template, release.runtime)
    if fails:
        assert expected[:2] == ("error", "RecursionError") and failure.startswith("RecursionError: maximum recursion depth exceeded")
    else:
        assert failure is None and expected[0] == "value"
        with deep():
            assert expected[1] == template_parse_response("@hi", template, prefix="", runtime=release.runtime)


def test_a_substitution_pattern_re_refuses_is_an_error_at_its_pointer():
    schema = {"type": "string", "x-regex-substitutions": [[OVERFLOW, "b"]]}
    problems = errors(workbench.validate(schema))
    assert [p.path for p in problems] == ["/x-regex-substitutions/0/0"]
    with pytest.raises(ParseFailure, match="OverflowError"):
        workbench.parse_response("a", schema)


@pytest.fixture
def overflow_files(tmp_path: Path) -> Path:
    schema = {"type": "object", "properties": {"content": {"type": "string", "x-regex": OVERFLOW}}}
    (tmp_path / "overflow.json").write_text(json.dumps(schema), encoding="utf-8")
    (tmp_path / "content_dict.json").write_text(
        json.dumps({"start_anchor": "@", "fields": {"x": {"content": {"type": "json"}}}}), encoding="utf-8"
    )
    (tmp_path / "pattern_int.json").write_text(
        json.dumps({"start_anchor": "@", "fields": {"x": {"open_pattern": 5}}}), encoding="utf-8"
    )
    (tmp_path / "sample.txt").write_text("hello", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(
    ("args", "code", "phrases"),
    [
        (["validate", "{d}/overflow.json"], 1, ["/properties/content/x-regex", "OverflowError: the repetition number is too large"]),
        (["parse", "{d}/sample.txt", "--schema", "{d}/overflow.json"], 2, ["OverflowError", "the schema has errors"]),
        (["export", "{d}/overflow.json", "-o", "{d}/out.json"], 2, ["OverflowError", "nothing was written"]),
        (["migrate", "{d}/overflow.json", "-o", "{d}/out.json", "--start-anchor", "@"], 2, ["OverflowError"]),
        (["validate", "{d}/content_dict.json"], 1, ["content_dict.json: error TypeError: unhashable type: 'dict'"]),
        (["validate", "{d}/pattern_int.json"], 1, ["error TypeError: first argument must be a string or compiled pattern"]),
        (["parse", "{d}/sample.txt", "--schema", "{d}/content_dict.json"], 2, ["content_dict.json: TypeError: unhashable type: 'dict'"]),
        (["parse", "{d}/sample.txt", "--schema", "{d}/content_dict.json", "--trace"], 2, ["TypeError: unhashable type: 'dict'"]),
        (["parse", "{d}/sample.txt", "--schema", "{d}/content_dict.json", "--stream"], 2, ["TypeError: unhashable type: 'dict'"]),
        (["export", "{d}/content_dict.json", "-o", "{d}/out.json"], 2, ["TypeError: unhashable type: 'dict'", "nothing was written"]),
        (["open", "{d}/sample.txt", "--schema", "{d}/content_dict.json", "--chat-template", str(ROOT / "tests" / "chat_templates" / "hermes.jinja")], 2, ["TypeError: unhashable type: 'dict'"]),
    ],
    ids=[
        "validate-overflow", "parse-overflow", "export-overflow", "migrate-overflow", "validate-content-dict",
        "validate-pattern-int", "parse-content-dict", "trace-content-dict", "stream-content-dict", "export-content-dict",
        "open-probes-content-dict",
    ],
)
def test_regexes_and_template_keys_refused_by_other_errors_give_one_sentence(overflow_files, args, code, phrases):
    before = snapshot(overflow_files)
    result = run(*[a.format(d=overflow_files) for a in args])
    assert snapshot(overflow_files) == before
    where = "stdout" if args[0] == "validate" else "stderr"
    assert_clean(result, code, *phrases, where=where)


def test_check_reports_a_template_transformers_refuses_with_a_type_error(overflow_files, tmp_path):
    schemas, samples = tmp_path / "schemas", tmp_path / "sample_outputs" / "fam"
    schemas.mkdir()
    samples.mkdir(parents=True)
    (schemas / "fam.template.json").write_bytes((overflow_files / "content_dict.json").read_bytes())
    (samples / "a.txt").write_text("hello", encoding="utf-8")
    result = run("check", str(schemas), str(tmp_path / "sample_outputs"), "--json")
    assert_clean(result, 1, "TypeError: unhashable type: 'dict'", where="stdout")


WRONG_TYPED = {
    "content-dict": {"x": {"content": {"type": "json"}}},
    "content-list": {"x": {"content": ["json"]}},
    "content-int": {"x": {"content": 5}},
    "open-pattern-int": {"x": {"open_pattern": 5}},
    "open-pattern-list": {"x": {"open_pattern": ["<x>"]}},
    "close-pattern-dict": {"x": {"open": "<x>", "close_pattern": {}}},
    "close-pattern-null": {"x": {"open": "<x>", "close_pattern": None}},
    "open-pattern-overflow": {"x": {"open_pattern": OVERFLOW}},
    "transform-each-string": {"x": {"transform": "{content}", "transform_each": "yes"}},
    "join-int": {"x": {"join": 1, "repeats": True}},
    "repeats-dict": {"x": {"open": "<x>", "repeats": {}}},
}


@pytest.mark.parametrize("case", list(WRONG_TYPED))
def test_wrong_typed_template_keys_fail_to_load_as_the_runtime_fails(release, release_oracle, case):
    template = {"start_anchor": "@", "fields": WRONG_TYPED[case]}
    expected = release_oracle.parse("@hello", template)
    failure = load_failure(template, release.runtime)
    if expected[0] == "value":
        assert failure is None
        return
    _, error_type, message = expected
    assert failure == (message if error_type == "ValueError" else f"{error_type}: {message}")


def test_a_start_anchor_pattern_that_is_not_a_string_fails_as_the_runtime_fails(release, release_oracle):
    template = {"start_anchor_pattern": 3, "fields": {"x": {}}}
    assert release_oracle.parse("hello", template) == ("error", "TypeError", "first argument must be a string or compiled pattern")
    assert load_failure(template, release.runtime) == "TypeError: first argument must be a string or compiled pattern"


# ---- finding 12: files that are not regular files, or too large ---------------------------------------


def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match=r"fifo: not a regular file \(a FIFO\), so not read as a sample file"):
        read_sample(fifo)
    with pytest.raises(InputError, match="not a regular file"):
        load_json(fifo, "tools")


def test_a_device_and_a_file_past_the_size_cap_are_refused(tmp_path):
    with pytest.raises(InputError, match=r"/dev/zero: not a regular file \(a device\)"):
        read_sample("/dev/zero")
    big = tmp_path / "big.txt"
    with big.open("wb") as handle:  # sparse: no disk used
        handle.truncate(MAX_INPUT_BYTES + 1)
    with pytest.raises(InputError, match=r"big\.txt: 67,108,865 bytes, larger than the 64 MiB"):
        read_sample(big)
    fine = tmp_path / "fine.txt"
    fine.write_bytes(b"a\r\nb")
    assert read_sample(fine) == "a\r\nb"


@pytest.fixture
def special_files(tmp_path: Path) -> Path:
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "sample.txt").write_text("hello", encoding="utf-8")
    (tmp_path / "template.json").write_text(json.dumps(TEMPLATE), encoding="utf-8")
    with (tmp_path / "big.txt").open("wb") as handle:
        handle.truncate(MAX_INPUT_BYTES + 1)
    return tmp_path


@pytest.mark.parametrize(
    ("args", "phrase"),
    [
        (["parse", "/dev/zero", "--schema", str(QWEN)], "/dev/zero: not a regular file (a device)"),
        (["parse", "{d}/fifo", "--schema", str(QWEN)], "fifo: not a regular file (a FIFO)"),
        (["parse", "{d}/big.txt", "--schema", str(QWEN)], "larger than the 64 MiB"),
        (["parse", "{d}/sample.txt", "--schema", "{d}/fifo"], "fifo: not a regular file (a FIFO), so not read as a schema file"),
        (["parse", "{d}/sample.txt", "--schema", "/dev/zero"], "not a regular file (a device)"),
        (["parse", "{d}/sample.txt", "--schema", "{d}/template.json", "--prefix-file", "{d}/fifo"], "not a regular file (a FIFO)"),
        (["parse", "{d}/sample.txt", "--schema", "{d}/template.json", "--tools", "{d}/fifo"], "not a regular file (a FIFO)"),
        (["validate", "{d}/fifo"], "not a regular file (a FIFO)"),
        (["export", "{d}/fifo", "-o", "{d}/out.json"], "not a regular file (a FIFO)"),
        (["migrate", "/dev/zero", "-o", "{d}/out.json", "--start-anchor", "@"], "not a regular file (a device)"),
        (["open", "{d}/fifo", "--schema", str(QWEN)], "not a regular file (a FIFO)"),
        (["open", "{d}/sample.txt", "--schema", "{d}/fifo"], "not a regular file (a FIFO)"),
    ],
    ids=[
        "parse-dev-zero", "parse-fifo", "parse-too-large", "schema-fifo", "schema-dev-zero", "prompt-fifo",
        "tools-fifo", "validate-fifo", "export-fifo", "migrate-dev-zero", "open-fifo", "open-schema-fifo",
    ],
)
def test_special_files_and_huge_files_are_refused_in_one_sentence(special_files, args, phrase):
    result = run(*[a.format(d=special_files) for a in args], timeout=30)
    assert_clean(result, 2, phrase)
    assert not (special_files / "out.json").exists()


def test_the_runtime_depth_check_leaves_what_is_not_text_to_json_loads():
    """A value that is not text reaches json.loads, which names its type as the runtime's does
    (glm45's template casts a missing argument)."""
    from workbench.engine.template.tools import cast

    with pytest.raises(TypeError, match="the JSON object must be str, bytes or bytearray, not NoneType"):
        cast(None, ("object",))
