"""``workbench validate`` on a template that uses any of what 5.24 changed states the release
split (or, where 5.13–5.23 refuse the key, the narrowing to 5.24) at the key; on every shipped
template it names 5.24, the newest release it was checked to."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from workbench.cli.app import app

ROOT = Path(__file__).resolve().parent.parent
XML = {"tag_pattern": r"<(?P<key>\w+)>(?P<value>.*?)</(?P=key)>"}

# change -> (template fields, the key named, what validate says there)
USES = {
    "python-call-list": ({"c": {"open": "<c>", "content": "python-call-list"}}, "/fields/c/content",
                         "python-call-list parser exists from 5.24"),
    "python-call-list as a value parser": (
        {"c": {"open": "<c>", "content": "xml-inline", "content_args": {**XML, "value_parser": {"name": "python-call-list"}}}},
        "/fields/c/content_args/value_parser/name", "python-call-list parser exists from 5.24"),
    "unquoted_keys": ({"c": {"open": "<c>", "content": "json", "content_args": {"unquoted_keys": True}}},
                      "/fields/c/content_args/unquoted_keys", "release split at 5.24"),
    "merge_duplicates": ({"c": {"open": "<c>", "content": "xml-inline", "content_args": {**XML, "merge_duplicates": True}}},
                         "/fields/c/content_args/merge_duplicates", "release split at 5.24"),
    "closer groups used": ({"c": {"open": "<c>", "close_pattern": "</(?P<t>\\w+)>", "transform": "{t}"}},
                           "/fields/c/close_pattern", "placeholders from 5.24"),
    "closer groups unused": ({"c": {"open": "<c>", "close_pattern": "</(?P<t>\\w+)>", "transform": "{content}"}},
                             "/fields/c/close_pattern", "release split at 5.24"),
    "hold-back ($)": ({"c": {"open": "<c>", "close_pattern": "$"}}, "/fields/c/close_pattern", "release split at 5.24"),
    "hold-back (\\K)": ({"c": {"open_pattern": "<\\K", "close": ">"}}, "/fields/c/open_pattern", "release split at 5.24"),
}


def validate(tmp_path: Path, fields: dict) -> str:
    path = tmp_path / "t.template.json"
    path.write_text(json.dumps({"start_anchor": "@", "fields": fields}), encoding="utf-8")
    result = CliRunner().invoke(app, ["validate", str(path)])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("use", list(USES))
def test_a_template_using_a_524_change_is_told_where_releases_part(use, tmp_path):
    fields, key, said = USES[use]
    output = validate(tmp_path, fields)
    assert said in output, output
    assert any(key in line and "5.24" in line for line in output.splitlines()), output


def test_a_template_using_none_of_them_has_no_split(tmp_path):
    output = validate(tmp_path, {"c": {"open": "<c>", "close": "</c>"}})
    assert "release split" not in output and "checked to 5.24" in output


@pytest.mark.parametrize("template", sorted((ROOT / "schemas").glob("*.template.json")), ids=lambda p: p.name)
def test_validate_names_5_24_on_every_shipped_template(template):
    result = CliRunner().invoke(app, ["validate", str(template)])
    assert result.exit_code == 0, result.output
    assert "checked to 5.24" in result.output
