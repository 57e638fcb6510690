"""Re's own regex parser and the opcodes the other modules compare parse-tree nodes against.

The check analyses the tree ``re`` itself builds (so it sees ``(\\w|\\d)`` as the class re runs,
not as it is spelled); the parser moved to ``re._parser`` in 3.11, so the import and the opcodes
that only some versions have (possessive repeats, atomic groups) live here once, for every module.
"""

from __future__ import annotations

import sys

if sys.version_info >= (3, 11):
    from re import _parser as _sre
else:  # pragma: no cover - the project runs 3.11+, but the parser moved there
    import sre_parse as _sre

MAXREPEAT = _sre.MAXREPEAT

_REPEATS = (_sre.MAX_REPEAT, _sre.MIN_REPEAT)
_POSSESSIVE = getattr(_sre, "POSSESSIVE_REPEAT", None)
_ATOMIC = getattr(_sre, "ATOMIC_GROUP", None)
