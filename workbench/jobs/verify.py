"""``export --verify``: load a tokenizer folder with real transformers releases and say, per range
of releases, which key they read and whether ``parse_response`` agrees with the workbench on the
samples (docs/response-template.md#releases-at-a-glance: 5.3–5.12 read only ``response_schema``; 5.13–5.14 read both
and prefer the template, which then needs ``prefix=``; 5.15 and later read only the template).

5.14.1 stands for 5.3–5.14. From 5.15 on, the ranges are the runs of releases whose template engine
the workbench finds to give the same results on these samples (engine/releases.py), always
split before 5.24: each range is checked with one real release of it (RANGE_RUNTIME), so every
range that behaves differently is checked, 5.23.0 and 5.24.0 always.

``export --verify`` runs it on a staged copy of the folder, before anything is written. What cannot
be checked raises RuntimeUnavailable (a release that cannot be had or did not answer, a folder that
needs its own tokenizer code, no samples); what was checked and failed is a Verification not ok.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

from ..engine.visible import visible
from ..formats import DEFAULT_TIME_LIMIT
from ..formats.tokenizer_reads import Verification, ranges_to_check, reads
from .runtimes import SCHEMA_RUNTIME, TEMPLATE_RUNTIMES, RuntimeUnavailable, probe_many, runtime_python
from ..store.samples import Sample

def prepare_runtimes(say: Callable[[str], None] = lambda _: None) -> dict[str, Path]:
    """The Python of each release always checked, built if need be. Called before anything is
    written, so that a release that cannot be had stops the export with the folder untouched (a
    range that needs another release builds it in verify_many, still before anything is written)."""
    return {version: runtime_python(version, say) for version in (SCHEMA_RUNTIME, *TEMPLATE_RUNTIMES)}


class NeedsRemoteCode(RuntimeUnavailable):
    """The folder cannot be loaded without running the custom tokenizer code its ``auto_map``
    names, which a check never does; nothing was verified."""


class NothingToVerify(RuntimeUnavailable):
    """No samples: loading alone does not show that parse_response gives what the workbench gives."""


def verify_releases(tokenizer_dir: Path, exported: dict[str, Any], samples: list[Sample], pythons: dict[str, Path],
                    shown: Path | None = None) -> Verification:
    """``exported``: the key(s) the folder's config holds for the check (``response_schema``/
    ``response_template`` → value). ``shown``: the folder to name in messages, when
    ``tokenizer_dir`` is a staged copy of it."""
    return verify_many([(tokenizer_dir, exported, samples)], pythons, shown=[shown])[0]


def verify_many(folders: list[tuple[Path, dict[str, Any], list[Sample]]], pythons: dict[str, Path],
                time_limit: float = DEFAULT_TIME_LIMIT, shown: list[Path | None] | None = None) -> list[Verification]:
    """``verify_releases`` for many folders, each release started once for all of them. Raises
    RuntimeUnavailable (NeedsRemoteCode, NothingToVerify) when a folder could not be checked."""
    shown = [s or folder for s, (folder, _, _) in zip(shown or [None] * len(folders), folders)]
    for (folder, _, samples), name in zip(folders, shown):
        if not samples:
            raise NothingToVerify(f"no samples to check {name} with, so nothing was verified")
    requests = [[{"text": s.text, "prefix": s.prompt()[0], "name": s.path.name} for s in samples] for _, _, samples in folders]
    jobs = [(folder, request) for (folder, _, _), request in zip(folders, requests)]
    ranges = [ranges_to_check(exported, samples) for _, exported, samples in folders]
    releases = [SCHEMA_RUNTIME, *dict.fromkeys(r.check for folder_ranges in ranges for r in folder_ranges)]
    try:
        pythons = {release: pythons.get(release) or runtime_python(release) for release in releases}
        answers = {release: probe_many(pythons[release], jobs, release, time_limit) for release in releases}
    except RuntimeUnavailable as exc:
        raise RuntimeUnavailable(_named(str(exc), folders, shown)) from None
    results = []
    for i, ((folder, exported, samples), name) in enumerate(zip(folders, shown)):
        old = answers[SCHEMA_RUNTIME][i]
        new = [(r, answers[r.check][i]) for r in ranges[i]]
        for answer in (old, *(a for _, a in new)):
            _refuse_remote_code(answer, folder, name)
            if answer["load_error"]:
                answer["load_error"] = _named(answer["load_error"], [(folder, None, None)], [name])
        results.append(reads(exported, samples, old, new, custom_code(folder)))
    return results


def _named(message: str, folders: list[tuple], shown: list[Path]) -> str:
    """``message`` naming each folder as the user knows it, not as the staged copy that was loaded."""
    for (folder, _, _), name in zip(folders, shown):
        message = message.replace(str(folder), str(name))
    return message


def custom_code(folder: Path) -> str | None:
    """The custom tokenizer code the folder's ``tokenizer_config.json`` names in ``auto_map``
    (what transformers runs with ``trust_remote_code=True``), or None."""
    try:
        config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    auto = config.get("auto_map") if isinstance(config, dict) else None
    refs = auto if isinstance(auto, (list, tuple)) else auto.get("AutoTokenizer") if isinstance(auto, dict) else None
    if isinstance(refs, str):
        refs = [refs]
    names = [ref for ref in refs or [] if isinstance(ref, str) and ref]
    return ", ".join(names) or None


def _refuse_remote_code(answer: dict, folder: Path, name: Path) -> None:
    if not (answer.get("remote_code") or (answer["load_error"] and "trust_remote_code" in answer["load_error"])):
        return
    code = custom_code(folder)
    named = f" ({visible(code)})" if code else ""
    raise NeedsRemoteCode(
        f"transformers {answer['transformers']} loads {name} only by running the custom tokenizer code its auto_map "
        f"names{named}, which needs trust_remote_code; --verify never runs a folder's code, so nothing was verified"
    )


