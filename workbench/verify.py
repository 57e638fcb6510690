"""``export --verify``: load a tokenizer folder with transformers 5.14.1 and 5.23.0 and say, per
range of releases, which key they read and whether ``parse_response`` agrees with the workbench on
the samples (RESPONSE_TEMPLATE.md §2: 5.3–5.12 read only ``response_schema``; 5.13–5.14 read both
and prefer the template, which then needs ``prefix=``; 5.15 and later read only the template).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .engine import ParseFailure, parse_response
from .engine import template as template_engine
from .engine.versions import SCHEMA, TEMPLATE
from .runtimes import SCHEMA_RUNTIME, TEMPLATE_RUNTIME, probe_many, runtime_python
from .samples import Sample, first_difference

REMEDY = "export a response_template too ('workbench migrate' drafts one from the schema)"


@dataclass
class Verification:
    ok: bool = True
    lines: list[str] = field(default_factory=list)

    def fail(self, line: str) -> None:
        self.ok = False
        self.lines.append(line)


def prepare_runtimes(say: Callable[[str], None] = lambda _: None) -> dict[str, Path]:
    """The Python of each reference release, built if need be. Called before anything is written,
    so that a release that cannot be had stops the export with the folder untouched."""
    return {version: runtime_python(version, say) for version in (SCHEMA_RUNTIME, TEMPLATE_RUNTIME)}


def verify_releases(tokenizer_dir: Path, exported: dict[str, Any], samples: list[Sample], pythons: dict[str, Path]) -> Verification:
    """``exported``: the key(s) just written (``response_schema``/``response_template`` → value)."""
    return verify_many([(tokenizer_dir, exported, samples)], pythons)[0]


def verify_many(folders: list[tuple[Path, dict[str, Any], list[Sample]]], pythons: dict[str, Path]) -> list[Verification]:
    """``verify_releases`` for many folders, each release started once for all of them."""
    requests = [[{"text": s.text, "prefix": s.prompt()[0]} for s in samples] for _, _, samples in folders]
    jobs = [(folder, request) for (folder, _, _), request in zip(folders, requests)]
    olds = probe_many(pythons[SCHEMA_RUNTIME], jobs)
    news = probe_many(pythons[TEMPLATE_RUNTIME], jobs)
    return [_verify(exported, samples, old, new) for (_, exported, samples), old, new in zip(folders, olds, news)]


def _verify(exported: dict[str, Any], samples: list[Sample], old: dict, new: dict) -> Verification:
    prompts = [sample.prompt()[0] for sample in samples]
    ours = {
        SCHEMA: [_ours_schema(s.text, exported[SCHEMA]) for s in samples] if SCHEMA in exported else None,
        TEMPLATE: [_ours_template(s.text, exported[TEMPLATE], p) for s, p in zip(samples, prompts)] if TEMPLATE in exported else None,
    }
    names = [s.path.stem for s in samples]
    result = Verification()
    result.lines.append("5.0–5.2 read neither key (not checked)")

    if _loaded(result, old, exported, (SCHEMA, TEMPLATE)):
        if SCHEMA in exported:
            upto = "5.12" if TEMPLATE in exported else "5.14"
            _compare(result, f"5.3–{upto} read response_schema", old["legacy"], ours[SCHEMA], names)
        else:
            result.lines.append("5.3–5.12 read neither key: they do not know response_template")
        if TEMPLATE in exported:
            why = " (preferred over response_schema; parse_response then needs prefix=)" if SCHEMA in exported else " (parse_response needs prefix=)"
            _compare(result, f"5.13–5.14 read response_template{why}", old["default"], ours[TEMPLATE], names)

    if _loaded(result, new, exported, (TEMPLATE,)):
        if TEMPLATE in exported:
            _compare(result, "5.15–5.23 read response_template", new["default"], ours[TEMPLATE], names)
        else:
            result.lines.append(f"5.15–5.23 read nothing: they drop response_schema when the tokenizer loads, "
                                f"so parse_response raises AttributeError; {REMEDY}")
    return result


def _loaded(result: Verification, answer: dict, exported: dict[str, Any], reads: tuple[str, ...]) -> bool:
    """Whether the release loaded the folder and got back, unchanged, each exported key it reads."""
    release = f"transformers {answer['transformers']}"
    if answer["load_error"]:
        result.fail(f"{release} could not load the folder: {answer['load_error']}")
        return False
    good = True
    for key in (k for k in reads if k in exported):
        if json.dumps(answer["loaded"].get(key)) != json.dumps(exported[key]):  # strict: key order and 1 vs 1.0 count
            result.fail(f"{release}: the loaded {key} differs from the exported one")
            good = False
    if good:
        kept = " and ".join(k for k in reads if k in exported)
        dropped = "; response_schema is dropped when the tokenizer loads" if SCHEMA in exported and SCHEMA not in reads else ""
        result.lines.append(f"{release}: {kept or 'the folder'} loaded back unchanged{dropped}")
    return good


def _compare(result: Verification, what: str, theirs: list[dict] | None, ours: list[dict] | None, names: list[str]) -> None:
    if not names:
        result.lines.append(f"{what} (no samples to compare)")
        return
    differing = [(name, a, b) for name, a, b in zip(names, theirs or [], ours or []) if not _agree(a, b)]
    if not differing:
        result.lines.append(f"{what}: parse_response agrees with the workbench on {len(names)} of {len(names)} samples")
        return
    result.fail(f"{what}: parse_response differs from the workbench on {len(differing)} of {len(names)} samples "
                "(expected: what transformers gave; got: the workbench)")
    for name, a, b in differing[:5]:
        if "value" in a and "value" in b:
            result.lines.append(f"  {name}: {first_difference(a['value'], b['value'])}")
        else:
            result.lines.append(f"  {name}: transformers gave {_said(a)}, the workbench {_said(b)}")


def _agree(theirs: dict, ours: dict) -> bool:
    """Values must be the same JSON, key order included; errors agree in that both fail."""
    if "error" in theirs or "error" in ours:
        return "error" in theirs and "error" in ours
    return json.dumps(theirs["value"]) == json.dumps(ours["value"])


def _said(outcome: dict) -> str:
    if "error" in outcome:
        return f"{outcome['error']}: {outcome['message'].splitlines()[0][:120]}"
    text = json.dumps(outcome["value"], ensure_ascii=False)
    return text if len(text) <= 160 else text[:157] + "..."


def _ours_schema(text: str, schema: Any) -> dict:
    try:
        return {"value": parse_response(text, schema)}
    except ParseFailure as exc:
        return {"error": type(exc).__name__, "message": str(exc)}


def _ours_template(text: str, template: Any, prefix: str) -> dict:
    try:
        return {"value": template_engine.parse_response(text, template, prefix=prefix)}
    except Exception as exc:  # noqa: BLE001 - what transformers raises, named as it names it
        return {"error": type(exc).__name__, "message": str(exc)}
