"""Generated tests of the response_template engine: random templates from the grammar of
docs/response-template.md, random outputs and prefixes built from their delimiters, random chunkings.

Two properties: our streaming equals our one-shot parse, and our whole transcript (initial events,
every ``feed``'s events or error, ``finalize``'s message and events or error) equals what
transformers gives for the same chunks. Every test runs once per release (the ``release`` fixture:
5.23.0 and 5.24.0, our engine called with ``runtime="5.23"`` / ``"5.24"``). The runtime is reached
only through ``runtime_stream`` / ``runtime_parse`` below: a transcript server per release, run by
the python of that release's oracle environment (tests/template_oracle.py builds it). It is a server
of its own because a generated template can make the runtime loop forever: a transcript that does
not finish in time kills and restarts it.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from template_oracle import oracle_releases, session_python
from test_template_engine import CASES, RELEASES as CASE_RELEASES, Raises, expected_at
from workbench.engine.template import ResponseParser, parse_response

EXAMPLES = int(os.environ.get("WORKBENCH_TEMPLATE_EXAMPLES", "300"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
# A test run once per release shares the budget: WORKBENCH_TEMPLATE_EXAMPLES examples per test in all,
# split between the releases (150 each for 5.23 and 5.24; all of them for WORKBENCH_NEW_RELEASE alone),
# so a release adds little to CI's time. Derandomized, each release meets the same first examples.
RELEASE_EXAMPLES = max(1, EXAMPLES // len(oracle_releases()))
RELEASE_SETTINGS = settings(SETTINGS, max_examples=RELEASE_EXAMPLES)
RUNTIME_TIMEOUT = 10.0  # seconds per transcript (the runtime loops forever on some templates, growing)

# ---- the runtime (transformers, the release under test), behind two functions -------------------

_SERVER = r"""
import json, sys
from transformers.utils.chat_parsing import ResponseParser

def error(exc):
    return {"error": [type(exc).__name__, str(exc)]}

for line in sys.stdin:
    request = json.loads(line)
    out = {}
    try:
        parser = ResponseParser(request["template"], prefix=request["prefix"], tools=request["tools"])
    except Exception as exc:
        out["init"] = error(exc)
    else:
        out["initial"] = parser.initial_events
        out["steps"] = []
        for chunk in request["chunks"]:
            try:
                out["steps"].append({"events": parser.feed(chunk)})
            except Exception as exc:
                out["steps"].append(error(exc))
        try:
            message, events = parser.finalize()
            out["final"] = {"message": message, "events": events}
        except Exception as exc:
            out["final"] = error(exc)
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
"""


class _Runtime:
    """One long-lived runtime process, restarted after a transcript that does not finish in time."""

    def __init__(self, python: str) -> None:
        self.process: subprocess.Popen | None = None
        self.python = python

    def start(self) -> None:
        assert self.python is not None, "use the runtime fixture"
        env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "PYTHONHOME")}
        env["TRANSFORMERS_VERBOSITY"] = "error"
        self.process = subprocess.Popen(
            [self.python, "-I", "-c", _SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True, env=env,
        )

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None

    def run(self, request: dict, timeout: float = RUNTIME_TIMEOUT) -> dict | None:
        """The transcript, or None when the runtime did not finish (it loops on some templates)."""
        if self.process is None:
            self.start()
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        if not ready:
            self.stop()
            return None
        return json.loads(self.process.stdout.readline())


_RUNTIMES: dict[str, _Runtime] = {}  # one per release, by transformers version
_CURRENT: list[_Runtime] = []  # the release under test's, set by the ``runtime`` fixture


@pytest.fixture(autouse=True)
def runtime(release):
    """Every test here compares with the runtime, or falls back on it to explain a difference: each
    runs once per release, and ``runtime_stream`` talks to that release's server."""
    server = _RUNTIMES.get(release.version)
    if server is None:
        server = _RUNTIMES[release.version] = _Runtime(str(session_python(release.version)))
    _CURRENT[:] = [server]
    yield server


@pytest.fixture(scope="module", autouse=True)
def _stop_runtimes():
    yield
    while _RUNTIMES:
        _RUNTIMES.popitem()[1].stop()


