"""``x-parser-args.transform`` (jmespath) as a template ``transform``, where one exists.

What translates (docs/response-template.md#translating-a-schema): reshaping by multi-select hashes and lists over ``@``
and literals, ``{type: 'function', function: @}`` giving ``{"type": "function", "function":
"{content}"}``, and a projection ``[*].{...}`` over the parsed list, whose fields name keys of
each element: ``transform_each`` with ``{tool_name}``. A field of the whole value (``name``,
``a.b``) needs a dotted placeholder, which only transformers 5.16+ resolve; everything else
(and/or guards, functions, filters, pipes, slices) tests or computes, which a transform cannot.

When the expression does not translate, the best template still needs some transform: the guard
``name && X || Y`` is taken as ``X`` (what it gives for a well-formed call) and ``merge`` of
hashes as their union; failing that, the value is passed on unchanged.
"""

from __future__ import annotations

from typing import Any

import jmespath
from jmespath.exceptions import JMESPathError

from ..releases import before, release_of_change
from .ledger import Cannot, Ledger
from .terms import Arr, Each, Lit, Obj, Ref, literal

DOTTED = release_of_change("dotted_placeholders")  # the first release that reads {content.key}


def translate(expression: Any, value: Any, path: str, ledger: Ledger) -> Any:
    try:
        tree = jmespath.compile(expression).parsed
    except (JMESPathError, TypeError, ValueError) as exc:
        ledger.cannot(path, f"is not a jmespath expression recursive_parse can run ({' '.join(str(exc).split())})")
        return value
    try:
        result = _eval(tree, value, path)
    except Cannot as exc:
        ledger.cannot(path, f"{expression!r}: {exc.reason}")
        try:
            return _eval(tree, value, path, lenient=True)
        except Cannot:
            return value
    ledger.took(path)
    if _projects(tree):
        ledger.note(
            path,
            "on parsed JSON that is not a list of objects, the schema's projection gives nulls or "
            "nothing; transform_each raises (and a key missing from an element is null in the "
            "schema, an error in the template)",
        )
    return result


def _projects(tree: dict) -> bool:
    return tree.get("type") == "projection" or any(_projects(c) for c in tree.get("children", []) if isinstance(c, dict))


def _eval(node: dict, current: Any, path: str, lenient: bool = False) -> Any:
    kind = node["type"]
    children = node.get("children", [])
    if kind in ("current", "identity"):
        return current
    if kind == "literal":
        return literal(node["value"], path)
    if kind == "multi_select_dict":
        return Obj(tuple((pair["value"], _eval(pair["children"][0], current, path, lenient)) for pair in children))
    if kind == "multi_select_list":
        return Arr(tuple(_eval(child, current, path, lenient) for child in children))
    if kind == "field":
        name = node["value"]
        if isinstance(current, Obj):
            return current.get(name) if name in current.keys() else Lit(None)
        if isinstance(current, Ref) and current.scope == "element" and not current.name:
            return Ref("element", name, "json", path)
        raise Cannot(
            path,
            f"reads the key '{name}' of the parsed value, which needs a dotted placeholder "
            "({content." + name + f"}}): only transformers {DOTTED}+ resolve it, and {before('dotted_placeholders')} "
            "would keep the literal string",
        )
    if kind == "projection":
        left, right = children
        if left["type"] != "identity" or not isinstance(current, Ref) or current.member or current.scope != "content":
            raise Cannot(path, "projects something other than the whole parsed list; only [*].{...} over it translates")
        element = Ref("element", "", "json", path)
        shaped = _eval(right, element, path, lenient)
        if shaped is element:
            raise Cannot(path, "[*] alone drops null elements; a template cannot")
        return Each(shaped)
    if lenient:
        if kind == "or_expression" and children[0]["type"] == "and_expression":
            return _eval(children[0]["children"][1], current, path, lenient)
        if kind == "function_expression" and node["value"] == "merge":
            merged: dict = {}
            for child in children:
                part = _eval(child, current, path, lenient)
                if isinstance(part, Lit) and part.value == {}:
                    continue
                if not isinstance(part, Obj):
                    raise Cannot(path, "merge of something that is not a hash")
                merged.update(dict(part.items))
            return Obj(tuple(merged.items()))
    raise Cannot(path, _why(node))


def _why(node: dict) -> str:
    kind = node["type"]
    if kind in ("or_expression", "and_expression", "not_expression"):
        return "a jmespath and/or/not expression tests values (a guard); a template transform cannot test"
    if kind == "function_expression":
        return f"the jmespath function {node['value']}() computes a value; a template transform has no functions"
    if kind == "filter_projection":
        return "a jmespath filter [?...] selects by value; a template transform cannot"
    if kind == "comparator":
        return "a jmespath comparison tests values; a template transform cannot"
    if kind == "subexpression":
        return f"a jmespath sub-expression (a.b) needs a dotted placeholder, which only transformers {DOTTED}+ resolve"
    if kind == "pipe":
        return "a jmespath pipe (|) chains expressions; a template transform cannot"
    if kind in ("index_expression", "index", "slice", "flatten"):
        return "indexes, slices or flattens a list; a template transform cannot"
    if kind in ("value_projection",):
        return "projects the values of a hash (*); a template transform cannot"
    return f"a jmespath {kind.replace('_', ' ')} has no template counterpart"
