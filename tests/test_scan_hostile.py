"""``workbench scan`` and ``open --scan`` against a table of hostile datasets (tests/scan_hostile/):
no traceback, no hang, the README's exit code, one sentence on exit 2, inputs unchanged, nothing
written but the declared outputs, nothing fetched, no process left behind."""

from __future__ import annotations

import importlib
from concurrent.futures import ThreadPoolExecutor
import pytest

from scan_hostile import RAW_CONTROLS, Case, Outcome, declared, run

pytest.importorskip("datasets")

AREAS = ("writes", "reading", "running", "opening")


def _cases() -> list[Case]:
    cases: list[Case] = []
    for area in AREAS:
        try:
            module = importlib.import_module(f"scan_hostile.{area}")
        except ModuleNotFoundError:
            continue
        cases += module.CASES
    names = [c.name for c in cases]
    assert len(set(names)) == len(names), "two cases share a name"
    return cases


CASES = _cases()


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory) -> dict[str, Outcome]:
    """Every case, two at a time: each is a process of its own, mostly starting up."""
    def one(case: Case) -> tuple[str, Outcome]:
        return case.name, run(case, tmp_path_factory.mktemp(case.name), tmp_path_factory.mktemp(f"{case.name}-caches"))

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(one, CASES))


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_dataset(case: Case, outcomes: dict[str, Outcome]) -> None:
    got = outcomes[case.name]
    shown = got.shown()
    assert got.code is not None, f"no answer within {case.deadline} s\n{shown}"
    assert "Traceback" not in got.stdout + got.stderr, shown
    assert got.code in case.expect, shown
    if got.code == 2:
        said = [line for line in got.stderr.splitlines() if line.strip()]
        assert len(said) == 1 and said[0].startswith("error: "), shown
    if case.says is not None:
        assert case.says in got.stdout + got.stderr, shown
    for control in RAW_CONTROLS:
        assert control not in got.stdout + got.stderr, f"a raw control character reached the terminal\n{shown}"
    assert got.requests == [], f"fetched {got.requests}\n{shown}"
    assert got.left_running == [], f"processes left running: {got.left_running}\n{shown}"
    for name, state in got.before.items():
        if not declared(name, case.outputs):
            assert got.after.get(name) == state, f"{name!r} changed or went\n{shown}"
    new = {name for name in got.after if name not in got.before or got.after[name] != got.before[name]}
    allowed = {name for name in new if declared(name, case.outputs)} if got.code != 2 else set()
    assert new <= allowed, f"wrote {sorted(new - allowed)}\n{shown}"
    if case.check is not None:
        case.check(got.folder, got)
