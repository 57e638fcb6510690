"""Which shipped families have which parsers, for the tests that walk every family.

A family may ship a response template only (``schemas/<family>.template.json`` with no
``schemas/<family>.json``): the pythonic tool-call families, whose templates read the calls with
``python-call-list``, a content parser that exists from transformers 5.24 on and that no
``response_schema`` can express. Tests of schemas skip those families.
"""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = ROOT / "schemas"
TEMPLATE_SUFFIX = ".template.json"


def family_of(path: Path) -> str:
    """The family of a sample (its folder) or of a schema or template file."""
    if path.name.endswith(TEMPLATE_SUFFIX):
        return path.name.removesuffix(TEMPLATE_SUFFIX)
    return path.stem if path.suffix == ".json" else path.parent.name


def has_schema(family: str) -> bool:
    return (SCHEMAS / f"{family}.json").is_file()


def content_parsers(family: str) -> set[str]:
    """The content parsers a family's template names (fields and value_parsers)."""
    path = SCHEMAS / f"{family}{TEMPLATE_SUFFIX}"
    if not path.is_file():
        return set()
    found: set[str] = set()

    def walk(node) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "content" and isinstance(value, str):
                    found.add(value)
                elif key == "value_parser" and isinstance(value, dict) and isinstance(value.get("name"), str):
                    found.add(value["name"])
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(json.loads(path.read_text(encoding="utf-8")).get("fields", {}))
    return found


def needs_5_24(family: str) -> bool:
    """The family's template names ``python-call-list`` (transformers 5.24+)."""
    return "python-call-list" in content_parsers(family)
