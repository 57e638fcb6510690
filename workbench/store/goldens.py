"""A sample's golden written from a result: what the TUI's "Write result as golden" keeps.

UI-free, so that the TUI only asks the questions (replace? which file?) and this module decides
what the golden says and writes it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..formats import Analysis
from .files import atomic_write, dump_json
from .samples import Sample


_SURROGATE = re.compile("[\ud800-\udfff]")


class NoGolden(Exception):
    """The result cannot be kept as a golden; the message says why."""


@dataclass
class Golden:
    target: Path  # the file to write: <case>[.template].expected.json or <case>[.template].expected-error.txt
    text: str
    other: Path  # the golden of the other kind, removed once target is written

    def existing(self) -> list[Path]:
        """The goldens already on disk that writing this one replaces."""
        return [p for p in (self.target, self.other) if p.exists()]

    def already_written(self) -> bool:
        try:
            # is_file first: reading a FIFO put where a golden goes would block the app.
            return not self.other.exists() and self.target.is_file() and self.target.read_text(encoding="utf-8") == self.text
        except (OSError, UnicodeDecodeError):
            return False

    def write(self) -> str:
        """Write it atomically and remove the other kind (a sample has one golden: the other would
        contradict this one). Returns what was done; raises OSError naming the file."""
        notices = atomic_write(self.target, self.text)
        said = "".join(f"; {notice}" for notice in notices)
        try:
            self.other.unlink()
        except FileNotFoundError:
            return f"Wrote {self.target}{said}"
        except OSError as exc:
            raise OSError(f"wrote {self.target}, but could not remove {self.other}: {exc.strerror}") from None
        return f"Wrote {self.target} and removed {self.other.name}{said}"


def golden_of(sample: Sample, result: Analysis) -> Golden:
    """The golden for ``sample`` from an analysis of it: the message, or the error's message, in
    the golden files of the parser's format (``<case>[.template].expected.json`` or
    ``<case>[.template].expected-error.txt``)."""
    fmt = result.format
    value, message, timed_out = fmt.golden_outcome(result)
    if timed_out:
        raise NoGolden("the parse stopped at the time limit, which transformers never does")
    if message is None:
        return Golden(sample.expected_value_path(fmt), dump_json(value), sample.expected_error_path(fmt))
    # Matched as a substring: it stops before a lone surrogate (a value's), which UTF-8 cannot hold.
    message = _SURROGATE.split(message, 1)[0]
    if not message.strip():
        raise NoGolden("the error's message is nothing a file can hold")
    return Golden(sample.expected_error_path(fmt), message + "\n", sample.expected_value_path(fmt))
