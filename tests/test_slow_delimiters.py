"""Delimiter patterns that make transformers' partial-mode search quadratic: told apart from linear
ones, warned about by `workbench validate` and the TUI, and absent from every shipped template."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.formats.template import template_problems
from workbench.engine.template.slow_delimiters import leading_repeat, slow_delimiters

ROOT = Path(__file__).resolve().parent.parent

SLOW = [
    r"\s*<tool_call>", r"(?<!\s)\s*<tool_call>", r"\s{0,100000}<x>", r"(?:(?<!\s)\s+)?</s>", r"(?<=\})\s*,",
    r"(?:^\s*|(?<=\})\s*(?:;\s*)?)\{", r"[ \t\n]*<x>", r"(?>\s*)<x>", r"\s*+<x>", r"<a>|\s+<b>",
    r"(?P<n>\s*)<x>", r"[\]]*x", r"(?:<a>)?\s*<b>", r"\n*<tool_call>",
    # a leading optional or alternating group holding a repeat (measured: quadratic in partial mode)
    r"(?:,\s*)?\}x", r"(?:,\s*\"name\"\s*:\s*\"[^\"]*\")?\}</t>", r"(?:<tool_calls>\s*|\n)\{", r"(?:\n|<t>\s*)\{",
    r"(?:```\s*<e>|<e>)\{",
]
LINEAR = [
    r"<tool_call>", r"</tool_call>\s*", r"\s{0,64}<tool_call>", r"^\s*<think>", r"(?:^|>>>)all\n",
    r"\n?<tool_call>", r"(?<=</function>)\s{0,64}</tool_call>", r"\s?<x>", r"<\|im_end\|>\s*", r"\[TOOL_CALLS\]\s*\[?",
    r"(?:<t>\s*)\{", r"(<t>\s*)\{", r"(?:<a>|<b>)\s*\{", r"(?:<t>|\n)\s*\{", r"(?:,x)?\}x", r"\}x|,\s*\"name\"\}x",
    r"(?:```\s*<e>|<e>)\s*", r"(?:<t>\s{0,9}|\n)\{",
]


@pytest.mark.parametrize("pattern", SLOW)
def test_a_pattern_that_can_begin_with_an_unbounded_repeat_is_found(pattern):
    assert leading_repeat(pattern) is not None


@pytest.mark.parametrize("pattern", LINEAR)
def test_a_literal_led_anchored_or_bounded_pattern_passes(pattern):
    assert leading_repeat(pattern) is None


QUADRATIC = {
    "version": 1,
    "start_anchor": "<|im_start|>assistant\n",
    "fields": {
        "tool_calls": {"open_pattern": "\\s*<tool_call>", "close": "</tool_call>", "repeats": True, "content": "json"},
        "content": {"close_pattern": "<\\|im_end\\|>\\s*", "content": "text"},
    },
}


def test_validate_and_the_tui_warn_at_the_delimiter(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(QUADRATIC))
    shown = subprocess.run([sys.executable, "-m", "workbench", "validate", str(path)], capture_output=True, text=True)
    assert shown.returncode == 0, shown.stderr  # a warning: transformers loads it
    assert "warning: /fields/tool_calls/open_pattern: begins with an unbounded repeat (\\s*)" in shown.stdout
    assert "ok (1 warning)" in shown.stdout and "content/close_pattern" not in shown.stdout
    problems, _ = template_problems(QUADRATIC)
    assert [(p.path, p.severity) for p in problems if "unbounded repeat" in p.message] == [("/fields/tool_calls/open_pattern", "warning")]



@pytest.mark.parametrize("path", sorted((ROOT / "schemas").glob("*.template.json")), ids=lambda p: p.name)
def test_no_shipped_template_has_a_quadratic_delimiter(path):
    assert list(slow_delimiters(json.loads(path.read_text(encoding="utf-8")))) == []
