"""The response-schema interpreter: transformers 5.14.1's ``recursive_parse``, plus a trace.

Every step follows the runtime's order and its checks, so that a value or an error here is the
value or error ``tokenizer.parse_response`` gives. Two walks take those steps: ``_walk`` only
computes the value (parse_response, which must cost no more than the runtime's parse), and
``_Run._node`` also records, for each schema node visited, where its input sits in the raw text
and what each regex matched (trace). They share every error's wording and the leaf checks, and
the differential tests hold both to the runtime and to each other.

Where content came from is tracked alongside it as a *loc*:
  int        the content is the raw slice text[loc : loc + len(content)]
  _JsonAt    the content was parsed from the JSON text at text[start:end]
  dict/list  a structure built from regex groups: the loc of each member
  None       not traceable to one raw slice (rewritten, transformed, or None)
"""

from __future__ import annotations

import gc
import json
from functools import lru_cache
from typing import Any

import jmespath
from jmespath.visitor import TreeInterpreter

from . import trace_tree as tr
from ..depth import RUNTIME_JSON_DEPTH, enter as _deep_enter, leave as _deep_leave, runtime_json_overflow
from ..errors import ParseFailure, RegexTimeout, SchemaTypeError, SchemaValueError
from .gemma4 import gemma4_to_json
from ..pointer import escape
from . import regexes as rx
from .regexes import DEFAULT_TIME_LIMIT, arm, compile_re, disarm
from .subtree_cache import SubtreeCache, input_key


class _JsonAt:
    __slots__ = ("start", "end")

    def __init__(self, start: int, end: int) -> None:
        self.start, self.end = start, end


class _JsonPath:
    """The loc of a JSON container's members: the outermost JSON text is text[start:end] and
    ``keys`` lead from it to the container. A member's own loc is the pair (container, key). Its
    exact span is found only when asked for (Trace.locate): scanning every JSON value twice
    would double the cost of a trace."""

    __slots__ = ("start", "end", "keys")

    def __init__(self, start: int, end: int, keys: tuple) -> None:
        self.start, self.end, self.keys = start, end, keys


def _preview(value: Any, limit: int = 200) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _type_name(value: Any) -> str:
    return type(value).__name__


def _group_value(m) -> dict | str | None:
    """What one match hands on: its named groups that took part, else its single unnamed group."""
    named = m.groupdict()
    if named:
        return {k: v for k, v in named.items() if v is not None}
    groups = m.groups()
    if len(groups) > 1:
        raise SchemaValueError(f"regex has {len(groups)} unnamed groups; use one, or name them: {_preview(groups)}")
    if not groups:
        raise SchemaValueError(f"regex has no capture group; matched {_preview(m.group(0))}")
    return groups[0]


def _single_group(m) -> str | None:
    return m.group(1)


@lru_cache(maxsize=2048)
def _searcher(pattern: str) -> tuple:
    """An x-regex's compiled search and whether it reads the one unnamed group: one cache
    lookup per node where rx.search and _reader took two, and two calls (the traced walk)."""
    compiled = compile_re(pattern)
    return compiled.search, compiled.groups == 1 and not compiled.groupindex


@lru_cache(maxsize=2048)
def _reader(pattern: str):
    """_group_value, specialised to the pattern's groups: the common single unnamed group is read
    without building the groupdict and groups of every match."""
    compiled = compile_re(pattern)
    if compiled.groups == 1 and not compiled.groupindex:
        return _single_group
    return _group_value


def _group_loc(m, base: int | None, value: Any) -> Any:
    """The loc of what _group_value returned, for a match found in text starting at ``base``."""
    if base is None:
        return None
    if isinstance(value, dict):
        return {k: base + m.start(k) for k in value}
    if value is None:
        return None
    return base + m.start(1)


# ----- what both walks share: the runtime's checks, with one wording for each error ----------------


def _regex_input_error(content: Any) -> SchemaTypeError:
    return SchemaTypeError(f"node has a regex or substitution but got {_type_name(content)} input: {_preview(content)}")


def _iterator_type_error(node_type: Any) -> SchemaTypeError:
    return SchemaTypeError(f"a node of type {node_type!r} cannot use x-regex-iterator (only 'array')")


def _kv_type_error(node_type: Any) -> SchemaTypeError:
    return SchemaTypeError(f"a node of type {node_type!r} cannot use x-regex-key-value (only 'object')")


def _kv_pair(m) -> dict:
    groups = _group_value(m)
    if not isinstance(groups, dict) or "key" not in groups or "value" not in groups:
        raise SchemaValueError(
            f"x-regex-key-value needs named groups 'key' and 'value' in every match; got {_preview(groups)}"
        )
    return groups


def _object_string_error(content: str) -> SchemaValueError:
    return SchemaValueError(
        "an object node got a string but has no properties, regex or parser to take it apart: " + _preview(content)
    )


def _object_type_error(content: Any) -> SchemaTypeError:
    return SchemaTypeError(f"an object node needs a dict or a string, got {_type_name(content)}: {_preview(content)}")


