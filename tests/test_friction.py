"""Issue 23's friction: the round trip's report (both parsers side by side, differences shown where
they are), and small things in the TUI and the CLI's help."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from typer.testing import CliRunner

from workbench.cli.app import app
from workbench.cli.roundtrip import difference_line
from workbench.engine.chat_template.roundtrip import PROBES, roundtrip

ROOT = Path(__file__).resolve().parent.parent
CHAT = Path(__file__).parent / "chat_templates"


def run(*args):
    result = CliRunner().invoke(app, [*map(str, args)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def test_a_difference_past_the_preview_length_is_shown_in_both_values():
    def parse(output, prompt):  # gives the probe back with one argument's type changed, deep inside
        message = copy.deepcopy(PROBES["one_call"])
        message["tool_calls"][0]["function"]["arguments"]["filters"]["limit"] = "5"
        return message
    source = (CHAT / "thinking_chatml.jinja").read_text(encoding="utf-8")
    result = next(r for r in roundtrip(source, parse) if r.name == "one_call")
    line = difference_line(result.differences[0])
    assert '"limit": 5' in line and '"limit": "5"' in line, line


def test_the_reasoning_difference_names_the_probes_own_key():
    result = run("roundtrip", "--chat-template", CHAT / "thinking_chatml.jinja", "--template", ROOT / "schemas" / "hermes.template.json")
    assert "the parser is wrong: /thinking" in result.stdout
    assert "the parser is wrong: /reasoning_content" in result.stdout
    report = json.loads(run("roundtrip", "--chat-template", CHAT / "thinking_chatml.jinja", "--template",
                            ROOT / "schemas" / "hermes.template.json", "--json").stdout)
    paths = {r["probe"]: [d["path"] for d in r["differences"]] for r in report}
    assert "/thinking" in paths["reasoning_as_thinking"]
