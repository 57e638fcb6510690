import os
import shutil
import sys
from pathlib import Path

import pytest

# Lets test modules import the shared helpers in tests/ (oracle.py, tui_helpers.py).
sys.path.insert(0, str(Path(__file__).resolve().parent))

ROOT = Path(__file__).resolve().parent.parent

# export --verify's environments with transformers 5.14.1 / 5.23.0 (workbench/runtimes.py): built
# once into the git-ignored .oracles/ rather than the user's cache, for tests and their subprocesses.
os.environ.setdefault("WORKBENCH_RUNTIMES_DIR", str(ROOT / ".oracles" / "runtimes"))


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "oracle_release: compares our template engine with transformers once per release (the `release` fixture)"
    )
    if _fast_only(config):
        # the fast tier (tests/tiers.py) runs fewer generated examples; read when test modules import
        from tiers import FAST_HYPOTHESIS_EXAMPLES

        os.environ.setdefault("WORKBENCH_HYPOTHESIS_EXAMPLES", FAST_HYPOTHESIS_EXAMPLES)


def _fast_only(config) -> bool:
    """`-m fast`, the developer's tier (tests/tiers.py); any other mark expression runs as usual."""
    return (config.option.markexpr or "").strip() == "fast"


def pytest_ignore_collect(collection_path, config):
    # `-m fast`: the other test files are not even imported (collecting all of them takes most of
    # a minute); any other selection collects everything and filters by the mark.
    if _fast_only(config) and collection_path.suffix == ".py":
        from tiers import FAST_FILES

        if collection_path.name.startswith("test_") and collection_path.name not in FAST_FILES:
            return True
    return None


def pytest_collection_modifyitems(config, items):
    # `python -m tests.new_release` runs exactly these (-m oracle_release): the tests the `release`
    # fixture parametrizes (not those that parametrize a "release" of their own).
    from template_oracle import Release
    from tiers import families, is_fast

    known = families()
    for item in items:
        callspec = getattr(item, "callspec", None)
        if callspec is not None and isinstance(callspec.params.get("release"), Release):
            item.add_marker(pytest.mark.oracle_release)
        # `python -m pytest -m fast`: the developer's tier (tests/tiers.py)
        if is_fast(item.nodeid, known):
            item.add_marker(pytest.mark.fast)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """A copy of the qwen3 samples and schema, laid out as in the repository, to edit freely."""
    shutil.copytree(ROOT / "sample_outputs" / "qwen3", tmp_path / "sample_outputs" / "qwen3")
    (tmp_path / "schemas").mkdir()
    shutil.copy(ROOT / "schemas" / "qwen3.json", tmp_path / "schemas" / "qwen3.json")
    return tmp_path


@pytest.fixture(scope="session")
def template_oracle():
    """transformers 5.23.0's response_template engine, in its own environment (tests/template_oracle.py).
    For what did not change between releases (chat-template rendering); a test comparing our
    response_template engine with transformers takes `release` and `release_oracle` instead."""
    from template_oracle import session_oracle

    yield from session_oracle()


@pytest.fixture(scope="session")
def vllm_oracle():
    """vLLM 0.33.0's rules for serving a response_template, run from its wheel (tests/vllm_oracle.py)."""
    from vllm_oracle import session_oracle

    yield from session_oracle()


def _releases():
    from template_oracle import oracle_releases

    return oracle_releases()


@pytest.fixture(scope="session", params=_releases(), ids=str)
def release(request):
    """The release a differential test runs against, once each (tests/template_oracle.py's
    oracle_releases(): 5.23.0 and 5.24.0, or WORKBENCH_NEW_RELEASE alone). `release.version` is the
    oracle's transformers ("5.24.0"), `release.runtime` what our engine is called with ("5.24", or
    None for the engine's newest when the release is new)."""
    return request.param


_RELEASE_ORACLES: dict = {}


@pytest.fixture(scope="session")
def release_oracle(release):
    """The oracle of `release`: transformers `release.version` in its own environment. One server per
    release for the session (tests run grouped by release, so each starts once)."""
    from template_oracle import TemplateOracle, session_python

    oracle = _RELEASE_ORACLES.get(release.version)
    if oracle is None:
        oracle = _RELEASE_ORACLES[release.version] = TemplateOracle(
            session_python(release.version), version=release.version
        )
    oracle.start()
    return oracle


@pytest.fixture(scope="session")
def newest_oracle():
    """The oracle of the newest supported release (tests/template_oracle.py's NEWEST, 5.24.0): what the
    CLI and the TUI, which run our engine's newest behaviour unless told otherwise, are compared with."""
    from template_oracle import NEWEST, TemplateOracle, session_python

    oracle = _RELEASE_ORACLES.get(NEWEST)
    if oracle is None:
        oracle = _RELEASE_ORACLES[NEWEST] = TemplateOracle(session_python(NEWEST), version=NEWEST)
    oracle.start()
    return oracle


@pytest.fixture(scope="session", autouse=True)
def _close_release_oracles():
    yield
    while _RELEASE_ORACLES:
        _RELEASE_ORACLES.popitem()[1].close()
