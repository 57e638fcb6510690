"""workbench.live.child: a job in a child process gives back its result or its exception (same type),
and is killed, leaving nothing behind, when it runs past its time or the caller gives up."""

from __future__ import annotations

import operator
import os
import re
import tempfile
import threading
import time

import pytest

from workbench.live import child
from workbench.store.files import WriteError, atomic_write

CATASTROPHIC = r"^((?:a|a)+)+$"  # 2^40 ways to fail on the text below: hours, not seconds
HOPELESS = "a" * 40 + "!"


@pytest.fixture(autouse=True)
def private_tmp(tmp_path, monkeypatch):
    """The children's temporary folders go here, to be counted."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    yield folder
    assert child.live() == []
    assert list(folder.iterdir()) == []  # each child's TMPDIR is removed with it


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_the_result_comes_back():
    assert child.call(operator.mul, 6, 7, timeout=60) == 42


def test_the_exception_comes_back_as_itself(tmp_path):
    with pytest.raises(WriteError) as raised:
        child.call(atomic_write, tmp_path / "missing" / "out.json", "{}", timeout=60)
    assert "missing" in str(raised.value)
    assert any("in the child process" in note for note in raised.value.__notes__)


def test_a_function_of_main_is_refused_before_any_child_starts():
    def local():  # pragma: no cover - never called
        pass

    local.__module__ = "__main__"
    with pytest.raises(ValueError, match="not importable"):
        child.call(local, timeout=60)


def test_a_runaway_regex_is_killed_at_the_deadline():
    """re.match has no time limit of its own, and this one would run for hours."""
    started = time.monotonic()
    with pytest.raises(child.ChildTimeout, match="did not finish within 1 s"):
        child.call(re.match, CATASTROPHIC, HOPELESS, timeout=1)
    assert time.monotonic() - started < 30  # bounded: killed, not waited for


def test_cancelling_kills_the_child():
    seen: list[int] = []
    stop = threading.Event()

    def cancelled() -> bool:
        seen.extend(pid for pid in child.live() if pid not in seen)
        return stop.is_set()

    threading.Timer(0.5, stop.set).start()
    with pytest.raises(child.ChildCancelled):
        child.call(re.match, CATASTROPHIC, HOPELESS, timeout=600, cancelled=cancelled)
    assert len(seen) == 1 and gone(seen[0])