def runtime_stream(
    template: Any, prefix: Any, chunks: list[str], tools: Any = None, timeout: float = RUNTIME_TIMEOUT
) -> dict | None:
    """The release under test's transcript of ``ResponseParser(template, prefix, tools=tools)`` fed
    ``chunks`` and finalized (the shape ``engine_stream`` gives), or None if it did not finish
    within ``timeout`` seconds."""
    return _CURRENT[0].run({"template": template, "prefix": prefix, "chunks": chunks, "tools": tools}, timeout)


def runtime_parse(text: str, template: Any, prefix: Any, tools: Any = None) -> Any:
    """The release under test's ``parse_response``: the message, or ``{"error": [type, message]}``."""
    return outcome_of(runtime_stream(template, prefix, [text], tools))


# ---- ours, in the same shape -------------------------------------------------------------------


def _error(exc: Exception) -> dict:
    return {"error": [type(exc).__name__, str(exc)]}


def engine_stream(template: Any, prefix: Any, chunks: list[str], tools: Any = None, *, runtime: str | None) -> dict:
    """Our transcript, with our engine as ``runtime`` ("5.23", "5.24", None for the newest)."""
    out: dict = {}
    try:
        parser = ResponseParser(template, prefix=prefix, tools=tools, runtime=runtime)
    except Exception as exc:  # noqa: BLE001 - the error is part of the transcript
        out["init"] = _error(exc)
        return out
    out["initial"] = parser.initial_events
    out["steps"] = []
    for chunk in chunks:
        try:
            out["steps"].append({"events": parser.feed(chunk)})
        except Exception as exc:  # noqa: BLE001
            out["steps"].append(_error(exc))
    try:
        message, events = parser.finalize()
        out["final"] = {"message": message, "events": events}
    except Exception as exc:  # noqa: BLE001
        out["final"] = _error(exc)
    return out


def outcome_of(transcript: dict | None) -> Any:
    """The first error of a transcript, else its message (what a one-shot parse gives)."""
    if transcript is None:
        return None
    if "init" in transcript:
        return transcript["init"]
    for step in transcript["steps"]:
        if "error" in step:
            return step
    final = transcript["final"]
    return final if "error" in final else final["message"]


def as_json(value: Any) -> str:
    """Values compared by their JSON text: key order, int/float and True/1 all count."""
    return json.dumps(value)


def loops(transcript: dict) -> bool:
    """Our engine stopped a template on which the runtime would loop forever."""
    return "loop here forever" in json.dumps(transcript)


# ---- the grammar -------------------------------------------------------------------------------

LITERALS = ["<a>", "</a>", "<b>", "</b>", "<t>", "</t>", "END", "ENDX", "[", "]", "<", "<<", "||", "\n\n"]
OPEN_PATTERNS = [r"\s*<a>", r"<f=(?P<name>\w+)>", r"<(?P<name>[a-z])>", r"<b>\s*", r"\[+", r"(?:^|<t>)"]
CLOSE_PATTERNS = [r"\s*</a>", r"</f>", r"</(?P<tail>[a-z])>", r"\n?END", r"\]", r"$", r"(?=!)", r"\s*<eot>"]
FILLER = ["x", "yz", " ", "\n", "1", "2.5", "true", "!", '{"k": 1}', '{"function": {"name": "f", "arguments": {"i": "7"}}}',
          "<eot>", "<f=f>", "</f>", "<q>", "</q>", "@@", "<f", "EN", '[f(i="7"), g()]', "[f(i=1)]"]


def literal_or_list():
    return st.one_of(st.sampled_from(LITERALS), st.lists(st.sampled_from(LITERALS), min_size=1, max_size=3))


