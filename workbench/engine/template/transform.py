"""``transform`` and ``transform_each``: reshaping a region's parsed value (docs/response-template.md#transform).

A transform is any JSON value. Dicts and lists are walked (keys never substituted); a string that
is wholly one ``{name}`` or ``{name.key.key}`` placeholder becomes the value it names, type kept;
every other value is kept as it is. Scope: ``content`` plus the opener's named groups, or with
``transform_each`` the opener's groups plus each list element's keys.
"""

from __future__ import annotations

from typing import Any

import regex

from ..releases import NEWEST, Release

PLACEHOLDER = regex.compile(r"\{(\w+(?:\.\w+)*)\}")
PLACEHOLDER_UNDOTTED = regex.compile(r"\{(\w+)\}")  # 5.13-5.15: "{content.name}" is literal text


def placeholder_pattern(release: Release) -> Any:
    return PLACEHOLDER if release.has("dotted_placeholders") else PLACEHOLDER_UNDOTTED


def check_transform_strings(scope: str, transform: Any, release: Release = NEWEST) -> None:
    """At load: a string may be a whole placeholder or a literal, never both mixed."""
    placeholder = placeholder_pattern(release)
    if isinstance(transform, dict):
        for value in transform.values():
            check_transform_strings(scope, value, release)
    elif isinstance(transform, list):
        for value in transform:
            check_transform_strings(scope, value, release)
    elif isinstance(transform, str) and placeholder.search(transform) and not placeholder.fullmatch(transform):
        raise ValueError(
            f"{scope}: transform string {transform!r} mixes a {{placeholder}} with literal text. "
            'Use either a whole-string placeholder (e.g. "{content}") or a plain literal; '
            "string interpolation is not supported."
        )


def lookup(path: str, scope: dict) -> Any:
    """The value a placeholder's dotted ``path`` names in ``scope``."""
    root, *keys = path.split(".")
    if root not in scope:
        raise KeyError(f"transform placeholder '{{{path}}}' is not defined. Available: {sorted(scope)}")
    value = scope[root]
    for key in keys:
        if not isinstance(value, dict):
            raise ValueError(f"transform placeholder '{{{path}}}' cannot index into {type(value).__name__} at '{key}'")
        if key not in value:
            raise ValueError(f"transform placeholder '{{{path}}}' is missing key '{key}'. Available: {sorted(value)}")
        value = value[key]
    return value


def apply_transform(transform: Any, scope: dict, placeholder_re: Any = PLACEHOLDER) -> Any:
    if isinstance(transform, dict):
        return {key: apply_transform(value, scope, placeholder_re) for key, value in transform.items()}
    if isinstance(transform, list):
        return [apply_transform(value, scope, placeholder_re) for value in transform]
    if isinstance(transform, str):
        placeholder = placeholder_re.fullmatch(transform)
        if placeholder:
            return lookup(placeholder.group(1), scope)
    return transform


def shape(value: Any, field: Any, captures: dict, release: Release = NEWEST) -> Any:
    """A field's parsed ``value`` after its ``transform`` (if any)."""
    if field.transform is None:
        return value
    placeholder = placeholder_pattern(release)
    if not field.transform_each:
        return apply_transform(field.transform, {**captures, "content": value}, placeholder)
    if not isinstance(value, list):
        raise ValueError(
            f"Field '{field.name}': transform_each requires the parsed content to be a list, got {type(value).__name__}."
        )
    shaped = []
    for item in value:
        if not isinstance(item, dict):
            raise ValueError(
                f"Field '{field.name}': transform_each requires each list element to be a dict, "
                f"got {type(item).__name__}."
            )
        shaped.append(apply_transform(field.transform, {**captures, **item}, placeholder))
    return shaped
