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


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """A copy of the qwen3 samples and schema, laid out as in the repository, to edit freely."""
    shutil.copytree(ROOT / "sample_outputs" / "qwen3", tmp_path / "sample_outputs" / "qwen3")
    (tmp_path / "schemas").mkdir()
    shutil.copy(ROOT / "schemas" / "qwen3.json", tmp_path / "schemas" / "qwen3.json")
    return tmp_path


@pytest.fixture(scope="session")
def template_oracle():
    """transformers 5.23.0's response_template engine, in its own environment (tests/template_oracle.py)."""
    from template_oracle import session_oracle

    yield from session_oracle()


@pytest.fixture(scope="session")
def vllm_oracle():
    """vLLM 0.33.0's rules for serving a response_template, run from its wheel (tests/vllm_oracle.py)."""
    from vllm_oracle import session_oracle

    yield from session_oracle()
