"""The oracle (transformers 5.14.1's recursive_parse) and a strict comparison of results."""

from __future__ import annotations

import math
import os
import warnings
from typing import Any

os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from transformers.utils.chat_parsing_utils import recursive_parse as oracle_parse

import workbench

class _Raised:
    def __repr__(self) -> str:
        return "<raised>"


RAISED = _Raised()


def run_oracle(text: Any, schema: Any) -> Any:
    """The oracle's value, or RAISED when it raises anything."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return oracle_parse(text, schema)
    except RecursionError:
        raise
    except Exception:
        return RAISED


def run_ours(text: Any, schema: Any) -> Any:
    value, _ = run_ours_with_error(text, schema)
    return value


def run_ours_with_error(text: Any, schema: Any) -> tuple[Any, Exception | None]:
    try:
        return workbench.parse_response(text, schema), None
    except workbench.ParseFailure as exc:
        assert isinstance(exc, (ValueError, TypeError)), f"unexpected failure class {type(exc)}"
        return RAISED, exc


def same(a: Any, b: Any) -> bool:
    """Equal value for value and type for type (1 is not 1.0, True is not 1), key order included."""
    if a is RAISED or b is RAISED:
        return a is b
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return a == b


def assert_agrees(text: Any, schema: Any) -> Any:
    expected = run_oracle(text, schema)
    got, error = run_ours_with_error(text, schema)
    assert same(got, expected), (
        f"parse_response disagrees with transformers\n text={text!r}\n schema={schema!r}\n"
        f" ours={got!r}\n oracle={expected!r}"
    )
    trace = workbench.trace(text, schema)
    if expected is RAISED:
        assert trace.error is not None, f"trace found no error where transformers raises: {schema!r}"
        # parse_response names the node in its own walk: the same node and message as the trace
        assert (type(error), str(error)) == (type(trace.error), str(trace.error))
    else:
        assert trace.error is None, f"trace failed where transformers did not: {trace.error}"
        assert same(trace.value, expected)
    return expected
