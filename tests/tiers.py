"""The fast tier: what a developer runs between edits, ``python -m pytest -m fast`` (under 3
minutes on this project's two shared cores). CI runs every test, this tier included.

It holds the engines' differential core (both formats against transformers, and the trace and
incremental reuse held to the plain parse), the floors and seam tests, and the family-wide tests
on a sample of families. conftest.py marks the tests; a test file joins the tier here."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

FAST_FILES = frozenset({
    # response_schema against transformers 5.14.1: hand-written and generated cases, the trace,
    # the subtree cache and memo (these two walk every family: sampled below)
    "test_engine_cases.py", "test_engine_generated.py", "test_trace.py", "test_subtree_cache.py",
    "test_subtree_memo.py",
    # response_template against its releases (one oracle server per release for the session)
    "test_template_engine.py", "test_template_generated.py", "test_template_trace.py",
    # the floors, the seam, the engine free of UI
    "test_floors.py", "test_format_seam.py", "test_engine_is_ui_free.py",
    # the families' samples against their goldens, in both formats (sampled below)
    "test_goldens.py", "test_never_silently_wrong.py", "test_output_shapes.py",
    # the tier itself
    "test_tiers.py",
})

# The files whose tests walk every family: a test whose id names a family ("qwen3/tool_call",
# "qwen3-response_schema") is fast for the sampled families only.
FAMILY_WIDE = frozenset({
    "test_subtree_cache.py", "test_subtree_memo.py", "test_goldens.py", "test_never_silently_wrong.py",
    "test_output_shapes.py",
})

# One family of each shape of output (JSON in tags, Harmony channels, XML parameters, key/value
# tags, special tokens, Gemma's own syntax, pythonic calls).
FAMILY_SAMPLE = frozenset({
    "qwen3", "hermes", "gpt_oss", "qwen3_coder", "glm45", "deepseek_v3_1", "gemma4", "llama4_pythonic",
})

# Generated examples per test in the fast tier, unless WORKBENCH_HYPOTHESIS_EXAMPLES says otherwise
# (the full suite runs 2500).
FAST_HYPOTHESIS_EXAMPLES = "300"

_ID_PARTS = re.compile(r"[^\[\]/-]+")


def families() -> set[str]:
    return {path.name for path in (ROOT / "sample_outputs").iterdir() if path.is_dir()}


def is_fast(nodeid: str, known_families: set[str]) -> bool:
    """Whether the test ``nodeid`` (``tests/file.py::test[params]``) is in the fast tier."""
    path, _, rest = nodeid.partition("::")
    name = Path(path).name
    if name not in FAST_FILES:
        return False
    if name not in FAMILY_WIDE or "[" not in rest:
        return True
    named = set(_ID_PARTS.findall(rest[rest.index("["):])) & known_families
    return not named or bool(named & FAMILY_SAMPLE)