def _check_required(schema: dict, out: dict) -> dict:
    missing = [key for key in schema.get("required", []) if key not in out]
    if missing:
        raise SchemaValueError(f"required fields {missing} are missing from parsed output; parsed {_preview(out)}")
    return out


def _items_type_error(content: Any) -> SchemaTypeError:
    return SchemaTypeError(f"an array node with items needs a list, got {_type_name(content)}: {_preview(content)}")


def _prefix_items(prefix: Any, content: Any, loc: Any) -> tuple[list, Any]:
    """The items for prefixItems (a lone value counts as one item when one is expected)."""
    if not isinstance(content, list):
        if len(prefix) != 1:
            raise SchemaTypeError(
                f"an array node with {len(prefix)} prefixItems needs a list, got {_type_name(content)}: {_preview(content)}"
            )
        content, loc = [content], [loc]
    if len(content) != len(prefix):
        raise SchemaValueError(f"the array has {len(content)} items but prefixItems defines {len(prefix)}")
    return content, loc


def _no_items_error() -> SchemaValueError:
    return SchemaValueError("an array node needs items or prefixItems")


def _scalar(node_type: Any, content: Any) -> Any:
    """A node that is neither object nor array: the content, checked and converted by type."""
    if node_type == "string":
        if not isinstance(content, str):
            raise SchemaTypeError(f"type 'string' needs a string, got {_type_name(content)}: {_preview(content)}")
        return content
    if node_type == "integer":
        if isinstance(content, int):
            return content
        if not isinstance(content, str):
            raise SchemaTypeError(f"type 'integer' needs a string or int, got {_type_name(content)}: {_preview(content)}")
        try:
            return int(content)
        except ValueError:
            raise SchemaValueError(f"type 'integer', but the content is not a valid integer: {_preview(content)}") from None
    if node_type == "number":
        if isinstance(content, (int, float)):
            return float(content)
        if not isinstance(content, str):
            raise SchemaTypeError(f"type 'number' needs a string or number, got {_type_name(content)}: {_preview(content)}")
        try:
            return float(content)
        except ValueError:
            raise SchemaValueError(f"type 'number', but the content is not a valid number: {_preview(content)}") from None
    if node_type == "boolean":
        if isinstance(content, bool):
            return content
        if not isinstance(content, str):
            raise SchemaTypeError(f"type 'boolean' needs a string or bool, got {_type_name(content)}: {_preview(content)}")
        lowered = content.lower()
        if lowered in ("true", "1"):
            return True
        if lowered in ("false", "0"):
            return False
        raise SchemaValueError(f"type 'boolean', but the content is not true/false/1/0: {_preview(content)}")
    if node_type is None or node_type == "any":
        return content
    raise SchemaTypeError(f"unsupported type {_preview(node_type)}")


def _parser(schema: dict, content: Any, loc: Any, text: str | None) -> tuple[Any, Any]:
    """x-parser: the parsed content and its loc (None unless tracing, ``text`` being the raw text)."""
    parser = schema["x-parser"]
    if parser == "gemma4-tool-call":
        if not isinstance(content, str):
            raise SchemaTypeError(f"x-parser 'gemma4-tool-call' needs a string, got {_type_name(content)}: {_preview(content)}")
        content, loc = gemma4_to_json(content), None
        parser = "json"
    if parser != "json":
        raise SchemaValueError(f"unknown x-parser {_preview(parser)} (known: 'json', 'gemma4-tool-call')")
    if not isinstance(content, str):
        raise SchemaTypeError(f"x-parser 'json' needs a string, got {_type_name(content)}: {_preview(content)}")
    args = schema.get("x-parser-args", _NO_ARGS)
    transform = args.get("transform")
    allow_non_json = args.get("allow_non_json", False)
    if allow_non_json and content[:1] not in _JSON_FIRST:
        # json.loads would fail at the first character (no JSON value or whitespace starts with
        # it, or there is none), and the content would be kept as it is: skip building its
        # error, which costs more than the rest of the node.
        parsed = content
    else:
        if len(content) > _DEEP_JSON_LENGTH:
            _check_json_depth(content)
        try:
            parsed = _json_loads(content)
        except json.JSONDecodeError as exc:
            if not allow_non_json:
                raise SchemaValueError(
                    f"could not parse its contents as JSON ({exc}); set x-parser-args.allow_non_json to accept plain text. "
                    f"Content: {_preview(content)}"
                ) from None
            parsed = content
        else:
            if text is not None and isinstance(loc, int):
                if isinstance(parsed, (dict, list)):  # only members need to know where they stand
                    # json.loads allows whitespace (these four characters) around the value
                    loc = _JsonAt(loc + len(content) - len(content.lstrip(_JSON_WS)), loc + len(content.rstrip(_JSON_WS)))
                else:
                    loc = None
    if transform is not None:
        if type(transform) is str:
            transformed = _TRANSFORMS.visit(_jmespath(transform), parsed)
        else:
            transformed = jmespath.search(transform, parsed)
        if transformed is not parsed:  # a guard such as `name && @ || {}` hands back the very object: its spans still hold
            loc = None
        parsed = transformed
    return parsed, loc


