"""Loading a ``response_template`` dict: every check transformers makes (each release's, releases.py), in its order, with
its exception types and messages (docs/response-template.md#structure-of-a-template,
#fields, #load-errors), and the compiled form
the scanner runs.

Delimiters (``open``/``close``/``start_anchor`` literals, or their ``*_pattern`` regexes) all
compile to a ``regex`` pattern with DOTALL. Literals are escaped, deduplicated (first seen kept)
and tried longest first; a literal list where one literal is a strict prefix of another can still
grow at the buffer edge, which the streaming hold-back rule needs to know (docs/response-template.md#streaming).
"""

from __future__ import annotations

from copy import deepcopy
from dataclasses import dataclass
from typing import Any

import regex

from ..depth import RUNTIME_DEFAULTS_DEPTH, RUNTIME_TRANSFORM_DEPTH, regex_groups_too_deep, value_too_deep
from .parsers import parsers_of
from ..releases import Release, release as release_of
from .transform import check_transform_strings

TOP_LEVEL_KEYS = frozenset({"version", "defaults", "fields", "start_anchor", "start_anchor_pattern"})
FIELD_KEYS = frozenset(
    {
        "open",
        "open_pattern",
        "close",
        "close_pattern",
        "content",
        "content_args",
        "repeats",
        "join",
        "optional",
        "transform",
        "transform_each",
    }
)
FIELD_KEYS_BEFORE_JOIN = FIELD_KEYS - {"join"}  # 5.13-5.15


# What may make a pattern's match depend on where the search starts (see Delimiter.reusable):
# \G, \K, inline reverse/best-match/enhance-match flags, fuzzy constraints. Over-broad on purpose,
# except that an escaped brace (\{"name": a JSON object's start) is a literal, not a constraint.
POSITION_DEPENDENT = regex.compile(r"\\[GK]|\(\?[a-zA-Z0-9-]*[rbe][a-zA-Z0-9-]*[:)]|(?<![^\\]\\)(?<!^\\)\{[^}]*[edis]")


@dataclass(frozen=True)
class Delimiter:
    """One compiled delimiter. ``literals`` is None for a ``*_pattern`` regex."""

    pattern: Any  # regex.Pattern
    literals: tuple[str, ...] | None
    can_grow: bool  # a literal list with one literal a strict prefix of another
    key: str  # the template key it came from: "open", "close_pattern", "start_anchor", ...
    # Whether a match found searching from one position is also the one found from any later
    # position up to its start (true of literals, and of patterns without ``\G``, ``\K``, reverse or
    # best-match flags, or fuzzy matching): the scanner then need not search again.
    reusable: bool = True


@dataclass(frozen=True)
class Field:
    name: Any
    open: Delimiter | None
    close: Delimiter | None
    content: str
    content_args: Any  # a dict when valid; checked only when a region closes, as transformers does
    repeats: Any  # truthiness only
    join: str | None
    optional: Any  # truthiness only
    transform: Any
    transform_each: bool


@dataclass(frozen=True)
class Template:
    defaults: dict
    fields: dict  # name -> Field, in declaration order
    anchor: Delimiter
    implicit: Any  # the name of the field without an opener, or None
    release: Release  # the release whose engine loaded it, and runs it

    @property
    def anchor_kind(self) -> str:
        return self.anchor.key


def _delimiter(scope: str, spec: dict, literal_key: str, pattern_key: str) -> Delimiter | None:
    if literal_key in spec and pattern_key in spec:
        raise ValueError(f"{scope}: cannot specify both '{literal_key}' and '{pattern_key}'")
    if literal_key in spec:
        given = spec[literal_key]
        if isinstance(given, str):
            literals = [given]
        elif isinstance(given, list):
            if not given:
                raise ValueError(f"{scope}: '{literal_key}' list must contain at least one literal")
            if any(not isinstance(item, str) for item in given):
                raise ValueError(f"{scope}: '{literal_key}' list must contain only strings")
            literals = list(dict.fromkeys(given))
        else:
            raise ValueError(
                f"{scope}: '{literal_key}' must be a string or list of strings, got {type(given).__name__}"
            )
        if "" in literals:
            raise ValueError(f"{scope}: '{literal_key}' literals cannot be empty strings")
        can_grow = any(a != b and a.startswith(b) for a in literals for b in literals)
        longest_first = sorted(literals, key=len, reverse=True)
        pattern = regex.compile("|".join(regex.escape(s) for s in longest_first), regex.DOTALL)
        return Delimiter(pattern, tuple(literals), can_grow, literal_key)
    if pattern_key in spec:
        if isinstance(spec[pattern_key], str) and regex_groups_too_deep(spec[pattern_key]):
            # What the runtime's regex.compile raises there; ours may run under a higher limit.
            raise RecursionError("maximum recursion depth exceeded while calling a Python object")
        try:
            pattern = regex.compile(spec[pattern_key], regex.DOTALL)
        except regex.error as exc:
            raise ValueError(f"{scope}: invalid {pattern_key} regex: {exc}") from exc
        return Delimiter(pattern, None, False, pattern_key, not POSITION_DEPENDENT.search(spec[pattern_key]))
    return None


