"""A regex that backtracks catastrophically ends in an error naming the node and the limit."""

from __future__ import annotations

import threading
import time

import pytest

import workbench
from workbench.engine import RegexTimeout

EVIL = {"type": "object", "properties": {"answer": {"type": "string", "x-regex": "((a|aa)+)$"}}}
TEXT = "a" * 60 + "b"


@pytest.mark.parametrize("backend", ["re", "regex"])
def test_runaway_regex_is_stopped(backend):
    started = time.monotonic()
    with pytest.raises(RegexTimeout) as info:
        workbench.parse_response(TEXT, EVIL, time_limit=0.3, backend=backend)
    assert time.monotonic() - started < 5  # generous: the point is that it ends at all
    assert info.value.path == "/properties/answer"
    assert "0.3 s time limit" in str(info.value)


def test_trace_reports_the_timeout_at_the_node():
    result = workbench.trace(TEXT, EVIL, time_limit=0.3)
    assert isinstance(result.error, RegexTimeout)
    assert [n.path for n in result.nodes() if n.error] == ["/properties/answer"]


def test_worker_threads_are_limited_too():
    outcome = {}

    def work():
        outcome["result"] = workbench.trace(TEXT, EVIL, time_limit=0.3)

    thread = threading.Thread(target=work)
    thread.start()
    thread.join(timeout=10)
    assert not thread.is_alive()
    assert isinstance(outcome["result"].error, RegexTimeout)


def test_timer_is_disarmed_after_a_parse():
    import signal

    workbench.parse_response("abc", {"type": "string", "x-regex": "(b)"})
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)

    fired = []
    previous = signal.signal(signal.SIGALRM, lambda *_: fired.append(True))
    try:
        workbench.parse_response("abc", {"type": "string", "x-regex": "(b)"})
        signal.setitimer(signal.ITIMER_REAL, 0.01)
        time.sleep(0.2)
        assert fired == [True]  # another program's handler is back in place after a parse
    finally:
        signal.signal(signal.SIGALRM, previous)