@lru_cache(maxsize=256)
def _jmespath(transform: str):
    """A transform's syntax tree, parsed once. jmespath.search parses (through a Parser and its
    cache) and builds a new interpreter on every call, most of a small parse's transform; the
    same parse, so a bad expression raises the same error."""
    return jmespath.compile(transform).parsed


# The interpreter jmespath.search would build (default options), kept: it holds no state between
# searches but its cache of visit methods.
_TRANSFORMS = TreeInterpreter()


_scan_json = json._default_decoder.scan_once  # what json.loads runs, without its Python steps


def _json_loads(content: str) -> Any:
    """``json.loads(content)``. The usual tool-call arguments are one object filling the content:
    the decoder's scanner reads it directly (json.loads would first run two Python calls and two
    whitespace regexes around it, a fifth of the node on short arguments); anything else, and
    every failure, goes through json.loads itself, for its exact value and error."""
    if content[:1] in _JSON_CONTAINERS and type(content) is str:
        try:
            value, end = _scan_json(content, 0)
        except Exception:  # noqa: BLE001 - json.loads below raises it again, as the runtime does
            return json.loads(content)
        if end == len(content):
            return value
    return json.loads(content)


_JSON_CONTAINERS = ("{", "[")
_NO_ARGS: dict = {}  # (read only)
_NO_PROPERTIES: dict = {}  # (read only: looked in, iterated)
# The shortest JSON text that can nest deeper than transformers' json.loads decodes.
_DEEP_JSON_LENGTH = 2 * RUNTIME_JSON_DEPTH


def _check_json_depth(content: str) -> None:
    """The runtime's json.loads raises RecursionError on JSON nested deeper than Python's recursion
    limit lets it go (depth.RUNTIME_JSON_DEPTH levels); ours runs under a higher limit, so it
    stops there itself, as a failure of this node (whatever allow_non_json says: the runtime
    catches only JSONDecodeError)."""
    overflow = runtime_json_overflow(content)
    if overflow is not None:
        raise SchemaValueError(
            f"could not parse its contents as JSON: nested deeper than about {RUNTIME_JSON_DEPTH} levels, where "
            f"transformers' json.loads raises RecursionError ({overflow}). Content: {_preview(content)}"
        )
_JSON_WS = " \t\n\r"
# What json.loads accepts first: a value's first character (NaN and Infinity included) or whitespace.
_JSON_FIRST = frozenset('"{[ntfNI-0123456789' + _JSON_WS)


# ----- the value-only walk (parse_response) ----------------------------------------------------------


def _walk(content: Any, schema: Any) -> Any:
    """One schema node, as the runtime computes it, keeping nothing but the value. The traced walk
    (_Run._node) takes the same steps in the same order; this one leaves out everything the trace
    needs, because parse_response must cost no more than the runtime's own parse. A child's
    failure gets the child's pointer segment at its call site (a try costs nothing in CPython
    3.11 until something is raised)."""
    if "const" in schema:
        return schema["const"]
    if content is None:
        return None
    get = schema.get
    node_type = get("type")
    # The runtime's check, with its two halves swapped: the content is usually a string, and
    # then the four lookups are not needed.
    if not isinstance(content, str) and (
        "x-regex-substitutions" in schema or "x-regex" in schema or "x-regex-iterator" in schema or "x-regex-key-value" in schema
    ):
        raise _regex_input_error(content)
    if "x-regex-substitutions" in schema:
        for sub in schema["x-regex-substitutions"]:
            content = _subn(sub[0], sub[1], content)[0]

    pattern = get("x-regex")
    iterator_pattern = get("x-regex-iterator")
    kv_pattern = get("x-regex-key-value")
    if pattern is not None:
        m = _search(pattern, content)
        if not m:
            return None
        content = _reader(pattern)(m)
    if iterator_pattern is not None:
        if node_type != "array":
            raise _iterator_type_error(node_type)
        read = _reader(iterator_pattern)
        content = [read(m) for m in _finditer(iterator_pattern, content)]
        if not content:
            return None
    if kv_pattern is not None:
        if node_type != "object":
            raise _kv_type_error(node_type)
        pairs: dict = {}
        for m in _finditer(kv_pattern, content):
            groups = _kv_pair(m)
            pairs[groups["key"]] = groups["value"]
        if not pairs:
            return None
        content = pairs
    if "x-parser" in schema:
        content = _parser(schema, content, None, None)[0]

    if node_type == "object":
        out: dict = {}
        if isinstance(content, str):
            if "properties" not in schema:
                raise _object_string_error(content)
            for key, child in schema["properties"].items():
                try:
                    value = _walk(content, child)
                except Exception as exc:
                    raise _located(exc, "/properties/", key) from None
                if value is not None:
                    out[key] = value
        elif isinstance(content, dict):
            known = get("properties", _NO_PROPERTIES)
            for key, child in known.items():
                if "const" in child:
                    out[key] = child["const"]
                elif key in content:
                    try:
                        out[key] = _walk(content[key], child)
                    except Exception as exc:
                        raise _located(exc, "/properties/", key) from None
                elif "default" in child:
                    out[key] = child["default"]
            additional = get("additionalProperties", True)
            if additional is not False:
                additional = additional if isinstance(additional, dict) else {}
                known = get("properties", _NO_PROPERTIES)
                for key, value in content.items():
                    if key not in known:
                        if additional:
                            try:
                                out[key] = _walk(value, additional)
                            except Exception as exc:
                                raise _located(exc, "/additionalProperties", None) from None
                        else:
                            out[key] = value  # what the walk gives for the schema {}
        else:
            raise _object_type_error(content)
        if "required" in schema:  # (a missing key is the runtime's empty list: nothing to check)
            _check_required(schema, out)
        return out
    if node_type == "array":
        if not content:
            return []
        if "items" in schema:
            if not isinstance(content, list):
                raise _items_type_error(content)
            item_schema = schema["items"]
            try:  # only the children's own work can raise in here
                return [_walk(item, item_schema) for item in content]
            except Exception as exc:
                raise _located(exc, "/items", None) from None
        if "prefixItems" in schema:
            prefix = schema["prefixItems"]
            content = _prefix_items(prefix, content, None)[0]
            items = []
            for i, (item, item_schema) in enumerate(zip(content, prefix)):
                try:
                    items.append(_walk(item, item_schema))
                except Exception as exc:
                    raise _located(exc, "/prefixItems/", i) from None
            return items
        raise _no_items_error()
    if node_type is None or (node_type == "string" and type(content) is str):
        return content  # the common leaves, without the call
    return _scalar(node_type, content)