def _check_shape(spec: Any) -> None:
    if not isinstance(spec, dict):
        raise ValueError(f"response_template must be a dict, got {type(spec).__name__}")
    version = spec.get("version", 1)
    if version != 1:
        raise ValueError(f"Unsupported response_template version: {version}")
    unknown = set(spec) - TOP_LEVEL_KEYS
    if unknown:
        raise ValueError(f"Unknown keys in response_template: {sorted(unknown)}")
    if not isinstance(spec.get("defaults", {}), dict):
        raise ValueError("response_template.defaults must be a dict")
    fields = spec.get("fields", {})
    if not isinstance(fields, dict) or not fields:
        raise ValueError("response_template.fields must be a non-empty dict")


def _field(name: Any, spec: Any, release: Release) -> Field:
    scope = f"Field '{name}'"
    if not isinstance(spec, dict):
        raise ValueError(f"{scope} must be a dict")
    unknown = set(spec) - (FIELD_KEYS if release.has("join") else FIELD_KEYS_BEFORE_JOIN)
    if unknown:
        raise ValueError(f"{scope}: unknown keys {sorted(unknown)}")
    content = spec.get("content", "text")
    parsers = parsers_of(release)
    if content not in parsers:
        raise ValueError(f"{scope}: unknown content parser '{content}'. Available: {sorted(parsers)}")
    opener = _delimiter(scope, spec, "open", "open_pattern")
    closer = _delimiter(scope, spec, "close", "close_pattern")
    join = spec.get("join")
    if join is not None and not isinstance(join, str):
        raise ValueError(f"{scope}: 'join' must be a string, got {type(join).__name__}")
    if join is not None and not spec.get("repeats", False):
        raise ValueError(f"{scope}: 'join' requires 'repeats': true")
    transform = spec.get("transform")
    transform_each = spec.get("transform_each", False)
    if not isinstance(transform_each, bool):
        raise ValueError(f"{scope}: transform_each must be a bool, got {type(transform_each).__name__}")
    if transform_each and transform is None:
        raise ValueError(f"{scope}: transform_each is set but no transform was provided")
    if transform is not None:
        if value_too_deep(transform, RUNTIME_TRANSFORM_DEPTH):  # where the runtime's check runs out of recursion
            raise RecursionError("maximum recursion depth exceeded")
        check_transform_strings(scope, transform, release)
    else:
        groups: set = set()
        for delimiter in (opener, closer):
            if delimiter is not None:
                groups |= set(delimiter.pattern.groupindex)
        if groups:
            raise ValueError(
                f"{scope}: open_pattern/close_pattern declares named group(s) {sorted(groups)}, but the "
                "field has no 'transform'. Named captures are only surfaced through a 'transform' "
                "template (where they appear alongside 'content'). Either add a 'transform' that uses "
                "the captures, or remove the named groups from the pattern."
            )
    return Field(
        name=name,
        open=opener,
        close=closer,
        content=content,
        content_args=spec.get("content_args", {}),
        repeats=spec.get("repeats", False),
        join=join,
        optional=spec.get("optional", True),
        transform=transform,
        transform_each=transform_each,
    )


def load_template(spec: Any, runtime: Any = None) -> Template:
    """Check and compile a template dict as transformers ``runtime`` (a release name or
    ``Release``; None: the newest) does when a parser is built. A ``Template`` is returned
    unchanged (it must have been loaded for the same release). Every problem is the runtime's
    ValueError (or, for values transformers does not expect at all, the error its own code runs
    into)."""
    if isinstance(spec, Template):
        if runtime is not None and release_of(runtime) != spec.release:
            raise ValueError(f"this template was loaded for transformers {spec.release}, not {release_of(runtime)}")
        return spec
    release = release_of(runtime)
    _check_shape(spec)
    fields = {name: _field(name, field, release) for name, field in spec["fields"].items()}
    implicit = [name for name, field in fields.items() if field.open is None]
    if len(implicit) > 1:
        raise ValueError(
            "At most one field may omit 'open'/'open_pattern' (that field becomes the implicit-open / "
            f"leftover sink). Found: {', '.join(implicit)}"
        )
    anchor = _delimiter("response_template", spec, "start_anchor", "start_anchor_pattern")
    if anchor is None:
        raise ValueError("response_template must define 'start_anchor' or 'start_anchor_pattern'.")
    if value_too_deep(spec.get("defaults", {}), RUNTIME_DEFAULTS_DEPTH):  # where the runtime's deepcopy runs out
        raise RecursionError("maximum recursion depth exceeded")
    # Copied whole even for the releases before 5.21 that keep the caller's lists: a parse must never
    # change the document being edited. Those releases share a list default between the parses of
    # one loaded template (ResponseParser copies only the outer dict), as they do.
    return Template(
        defaults=deepcopy(spec.get("defaults", {})),
        fields=fields,
        anchor=anchor,
        implicit=implicit[0] if implicit else None,
        release=release,
    )


def load_failure(spec: Any, runtime: Any = None) -> str | None:
    """None when transformers loads ``spec``; else what it raises when it does, as one line: a
    ValueError's message (the checks of docs/response-template.md#load-errors), or another exception's type and message (the
    runtime's own code running into a value it does not expect: ``"content": {...}`` is a
    ``TypeError: unhashable type: 'dict'``, a pattern that is not a string a TypeError, a
    transform nested past the recursion limit a RecursionError)."""
    try:
        load_template(spec, runtime)
    except Exception as exc:  # noqa: BLE001 - whatever the runtime raises on load is the answer
        return describe_load_error(exc)
    return None


def describe_load_error(exc: Exception) -> str:
    return str(exc) if isinstance(exc, ValueError) else f"{type(exc).__name__}: {exc}"
