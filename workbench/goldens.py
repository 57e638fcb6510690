"""A sample's golden written from a result: what the TUI's "Write result as golden" keeps.

UI-free, so that the TUI only asks the questions (replace? which file?) and this module decides
what the golden says and writes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .engine import RegexTimeout, Trace
from .files import atomic_write, dump_json
from .samples import Sample


class NoGolden(Exception):
    """The result cannot be kept as a golden; the message says why."""


@dataclass
class Golden:
    target: Path  # the file to write: <case>.expected.json or <case>.expected-error.txt
    text: str
    other: Path  # the golden of the other kind, removed once target is written

    def existing(self) -> list[Path]:
        """The goldens already on disk that writing this one replaces."""
        return [p for p in (self.target, self.other) if p.exists()]

    def already_written(self) -> bool:
        try:
            return not self.other.exists() and self.target.read_text(encoding="utf-8") == self.text
        except (OSError, UnicodeDecodeError):
            return False

    def write(self) -> str:
        """Write it atomically and remove the other kind (a sample has one golden: the other would
        contradict this one). Returns what was done; raises OSError naming the file."""
        atomic_write(self.target, self.text)
        try:
            self.other.unlink()
        except FileNotFoundError:
            return f"Wrote {self.target}"
        except OSError as exc:
            raise OSError(f"wrote {self.target}, but could not remove {self.other}: {exc.strerror}") from None
        return f"Wrote {self.target} and removed {self.other.name}"


def golden_of(sample: Sample, result: Trace) -> Golden:
    """The golden for ``sample`` from a trace of it: the message, or the error's message."""
    if isinstance(result.error, RegexTimeout):
        raise NoGolden("the parse stopped at the time limit, which transformers never does")
    if result.ok:
        return Golden(sample.expected_value_path(), dump_json(result.value), sample.expected_error_path())
    message = getattr(result.error, "message", str(result.error))
    return Golden(sample.expected_error_path(), message + "\n", sample.expected_value_path())