@st.composite
def fields(draw, name: str, explicit: bool) -> dict:
    spec: dict = {}
    if explicit:
        if draw(st.booleans()):
            spec["open"] = draw(literal_or_list())
        else:
            spec["open_pattern"] = draw(st.sampled_from(OPEN_PATTERNS))
    close = draw(st.sampled_from(["none", "literal", "pattern"]))
    if close == "literal":
        spec["close"] = draw(literal_or_list())
    elif close == "pattern":
        spec["close_pattern"] = draw(st.sampled_from(CLOSE_PATTERNS))
    content = draw(st.sampled_from(["text", "text", "text", "json", "json", "int", "bool", "kv-lines"]))
    if draw(st.integers(0, 19)) == 7:  # rarely: 5.23 refuses the template (not 0: hypothesis draws the bounds often)
        content = "python-call-list"
    if content != "text":
        spec["content"] = content
    if content == "json" and draw(st.booleans()):
        spec["content_args"] = {"allow_non_json": True}
    if draw(st.booleans()):
        spec["content_args"] = {**spec.get("content_args", {}), "strip": False}
    if draw(st.integers(0, 3)) == 0:
        spec["repeats"] = True
        if draw(st.booleans()):
            spec["join"] = draw(st.sampled_from(["", "+"]))
    if draw(st.integers(0, 15)) == 7:  # not 0: hypothesis draws the bounds often
        spec["optional"] = False
    grouped = "?P<" in spec.get("open_pattern", "") + spec.get("close_pattern", "")
    if grouped and draw(st.integers(0, 5)):  # mostly the transform the groups need
        spec["transform"] = {"v": "{content}", "n": "{name}"} if "?P<name>" in spec.get("open_pattern", "") else "{content}"
        if "?P<tail>" in spec.get("close_pattern", "") and draw(st.booleans()):
            spec["transform"] = {"v": "{content}", "t": "{tail}"}  # 5.24: a closer's groups are in scope
    elif draw(st.integers(0, 2)) == 0:
        spec["transform"] = draw(
            st.sampled_from(
                ["{content}", {"v": "{content}", "n": "{name}"}, {"function": {"name": "f", "arguments": "{content}"}},
                 "{content.k}", {"lit": ["{}", 1, None]}]
            )
        )
    return spec


@st.composite
def templates(draw) -> dict:
    names = draw(st.lists(st.sampled_from(["a", "b", "tool_calls"]), min_size=1, max_size=3, unique=True))
    spec_fields = {name: draw(fields(name, True)) for name in names}
    if draw(st.booleans()):
        spec_fields["content"] = draw(fields("content", False))
    order = draw(st.permutations(list(spec_fields)))
    template: dict = {"fields": {name: spec_fields[name] for name in order}}
    if draw(st.booleans()):
        template["start_anchor"] = draw(st.sampled_from(["@@", ["@@", "##"]]))
    else:
        template["start_anchor_pattern"] = draw(st.sampled_from(["@@", "@+", "#\\d"]))
    if draw(st.booleans()):
        template["defaults"] = draw(st.sampled_from([{"role": "assistant"}, {"a": ""}, {"tool_calls": []}]))
    return template


def pieces_of(template: dict) -> list[str]:
    pieces = list(FILLER)
    for spec in template["fields"].values():
        for key in ("open", "close"):
            value = spec.get(key)
            pieces.extend([value] if isinstance(value, str) else value or [])
    pieces += ["<a>", "</a>", "<b>", "<f=g>", "<t>", "]", "[[", "#1"]
    return pieces


@st.composite
def scenarios(draw) -> tuple:
    template = draw(templates())
    pieces = pieces_of(template)
    text = "".join(draw(st.lists(st.sampled_from(pieces), min_size=2, max_size=14)))
    prefix = draw(st.one_of(st.just(""), st.lists(st.sampled_from(pieces + ["@@", "##"]), max_size=6).map("".join)))
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=6)))
    chunks = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]
    tools = draw(st.sampled_from([None, [{"name": "f", "parameters": {"properties": {"i": {"type": "integer"}}}}]]))
    return template, prefix, text, chunks, tools


# ---- the properties ----------------------------------------------------------------------------


@RELEASE_SETTINGS
@given(scenarios())
def test_streaming_equals_one_shot(release, scenario):
    template, prefix, text, chunks, tools = scenario
    streamed = engine_stream(template, prefix, chunks, tools, runtime=release.runtime)
    if loops(streamed):
        return
    try:
        whole = parse_response(text, template, prefix=prefix, tools=tools, runtime=release.runtime)
    except Exception as exc:  # noqa: BLE001
        whole = _error(exc)
    if as_json(outcome_of(streamed)) != as_json(whole):
        # The runtime's one exception: an empty closer on an empty region stops the parse where it
        # meets it, and where that is depends on the chunks. Then the runtime must disagree too.
        runtime = runtime_stream(template, prefix, chunks, tools)
        assert runtime is not None and as_json(outcome_of(runtime)) == as_json(outcome_of(streamed))
        assert as_json(runtime_parse(text, template, prefix, tools)) == as_json(whole)


