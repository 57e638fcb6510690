"""Whether a migrated template gives, on a sample, the message its schema gives; where it does not.

Both engines run as their runtimes do: the schema as transformers 5.14.1's ``recursive_parse``,
the template as 5.23.0's ``parse_response`` with the sample's prompt as ``prefix=``. Messages are
compared as transformers' users compare dicts: key order does not matter, but types do (``1`` is
not ``1.0`` nor ``True``), and a top-level key whose value is ``""`` is the same as no key, as a
consumer reads the message (a template drops an empty value; a schema whose content joins its
segments gives ``""`` when there are none, docs/join-rule.md). Every difference is listed with its
JSON path, not only the first. Two runs that both fail agree (the errors' words differ between the
engines by nature).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .. import parse_response as schema_parse
from ..pointer import escape
from ..schema.regexes import DEFAULT_TIME_LIMIT
from ..template import parse_response as template_parse


class _Absent:
    def __repr__(self) -> str:
        return "(absent)"

    def __reduce__(self) -> str:
        return "ABSENT"  # the one ABSENT, also in another process (the TUI compares in a child)


ABSENT = _Absent()  # a key or list item one message has and the other has not


@dataclass
class Outcome:
    value: Any = None
    error: str | None = None

    @property
    def failed(self) -> bool:
        return self.error is not None


@dataclass
class Difference:
    path: str  # JSON pointer into the message; "" is the whole message
    schema: Any  # ABSENT when the schema's message lacks it
    template: Any


@dataclass
class SampleComparison:
    case: str
    schema: Outcome
    template: Outcome
    differences: list[Difference] = field(default_factory=list)

    @property
    def agrees(self) -> bool:
        return self.schema.failed == self.template.failed and not self.differences


def compare_sample(
    case: str, text: str, schema: Any, template: Any, prefix: str, *, time_limit: float = DEFAULT_TIME_LIMIT
) -> SampleComparison:
    """Run both on ``text`` (the template with ``prefix=``) and list where their messages differ."""
    schema_outcome = _run(lambda: schema_parse(text, schema, time_limit=time_limit))
    template_outcome = _run(lambda: template_parse(text, template, prefix=prefix, time_limit=time_limit))
    result = SampleComparison(case, schema_outcome, template_outcome)
    if not schema_outcome.failed and not template_outcome.failed:
        result.differences = differences(_read(schema_outcome.value), _read(template_outcome.value))
    return result


def _read(message: Any) -> Any:
    """The message as a consumer reads it: a top-level empty string is no value."""
    if not isinstance(message, dict):
        return message
    return {key: value for key, value in message.items() if value != ""}


def _run(parse) -> Outcome:
    try:
        return Outcome(value=parse())
    except Exception as exc:  # whatever either runtime raises is a result here, never a crash
        return Outcome(error=f"{type(exc).__name__}: {exc}")


def differences(schema: Any, template: Any, path: str = "") -> list[Difference]:
    """Every place where the two values differ, deepest first within each branch."""
    if type(schema) is not type(template):
        return [Difference(path, schema, template)]
    if isinstance(schema, dict):
        out: list[Difference] = []
        for key in schema:
            here = f"{path}/{escape(key)}"
            if key in template:
                out.extend(differences(schema[key], template[key], here))
            else:
                out.append(Difference(here, schema[key], ABSENT))
        out.extend(Difference(f"{path}/{escape(k)}", ABSENT, template[k]) for k in template if k not in schema)
        return out
    if isinstance(schema, list):
        out = []
        for i, (a, b) in enumerate(zip(schema, template)):
            out.extend(differences(a, b, f"{path}/{i}"))
        for i in range(len(template), len(schema)):
            out.append(Difference(f"{path}/{i}", schema[i], ABSENT))
        for i in range(len(schema), len(template)):
            out.append(Difference(f"{path}/{i}", ABSENT, template[i]))
        return out
    return [] if schema == template else [Difference(path, schema, template)]