# Module globals, read in one step where ``rx.search`` would take two, on every regex call.
_search, _finditer, _subn = rx.search, rx.finditer, rx.subn


# ----- the traced walk (trace) -----------------------------------------------------------------------

# Pointer of a child node by (parent pointer, segment): every item of a large array has the same
# paths below it, and every trace of one schema the same paths, so they are built once. Bounded
# by clearing: a long session of edits leaves the paths of schemas long gone.
_PATHS: dict = {}
_PATHS_LIMIT = 50_000


def _path(parent: str, prefix: str, key: Any) -> str:
    try:
        return _PATHS[parent, prefix, key]
    except KeyError:
        if len(_PATHS) >= _PATHS_LIMIT:
            _PATHS.clear()
        path = _PATHS[parent, prefix, key] = parent + (prefix if key is None else prefix + escape(key))
        return path


_RAW, _JSON, _DERIVED, _STRUCTURED, _NONE = tr.RAW, tr.JSON, tr.DERIVED, tr.STRUCTURED, tr.NONE
_TraceNode = tr.TraceNode


class _Run:
    """One traced parse: the raw text and what the trace keeps while it grows."""

    __slots__ = ("text", "members", "cache", "schema_texts", "below")

    def __init__(self, text: str | None, members: dict, cache: SubtreeCache | None = None) -> None:
        self.text = text  # None when the input is not a string
        self.members = members  # the trace's cache of JSON member spans
        self.cache = cache
        # id(subschema) -> (its JSON text, for cache keys; the subschema, kept alive so that its
        # id is not reused within the run: an additionalProperties of true is a fresh {} each time)
        self.schema_texts: dict = {}
        # While a cached node runs: (key, entry) of the cached nodes below it, stored with its
        # entry so that reusing it keeps them too (see SubtreeCache.take).
        self.below: list | None = None

    def child(self, content, schema, prefix, key, loc, parent, via, near):
        """A child node: its TraceNode is added to ``parent`` first, then it runs."""
        if self.cache is not None:
            return self.cached(content, schema, prefix, key, key, loc, parent, via, near)
        tn = _TraceNode(_path(parent.path, prefix, key), schema, key, via, tr.NONE, None, near)
        if parent.children:
            parent.children.append(tn)
        else:
            parent.children = [tn]  # in place of the shared empty tuple
        try:  # node(), inline: this runs once per node of the trace
            value = self._node(content, schema, loc, tn)
        except RecursionError:
            raise
        except Exception as exc:
            raise _failed(exc, prefix, key, tn) from None
        tn.value = value
        return value

    def cached(self, content, schema, prefix, segment, key, loc, parent, via, near):
        """A child node through the subtree cache (see subtree_cache.py): its cached subtree and
        outcome if the same node got the same input in a recent run, else a run of the node,
        remembered. ``segment`` completes its pointer segment, ``key`` is what it fills in its
        parent."""
        cache = self.cache
        path = _path(parent.path, prefix, segment)
        try:
            schema_text = self.schema_texts[id(schema)][0]
        except KeyError:
            schema_text = _schema_text(schema)
            self.schema_texts[id(schema)] = (schema_text, schema)
        identity = None if schema_text is None else input_key(content, loc)
        ckey = None if identity is None else (path, key, via, near, schema_text, identity)
        above = self.below  # (key, entry) of the cached nodes below the nearest cached ancestor
        if ckey is not None:
            entry = cache.take(ckey) if cache.reusable else None
            if entry is not None:
                if above is not None:
                    above.append((ckey, entry))
                cache.hits += 1
                tn, value, failure, _ = entry
                _adopt(parent, tn)
                if failure is None:
                    return value
                cls, message, segments = failure
                exc = cls(message)
                exc._segments = list(segments)  # this node's segment and those below it
                raise exc
            self.below = below = []
        cache.misses += 1
        tn = _TraceNode(path, schema, key, via, tr.NONE, None, near)
        _adopt(parent, tn)
        try:  # node(), inline
            value = self._node(content, schema, loc, tn)
        except RecursionError:
            self.below = above
            raise
        except Exception as exc:
            self.below = above
            failure = _failed(exc, prefix, segment, tn)
            # A timeout depends on the time left, not on the input: never reuse one.
            if ckey is not None and not isinstance(failure, RegexTimeout):
                entry = (tn, None, (type(failure), failure.message, tuple(failure._segments)), below)
                cache.put(ckey, entry)
                if above is not None:
                    above.append((ckey, entry))
            raise failure from None
        except BaseException:  # an interruption: nothing of this node is kept
            self.below = above
            raise
        self.below = above
        tn.value = value
        if ckey is not None:
            entry = (tn, value, None, below)
            cache.put(ckey, entry)
            if above is not None:
                above.append((ckey, entry))
        return value

    def _describe(self, tn: tr.TraceNode, content: Any, loc: Any, schema: dict) -> Any:
        """Fill in how the node's input relates to the raw text; returns the loc to carry on with.
        (The common raw slice is handled inline by _node.)"""
        if type(loc) is tuple:
            container = loc[0]
            tn.input_kind = _JSON
            tn.json_origin = (container.start, container.end, container.keys, loc[1])
            if not (isinstance(content, str) and _wants_raw(schema)):
                return loc
            tr.locate(self.text, tn, self.members)  # its regexes should report raw spans: locate it now
            if tn.span is None:
                return None
            loc = tn.span[0]
        if isinstance(loc, int) and isinstance(content, str):
            tn.input_kind = _RAW
            tn.span = tn.source_span = (loc, loc + len(content))
            return loc
        tn.input_kind = _STRUCTURED if isinstance(loc, (dict, list)) else _DERIVED
        return loc

    def _node(self, content: Any, schema: Any, loc: Any, tn: tr.TraceNode) -> Any:
        """The steps of _walk, recording each in ``tn``."""
        if "const" in schema:
            return schema["const"]
        if content is None:
            return None
        get = schema.get
        node_type = get("type")
        # {"type": ...} alone, the usual leaf: no regex, substitution or parser to look for
        plain = node_type is not None and len(schema) == 1
        kind = type(loc)
        if kind is int and isinstance(content, str):
            tn.input_kind = _RAW
            near = tn.source_span  # the parent's span: the same one when the parent hands on all of its input
            end = loc + len(content)
            if near is None or near[1] != end or near[0] != loc:
                near = (loc, end)
            tn.span = tn.source_span = near
        elif kind is tuple and (plain or not (isinstance(content, str) and _wants_raw(schema))):
            # a JSON member that need not be located now (the usual case): _describe, inline
            container = loc[0]
            tn.input_kind = _JSON
            tn.json_origin = (container.start, container.end, container.keys, loc[1])
            near = tn.source_span
        else:
            loc = self._describe(tn, content, loc, schema)
            near = tn.source_span
        if plain and node_type == "string" and type(content) is str:
            return content  # what the steps below come to for it
        if not isinstance(content, str) and (
            "x-regex-substitutions" in schema or "x-regex" in schema or "x-regex-iterator" in schema or "x-regex-key-value" in schema
        ):
            raise _regex_input_error(content)

        if "x-regex-substitutions" in schema:
            for index, sub in enumerate(schema["x-regex-substitutions"]):
                pattern, repl = sub[0], sub[1]
                base = loc if isinstance(loc, int) else None
                content, found = rx.sub_matches(pattern, repl, content)
                for i, m in enumerate(found):
                    _note(tn, ("x-regex-substitutions", i, m, base, index))
                if found:
                    loc = None  # rewritten: no longer a slice of the raw text

        regex_pattern = get("x-regex")
        iterator_pattern = get("x-regex-iterator")
        kv_pattern = get("x-regex-key-value")

        if regex_pattern is not None:
            search, single = _searcher(regex_pattern)  # _search and _reader, inline
            m = search(content)
            if not m:
                tn.no_match = "x-regex"
                return None
            value = m.group(1) if single else _group_value(m)
            base = loc if isinstance(loc, int) else None
            if tn.found:  # _note and _group_loc, inline: this runs for most nodes with a regex
                tn.found.append(("x-regex", 0, m, base, None))
            else:
                tn.found = [("x-regex", 0, m, base, None)]
            if base is not None:
                if node_type == "object" or node_type == "array":  # only children are placed near it
                    s, e = m.span()
                    near = (base + s, base + e)
                # a str comes from the pattern's one unnamed group
                loc = base + m.start(1) if type(value) is str else _group_loc(m, base, value)
            else:
                loc = None
            content = value

        if iterator_pattern is not None:
            if node_type != "array":
                raise _iterator_type_error(node_type)
            base = loc if isinstance(loc, int) else None
            read = _reader(iterator_pattern)
            items, locs = [], []
            if not tn.found:
                tn.found = []  # appended to directly below: one match per item can be many
            found = tn.found
            for i, m in enumerate(_finditer(iterator_pattern, content)):
                value = read(m)
                found.append(("x-regex-iterator", i, m, base, None))
                items.append(value)
                # _group_loc, inline for the usual str of one unnamed group
                locs.append(base + m.start(1) if base is not None and type(value) is str else _group_loc(m, base, value))
            if not found:
                tn.found = ()
            content, loc = items, locs
            if not content:
                tn.no_match = "x-regex-iterator"
                return None

        if kv_pattern is not None:
            if node_type != "object":
                raise _kv_type_error(node_type)
            pairs: dict = {}
            pair_locs: dict = {}
            base = loc if isinstance(loc, int) else None
            for i, m in enumerate(_finditer(kv_pattern, content)):
                groups = _kv_pair(m)
                pairs[groups["key"]] = groups["value"]
                _note(tn, ("x-regex-key-value", i, m, base, None))
                pair_locs[groups["key"]] = None if base is None else base + m.start("value")
            content, loc = pairs, pair_locs
            if not content:
                tn.no_match = "x-regex-key-value"
                return None

        if "x-parser" in schema:
            content, loc = _parser(schema, content, loc, self.text)

        if node_type == "object":
            return self._object(schema, content, loc, tn, near)
        if node_type == "array":
            return self._array(schema, content, loc, tn, near)
        if node_type is None or (node_type == "string" and type(content) is str):
            return content
        return _scalar(node_type, content)

    def _object(self, schema: dict, content: Any, loc: Any, tn, near) -> dict:
        out: dict = {}
        if isinstance(content, str):
            if "properties" not in schema:
                raise _object_string_error(content)
            properties = schema["properties"]
            if self.cache is not None:
                for key, child in properties.items():
                    value = self.child(content, child, "/properties/", key, loc, tn, None, near)
                    if value is not None:
                        out[key] = value
            elif properties:
                # child(), inline (one call frame less per node of the trace), and for a const
                # child _node's first step too: such a node records nothing but its value.
                parent_path = tn.path
                if not tn.children:
                    tn.children = []
                children = tn.children
                run = self._node
                for key, child in properties.items():
                    path = _PATHS.get((parent_path, "/properties/", key)) or _path(parent_path, "/properties/", key)
                    ctn = _TraceNode(path, child, key, None, _NONE, None, near)
                    children.append(ctn)
                    try:
                        value = child["const"] if "const" in child else run(content, child, loc, ctn)
                    except RecursionError:
                        raise
                    except Exception as exc:
                        raise _failed(exc, "/properties/", key, ctn) from None
                    ctn.value = value
                    if value is not None:
                        out[key] = value
        elif isinstance(content, dict):
            locs, via = _member_locs(content, loc), _via(tn)
            properties = schema.get("properties", _NO_PROPERTIES)
            cached = self.cache is not None
            for key, child in properties.items():
                if "const" in child:
                    out[key] = child["const"]
                    self._fixed(tn, child, key, "const", out[key])
                elif key in content:
                    if cached:
                        out[key] = self.child(content[key], child, "/properties/", key, _member(locs, key), tn, via, near)
                        continue
                    # child(), inline, as above (and _member for the usual containers)
                    locs_kind = type(locs)
                    if locs_kind is dict:
                        member_loc = locs.get(key)
                    elif locs_kind is _JsonPath:
                        member_loc = (locs, key)
                    else:
                        member_loc = _member(locs, key)
                    path = _PATHS.get((tn.path, "/properties/", key)) or _path(tn.path, "/properties/", key)  # (_path's hit, inline)
                    ctn = _TraceNode(path, child, key, via, _NONE, None, near)
                    if tn.children:
                        tn.children.append(ctn)
                    else:
                        tn.children = [ctn]
                    try:
                        value = self._node(content[key], child, member_loc, ctn)
                    except RecursionError:
                        raise
                    except Exception as exc:
                        raise _failed(exc, "/properties/", key, ctn) from None
                    ctn.value = out[key] = value
                elif "default" in child:
                    out[key] = child["default"]
                    self._fixed(tn, child, key, "default", out[key])
            additional = schema.get("additionalProperties", True)
            if additional is not False:
                additional = additional if isinstance(additional, dict) else {}
                known = schema.get("properties", _NO_PROPERTIES)
                if not additional and type(locs) is _JsonPath:
                    self._json_members(content, known, additional, locs, tn, via, near, out)
                elif not cached:
                    self._extras(content, known, additional, locs, tn, via, near, out)
                else:
                    for key, value in content.items():
                        if key not in known:
                            out[key] = self.cached(value, additional, "/additionalProperties", None, key, _member(locs, key), tn, via, near)
        else:
            raise _object_type_error(content)
        if "required" in schema:  # (a missing key is the runtime's empty list: nothing to check)
            _check_required(schema, out)
        return out

    @staticmethod
    def _json_members(content: dict, known: Any, schema: dict, locs: _JsonPath, tn, via, near, out: dict) -> None:
        """The usual ``additionalProperties: {}`` of tool-call arguments, on JSON: each value is
        handed on untouched, so the walk is skipped (and the cache: looking a node up would cost
        as much as building it); each value still gets its node, located when asked."""
        path = _path(tn.path, "/additionalProperties", None)
        origin = (locs.start, locs.end, locs.keys)  # each member's key is its node's
        if not tn.children:
            tn.children = []
        children = tn.children
        for key, value in content.items():
            if key not in known:
                child = _TraceNode(path, schema, key, via, _JSON, None, near)
                child.value = value
                child.json_origin = origin
                children.append(child)
                out[key] = value

    def _extras(self, content: dict, known: Any, schema: dict, locs: Any, tn, via, near, out: dict) -> None:
        """The keys the object's properties do not name, each parsed by additionalProperties."""
        path = _path(tn.path, "/additionalProperties", None)
        if not tn.children:
            tn.children = []
        children = tn.children
        run = self._node
        for key, value in content.items():
            if key not in known:
                child = _TraceNode(path, schema, key, via, tr.NONE, None, near)
                children.append(child)
                try:  # node(), inline
                    result = run(value, schema, _member(locs, key), child)
                except RecursionError:
                    raise
                except Exception as exc:
                    raise _failed(exc, "/additionalProperties", None, child) from None
                child.value = out[key] = result

    @staticmethod
    def _fixed(tn, schema: Any, key: str, via: str, value: Any) -> None:
        """A const or default filled in without parsing (still shown in the trace)."""
        _adopt(tn, _TraceNode(_path(tn.path, "/properties/", key), schema, key, via, value=value))

    def _array(self, schema: dict, content: Any, loc: Any, tn, near) -> list:
        if not content:
            return []
        if "items" in schema:
            if not isinstance(content, list):
                raise _items_type_error(content)
            item_schema = schema["items"]
            locs = _member_locs(content, loc)
            via = _via(tn)
            items = []
            if self.cache is not None:
                for i, item in enumerate(content):
                    items.append(self.cached(item, item_schema, "/items", None, i, _member(locs, i), tn, via, near))
                return items
            path = _path(tn.path, "/items", None)
            if not tn.children:
                tn.children = []
            children = tn.children
            run = self._node
            if type(locs) is not list or len(locs) != len(content):  # (an iterator's items: one loc each)
                locs = [_member(locs, i) for i in range(len(content))]
            for i, item in enumerate(content):
                child = _TraceNode(path, item_schema, i, via, tr.NONE, None, near)
                children.append(child)
                try:  # node(), inline
                    value = run(item, item_schema, locs[i], child)
                except RecursionError:
                    raise
                except Exception as exc:
                    raise _failed(exc, "/items", None, child) from None
                child.value = value
                items.append(value)
            return items
        if "prefixItems" in schema:
            prefix = schema["prefixItems"]
            content, loc = _prefix_items(prefix, content, loc)
            locs = _member_locs(content, loc)
            return [
                self.child(item, item_schema, "/prefixItems/", i, _member(locs, i), tn, _via(tn), near)
                for i, (item, item_schema) in enumerate(zip(content, prefix))
            ]
        raise _no_items_error()


