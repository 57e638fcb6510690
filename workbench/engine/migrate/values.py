"""What a field's schema subtree makes of its region, worked out without any text.

A template field has one content parser and one ``transform`` over ``{content}`` and the opener's
named groups. A schema subtree, by contrast, is run node by node. To translate it, the subtree is
walked once over *symbolic* values, exactly in recursive_parse's order (const, substitutions,
regexes, parser, type), and what comes out is the transform:

- ``BODY``: the region's text, not parsed yet. The first node that parses it (a ``type: string``
  leaf, an ``x-parser``, an ``x-regex-key-value``) picks the field's content parser; a second one
  would read the same text again, which regions cannot do.
- ``Ref``: a value only the runtime knows, named by a placeholder: ``{content}``, a named group of
  the opener, or a key of one list element under ``transform_each``.
- ``Lit``, ``Obj``, ``Arr``: values whose shape is known here (a ``const``, a jmespath
  ``{type: 'function', function: @}``, the dict of a regex's named groups), which the schema's
  ``properties``, ``default`` and ``additionalProperties`` can be applied to right now.
- ``Each``: the list a jmespath projection ``[*].{...}`` makes: ``transform_each``.

A node that cannot be translated raises ``Cannot`` (its pointer and why); ``Walker.child`` records
it and carries on with the value unchanged, which makes the best template this subtree allows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import regex

from ..pointer import escape
from . import jmes
from .jmes import DOTTED
from .terms import Arr, Each, Lit, Obj, Ref, literal
from .ledger import Cannot, Ledger
from .shape import NotShape, Shape, shape_of
from . import regex_atoms as ra

SUBSTITUTIONS = (
    "rewrites the text before the regexes run; a template cannot rewrite text (docs/response-template.md#translating-a-schema: "
    "absorb the noise into a delimiter pattern, or use string_delims, case by case)"
)
GEMMA4_ARGS = {"unquoted_keys": True, "string_delims": [['<|"|>', '<|"|>']]}


class _Body:
    def __repr__(self) -> str:
        return "BODY"


BODY = _Body()


@dataclass
class Region:
    """One template field in the making: its delimiters (a Shape) and its content parser."""

    path: str  # the pointer of the regex that delimits it
    shape: Shape
    implicit: bool = False  # the leftover field: no opener
    parser: str | None = None
    args: dict = field(default_factory=dict)
    consumer: str | None = None  # the node that parsed the body
    absorbed: str | None = None  # the child x-regex moved into the opener

    def consume(self, path: str, parser: str, args: dict | None = None, kind: str = "text") -> Ref:
        if self.consumer is not None:
            raise Cannot(
                path,
                f"reads the same text as {self.consumer} (overlapping captures); a template parses each "
                "region once",
            )
        self.consumer, self.parser, self.args = path, parser, dict(args or {})
        return Ref("content", "content", kind, path)


class Walker:
    def __init__(self, ledger: Ledger, region: Region) -> None:
        self.ledger = ledger
        self.region = region

    # -- entry points ---------------------------------------------------------------------------

    def child(self, schema: Any, value: Any, path: str, consumed: frozenset = frozenset()) -> Any:
        """``node``, with a failure recorded and the value passed on as it came (the best guess)."""
        try:
            return self.node(schema, value, path, consumed)
        except Cannot as exc:
            self.ledger.cannot(exc.path, exc.reason)
            self.ledger.dead(path)  # the node as a whole stays untranslated, for the reason just listed
            return None if value is BODY else value

    def node(self, schema: Any, value: Any, path: str, consumed: frozenset = frozenset()) -> Any:
        """The symbolic value recursive_parse gives at ``schema`` for ``value`` (None: no key)."""
        if not isinstance(schema, dict):
            raise Cannot(path, "is not a schema object")
        took = self.ledger.took
        if "const" in schema:
            took(f"{path}/const")
            for key in schema:
                if key != "const":
                    self.ledger.dead(f"{path}/{escape(key)}")
            return literal(schema["const"], f"{path}/const")
        if isinstance(value, Lit) and value.value is None:
            return None
        regex_keys = [k for k in ("x-regex-substitutions", "x-regex", "x-regex-iterator", "x-regex-key-value") if k in schema and k not in consumed]
        if regex_keys and value is not BODY:
            raise Cannot(
                f"{path}/{regex_keys[0]}",
                "runs a regex on a value already taken apart (a captured group or a parsed member); a "
                "template finds delimiters in the raw text only",
            )
        if "x-regex-substitutions" in schema and "x-regex-substitutions" not in consumed:
            self.ledger.cannot(f"{path}/x-regex-substitutions", SUBSTITUTIONS)
        if "x-regex" in schema and "x-regex" not in consumed:
            value = self._child_regex(schema["x-regex"], f"{path}/x-regex")
        if "x-regex-iterator" in schema and "x-regex-iterator" not in consumed:
            raise Cannot(
                f"{path}/x-regex-iterator",
                "finds a list inside a region; a template repeats whole regions only (regions do not nest)",
            )
        if "x-regex-key-value" in schema:
            value = self._key_value(schema, value, path)
        if "x-parser" in schema:
            value = self._parser(schema, value, path)
        return self._type(schema, value, path)

    # -- regexes and parsers ------------------------------------------------------------------------

    def _child_regex(self, pattern: Any, path: str) -> Any:
        """A regex on a region's text (an iterator item): it can move into the opener when it is
        anchored at the item's start and its last group runs to the item's end. Its other named
        groups (the gpt-oss / Gemma 4 function name) become named groups of ``open_pattern``."""
        region = self.region
        if region.implicit:
            raise Cannot(path, "splits the leftover text; the implicit field has no opener to move it into")
        if region.absorbed is not None or region.consumer is not None:
            raise Cannot(
                path,
                f"reads text that {region.absorbed or region.consumer} already reads (overlapping captures)",
            )
        try:
            shape = shape_of(pattern)
            shape.check_opener()
        except NotShape as exc:
            raise Cannot(path, f"{exc}") from None
        if not shape.open_atoms or not ra.is_start(shape.open_atoms[0]):
            raise Cannot(
                path,
                "is not anchored at the start of the region (^), so the text before its groups cannot "
                "become part of the opening delimiter",
            )
        closer = self._item_closer(shape, path)
        clash = set(shape.captures) & set(region.shape.captures)
        if clash:
            raise Cannot(path, f"its group names {sorted(clash)} are already groups of the opener")
        outer = region.shape
        if closer:
            # ``\s*</function>\s*$`` at the item's end: the region's closer becomes
            # ``</function>\s*</tool_call>`` (transformers' own Qwen3.5 template does the same).
            if not outer.close_alts:
                raise Cannot(path, "ends with a closer of its own, but the region has no closer to put it before")
            between = r"\s*" if outer.trail_trim and not closer.endswith(r"\s*") else ""
            outer.close_alts = [closer + between + alt for alt in outer.close_alts]
            outer.trail_trim = shape.trail_trim
            self.ledger.note(
                path,
                f"its closer {closer} becomes part of the region's closer; when it is missing the schema "
                "leaves the call's function out, while the template's region runs on to the next such closer",
            )
        else:
            outer.trail_trim = outer.trail_trim or shape.trail_trim
        atoms = list(outer.open_atoms)
        if outer.body_lookahead:
            atoms.append(f"(?={outer.body_lookahead})")
        if outer.lead_trim:
            atoms.append(r"\s*")
        atoms.extend(shape.open_atoms[1:])
        outer.open_atoms = atoms
        outer.captures = outer.captures + shape.captures
        outer.lead_trim = shape.lead_trim
        outer.body_lookahead = shape.body_lookahead
        region.absorbed = path
        self.ledger.took(path)
        return initial_value(shape, path)

    @staticmethod
    def _item_closer(shape: Shape, path: str) -> str:
        r""""" when the child regex's last group runs to the end of the item; the pattern text of
        what stands between the group and the item's end (``</function>\s*``) when that is a
        closer anchored there; else Cannot."""
        if not shape.close_alts:
            if not shape.close_end:
                raise Cannot(path, "its last group does not run to the end of the region, so it cannot be the region's body")
            return ""
        prefixes = []
        for alt in shape.close_alts:
            try:
                atoms = ra.split_atoms(alt)
            except ra.NotSplittable:
                atoms = []
            if len(atoms) < 2 or not ra.is_end(atoms[-1]):
                raise Cannot(path, "its last group does not run to the end of the region (nor to a closer at its end), so it cannot be the region's body")
            prefixes.append("".join(atoms[:-1]))
        closer = prefixes[0] if len(prefixes) == 1 else "(?:" + "|".join(prefixes) + ")"
        if shape.close_end:  # (?:</function>\s*$|$): the closer is optional
            closer = f"(?:{closer})?"
        return closer

    def _key_value(self, schema: dict, value: Any, path: str) -> Any:
        where = f"{path}/x-regex-key-value"
        pattern = schema["x-regex-key-value"]
        try:
            names = regex.compile(pattern, regex.DOTALL).groupindex
        except (regex.error, TypeError):
            raise Cannot(where, "is not a valid regex") from None
        if "key" not in names:
            raise Cannot(where, "has no named group 'key' (xml-inline's tag_pattern needs one)")
        if value is not BODY:
            raise Cannot(where, "runs on a value already taken apart")
        self.ledger.took(where)
        self.ledger.note(
            where,
            "when no pair is found the schema gives nothing here (or the default); xml-inline gives {}",
        )
        return self.region.consume(where, "xml-inline", {"tag_pattern": pattern}, kind="pairs")

    def _parser(self, schema: dict, value: Any, path: str) -> Any:
        where = f"{path}/x-parser"
        parser = schema["x-parser"]
        args = schema.get("x-parser-args", {})
        if not isinstance(args, dict):
            raise Cannot(f"{path}/x-parser-args", "is not an object")
        if parser not in ("json", "gemma4-tool-call"):
            raise Cannot(where, f"unknown parser {parser!r}")
        if value is not BODY:
            raise Cannot(
                where,
                "parses a value already taken apart (a captured group or a parsed member); a template "
                "parses only a region's body",
            )
        content_args = dict(GEMMA4_ARGS) if parser == "gemma4-tool-call" else {}
        if args.get("allow_non_json"):
            content_args["allow_non_json"] = True
            self.ledger.took(f"{path}/x-parser-args/allow_non_json")
            shape = self.region.shape
            if not (shape.lead_trim and shape.trail_trim):
                self.ledger.note(
                    f"{path}/x-parser-args/allow_non_json",
                    "text that is not JSON is kept as it is by the schema, stripped by the template",
                )
        elif "allow_non_json" in args:
            self.ledger.took(f"{path}/x-parser-args/allow_non_json")
        value = self.region.consume(where, "json", content_args, kind="json")
        self.ledger.took(where)
        if "transform" in args:
            value = jmes.translate(args["transform"], value, f"{path}/x-parser-args/transform", self.ledger)
        return value

    # -- types ----------------------------------------------------------------------------------------

    def _type(self, schema: dict, value: Any, path: str) -> Any:
        node_type = schema.get("type")
        if "type" in schema:
            self.ledger.took(f"{path}/type")
        if value is BODY:
            return self._text_type(schema, node_type, path)
        if node_type == "object":
            return self._object(schema, value, path)
        if node_type == "array":
            return self._array(schema, value, path)
        for key in ("properties", "items", "prefixItems", "additionalProperties", "required"):
            if key in schema:  # recursive_parse reads them for objects and arrays only
                self.ledger.dead(f"{path}/{key}")
        if node_type in (None, "any"):
            return value
        if node_type == "string" and isinstance(value, Ref) and value.kind == "text":
            return value
        if node_type == "string" and isinstance(value, Lit) and isinstance(value.value, str):
            return value
        if isinstance(value, Ref) and not value.member and value.scope == "content":
            what = "the parsed value"
        else:
            what = "this value"
        raise Cannot(
            f"{path}/type",
            f"type {node_type!r} checks or converts {what}; a template's transform does neither "
            "(per-key types: only tools= casting at parse time, docs/response-template.md#tool-argument-casting)",
        )

    def _text_type(self, schema: dict, node_type: Any, path: str) -> Any:
        """A node that gets the region's text itself: its type picks the content parser."""
        if node_type in (None, "any", "string"):
            return self.region.consume(path, "text")
        if node_type in ("integer", "number", "boolean"):
            parser = {"integer": "int", "number": "float", "boolean": "bool"}[node_type]
            if node_type == "boolean":
                self.ledger.note(f"{path}/type", "text other than true/false/1/0 fails in the schema; the template's bool gives false")
            if node_type == "number":
                self.ledger.note(f"{path}/type", "the schema gives a float always, as the template's float does; both fail on text that is no number")
            return self.region.consume(path, parser)
        if node_type == "object":
            properties = schema.get("properties")
            if not isinstance(properties, dict):
                raise Cannot(path, "an object node that gets text needs properties; the schema always fails here")
            out = []
            for key, child in properties.items():
                got = self.child(child, BODY, f"{path}/properties/{escape(key)}")
                if got is not None:
                    out.append((key, got))
            if "additionalProperties" in schema:
                self.ledger.dead(f"{path}/additionalProperties")  # read only for a dict
            return self._required(schema, Obj(tuple(out)), path)
        if node_type == "array":
            raise Cannot(path, "an array node that gets text (no x-regex-iterator) fails in the schema")
        raise Cannot(f"{path}/type", f"unsupported type {node_type!r}")

    def _object(self, schema: dict, value: Any, path: str) -> Any:
        if isinstance(value, Obj):
            return self._known_object(schema, value, path)
        if isinstance(value, Ref) and value.kind == "pairs":
            return self._pairs(schema, value, path)
        if isinstance(value, Ref) and value.kind == "json":
            return self._opaque_object(schema, value, path)
        raise Cannot(f"{path}/type", "type 'object' on a value that is not an object; the schema fails here")

    def _known_object(self, schema: dict, value: Obj, path: str) -> Any:
        """recursive_parse's dict branch, done now: the keys of the value are known."""
        properties = schema.get("properties", {})
        out: list = []
        for key, child in properties.items():
            where = f"{path}/properties/{escape(key)}"
            if isinstance(child, dict) and "const" in child:
                out.append((key, self.child(child, BODY, where)))
            elif key in value.keys():
                out.append((key, self.child(child, value.get(key), where)))
            elif isinstance(child, dict) and "default" in child:
                out.append((key, literal(child["default"], f"{where}/default")))
            if isinstance(child, dict) and "default" in child:
                self.ledger.took(f"{where}/default")  # read only when the key is missing, known here
        extra = [(k, v) for k, v in value.items if k not in properties]
        additional = schema.get("additionalProperties", True)
        if "additionalProperties" in schema:
            self.ledger.took(f"{path}/additionalProperties")
        if additional is False:
            extra = []
        elif isinstance(additional, dict) and additional:
            extra = [(k, self.child(additional, v, f"{path}/additionalProperties")) for k, v in extra]
        for key, got in extra:
            if got is BODY:
                got = self.child({}, BODY, f"{path}/additionalProperties")
            out.append((key, got))
        return self._required(schema, Obj(tuple((k, v) for k, v in out if v is not None)), path)

    def _required(self, schema: dict, value: Obj, path: str) -> Obj:
        if "required" not in schema:
            return value
        missing = [key for key in schema["required"] if key not in value.keys()]
        untranslated = [k for k in missing if self.ledger.is_covered(f"{path}/properties/{escape(k)}")]
        if missing and missing == untranslated:
            self.ledger.dead(f"{path}/required")  # missing only because their own translation failed, as listed
            return value
        if missing:
            raise Cannot(f"{path}/required", f"{missing} can never be present here, so the schema always fails")
        self.ledger.took(f"{path}/required")  # always satisfied: the keys are always there
        return value

    def _pairs(self, schema: dict, value: Ref, path: str) -> Any:
        """The dict of strings ``x-regex-key-value`` gives: one ``value_parser`` may parse every value."""
        for key in schema.get("properties", {}):
            self.ledger.cannot(
                f"{path}/properties/{escape(key)}",
                "a schema for one key of the pairs; xml-inline has one value_parser for every key",
            )
        additional = schema.get("additionalProperties", True)
        if "additionalProperties" in schema:
            where = f"{path}/additionalProperties"
            if additional is False:
                self.ledger.cannot(where, "drops every pair; a template has no key filtering")
            elif isinstance(additional, dict) and additional:
                self._value_parser(additional, where)
            else:
                self.ledger.took(where)
        if "required" in schema:
            self.ledger.cannot(f"{path}/required", "checks keys inside a parsed value; a template checks only top-level fields")
        return value

    def _value_parser(self, schema: dict, path: str) -> None:
        parser = schema.get("x-parser")
        args = schema.get("x-parser-args", {})
        rest = set(schema) - {"x-parser", "x-parser-args", "type"}
        if parser not in ("json", "gemma4-tool-call") or rest or schema.get("type") not in (None, "any") or not isinstance(args, dict) or "transform" in args:
            raise_reason = "a schema for the values that is not a single x-parser; xml-inline's value_parser is one parser"
            self.ledger.cannot(path, raise_reason)
            return
        value_args = dict(GEMMA4_ARGS) if parser == "gemma4-tool-call" else {}
        if args.get("allow_non_json"):
            value_args["allow_non_json"] = True
            self.ledger.note(f"{path}/x-parser-args/allow_non_json", "a value that is not JSON is kept as it is by the schema, stripped by the template")
        self.region.args["value_parser"] = {"name": "json", "args": value_args} if value_args else {"name": "json"}
        self.ledger.took(path, f"{path}/x-parser", f"{path}/x-parser-args/allow_non_json", f"{path}/type")

    def _opaque_object(self, schema: dict, value: Ref, path: str) -> Any:
        """A parsed JSON value the template passes through whole: only keywords that change
        nothing translate."""
        self.ledger.cannot(
            f"{path}/type",
            "type 'object' checks that the parsed value is an object (the schema fails otherwise); a "
            "template passes any JSON value",
        )
        for key, child in schema.get("properties", {}).items():
            where = f"{path}/properties/{escape(key)}"
            if isinstance(child, dict) and "const" in child:
                self.ledger.cannot(f"{where}/const", "adds a key to a parsed JSON object; a transform cannot add keys to a value it passes through")
                continue
            if isinstance(child, dict) and "default" in child:
                self.ledger.cannot(f"{where}/default", "fills a missing key inside a parsed value (nested default); a template cannot")
            member = Ref(value.scope, value.name, "json", where, member=True)
            got = self.child(child, member, where)
            if got is not member:
                self.ledger.cannot(where, f"changes a member of the parsed value; a template would need a dotted placeholder (transformers {DOTTED}+)")
        additional = schema.get("additionalProperties", True)
        if "additionalProperties" in schema:
            where = f"{path}/additionalProperties"
            if additional is False:
                self.ledger.cannot(where, "drops every key not in properties; a template has no key filtering")
            elif isinstance(additional, dict) and additional:
                member = Ref(value.scope, value.name, "json", where, member=True)
                if self.child(additional, member, where) is not member:
                    self.ledger.cannot(where, "changes the other members of the parsed value; a template cannot")
            else:
                self.ledger.took(where)
        if "required" in schema:
            self.ledger.cannot(f"{path}/required", "checks keys inside a parsed value (nested required); a template checks only top-level fields")
        return value

    def _array(self, schema: dict, value: Any, path: str) -> Any:
        if "prefixItems" in schema:
            raise Cannot(f"{path}/prefixItems", "gives each list position its own schema; a template has no counterpart")
        items = schema.get("items")
        if isinstance(value, Each):
            if items is None:
                raise Cannot(path, "an array node needs items; the schema fails on a non-empty list")
            return Each(self.child(items, value.element, f"{path}/items"))
        if isinstance(value, Arr):
            if items is None:
                raise Cannot(path, "an array node needs items; the schema fails on a non-empty list")
            return Arr(tuple(self.child(items, item, f"{path}/items") for item in value.items))
        if isinstance(value, Ref) and value.kind == "json":
            self.ledger.cannot(
                f"{path}/type",
                "type 'array' checks that the parsed value is a list (the schema fails otherwise); a "
                "template passes any JSON value",
            )
            if items is not None:
                member = Ref(value.scope, value.name, "json", f"{path}/items", member=True)
                if self.child(items, member, f"{path}/items") is not member:
                    self.ledger.cannot(f"{path}/items", "changes each element of the parsed list; a template can reshape list elements only with a jmespath-style [*].{...} (transform_each)")
            return value
        raise Cannot(f"{path}/type", "type 'array' on a value that is not a list; the schema fails here")


