"""What a check says of a parser file, for both formats: problems, each at the JSON pointer of the key
it is about, with a severity."""

from __future__ import annotations

from dataclasses import dataclass

from .pointer import display

ERROR = "error"
WARNING = "warning"
NOTE = "note"  # neither: which transformers releases give this result, and why


@dataclass(frozen=True, slots=True)
class Problem:
    path: str  # JSON pointer of the offending key or node
    severity: str
    message: str

    def __str__(self) -> str:
        return f"{self.severity}: {display(self.path)}: {self.message}"


def errors(problems: list[Problem]) -> list[Problem]:
    return [p for p in problems if p.severity == ERROR]