def _located(exc: Exception, prefix: str, key: Any) -> Exception:
    """``exc``, raised inside the node reached through ``prefix`` + ``key``, made ready to go on
    unwinding from its parent: a ParseFailure gets the node's pointer segment; an error the
    runtime would raise raw (its ValueError or TypeError) becomes ours, with the segment; a
    RecursionError stays as it is."""
    if not isinstance(exc, ParseFailure):
        if isinstance(exc, RecursionError):
            return exc
        exc = (SchemaValueError if isinstance(exc, ValueError) else SchemaTypeError)(f"{_type_name(exc)}: {exc}")
    exc.add_segment(prefix if key is None else prefix + escape(key))
    return exc


def _schema_text(schema: Any) -> str | None:
    """A subschema's JSON text, the part of a cache key that says which node it is; None when
    the schema is not JSON data (such a node is never cached)."""
    try:
        return json.dumps(schema, ensure_ascii=False)
    except (TypeError, ValueError):
        return None


def _failed(exc: Exception, prefix: str, key: Any, tn: tr.TraceNode) -> Exception:
    """_located, for a traced node: the node where the failure happened records its message."""
    failure = _located(exc, prefix, key)
    if len(failure._segments) == 1:
        tn.error = failure.message
    return failure


def _adopt(parent: tr.TraceNode, child: tr.TraceNode) -> None:
    if parent.children:
        parent.children.append(child)
    else:
        parent.children = [child]  # in place of the shared empty tuple


