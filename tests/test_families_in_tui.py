"""Every shipped family opens in the workbench the way ``workbench open sample_outputs/<family>/`` does."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.store.document import SchemaDocument
from workbench.store.samples import MATCHES, discover, family_schema, load
from workbench.tui.app import WorkbenchApp

from families import has_schema

ROOT = Path(__file__).resolve().parent.parent
# Families with a response schema (the template-only ones are opened by the second test).
FAMILIES = sorted(p for p in (ROOT / "sample_outputs").iterdir() if p.is_dir() and has_schema(p.name))


@pytest.mark.parametrize("folder", FAMILIES, ids=lambda p: p.name)
async def test_family_opens_and_every_sample_matches_its_golden(folder: Path):
    paths = discover(folder)
    schema = family_schema(paths[0])
    assert schema is not None, f"no schemas/{folder.name}.json"
    app = WorkbenchApp(SchemaDocument.open(schema), [load(p) for p in paths])
    async with app.run_test(size=(160, 45)) as pilot:
        for _ in range(3):
            await pilot.pause(0.05)
            await app.workers.wait_for_complete()
        await pilot.pause()
        main = app.main
        assert main.analysis is not None and main.analysis.usable
        assert main.tree.root.children, "the parse tree is empty"
        verdicts = main.verdicts
        assert len(verdicts) == len(paths)
        assert {paths[i].name: v.status for i, v in verdicts.items() if v.status != MATCHES} == {}


TEMPLATES = sorted(p for p in (ROOT / "schemas").glob("*.template.json"))


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda p: p.name.removesuffix(".template.json"))
async def test_family_opens_with_its_template_and_the_bar_agrees_with_workbench_check(template: Path):
    """``workbench open sample_outputs/<family>/ --template``: the family's samples with its
    response template; each sample's verdict is the one ``workbench check`` gives (samples.judge)."""
    from workbench.store.samples import judge
    import json

    folder = ROOT / "sample_outputs" / template.name.removesuffix(".template.json")
    paths = discover(folder)
    assert family_schema(paths[0], template=True) == template.resolve()
    app = WorkbenchApp(SchemaDocument.open(template), [load(p) for p in paths])
    async with app.run_test(size=(160, 45)) as pilot:
        for _ in range(4):
            await pilot.pause(0.05)
            await app.workers.wait_for_complete()
        await pilot.pause()
        main = app.main
        assert main.format == "response_template" and main.analysis.usable
        assert main.tree.root.children, "the parse tree is empty"
        parsed = json.loads(template.read_text(encoding="utf-8"))
        want = {p.name: judge(load(p), parsed).status for p in paths}
        assert {paths[i].name: v.status for i, v in main.verdicts.items()} == want