@RELEASE_SETTINGS
@given(scenarios())
def test_transcript_equals_the_runtime(release, scenario):
    template, prefix, _text, chunks, tools = scenario
    ours = engine_stream(template, prefix, chunks, tools, runtime=release.runtime)
    if loops(ours):
        return  # the runtime would run (and grow) until stopped: see test_the_runtime_loops_where_we_stop
    assert as_json(ours) == as_json(runtime_stream(template, prefix, chunks, tools))


def test_the_runtime_loops_where_we_stop(release):
    template = {"start_anchor": "@", "fields": {"o": {"open_pattern": "(?=a)", "close_pattern": "(?=a)"}, "c": {}}}
    assert loops(engine_stream(template, "", ["xab"], runtime=release.runtime))
    assert runtime_stream(template, "", ["xab"], timeout=1.5) is None  # about 85 MB a second meanwhile


@pytest.mark.parametrize("case", list(CASES))
def test_hand_written_case_agrees_with_the_runtime(release, case):
    template, text, prefix, tools, expected = CASES[case]
    runtime = runtime_parse(text, template, prefix, tools)
    if release.runtime is None:
        # A release the cases do not know yet (WORKBENCH_NEW_RELEASE): the newest's expectation.
        expected = expected_at(expected, CASE_RELEASES[-1])
    elif release.runtime in CASE_RELEASES:
        expected = expected_at(expected, release.runtime)
    else:
        raise AssertionError(f"tests/test_template_engine.py's RELEASES lacks {release.runtime}: add it (and ByRelease answers)")
    if isinstance(expected, Raises):
        assert runtime == {"error": [expected.kind.__name__, expected.message]}
    else:
        assert as_json(runtime) == as_json(expected)
    for size in (1, 4, 7):
        chunks = [text[i : i + size] for i in range(0, len(text), size)]
        assert as_json(engine_stream(template, prefix, chunks, tools, runtime=release.runtime)) == as_json(
            runtime_stream(template, prefix, chunks, tools)
        )


# ---- focused: the content parsers and tools casting ---------------------------------------------

BODY_BITS = ["{", "}", "[", "]", ",", ":", '"', "'", "a", "é", "日", "_1", " ", "\n", "1", "2.5", "true", "null", '<|"|>',
             "<<", ">>", "\\", "\x01", "<k>", "</k>", "<p=x>", "</p>", "=", "k: v", "\r\n", "<k/>", "١", "{a:", ",b:",
             "{ a :", ",\nb :", '"x,c:1"', "[1, 2]"]
# python-call-list's bodies (5.24): calls, keyword arguments and the literals it takes or refuses.
CALL_BITS = ["[", "]", "f", "get_weather", "a.b-c", "(", ")", "=", "x", "y", ",", " ", "\n", '"s"', "'q'", '"\\u00e9"',
             '"\\ud83d"', "1", "-2", "2.5", "1e400", "9007199254740992", "True", "false", "None", "null", "[1]", "{",
             "}", '"k"', ":", "f(x=1)", "g()", "x=1, y=2"]
VALUE_PARSERS = [None, {"name": "json", "args": {"allow_non_json": True}}, {"name": "int"}, {"name": "bool"},
                 {"name": "text", "args": {"strip": False}}, {"name": "kv-lines"}, {}, {"name": "yaml"},
                 {"name": "python-call-list"}, {"name": "json"}]


def _some_of(options: dict):
    """Dicts holding any subset of ``options``' keys, each with one of its values."""
    return st.fixed_dictionaries({}, optional={key: st.sampled_from(values) for key, values in options.items()})