def _note(tn: tr.TraceNode, found: tuple) -> None:
    if tn.found:
        tn.found.append(found)
    else:
        tn.found = [found]


def _wants_raw(schema: Any) -> bool:
    return isinstance(schema, dict) and (
        "x-regex" in schema or "x-regex-iterator" in schema or "x-regex-key-value" in schema or "x-regex-substitutions" in schema
    )


def _member_locs(content: Any, loc: Any) -> Any:
    """The loc of each member of a dict or list content, or None."""
    if isinstance(loc, _JsonAt):
        return _JsonPath(loc.start, loc.end, ())
    if type(loc) is tuple:  # a container that is itself a JSON member
        container, key = loc
        return _JsonPath(container.start, container.end, container.keys + (key,))
    return loc if isinstance(loc, (dict, list)) else None


def _member(locs: Any, key: Any) -> Any:
    if locs is None:
        return None
    if type(locs) is _JsonPath:
        return (locs, key)
    if isinstance(locs, dict):
        return locs.get(key)
    return locs[key] if key < len(locs) else None


def _via(tn: tr.TraceNode | None) -> str | None:
    """How a dict or list node hands members to its children, named by what built the members."""
    if tn is None:
        return None
    for found in reversed(tn.found):
        if found[0] != "x-regex-substitutions":
            return found[0]
    if "x-parser" in tn.schema:
        return "x-parser"
    return None


