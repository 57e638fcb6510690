"""A response schema as a response template: the message's properties as fields.

Each top-level property becomes one of (docs/response-template.md#translating-a-schema):

- ``const`` (``role: assistant``): a key of ``defaults``;
- ``x-regex`` ``OPEN(.*?)CLOSE``: a field with ``open``/``close`` literals, or ``open_pattern`` /
  ``close_pattern`` where they are not literal (a ``^`` is kept: in a template it is the start of
  the prompt's tail after the anchor, which is the start of the output when the prompt ends
  with the anchor);
- ``x-regex-iterator`` ``OPEN(.*?)CLOSE``: the same with ``repeats: true`` (an ``x-regex`` beside
  it that only steps over other fields, ``^(?:<think>.*?</think>)?(.*)``, is what regions do anyway);
- an ``x-regex`` whose opener requires no text (``^\\s*((?:.*?\\S)??)\\s*(?:<tool_call>|<|im_end|>|$)``,
  or no regex at all): the implicit field, "whatever is left". Closers that are another field's
  opener are dropped (opening that field ends the leftover region); the rest (end-of-turn
  markers) close it. Because a region that opens again overwrites the last one (docs/response-template.md#finding-regions step 5),
  whitespace between regions must not reopen it: when the schema trims the leftover text, the
  other fields' openers and its own closer take leading whitespace in (``\\s*<tool_call>``,
  ``\\s*(?:<|im_end|>|$)``), as transformers' own Qwen fallback does (docs/response-template.md#fallback-templates). If the regex matches
  even empty text, the schema always has the key (``content: ""``), so it goes to ``defaults``.

The subtree under each field is translated by ``values.Walker`` into the content parser and the
transform. Whatever does not translate is listed with its pointer (``ledger``); the template is the
best that remains, and is loaded as transformers loads it before it is returned.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..pointer import escape
from ..releases import release_of_change
from ..template import load_template
from ..template.slow_delimiters import leading_repeat
from . import regex_atoms as ra
from .ledger import Item, Ledger
from .shape import NotShape, Shape, alternation, escape as re_escape, literals_of, shape_of
from .values import BODY, SUBSTITUTIONS, Each, NotEmittable, Ref, Region, Walker, emit, initial_value

JOIN = "\n\n"  # the join rule's separator (docs/join-rule.md)

ROOT_REGEX = (
    "a regex on the whole message hands its properties a dict of groups instead of the text; "
    "split it into one regex per property first (docs/response-template.md#translating-a-schema, the root x-regex row, is "
    "semi-mechanical and not done here)"
)


@dataclass
class Migration:
    """The template (None when nothing could be translated), and the report."""

    template: dict | None
    untranslatable: list[Item] = field(default_factory=list)
    notes: list[Item] = field(default_factory=list)
    translated: list[str] = field(default_factory=list)  # pointers of the schema keys translated


@dataclass
class _Field:
    name: str
    path: str  # the property's pointer
    region: Region
    value: Any
    repeats: bool
    joined: bool = False  # the schema joins the segments around the calls (the join rule)


def migrate(schema: Any, start_anchor: str | list[str]) -> Migration:
    """Translate ``schema`` (a response_schema dict) into a response_template whose
    ``start_anchor`` is ``start_anchor`` (see ``anchor.derive_start_anchor``)."""
    ledger = Ledger()
    template = _Translation(ledger).run(schema, start_anchor)
    ledger.sweep(schema)
    return Migration(template, ledger.untranslatable, ledger.notes, ledger.translated)


class _Translation:
    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self.defaults: dict = {}
        self.explicit: list[_Field] = []
        self.leftover: list[tuple[str, str, dict, Shape]] = []  # (name, path, property, shape)

    def run(self, schema: Any, anchor: str | list[str]) -> dict | None:
        if not self._root(schema):
            return None
        for name, prop in schema["properties"].items():
            self._property(name, f"/properties/{escape(name)}", prop)
        implicit = self._implicit()
        fields = self._emit(implicit)
        self._required(schema, fields)
        return self._loadable(anchor, fields)

    # -- the message ---------------------------------------------------------------------------

    def _root(self, schema: Any) -> bool:
        ledger = self.ledger
        if not isinstance(schema, dict):
            ledger.cannot("", "the schema is not an object")
            return False
        if "const" in schema:
            ledger.cannot("/const", "the whole message is a constant; a template always parses the text")
            return False
        if schema.get("type") != "object":
            ledger.cannot("/type" if "type" in schema else "", "the message is not an object with properties; a template's message is a dict of fields")
            return False
        ledger.took("/type")
        if "x-regex-substitutions" in schema:
            ledger.cannot("/x-regex-substitutions", "rewrites the whole text before every property reads it; a template cannot rewrite text")
        for key in ("x-regex", "x-regex-iterator", "x-regex-key-value", "x-parser"):
            if key in schema:
                ledger.cannot(f"/{key}", ROOT_REGEX if key.startswith("x-regex") else "parses the whole text before its properties read it")
                ledger.dead("/properties")
                return False
        if not isinstance(schema.get("properties"), dict) or not schema["properties"]:
            ledger.cannot("/properties" if "properties" in schema else "", "the message has no properties to make fields of")
            return False
        if "additionalProperties" in schema:
            ledger.dead("/additionalProperties")  # the root gets text: recursive_parse reads it for a dict only
        return True

    def _property(self, name: str, path: str, prop: Any) -> None:
        ledger = self.ledger
        if not isinstance(prop, dict):
            ledger.cannot(path, "is not a schema object")
            return
        if "const" in prop:
            self.defaults[name] = prop["const"]
            ledger.took(f"{path}/const")
            for key in prop:
                if key != "const":
                    ledger.dead(f"{path}/{escape(key)}")
            return
        if "default" in prop:
            ledger.took(f"{path}/default")
            ledger.note(
                f"{path}/default",
                "has no effect in the schema (the message's properties read the text, and recursive_parse "
                "uses a default only for a key missing from a dict), so it is not put in defaults",
            )
        if "x-regex-iterator" in prop:
            self._iterator(name, path, prop)
            return
        if "x-regex" not in prop:
            # No regex: the property reads the whole text, which a template can give only to the
            # implicit field.
            whole = Shape(
                open_atoms=[], captures=[], lead_trim=False, body_name=None, body_lookahead="",
                rest=True, trail_trim=False, close_alts=[], close_end=True,
            )
            self.leftover.append((name, path, prop, whole))
            return
        try:
            shape = shape_of(prop["x-regex"])
            if shape.skip_only() and shape.close_end:
                self.leftover.append((name, path, prop, shape))
                return
            shape.check_opener()
        except (NotShape, TypeError) as exc:
            ledger.cannot(f"{path}/x-regex", f"is not of the OPEN(.*?)CLOSE shape a template field needs: {exc}")
            ledger.dead(path)
            return
        region = Region(f"{path}/x-regex", shape)
        self.ledger.took(f"{path}/x-regex")
        value = Walker(ledger, region).child(prop, initial_value(shape, f"{path}/x-regex"), path, frozenset({"x-regex"}))
        self.explicit.append(_Field(name, path, region, value, repeats=False))

    def _iterator(self, name: str, path: str, prop: dict) -> None:
        ledger = self.ledger
        where = f"{path}/x-regex-iterator"
        if "x-regex-substitutions" in prop:
            ledger.cannot(f"{path}/x-regex-substitutions", SUBSTITUTIONS)
        if "x-regex" in prop:
            self._narrowing(path, prop["x-regex"])
        try:
            shape = shape_of(prop["x-regex-iterator"])
            shape.check_opener()
        except (NotShape, TypeError) as exc:
            ledger.cannot(where, f"is not of the OPEN(.*?)CLOSE shape a repeated field needs: {exc}")
            ledger.dead(path)
            return
        if prop.get("type") != "array":
            ledger.cannot(f"{path}/type", "x-regex-iterator needs type 'array'; the schema fails here")
            ledger.dead(path)
            return
        ledger.took(where, f"{path}/type")
        for key in ("x-regex-key-value", "x-parser", "prefixItems"):
            if key in prop:
                ledger.cannot(f"{path}/{key}", "works on the whole list of matches; a template parses each region on its own")
        region = Region(where, shape)
        value = initial_value(shape, where)
        if "items" not in prop:
            ledger.cannot(path, "an array node needs items; the schema fails on any match")
            return
        value = Walker(ledger, region).child(prop["items"], value, f"{path}/items")
        self.explicit.append(_Field(name, path, region, value, repeats=True))

    def _narrowing(self, path: str, pattern: Any) -> None:
        """An ``x-regex`` before an iterator that only steps over what other fields hold."""
        where = f"{path}/x-regex"
        try:
            shape = shape_of(pattern)
        except (NotShape, TypeError) as exc:
            self.ledger.cannot(where, f"narrows the text before the iterator runs, and is not of a shape a template can follow: {exc}")
            return
        if shape.skip_only() and (shape.rest or not shape.close_alts):
            self.ledger.took(where)
            self.ledger.note(where, "only steps over other fields' text before the iterator runs; in a template, regions never overlap, so it is not needed")
        else:
            self.ledger.cannot(where, "narrows the text to one section before the iterator runs; template regions do not nest")

    # -- the implicit field --------------------------------------------------------------------------

    def _implicit(self) -> _Field | None:
        if not self.leftover:
            return None
        (name, path, prop, shape), *others = self.leftover
        for other, other_path, _, _ in others:
            self.ledger.cannot(
                other_path,
                f"reads the leftover text, as '{name}' does (overlapping captures); a template has one implicit field",
            )
        where = f"{path}/x-regex"
        if "x-regex" in prop:
            self.ledger.took(where)
        joined = self._join_idiom(prop, path)
        if joined:
            prop = {key: value for key, value in prop.items() if key != "x-regex-substitutions"}
        self._skipped(shape, where)
        if any(ra.is_trim(a) for a in shape.open_atoms):
            # ^\s*(?:(no content)\s*)?(...): the leftover text's leading whitespace is skipped even
            # when an optional part stands between the \s* and the group.
            shape.lead_trim = True
        shape.close_alts = self._own_closers(shape, where)
        region = Region(where, shape, implicit=True)
        value = Walker(self.ledger, region).child(prop, BODY, path, frozenset({"x-regex"}))
        if joined:
            if self._always_matches(prop):
                self.ledger.note(
                    where, f"matches even empty text, so the schema gives '{name}': \"\" when nothing is left; the template "
                    "leaves the key out then (a default would be joined to the first segment)")
            return _Field(name, path, region, value, repeats=False, joined=True)
        if isinstance(value, Ref) and value.scope == "content" and region.parser == "text" and self._always_matches(prop):
            self.defaults.setdefault(name, "")
            guards = [a for a in shape.open_atoms if ra.is_negative_lookahead(a)]
            unless = f", unless {' or '.join(guards)} fails (then the template gives \"\" where the schema gives nothing)" if guards else ""
            self.ledger.note(
                where if "x-regex" in prop else path,
                f"matches even empty text, so the schema always gives '{name}' (\"\" when nothing is left){unless}; "
                "the template keeps it in defaults so that it is never dropped",
            )
        return _Field(name, path, region, value, repeats=False)

    def _join_idiom(self, prop: dict, path: str) -> bool:
        """Whether the leftover property's substitutions are the join rule (docs/join-rule.md): each
        cuts another field's text off the start (``^…`` -> "") or turns a run of another field's
        regions into the separator (-> "\\n\\n"), and one does the latter. Then the template's
        implicit field repeats and joins, and the substitutions are translated."""
        subs = prop.get("x-regex-substitutions")
        if not (isinstance(subs, list) and subs and all(isinstance(s, list) and len(s) == 2 and all(isinstance(x, str) for x in s) for s in subs)):
            return False
        markers = self._markers()

        def owner(pattern: str) -> str | None:
            ours = ra.literal_runs(pattern)
            return next((name for name, theirs, _ in markers if any(t in o for o in ours for t in theirs)), None)

        joins = [pattern for pattern, replacement in subs if replacement == JOIN]
        if not joins or any(not owner(p) or (r == "" and not p.startswith("^")) or r not in ("", JOIN) for p, r in subs):
            return False
        where = f"{path}/x-regex-substitutions"
        self.ledger.took(where)
        fields = sorted({owner(p) for p, _ in subs})
        self.ledger.note(where, f"cuts {', '.join(repr(f) for f in fields)} text out and joins what is left around it with a "
                                "blank line (docs/join-rule.md): the implicit field repeats and joins its segments "
                                f"(join: transformers {release_of_change('join')} and later)")
        return True

    @staticmethod
    def _always_matches(prop: dict) -> bool:
        if "x-regex" not in prop:
            return True
        try:
            return re.search(prop["x-regex"], "", re.DOTALL) is not None
        except (re.error, TypeError):
            return False

    def _markers(self) -> list[tuple[str, set[str], list[str]]]:
        """Per explicit field: its name, the literal runs of its delimiters, and the literals its
        opener starts with (each alternative of a literal opener, else its leading literal atoms)."""
        out = []
        for f in self.explicit:
            shape = f.region.shape
            runs = set(ra.literal_runs(shape.open_text))
            for alt in shape.close_alts:
                runs |= ra.literal_runs(alt)
            atoms = [a for a in shape.open_atoms if not ra.is_start(a)]
            while atoms and ra.is_trim(atoms[0]):
                atoms.pop(0)
            starts = literals_of(atoms) or [_leading_literal(atoms)]
            out.append((f.name, runs, [s for s in starts if s]))
        return out

    def _skipped(self, shape: Shape, where: str) -> None:
        """The optional parts the leftover regex steps over: fine when they hold another field's
        delimiter (the region model keeps that field's text out of the leftover anyway)."""
        markers = self._markers()
        unowned = []
        for part in shape.skip_parts():
            ours = ra.literal_runs(part)
            owner = next((name for name, theirs, _ in markers if any(t in o for o in ours for t in theirs)), None)
            if owner:
                self.ledger.note(where, f"steps over {part}, which is '{owner}' text: a template's regions never overlap, so nothing replaces it")
            else:
                unowned.append(part)
        if unowned:
            self.ledger.cannot(
                where,
                f"steps over {' and '.join(unowned)}, text no other field's delimiters hold; the template keeps it in the leftover field",
            )

    def _own_closers(self, shape: Shape, where: str) -> list[str]:
        """The leftover regex's closers, less those that begin with another field's opener."""
        kept = []
        markers = self._markers()
        for alt in shape.close_alts:
            lead = ra.leading_literal(alt)
            if lead:
                owner = next((name for name, _, starts in markers if any(lead.startswith(s) for s in starts)), None)
            else:
                ours = ra.literal_runs(alt)
                owner = next((name for name, theirs, _ in markers if any(t in o for o in ours for t in theirs)), None)
            if owner:
                self.ledger.note(where, f"stops at {alt}, where '{owner}' opens; in a template, opening that field ends the leftover region")
            else:
                kept.append(alt)
        return kept

    # -- the fields as template JSON -------------------------------------------------------------------

    def _emit(self, implicit: _Field | None) -> dict:
        absorb = implicit is not None and implicit.region.shape.trail_trim and implicit.region.shape.lead_trim
        fields: dict = {}
        seen: dict[str, str] = {}
        for f in self.explicit:
            spec = self._spec(f, absorb)
            if spec is None:
                continue
            for literal in _as_list(spec.get("open")):
                if literal in seen:
                    self.ledger.cannot(f.region.path, f"opens at {literal!r}, as '{seen[literal]}' does (overlapping captures)")
                    break
            else:
                seen.update({literal: f.name for literal in _as_list(spec.get("open"))})
                fields[f.name] = spec
        if implicit is not None:
            spec = self._spec(implicit, absorb)
            if spec is not None:
                fields[implicit.name] = spec
        return fields

    def _spec(self, f: _Field, absorb: bool) -> dict | None:
        region, shape = f.region, f.region.shape
        parser = region.parser or "text"
        args = dict(region.args)
        open_atoms, close_alts = list(shape.open_atoms), list(shape.close_alts)
        if parser in ("text", "int", "float", "bool"):
            if shape.lead_trim and not shape.trail_trim and not region.implicit:
                open_atoms.append(r"\s*")
                args["strip"] = False
            elif shape.trail_trim and not shape.lead_trim:
                close_alts = [r"\s*" + alternation(close_alts + ["$"])]  # the trim holds at the end too
                args["strip"] = False
            elif not shape.lead_trim and not shape.trail_trim:
                args["strip"] = False
        if shape.body_lookahead:
            if shape.lead_trim and open_atoms[-1:] != [r"\s*"]:
                open_atoms.append(r"\s*")  # the schema lets whitespace come before those characters
            open_atoms.append(f"(?={shape.body_lookahead})")
        spec: dict = {}
        if not region.implicit:
            opener = self._opener(f, open_atoms, shape.close_alts, shape.close_end, absorb)
            if opener is None:
                return None
            spec.update(opener)
        if region.implicit and absorb:
            spec["close_pattern"] = r"\s*" + alternation(close_alts + ["$"])
        elif close_alts:
            literals = [ra.literal_of(alt) for alt in close_alts]
            if all(literals):
                spec["close"] = literals[0] if len(literals) == 1 else list(dict.fromkeys(literals))
            else:
                spec["close_pattern"] = alternation(close_alts)
        spec["content"] = parser
        if args:
            spec["content_args"] = args
        if f.repeats or f.joined:
            spec["repeats"] = True
        if f.joined:
            spec["join"] = JOIN
        self._transform(f, spec, bool(shape.captures))
        return spec

    def _opener(self, f: _Field, atoms: list[str], close_alts: list[str], close_end: bool, absorb: bool) -> dict | None:
        shape = f.region.shape
        if not atoms or all(ra.is_start(a) for a in atoms):
            atoms = ["^"]  # an empty opener matches where re.search tries first: the start
        text = "".join(atoms)
        lookahead = ""
        if not close_end and close_alts and ra.can_be_empty(text):
            # The schema's regex finds nothing without its (required) closer; an opener that can
            # match empty text would open a region running to the end of the text instead.
            lookahead = "(?=.*?" + alternation(close_alts) + ")"
            self.ledger.note(f.region.path, "its opener can match empty text, so the template's opener looks ahead for the closer the schema requires")
        elif not close_end:
            self.ledger.note(f.region.path, "the schema ignores an opener whose closer never comes; the template's region then runs to the end of the text")
        literals = None if shape.captures or lookahead else literals_of(atoms)
        if literals and not absorb:
            return {"open": literals[0] if len(literals) == 1 else literals}
        if literals:
            text = alternation([re_escape(s) for s in literals])
        if absorb and not text.startswith(("^", r"\A", r"\s*")):
            text = r"\s*" + text
        text += lookahead
        if not ra.compiles(text):
            self.ledger.cannot(f.region.path, f"its opener ({text}) is not a regex on its own")
            return None
        return {"open_pattern": text}

    def _transform(self, f: _Field, spec: dict, captures: bool) -> None:
        value = f.value
        if isinstance(value, Each):
            try:
                spec["transform"] = emit(value.element)
                spec["transform_each"] = True
            except NotEmittable as exc:
                self.ledger.cannot(exc.path or f.path, exc.reason)
            return
        if value is None or (isinstance(value, Ref) and value.scope == "content" and not value.member):
            if captures:
                spec["transform"] = "{content}"  # the loader wants a transform when the opener names groups
            return
        try:
            spec["transform"] = emit(value)
        except NotEmittable as exc:
            self.ledger.cannot(exc.path or f.path, exc.reason)
            if captures:
                spec["transform"] = "{content}"

    def _required(self, schema: dict, fields: dict) -> None:
        required = schema.get("required")
        if required is None:
            return
        if not isinstance(required, list):
            self.ledger.cannot("/required", "is not a list")
            return
        for key in required:
            if key in fields:
                fields[key]["optional"] = False
        missing = [key for key in required if key not in fields and key not in self.defaults]
        if missing:
            self.ledger.cannot("/required", f"requires {missing}, which are not translated fields")
        else:
            self.ledger.took("/required")
        if any(key in fields for key in required):
            self.ledger.note("/required", "optional: false is satisfied by an empty region, and the key is still left out when empty")

    # -- what transformers would load ------------------------------------------------------------------

    def _loadable(self, anchor: str | list[str], fields: dict) -> dict | None:
        """The template, with any field transformers' loader rejects dropped (and listed)."""
        while fields:
            template = _template(anchor, self.defaults, fields)
            try:
                load_template(template)
                return template
            except ValueError as exc:
                bad = self._rejected(anchor, fields)
                if bad is None:
                    self.ledger.cannot("", f"transformers would not load the template: {exc}")
                    return None
                path = next((f.path for f in self.explicit if f.name == bad), "")
                self.ledger.cannot(path, f"transformers would not load its field: {exc}")
                del fields[bad]
        return None

    def _rejected(self, anchor: Any, fields: dict) -> str | None:
        for name, spec in fields.items():
            try:
                load_template(_template(anchor, self.defaults, {name: spec}))
            except ValueError:
                return name
        return None


def _template(anchor: Any, defaults: dict, fields: dict) -> dict:
    template: dict = {"version": 1, "start_anchor": anchor}
    if defaults:
        template["defaults"] = dict(defaults)
    template["fields"] = {name: _bounded(spec) for name, spec in fields.items()}
    return template


# A delimiter that begins with an unbounded whitespace repeat (a schema's ``\s*<tool_call>``) is
# retried to the end of the text from every place transformers' partial search starts it: quadratic.
# Bounded, it is linear; a run longer than the bound is left to the region before (text is stripped).
_LEADING_SPACE = re.compile(r"\\s([*+])(?![*+?{])")
SPACE_BOUND = 64


def _bounded(spec: Any) -> Any:
    if not isinstance(spec, dict):
        return spec
    out = dict(spec)
    for key in ("open_pattern", "close_pattern"):
        pattern = out.get(key)
        if isinstance(pattern, str) and (found := _LEADING_SPACE.match(pattern)) and leading_repeat(pattern) is not None:
            low = "0" if found.group(1) == "*" else "1"
            out[key] = rf"\s{{{low},{SPACE_BOUND}}}" + pattern[found.end():]
    return out


def _leading_literal(atoms: list[str]) -> str:
    """The literal atoms a pattern starts with, as written (re's parser would merge the common
    start of alternatives, ``<`` of ``(?:<a>|<b>)``, which is no delimiter)."""
    out = []
    for atom in atoms:
        literal = ra.literal_of(atom)
        if literal is None:
            break
        out.append(literal)
    return "".join(out)


def _as_list(value: Any) -> list:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]