def initial_value(shape: Shape, path: str) -> Any:
    """What a field regex hands on: its group's text, or the dict of its named groups."""
    if shape.body_name is None:
        return BODY
    items = [(name, Ref("group", name, "text", path)) for name in shape.captures]
    items.append((shape.body_name, BODY))
    return Obj(tuple(items))


class NotEmittable(Exception):
    def __init__(self, path: str, reason: str) -> None:
        super().__init__(reason)
        self.path, self.reason = path, reason


def emit(value: Any) -> Any:
    """The transform JSON for a symbolic value."""
    if isinstance(value, Lit):
        return value.value
    if isinstance(value, Obj):
        return {key: emit(v) for key, v in value.items}
    if isinstance(value, Arr):
        return [emit(v) for v in value.items]
    if isinstance(value, Ref):
        if value.member:
            raise NotEmittable(value.path, f"names a member of a parsed value, which needs a dotted placeholder (transformers {DOTTED}+)")
        if value.scope == "element" and not value.name:
            raise NotEmittable(value.path, "names a whole list element, which transform_each cannot")
        return "{" + value.name + "}"
    if isinstance(value, Each):
        raise NotEmittable("", "a list reshaped element by element inside another value; transform_each applies only to a whole field")
    if value is BODY:
        return "{content}"
    raise NotEmittable("", f"cannot write {value!r} as a transform")