def parse_response(text: Any, schema: Any, *, time_limit: float = DEFAULT_TIME_LIMIT) -> Any:
    """What transformers 5.14.1's ``recursive_parse(text, schema)`` returns, or the error it raises
    (as a ParseFailure naming the node). Never validates the schema first, like the runtime.

    One walk, under one deadline: it keeps no trace, but a failure collects its node's pointer
    while it unwinds."""
    # A parse allocates many small containers: cycle collections while they grow would rescan
    # them, and the caller's whole heap (large when transformers or a UI is loaded), for
    # nothing. The collector waits until the parse is done. (Inline rather than a context
    # manager: on a small output the manager's calls were a measurable share of the parse.)
    collecting = gc.isenabled()
    gc.disable()
    _deep_enter()  # every schema a file can hold, at any depth (see depth.py)
    token = arm(time_limit)
    try:
        return _walk(text, schema)
    except Exception as exc:
        raise _located(exc, "", None) from None
    finally:
        disarm(token)
        _deep_leave()
        if collecting:
            gc.enable()


def trace(
    text: Any, schema: Any, *, time_limit: float = DEFAULT_TIME_LIMIT, cache: SubtreeCache | None = None
) -> tr.Trace:
    """The value ``parse_response`` gives (or its error) and the trace tree. Never raises a ParseFailure.

    ``cache``: a SubtreeCache of earlier runs on the same text; schema nodes whose input and
    subschema are unchanged are then not run again, their subtrees reused (see subtree_cache.py)."""
    raw = text if isinstance(text, str) else None
    members: dict = {}
    value = error = None
    if cache is None:
        root = tr.TraceNode("", schema, None, None)
    else:
        cache.begin(raw if raw is not None else "")
        holder = tr.TraceNode("", None, None, None)  # the root is adopted into it, built or reused
    run = _Run(raw, members, cache)
    loc = 0 if raw is not None else None
    collecting = gc.isenabled()  # see parse_response
    gc.disable()
    _deep_enter()
    token = arm(time_limit)
    try:
        if cache is None:
            try:  # node(), inline
                value = root.value = run._node(text, schema, loc, root)
            except RecursionError:
                raise
            except Exception as exc:
                raise _failed(exc, "", None, root) from None
        else:
            value = run.cached(text, schema, "", None, None, loc, holder, None, None)
    except ParseFailure as exc:  # a timeout may also strike between the nodes
        error = exc
    finally:
        disarm(token)
        _deep_leave()
        if collecting:
            _enable_keeping(gc)
    if cache is not None:
        cache.finish()
        root = holder.children[0] if holder.children else tr.TraceNode("", schema, None, None, error=_message(error))
    return tr.Trace(raw if raw is not None else "", root, value, error, members)


def _enable_keeping(collector) -> None:
    """Turn the cycle collector back on after a trace, its objects moved to the oldest generation
    first. A trace is a tree without back links (freed by reference counting), but the collector
    counts every node it built while it was off: on again, its next allocation would run a young
    collection over all of them (a third of a 500 KB trace's time) and, ten later, a middle one,
    to find no cycle. ``freeze`` then ``unfreeze`` moves the young objects to the oldest generation
    in one step and resets the count (the analysis process keeps the collector off for the same
    reason). Only when nothing is frozen: a caller's frozen objects stay frozen."""
    if collector.get_freeze_count() == 0:
        collector.freeze()
        collector.unfreeze()
    collector.enable()


def _message(error: Exception | None) -> str | None:
    return getattr(error, "message", None)
