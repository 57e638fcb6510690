"""The project cites only its own reference (docs/): no citation of a specification kept outside
the repository, and every ``docs/<file>.md#anchor`` cited names a heading of that page."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

# Built from pieces, so this file does not cite them itself.
OUTSIDE = ("RESPONSE_TEMPLATE" + ".md", "REFERENCE" + ".md", "shared" + "/")
CITATION = re.compile(r"docs/([\w.-]+\.md)#([\w-]+)")
LINK = re.compile(r"\]\(([\w.-]+\.md)?#([\w-]+)\)")


def tracked_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [ROOT / name for name in out.decode().split("\0") if name]


def text_of(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return None  # binary files and files missing from the work tree


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lowercase, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.M | re.S)
    return {slug(m.group(1)) for m in re.finditer(r"^#{1,6}\s+(.+?)\s*#*\s*$", text, flags=re.M)}


def test_slug_is_githubs():
    assert slug("Changes in 5.24") == "changes-in-524"
    assert slug("A worked example") == "a-worked-example"
    assert slug("Tool argument casting") == "tool-argument-casting"


def test_nothing_outside_docs_cites_an_outside_specification():
    found = []
    for path in tracked_files():
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("docs/"):
            continue
        text = text_of(path)
        if text is None:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if any(name in line for name in OUTSIDE) or "\u00a7" in line:
                found.append(f"{rel}:{number}: {line.strip()[:120]}")
    assert not found, "cite docs/ instead:\n" + "\n".join(found)


def test_every_cited_anchor_is_a_heading():
    pages = {page.name: anchors(page) for page in DOCS.glob("*.md")}
    missing = []
    for path in tracked_files():
        text = text_of(path)
        if text is None:
            continue
        rel = path.relative_to(ROOT).as_posix()
        cited = [(m.group(1), m.group(2)) for m in CITATION.finditer(text)]
        if rel.startswith("docs/"):
            cited += [(m.group(1) or path.name, m.group(2)) for m in LINK.finditer(text)]
        for page, anchor in cited:
            if page not in pages:
                missing.append(f"{rel}: docs/{page} does not exist")
            elif anchor not in pages[page]:
                missing.append(f"{rel}: docs/{page}#{anchor} is not a heading")
    assert not missing, "\n".join(missing)


def test_the_release_tables_name_every_change_in_the_engine():
    """README's and docs/response-template.md's release tables list every release at which the
    engine's one table (releases.CHANGES) changes behaviour, and no other."""
    import re

    from workbench.engine.releases import CHANGES

    wanted = {f"{c.since[0]}.{c.since[1]}" for c in CHANGES}
    for path in (ROOT / "README.md", ROOT / "docs" / "response-template.md"):
        text = path.read_text(encoding="utf-8")
        rows = set(re.findall(r"^\| (5\.\d+) \|", text, flags=re.MULTILINE)) - {"5.13"}
        assert rows >= wanted, f"{path.name} lacks {sorted(wanted - rows)}"
