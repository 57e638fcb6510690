"""Every shipped template, streamed: each sample fed to ``ResponseParser`` in chunks as a server
feeds tokens (seeded random chunkings of 1 to 12 characters, and one cut before, inside and after
every marker: ``workbench scan --chunkings``'s cuts) must give what the release gives (our engine
against transformers, per release) and the message of the one-shot parse. A sample whose streamed
parse still parts from its one-shot parse is listed in ``family_streaming_open.json``, which a fix
must shrink (``python tests/test_family_streaming.py`` rewrites it from our engine)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from families import TEMPLATE_SUFFIX
from workbench.engine.template import parse_response
from workbench.engine.template.chunked import closes
from workbench.formats import format_of
from workbench.store.samples import is_sample_file, load
from workbench.scan.suspects import chunkings

ROOT = Path(__file__).resolve().parent.parent
OPEN_FILE = Path(__file__).parent / "family_streaming_open.json"
OPEN: dict[str, list[str]] = json.loads(OPEN_FILE.read_text(encoding="utf-8"))["open"] if OPEN_FILE.is_file() else {}
RANDOM_CHUNKINGS = 2
SAMPLES = sorted(p for p in (ROOT / "sample_outputs").glob("*/*.txt")
                 if is_sample_file(p) and (ROOT / "schemas" / f"{p.parent.name}{TEMPLATE_SUFFIX}").is_file())


def _case(path: Path):
    template = json.loads((ROOT / "schemas" / f"{path.parent.name}{TEMPLATE_SUFFIX}").read_text(encoding="utf-8"))
    sample = load(path)
    return template, sample.text, sample.prompt()[0]


def _cuts(template, text):
    return chunkings(text, format_of(template).markers(template), RANDOM_CHUNKINGS, f"0:{text}")


def _ours(template, text, prompt, cuts, runtime):
    try:
        return ("message", closes(text, template, cuts, prefix=prompt, runtime=runtime)[0])
    except Exception as exc:  # noqa: BLE001 - the runtime's own failure, compared below
        return ("raised", type(exc).__name__, str(exc).splitlines()[0] if str(exc) else "")


def _one_shot(template, text, prompt, runtime):
    try:
        return ("message", parse_response(text, template, prefix=prompt, runtime=runtime))
    except Exception as exc:  # noqa: BLE001
        return ("raised", type(exc).__name__, str(exc).splitlines()[0] if str(exc) else "")


def differs(path: Path, runtime) -> bool:
    """Whether some chunking of the sample streams to another outcome than its one-shot parse."""
    template, text, prompt = _case(path)
    try:
        whole = _one_shot(template, text, prompt, runtime)
    except Exception:  # noqa: BLE001 - a template this release does not load: nothing streams
        return False
    return any(_ours(template, text, prompt, cuts, runtime) != whole for cuts in _cuts(template, text))


def _key(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


@pytest.mark.parametrize("path", SAMPLES, ids=_key)
def test_a_streamed_sample_gives_what_the_release_gives_and_its_one_shot_parse(path, release, release_oracle):
    template, text, prompt = _case(path)
    try:
        parse_response(text, template, prefix=prompt, runtime=release.runtime)
    except Exception as exc:  # noqa: BLE001
        if "unknown content parser" in str(exc) or "Unknown" in type(exc).__name__:
            pytest.skip(f"{release} does not load this template")
    whole = _one_shot(template, text, prompt, release.runtime)
    parted = False
    for cuts in _cuts(template, text):
        chunks = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]
        theirs = release_oracle.stream(chunks, template, prefix=prompt)
        got = _ours(template, text, prompt, cuts, release.runtime)
        if theirs["error"] is not None:
            assert got[0] == "raised" and got[1] == theirs["error"]["type"], (got, theirs["error"])
        else:
            assert got == ("message", theirs["message"])
        parted = parted or got != whole
    listed = str(release.version)[:4] in OPEN.get(_key(path), [])
    assert parted == listed, ("streamed parse parts from the one-shot parse; fix it or list it" if parted else
                              f"no longer parts: remove it from {OPEN_FILE.name}")


if __name__ == "__main__":  # rewrite the open list from our engine (each release it claims)
    found: dict[str, list[str]] = {}
    for p in SAMPLES:
        for runtime in ("5.23", "5.24"):
            if differs(p, runtime):
                found.setdefault(_key(p), []).append(runtime)
    OPEN_FILE.write_text(json.dumps({"about": "shipped template samples whose streamed parse parts from the one-shot parse, "
                                     "per release; see tests/test_family_streaming.py", "open": found}, indent=1) + "\n",
                         encoding="utf-8")
    print(f"{len(found)} samples open")
