"""Migrating a ``response_schema`` to a ``response_template`` (docs/response-template.md#translating-a-schema).

transformers 5.15 and later read only ``response_template``; this package writes the template a
schema's maintainer would write by hand, by the translation table there, and says exactly what it
could not translate. No UI imports: the CLI (``workbench migrate``) prints what it returns, and the
TUI can offer the same as an action.

- ``translate.py``: ``migrate(schema, start_anchor) -> Migration`` (the template, the
  untranslatable keys with their JSON pointers and reasons, and notes on judgement calls);
- ``shape.py`` with ``regex_atoms.py``: a regex as opener, body group and closer;
- ``values.py`` with ``jmes.py``: a field's subtree as its content parser and transform;
- ``ledger.py``: the account that makes sure no key is passed over silently;
- ``anchor.py``: ``derive_start_anchor(prompts)``, the assistant header the prompts end with;
- ``compare.py``: ``compare_sample``, both engines on one sample and every difference.

Never emitted: ``join`` and dotted placeholders (``{content.name}``). They need transformers 5.16+,
and a tokenizer exported with both keys makes 5.13 and 5.14 run the template, where ``join`` is
rejected and a dotted placeholder stays a literal string.
"""

from .anchor import derive_start_anchor, header_of
from .compare import ABSENT, Difference, Outcome, SampleComparison, compare_sample, differences
from .ledger import Item
from .translate import Migration, migrate

__all__ = [
    "ABSENT",
    "Difference",
    "Item",
    "Migration",
    "Outcome",
    "SampleComparison",
    "compare_sample",
    "derive_start_anchor",
    "differences",
    "header_of",
    "migrate",
]
