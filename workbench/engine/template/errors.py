"""The one error of ours the template engine adds: a regex that ran past its time limit.

Everything else a parse can end in is what transformers 5.23.0 raises, with its type and message
(ValueError, KeyError, AttributeError, RuntimeError...). Where transformers would keep running,
a catastrophically backtracking pattern, we stop and name the template key whose regex it was.
"""

from __future__ import annotations

from ..errors import RegexTimeout
from ..pointer import join

DEFAULT_TIME_LIMIT = 2.0  # seconds per regex call; real templates need microseconds


class TemplateRegexTimeout(RegexTimeout):
    """A template regex ran past ``limit`` seconds on this input.

    ``pointer`` is the JSON pointer of the pattern's key in the template, e.g.
    ``/fields/tool_calls/close_pattern`` or ``/fields/x/content_args/tag_pattern``;
    ``field`` is the field's name (None for the start anchor). A TimeoutError, and a
    ``ParseFailure`` like the schema engine's timeouts, so the same handlers catch both.
    """

    def __init__(self, segments: tuple, limit: float | None) -> None:
        self.field = segments[1] if len(segments) > 1 and segments[0] == "fields" else None
        self.limit = limit
        super().__init__(
            f"regex stopped at the time limit ({limit:g} s): it backtracks too much on this input "
            "(transformers would keep running)"
        )
        self.add_segment(join(*segments))
