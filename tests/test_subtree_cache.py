"""The subtree cache: a cached trace is the uncached trace, node for node, and reuses what it can."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import given

import workbench
from workbench.engine import SubtreeCache
from workbench.engine.schema import trace_tree as tr
from workbench.store.samples import is_sample_file

from families import has_schema  # schema families only (tests/families.py)

from test_engine_generated import SETTINGS, model_outputs, model_schemas

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted(p for p in (ROOT / "sample_outputs").glob("*/*.txt") if is_sample_file(p) and has_schema(p.parent.name))


def load(sample: Path) -> tuple[str, dict]:
    schema = json.loads((ROOT / "schemas" / f"{sample.parent.name}.json").read_text(encoding="utf-8"))
    return sample.read_bytes().decode("utf-8"), schema


def snapshot(result: workbench.Trace) -> str:
    """Everything a trace says, as text: the value or the error, and every node's path, key, via,
    input kind, spans, matches, value, error and no-match (json.dumps keeps 1, 1.0 and True apart)."""
    error = None if result.error is None else [type(result.error).__name__, str(result.error), result.error.path]
    return json.dumps([result.value, error, result.root.to_dict()], default=repr, ensure_ascii=False)


def assert_same_trace(cached: workbench.Trace, uncached: workbench.Trace, located_before: bool = False) -> None:
    """``located_before``: reused nodes may have been located already, through an earlier trace
    that holds them too (locating is lazy and gives the same span whichever trace asks)."""
    assert len(set(ids(cached))) == len(ids(cached)), "a node appears twice in one tree"
    if not located_before:
        assert snapshot(cached) == snapshot(uncached)
    # locating JSON members works on reused nodes and gives what a fresh trace gives
    assert snapshot(cached.locate_all()) == snapshot(uncached.locate_all())
    assert {p: len(v) for p, v in cached.index().items()} == {p: len(v) for p, v in uncached.index().items()}


def ids(result: workbench.Trace) -> list[int]:
    return [id(node) for node in result.nodes()]


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_cached_traces_equal_uncached_ones(sample: Path):
    text, schema = load(sample)
    cache = SubtreeCache()
    first = workbench.trace(text, schema, cache=cache)
    assert cache.hits == 0 and cache.misses > 0
    assert snapshot(first) == snapshot(workbench.trace(text, schema))

    second = workbench.trace(text, schema, cache=cache)
    assert (cache.hits, cache.misses) == (1, 0)  # the whole tree, reused at the top
    assert second.root is first.root
    assert_same_trace(second, workbench.trace(text, schema))
    assert_same_trace(first, workbench.trace(text, schema), located_before=True)
    assert len(set(ids(second))) == len(ids(second))  # no node twice in one tree


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_an_edit_reruns_only_the_edited_property(sample: Path):
    text, schema = load(sample)
    properties = list(schema.get("properties", {}))
    cache = SubtreeCache()
    before = workbench.trace(text, schema, cache=cache)
    edited = schema
    for name in properties:
        edited = copy.deepcopy(edited)  # each run edits one more property
        edited["properties"][name]["description"] = "edited"  # new JSON text, same meaning
        old_children = {node.key: node for node in before.root.children}
        after = workbench.trace(text, edited, cache=cache)
        assert_same_trace(after, workbench.trace(text, edited), located_before=True)
        assert after.root is not before.root
        for node in after.root.children:
            if node.key == name:
                assert node is not old_children.get(name)
            elif node.key in old_children and node.via not in ("const", "default"):
                assert node is old_children[node.key], node.path  # a sibling: the same objects
        ran = cache.misses
        assert cache.hits >= 1 or len(after.root.children) <= 1
        # the root, the edited property and what lies below it; nothing in the siblings
        below = sum(1 for node in after.root.children if node.key == name for _ in node.walk())
        assert ran <= 1 + below
        before = after


def test_an_edit_that_changes_the_result_reruns_that_property():
    text, schema = load(ROOT / "sample_outputs" / "qwen3" / "parallel_calls.txt")
    cache = SubtreeCache()
    before = workbench.trace(text, schema, cache=cache)
    edited = copy.deepcopy(schema)
    edited["properties"]["tool_calls"]["items"]["properties"]["function"]["properties"]["name"]["x-regex-substitutions"] = [["_", "-"]]
    after = workbench.trace(text, edited, cache=cache)
    assert_same_trace(after, workbench.trace(text, edited))
    assert after.value["tool_calls"] != before.value["tool_calls"]
    old = {n.key: n for n in before.root.children}
    new = {n.key: n for n in after.root.children}
    assert new["thinking"] is old["thinking"] and new["content"] is old["content"]
    assert new["tool_calls"] is not old["tool_calls"]
    # the arguments of each call did not change: reused below the re-run function nodes
    old_args = before.nodes_at("/properties/tool_calls/items/properties/function/properties/arguments")
    new_args = after.nodes_at("/properties/tool_calls/items/properties/function/properties/arguments")
    assert len(new_args) == 2 and all(a is b for a, b in zip(new_args, old_args))

    # undo: the nodes of the run before last are still there
    undone = workbench.trace(text, schema, cache=cache)
    assert undone.root is before.root and (cache.hits, cache.misses) == (1, 0)


def test_failures_are_cached_with_their_path():
    text, schema = load(ROOT / "sample_outputs" / "qwen3" / "truncated_call.txt")
    cache = SubtreeCache()
    first = workbench.trace(text, schema, cache=cache)
    assert first.error_path == "/properties/tool_calls/items/properties/function"
    second = workbench.trace(text, schema, cache=cache)
    assert second.root is first.root and second.error is not first.error
    assert_same_trace(second, workbench.trace(text, schema))

    # the failing property reused below a re-run root: the failure is raised again, same path
    edited = copy.deepcopy(schema)
    edited["properties"]["content"]["description"] = "edited"
    third = workbench.trace(text, edited, cache=cache)
    assert cache.hits >= 1
    assert third.nodes_at("/properties/tool_calls")[0] is first.nodes_at("/properties/tool_calls")[0]
    assert type(third.error) is type(first.error) and str(third.error) == str(first.error)
    assert third.error_path == first.error_path
    assert [n.path for n in third.nodes() if n.error] == [third.error_path]
    assert_same_trace(third, workbench.trace(text, edited), located_before=True)


def test_a_timeout_is_not_cached():
    schema = {"type": "object", "properties": {"slow": {"type": "string", "x-regex": "((?:a|aa)+)$"},
                                               "fast": {"type": "string", "x-regex": "(b)"}}}
    text = "a" * 60 + "b"
    cache = SubtreeCache()
    first = workbench.trace(text, schema, time_limit=0.2, cache=cache)
    assert isinstance(first.error, workbench.engine.RegexTimeout)
    assert len(cache) == 0  # the slow node, and the root above it, stayed out
    second = workbench.trace(text, schema, time_limit=0.2, cache=cache)
    assert second.root is not first.root and isinstance(second.error, workbench.engine.RegexTimeout)


def test_a_different_text_empties_the_cache():
    schema = {"type": "object", "properties": {"a": {"type": "string", "x-regex": "<a>(.*?)</a>"}}}
    cache = SubtreeCache()
    first = workbench.trace("<a>1</a>", schema, cache=cache)
    other = workbench.trace("<a>22</a>", schema, cache=cache)
    assert cache.hits == 0 and other.value == {"a": "22"}
    again = workbench.trace("".join(["<a>2", "2</a>"]), schema, cache=cache)  # equal text, new object
    assert (cache.hits, cache.misses) == (1, 0) and again.root is other.root
    assert first.root is not other.root


def test_entries_unused_for_two_runs_are_dropped():
    schema = {"type": "object", "properties": {"a": {"type": "string", "x-regex": "<a>(.*?)</a>"}}}
    other = {"type": "object", "properties": {"a": {"type": "string", "x-regex": "<a>(.)"}}}
    third = {"type": "object", "properties": {"a": {"type": "string", "x-regex": "(<a>)"}}}
    cache = SubtreeCache()
    workbench.trace("<a>1</a>", schema, cache=cache)
    workbench.trace("<a>1</a>", other, cache=cache)
    workbench.trace("<a>1</a>", third, cache=cache)
    workbench.trace("<a>1</a>", schema, cache=cache)
    assert cache.hits == 0  # last used three runs ago
    workbench.trace("<a>1</a>", third, cache=cache)
    assert (cache.hits, cache.misses) == (1, 0)  # two runs ago


def test_identical_items_get_nodes_of_their_own():
    """Two identical calls rewritten by a substitution have the same cache key; each item still
    gets its own node."""
    schema = json.loads((ROOT / "schemas" / "hermes.json").read_text(encoding="utf-8"))
    text = "<function=f>{\"a\": 1}</function>\n<function=f>{\"a\": 1}</function>"
    cache = SubtreeCache()
    for run in range(3):
        result = workbench.trace(text, schema, cache=cache)
        assert len(set(ids(result))) == len(ids(result))
        assert_same_trace(result, workbench.trace(text, schema), located_before=run > 0)


_SHARED = SubtreeCache()  # across examples too: each new text must empty it


@SETTINGS
@given(text=model_outputs(), schema=model_schemas())
def test_generated_cached_traces_equal_uncached_ones(text, schema):
    assert snapshot(workbench.trace(text, schema, cache=SubtreeCache())) == snapshot(workbench.trace(text, schema))
    # The shared cache may hold nodes an earlier example located (the same text recurs while
    # hypothesis shrinks): compare located traces.
    for _ in range(2):
        assert_same_trace(workbench.trace(text, schema, cache=_SHARED), workbench.trace(text, schema), located_before=True)
    assert (_SHARED.hits, _SHARED.misses) == (1, 0)
    edited = copy.deepcopy(schema)
    edited["properties"]["tool_calls"]["description"] = "edited"
    assert_same_trace(workbench.trace(text, edited, cache=_SHARED), workbench.trace(text, edited), located_before=True)


def test_nodes_are_shared_not_copied_in_the_trace_module():
    """Cached nodes keep the classes consumers pickle (field names unchanged)."""
    result = workbench.trace("x", {"type": "string"}, cache=SubtreeCache())
    assert type(result.root) is tr.TraceNode


def test_a_schema_that_is_not_json_data_is_run_every_time():
    schema = {"type": "object", "properties": {"a": {"type": "string", "x-regex": "(a)", "note": {1, 2}},
                                               "b": {"type": "string", "x-regex": "(b)"}}}
    cache = SubtreeCache()
    first = workbench.trace("ab", schema, cache=cache)
    second = workbench.trace("ab", schema, cache=cache)
    assert second.value == first.value == {"a": "a", "b": "b"}
    assert (cache.hits, cache.misses) == (1, 2)  # the root and "a" ran again; "b" was reused
    assert second.root.children[1] is first.root.children[1]


def test_reused_subtrees_stay_cached_below_their_top():
    """A subtree reused whole keeps the entries of its own nodes: after runs that reused the
    tree at the top, an edit still finds the untouched properties."""
    text, schema = load(ROOT / "sample_outputs" / "qwen3" / "parallel_calls.txt")
    cache = SubtreeCache()
    first = workbench.trace(text, schema, cache=cache)
    for _ in range(3):
        workbench.trace(text, schema, cache=cache)
        assert (cache.hits, cache.misses) == (1, 0)
    edited = copy.deepcopy(schema)
    edited["properties"]["content"]["description"] = "edited"
    after = workbench.trace(text, edited, cache=cache)
    assert after.nodes_at("/properties/tool_calls")[0] is first.nodes_at("/properties/tool_calls")[0]
    assert cache.misses == 2  # the root and content


def test_an_interrupted_run_does_not_age_the_cache():
    """The TUI interrupts a run when a newer edit arrives; such runs must not push the last
    finished run's subtrees out."""
    text, schema = load(ROOT / "sample_outputs" / "qwen3" / "parallel_calls.txt")
    cache = SubtreeCache()
    first = workbench.trace(text, schema, cache=cache)

    class Superseded(BaseException):
        pass

    edited = copy.deepcopy(schema)
    edited["properties"]["content"]["x-regex-substitutions"] = [["\\\\s", " "]]
    from workbench.engine.schema import parse

    real = parse.rx.sub_matches

    def interrupt(*args):
        raise Superseded

    for _ in range(3):
        parse.rx.sub_matches = interrupt
        try:
            with pytest.raises(Superseded):
                workbench.trace(text, edited, cache=cache)
        finally:
            parse.rx.sub_matches = real
    after = workbench.trace(text, edited, cache=cache)
    assert after.nodes_at("/properties/tool_calls")[0] is first.nodes_at("/properties/tool_calls")[0]
    assert_same_trace(after, workbench.trace(text, edited), located_before=True)
