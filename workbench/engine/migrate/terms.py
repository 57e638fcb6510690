"""The symbolic values a translation builds: what a schema node gives, as a template could say it
(a runtime value, a literal, an object, a list, a per-element mapping). Both the x-parser-args
transform reader (jmes.py) and the schema walker (values.py) build them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..template.transform import PLACEHOLDER
from .ledger import Cannot


@dataclass(eq=False)
class Ref:
    """A runtime value. ``scope``: "content" (the parsed body), "group" (a named group of the
    opener) or "element" (a list element under transform_each; ``name`` "" is the element itself).
    ``kind``: "text", "json", or "pairs" (xml-inline's dict of strings). ``member`` marks a value
    inside a parsed one, which only a dotted placeholder (5.16+) could name."""

    scope: str
    name: str
    kind: str
    path: str  # the schema pointer that made it, for messages
    member: bool = False


@dataclass(frozen=True)
class Lit:
    value: Any


@dataclass(frozen=True)
class Obj:
    items: tuple  # ((key, value), ...), in order

    def get(self, key: str) -> Any:
        return dict(self.items).get(key)

    def keys(self) -> list[str]:
        return [k for k, _ in self.items]


@dataclass(frozen=True)
class Arr:
    items: tuple


@dataclass(frozen=True)
class Each:
    element: Any



def literal(value: Any, path: str) -> Lit:
    """A fixed value for a transform: a string that looks like a ``{placeholder}`` would be read
    as one, so it cannot be a literal."""
    if _has_placeholder(value):
        raise Cannot(path, "a fixed string with {braces} would be read as a transform placeholder")
    return Lit(value)


def _has_placeholder(value: Any) -> bool:
    if isinstance(value, str):
        return bool(PLACEHOLDER.search(value))
    if isinstance(value, dict):
        return any(_has_placeholder(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_placeholder(v) for v in value)
    return False
