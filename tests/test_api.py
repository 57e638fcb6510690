"""The Python API (workbench.parse_response / trace / validate): both formats, and runtime= as
--runtime is on the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import workbench
from workbench.engine.template import TemplateTrace
from workbench.formats.runtime_choice import RuntimeRefused

ROOT = Path(__file__).resolve().parent.parent
# A closer's named group used in the transform: 5.24 fills it, 5.13-5.23 raise KeyError.
CLOSER_GROUP = {"start_anchor": "@", "fields": {
    "x": {"open": "<x>", "close_pattern": "</(?P<tail>\\w+)>", "transform": {"t": "{tail}", "c": "{content}"}}}}


def test_a_template_runs_as_the_release_named():
    assert workbench.parse_response("<x>body</end>", CLOSER_GROUP, prefix="") == {"x": {"t": "end", "c": "body"}}
    with pytest.raises(KeyError, match="transform placeholder '{tail}' is not defined"):
        workbench.parse_response("<x>body</end>", CLOSER_GROUP, prefix="", runtime="5.23")
    traced = workbench.trace("<x>body</end>", CLOSER_GROUP, prefix="", runtime="5.23.0")
    assert isinstance(traced, TemplateTrace) and traced.error.type == "KeyError"


def test_a_template_needs_a_prefix_and_takes_tools_from_5_15():
    with pytest.raises(ValueError, match="requires `prefix`"):
        workbench.parse_response("<x>a</b>", CLOSER_GROUP)
    with pytest.raises(TypeError, match="unexpected keyword argument 'tools'"):
        workbench.parse_response("<x>a</b>", CLOSER_GROUP, prefix="", tools=[], runtime="5.14")


def test_a_schema_runs_as_5_14_and_is_refused_past_it():
    schema = json.loads((ROOT / "schemas" / "qwen3.json").read_text(encoding="utf-8"))
    text = (ROOT / "sample_outputs" / "qwen3" / "tool_call.txt").read_text(encoding="utf-8")
    expected = json.loads((ROOT / "sample_outputs" / "qwen3" / "tool_call.expected.json").read_text(encoding="utf-8"))
    assert workbench.parse_response(text, schema) == expected == workbench.parse_response(text, schema, runtime="5.10")
    assert workbench.trace(text, schema).value == expected
    with pytest.raises(RuntimeRefused, match="5.15 and later do not read response_schema"):
        workbench.parse_response(text, schema, runtime="5.24")
    with pytest.raises(TypeError, match="prefix= is for a response_template"):
        workbench.parse_response(text, schema, prefix="")


def test_bad_release_names_are_refused():
    for name in ("5.12", "5.25", "abc"):
        with pytest.raises(ValueError):
            workbench.parse_response("<x>a</b>", CLOSER_GROUP, prefix="", runtime=name)


def test_validate_speaks_both_formats():
    pythonic = json.loads((ROOT / "schemas" / "lfm2_pythonic.template.json").read_text(encoding="utf-8"))
    assert [p.severity for p in workbench.validate(pythonic)] == []
    [problem] = workbench.validate(pythonic, runtime="5.23")
    assert problem.severity == "error" and "unknown content parser 'python-call-list'" in problem.message
    assert workbench.validate({"type": "object", "properties": {"a": {"type": "string", "x-regex": "("}}})


def test_release_names_are_plain_numbers():
    from workbench.engine.releases import UnknownRelease, release

    assert str(release(" 5.23.0 ")) == "5.23" and str(release("5.24.0rc1")) == "5.24"
    for name in ("5.023", "٥.٢٣", "5.23.x", ""):
        with pytest.raises(UnknownRelease):
            release(name)


def test_a_loaded_template_keeps_its_release():
    from workbench.engine.template import load_template

    loaded = load_template(CLOSER_GROUP, "5.23")
    with pytest.raises(KeyError):
        workbench.parse_response("<x>body</end>", loaded, prefix="")


def test_the_matrix_says_when_no_release_loads_the_template():
    from workbench.engine.template.matrix import MatrixSample, release_matrix

    matrix = release_matrix({"fields": {"c": {}}}, [MatrixSample("a", "hi")])
    assert not matrix.same and matrix.lines() == ["releases: no release from 5.13 to 5.24 loads the template, so no sample was run"]
