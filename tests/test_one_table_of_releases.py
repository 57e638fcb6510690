"""One table of releases (issue 34): a transformers release is written down in
``workbench/engine/releases.py`` only; every other module asks it (``release_of_change``,
``NEWEST``, the format facts) and words its messages from it. And one verifier's word: the TUI's
export, which checks with the one transformers installed, says so and names the command that
checks every release range."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from workbench.engine import releases
from workbench.engine.chat_template.draft import release as draft_release
from workbench.engine.releases import CHANGES, NEWEST, release_of_change
from workbench.jobs.export import Verification, export_to

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "workbench"
THE_TABLE = "workbench/engine/releases.py"
# Where a release literal may stay outside the table, and why. Keep this short: generate the
# sentence from releases.py instead.
ALLOWED: set[str] = set()
# "5.16", "5.24.0", "5.3–5.14", "transformers>=5.15": a 5.x release inside any string (not a
# version such as 0.5.1 or 15.3).
RELEASE_TEXT = re.compile(r"(?<![\w.])5\.\d+(?:\.\d+)?(?![\w.])")


def _docstrings(tree: ast.AST) -> set[int]:
    """Docstrings describe; they are not facts the code acts on or says."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                found.add(id(first.value))
    return found


def release_literals(source: str) -> list[tuple[int, str]]:
    """(line, literal) for each tuple or list (5, N[, P]) of ints and each string (an f-string's
    text parts too) that names a 5.x release, docstrings left out."""
    tree = ast.parse(source)
    docs = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Tuple, ast.List)) and len(node.elts) in (2, 3) and all(
                isinstance(e, ast.Constant) and type(e.value) is int for e in node.elts) and node.elts[0].value == 5:
            found.append((node.lineno, ast.unparse(node)))
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
              and RELEASE_TEXT.search(node.value)):
            found.append((node.lineno, repr(node.value[:80])))
    return found


def test_the_scan_finds_release_literals():
    source = ('"""Docs may say 5.24."""\nA = (5, 21)\nB = [5, 16, 0]\nC = "5.24.0"\nD = f"from 5.16 on {x}"\n'
              'E = "pip install \'transformers>=5.3,<5.15\'"\nF = (0, 5)\nG = "0.5.1 and 15.3"\n')
    assert sorted(line for line, _ in release_literals(source)) == [2, 3, 4, 5, 6]


def test_a_release_is_written_down_only_in_the_table():
    outside = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        if name == THE_TABLE or name in ALLOWED:
            continue
        outside += [f"{name}:{line}: {literal}" for line, literal in release_literals(path.read_text(encoding="utf-8"))]
    assert outside == [], "ask workbench/engine/releases.py instead:\n" + "\n".join(outside)


def test_the_allow_list_holds_only_what_is_still_there():
    for name in ALLOWED:
        assert release_literals((ROOT / name).read_text(encoding="utf-8")), f"{name} holds no release literal now"


def test_each_change_is_asked_by_name():
    assert {change.name: str(release_of_change(change.name)) for change in CHANGES}["python_call_list"] == str(NEWEST)
    assert releases.before("join") == "5.13–5.15" and releases.just_before((5, 13)) == releases.Release((5, 12))


def test_the_draft_reads_release_names_as_the_table_does():
    """The draft's second release parser is gone: it reads names as ``releases.minor_of``."""
    assert draft_release(None) == NEWEST.minor
    assert draft_release(" 5.23.0 ") == (5, 23) and draft_release("5.24.0rc1") == (5, 24)
    draft_source = (PACKAGE / "engine" / "chat_template" / "draft.py").read_text(encoding="utf-8")
    assert "minor_of" in draft_source and r"(\d+)\.(\d+)" not in draft_source


def test_the_ranges_export_verify_checks_are_read_off_the_table():
    from workbench.formats.tokenizer_reads import ALWAYS_SPLIT, RANGE_RUNTIME

    assert RANGE_RUNTIME == {(5, 15): "5.15.0", (5, 16): "5.16.0", (5, 18): "5.18.0", (5, 20): "5.20.0",
                             (5, 21): "5.23.0", (5, 24): "5.24.0"}
    assert ALWAYS_SPLIT == (NEWEST.minor,)


# ----- the TUI's export: one release, and it says so -------------------------------------------


def test_the_tuis_export_says_it_checked_one_release_and_how_to_check_every_range(tmp_path):
    folder = tmp_path / "tok"
    folder.mkdir()
    (folder / "tokenizer_config.json").write_text("{}", encoding="utf-8")
    schema = (ROOT / "schemas" / "qwen3.json").read_text(encoding="utf-8")
    source = tmp_path / "my schema.json"

    def verifier(staged, value, sample_text, shown=None):
        return Verification(True, ["loaded with transformers 5.14.1", "response_schema loaded back unchanged"], "5.14.1")

    lines = export_to(schema, folder, None, verifier=verifier, source=source)
    note = next(line for line in lines if "one release" in line)
    assert note == (f"checked with one release only, transformers 5.14.1, the one installed here; to check every "
                    f"release range: workbench export '{source}' --tokenizer-dir {folder} --verify")


def test_a_failed_check_names_its_one_release_too(tmp_path):
    folder = tmp_path / "tok"
    folder.mkdir()
    (folder / "tokenizer_config.json").write_text("{}", encoding="utf-8")
    schema = (ROOT / "schemas" / "qwen3.json").read_text(encoding="utf-8")

    def verifier(staged, value, sample_text, shown=None):
        return Verification(False, ["loaded with transformers 5.23.0", "the loaded tokenizer's response_schema differs"],
                            "5.23.0")

    try:
        export_to(schema, folder, None, verifier=verifier)
    except Exception as exc:  # ExportRefused
        message = str(exc)
    assert message.startswith("VERIFY FAILED, nothing written")
    assert "checked with one release only, transformers 5.23.0" in message
    assert "workbench export FILE --tokenizer-dir" in message and message.endswith("--verify")
    assert (folder / "tokenizer_config.json").read_text(encoding="utf-8") == "{}"