CONTENT_ARGS = {
    "json": _some_of({"unquoted_keys": [True, False, "x"], "allow_non_json": [True, False], "strip": [True, False],
                      "string_delims": [[], [['<|"|>', '<|"|>']], [["'", "'"]], [["<<", ">>"], ["'", "'"]], [["a", "a"]]]}),
    "xml-inline": _some_of({
        "tag_pattern": [r"<(?P<key>\w+)>(?P<value>.*?)</(?P=key)>", r"<p=(?P<key>\w+)>(?P<value>.*?)</p>",
                        r"(?P<key>\w)(?P<value>\d)?", r"<(?P<key>\w+)/>", r"(?P<key>\w*)", r"<(\w)>"],
        "merge_duplicates": [True, False], "value_parser": VALUE_PARSERS}),
    "kv-lines": _some_of({"line_sep": ["\n", ",", "\r\n", "ab", ""], "kv_sep": [":", "=", ": ", "é"], "strip": [True, False],
                          "value_parser": VALUE_PARSERS}),
    "text": _some_of({"strip": [True, False, "no", 0]}),
    "int": _some_of({"strip": [True, False]}),
    "float": _some_of({"strip": [True, False]}),
    "bool": _some_of({"strip": [True, False]}),
    "python-call-list": _some_of({"strip": [True, False]}),
}


@st.composite
def parser_cases(draw) -> tuple:
    content = draw(st.sampled_from(sorted(CONTENT_ARGS)))
    field = {"open": "<<<", "close": ">>>", "content": content, "content_args": draw(CONTENT_ARGS[content])}
    bits = CALL_BITS if content == "python-call-list" and draw(st.integers(0, 3)) else BODY_BITS
    body = "".join(draw(st.lists(st.sampled_from(bits), max_size=12)))
    return {"start_anchor": "@", "fields": {"x": field}}, "<<<" + body + ">>>"


@RELEASE_SETTINGS
@given(parser_cases())
def test_content_parsers_equal_the_runtime(release, case):
    template, text = case
    assert as_json(engine_stream(template, "", [text], runtime=release.runtime)) == as_json(runtime_stream(template, "", [text]))


ARGUMENT_TEXTS = ["7", "007", " 7 ", "3.0", "3.5", "1e3", "1E400", "nan", "inf", "-inf", "1_000", "٣", "0x10", "true", "TRUE",
                  " false ", "1", "0", "null", "None", "{}", "[]", "[1]", '{"a": 1}', "", "abc", "1.", ".5", "+5", "-0", "9" * 30]
TYPE_NAMES = ["integer", "number", "boolean", "null", "object", "array", "string", "foo"]
property_schemas = st.recursive(
    st.fixed_dictionaries({}, optional={
        "type": st.one_of(st.sampled_from(TYPE_NAMES), st.lists(st.sampled_from(TYPE_NAMES), max_size=3)),
        "nullable": st.sampled_from([True, False]),
    }),
    lambda inner: st.fixed_dictionaries({}, optional={
        "anyOf": st.lists(inner, max_size=2), "oneOf": st.lists(inner, max_size=2), "type": st.sampled_from(TYPE_NAMES),
    }),
    max_leaves=4,
)


@st.composite
def tool_cases(draw) -> tuple:
    keys = draw(st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=1, unique=True))
    arguments = {
        key: draw(st.one_of(st.sampled_from(ARGUMENT_TEXTS), st.lists(st.sampled_from(ARGUMENT_TEXTS), max_size=3), st.just(5)))
        for key in keys
    }
    properties = {key: draw(property_schemas) for key in keys if draw(st.booleans()) or key == "a"}
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": properties}}}]
    call = {"function": {"name": draw(st.sampled_from(["f", "g"])), "arguments": arguments}}
    value = draw(st.sampled_from([call, [call, [call]]]))
    template = {"start_anchor": "@", "fields": {"calls": {"open": "<c>", "close": "</c>", "content": "json"}}}
    return template, "<c>" + json.dumps(value) + "</c>", tools


@RELEASE_SETTINGS
@given(tool_cases())
def test_tools_casting_equals_the_runtime(release, case):
    template, text, tools = case
    assert as_json(engine_stream(template, "", [text], tools, runtime=release.runtime)) == as_json(runtime_stream(template, "", [text], tools))
