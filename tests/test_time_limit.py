"""A regex that backtracks catastrophically ends in an error naming the node and the limit."""

from __future__ import annotations

import threading
import time

import pytest

import workbench
from workbench.engine import RegexTimeout

EVIL = {"type": "object", "properties": {"answer": {"type": "string", "x-regex": "((a|aa)+)$"}}}
TEXT = "a" * 60 + "b"


def test_runaway_regex_is_stopped():
    started = time.monotonic()
    with pytest.raises(RegexTimeout) as info:
        workbench.parse_response(TEXT, EVIL, time_limit=0.3)
    assert time.monotonic() - started < 5  # generous: the point is that it ends at all
    assert info.value.path == "/properties/answer"
    assert "(time limit 0.3 s)" in str(info.value)
    assert str(info.value).startswith("/properties/answer: stopped after ")


NESTED = {
    "type": "object",
    "properties": {
        "calls": {
            "type": "array",
            "x-regex-iterator": "<c>(.*?)</c>",
            "items": {"type": "object", "properties": {"name": {"type": "string", "x-regex": "^(\\w+)"},
                                                        "slow": {"type": "string", "x-regex": "((a|aa)+)$"}}},
        }
    },
}


def test_a_timeout_is_named_by_the_one_walk(monkeypatch):
    """parse_response finds the failing node in the walk that failed: no second walk (trace), so
    one deadline and no second run of the slow regex."""
    from workbench.engine.schema import parse

    def no_retrace(*args, **kwargs):
        raise AssertionError("parse_response ran a second walk")

    monkeypatch.setattr(parse, "trace", no_retrace)
    started = time.monotonic()
    with pytest.raises(RegexTimeout) as info:
        workbench.parse_response("<c>ok</c><c>f " + "a" * 60 + "b</c>", NESTED, time_limit=0.3)
    assert time.monotonic() - started < 5
    assert info.value.path == "/properties/calls/items/properties/slow"
    assert "(time limit 0.3 s)" in str(info.value)


@pytest.mark.parametrize(
    "text, schema, path",
    [
        ("<c>ok</c>", {"type": "object", "properties": {"calls": dict(NESTED["properties"]["calls"], items={"type": "integer"})}},
         "/properties/calls/items"),
        ('{"a": {"b": "x"}}', {"type": "object", "x-parser": "json", "properties": {"a": {"type": "object", "properties": {"b": {"type": "boolean"}}}}},
         "/properties/a/properties/b"),
        ('{"a": [1, "x"]}', {"type": "object", "x-parser": "json", "additionalProperties": {"prefixItems": [{}, {"type": "number"}], "type": "array"}},
         "/additionalProperties/prefixItems/1"),
        ("x", {"type": "object", "properties": {"a/b": "string"}}, "/properties/a~1b"),
        ("x", {"x-parser": "yaml"}, ""),
    ],
)
def test_failures_are_named_without_a_second_walk(monkeypatch, text, schema, path):
    from workbench.engine.schema import parse

    expected = workbench.trace(text, schema).error
    monkeypatch.setattr(parse, "trace", None)
    with pytest.raises(workbench.ParseFailure) as info:
        workbench.parse_response(text, schema)
    assert info.value.path == expected.path == path
    assert str(info.value) == str(expected)


def test_trace_reports_the_timeout_at_the_node():
    result = workbench.trace(TEXT, EVIL, time_limit=0.3)
    assert isinstance(result.error, RegexTimeout)
    assert [n.path for n in result.nodes() if n.error] == ["/properties/answer"]


def test_other_threads_parse_with_plain_re_and_no_limit():
    """No SIGALRM timer off the main thread: the parse runs as transformers runs it, unbounded
    (a limit far below its duration is not applied) and with the same value."""
    schema = {"type": "object", "properties": {"answer": {"type": "string", "x-regex": "((?:a|aa)+)$"}}}
    text = "a" * 20 + "b" + "a" * 5  # backtracks a little, then matches
    outcome = {}

    def work():
        outcome["value"] = workbench.parse_response(text, schema, time_limit=1e-6)
        outcome["trace"] = workbench.trace(text, schema, time_limit=1e-6)

    thread = threading.Thread(target=work)
    thread.start()
    thread.join(timeout=30)
    assert not thread.is_alive()
    assert outcome["value"] == {"answer": "aaaaa"}
    assert outcome["trace"].ok and outcome["trace"].value == outcome["value"]


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
