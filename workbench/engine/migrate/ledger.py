"""The account of a migration: which schema keys were translated, which could not be, and why.

"Never silently" is enforced here rather than trusted to each rule: every rule marks the keys it
translated (``took``) or could not translate (``cannot``, which covers the key's whole subtree),
and ``sweep`` then lists every remaining key that changes what ``recursive_parse`` gives (every
``x-`` key, and ``const``, ``default``, ``type``, ``required``, ``additionalProperties``,
``prefixItems``) as untranslatable. A rule that forgets a key therefore over-reports; it never
hides one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..pointer import escape

# The keys recursive_parse reads besides the containers (properties, items) that lead to children.
AFFECTING = frozenset({"const", "default", "type", "required", "additionalProperties", "prefixItems"})
KNOWN_X = frozenset(
    {"x-regex", "x-regex-iterator", "x-regex-key-value", "x-regex-substitutions", "x-parser", "x-parser-args"}
)


@dataclass(frozen=True)
class Item:
    """One entry of the report: a schema pointer and what it says about that key."""

    path: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path or '/'}: {self.reason}"


class Cannot(Exception):
    """Raised by a rule that cannot translate the key at ``path``; the caller records it and goes
    on with the best template it can make without it."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(reason)
        self.path, self.reason = path, reason


class Ledger:
    def __init__(self) -> None:
        self._took: set[str] = set()
        self._covered: list[str] = []  # subtrees listed as untranslatable, or dead (never read)
        self.untranslatable: list[Item] = []
        self.notes: list[Item] = []

    def took(self, *paths: str) -> None:
        """These keys are translated (or have no effect on the result, which the rule decided)."""
        self._took.update(paths)

    @property
    def translated(self) -> list[str]:
        return sorted(self._took)

    def cannot(self, path: str, reason: str) -> None:
        """The key at ``path`` (and everything below it) is not translated."""
        if not self.is_covered(path):
            self.untranslatable.append(Item(path, reason))
            self._covered.append(path)

    def dead(self, path: str) -> None:
        """The key at ``path`` is never read by recursive_parse (a ``const`` beside it wins), so it
        cannot change the result: nothing to translate or list."""
        self._covered.append(path)

    def note(self, path: str, text: str) -> None:
        """A judgement the translation made that a maintainer should know about."""
        item = Item(path, text)
        if item not in self.notes:
            self.notes.append(item)

    def is_covered(self, path: str) -> bool:
        return any(path == c or path.startswith(c + "/") for c in self._covered)

    def sweep(self, schema: Any) -> None:
        """List every result-changing key that no rule took or gave up on."""
        self._sweep(schema, "")

    def _sweep(self, node: Any, path: str) -> None:
        if not isinstance(node, dict) or self.is_covered(path):
            return
        for key, value in node.items():
            here = f"{path}/{escape(key)}"
            if key == "properties" and isinstance(value, dict):
                for name, child in value.items():
                    self._sweep(child, f"{here}/{escape(name)}")
                continue
            if key == "items":
                self._sweep(value, here)
                continue
            if key == "x-parser-args" and isinstance(value, dict):
                for arg in ("transform", "allow_non_json"):
                    if arg in value:
                        self._unswept(f"{here}/{arg}", f"x-parser-args.{arg} was not translated")
                continue
            if key == "additionalProperties" and isinstance(value, dict) and value:
                self._unswept(here, "additionalProperties (a schema for every other key) was not translated")
                self._sweep(value, here)
                continue
            if key.startswith("x-") and key not in KNOWN_X:
                self._unswept(here, f"{key} is not a key transformers' recursive_parse reads; nothing was translated")
            elif key in AFFECTING or key in KNOWN_X:
                self._unswept(here, f"{key} was not translated")

    def _unswept(self, path: str, reason: str) -> None:
        if path not in self._took and not self.is_covered(path):
            self.cannot(path, reason)
