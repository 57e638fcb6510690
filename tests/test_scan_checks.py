"""The checks behind ``workbench scan``'s verdicts, against the engine's own full trace: the
cheap trap watcher a scan runs on every row finds exactly the dropped text and the replaced
values ``trace_response`` shows (and gives the same message as ``parse_response``), on every
sample of every shipped template; the markers read out of each family's parsers are its real
delimiters."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from families import TEMPLATE_SUFFIX
from workbench.engine.markers import literal_markers
from workbench.engine.spans import MISSING
from workbench.engine.template import parse_response, trace_response
from workbench.engine.template.traps import DROPPED, OVERWRITTEN, parse_with_traps
from workbench.formats import FORMATS
from workbench.store.samples import is_sample_file, load
from workbench.scan.suspects import chunkings

ROOT = Path(__file__).resolve().parent.parent
CASES = sorted(p for p in (ROOT / "sample_outputs").glob("*/*.txt")
               if is_sample_file(p) and (ROOT / "schemas" / f"{p.parent.name}{TEMPLATE_SUFFIX}").is_file())
# Outputs that fall into the traps, beside the samples (which mostly do not).
EXTRA = {
    "qwen3": ["Let me check.<tool_call>\n{\"name\": \"a\", \"arguments\": {}}\n</tool_call>Then more.<|im_end|>",
              "Answer.<|im_end|>trailing words</think>"],
    "gpt_oss": ["<|channel|>analysis<|message|>a<|end|>stray<|start|>assistant<|channel|>final<|message|>b<|return|>x",
                "<|channel|>final<|message|>one<|end|><|start|>assistant<|channel|>final<|message|>two<|return|>"],
}


def _template(family: str) -> dict:
    return json.loads((ROOT / "schemas" / f"{family}{TEMPLATE_SUFFIX}").read_text(encoding="utf-8"))


def _outputs():
    for path in CASES:
        sample = load(path)
        yield pytest.param(path.parent.name, sample.text, sample.prompt()[0], id=f"{path.parent.name}/{path.stem}")
    for family, texts in EXTRA.items():
        prompt = load(next(p for p in CASES if p.parent.name == family)).prompt()[0]
        for i, text in enumerate(texts):
            yield pytest.param(family, text, prompt, id=f"{family}/extra{i}")


@pytest.mark.parametrize("family, text, prompt", list(_outputs()))
def test_the_trap_watcher_finds_what_the_trace_shows(family, text, prompt):
    template = _template(family)
    trace = trace_response(text, template, prefix=prompt)
    try:
        message, traps = parse_with_traps(text, template, prefix=prompt)
    except Exception as exc:  # noqa: BLE001 - then the trace failed alike
        assert trace.error is not None and trace.error.type == type(exc).__name__
        with pytest.raises(type(exc)):
            parse_response(text, template, prefix=prompt)
        return
    assert trace.error is None and message == trace.message == parse_response(text, template, prefix=prompt)
    start = trace.output_start
    dropped = "".join(trace.text[max(a, start):b] for d in trace.dropped for a, b in [d.span] if b > start)
    assert "".join(t.text for t in traps if t.kind == DROPPED) == dropped
    replaced = [r.field for r in trace.regions if r.overwritten_by is not None and not _blank(r)]
    assert [t.field for t in traps if t.kind == OVERWRITTEN] == replaced


def _blank(region) -> bool:
    value = region.cast if region.cast is not MISSING else region.transformed
    return (isinstance(value, str) and not value.strip()) or value in (None, [], {})


def _without_join(template: dict) -> dict:
    """The template as it was before ``join`` (transformers 5.16): a field keeps one piece, so a
    second one replaces the first. The shipped templates join every piece, so none replaces text."""
    fields = {name: {k: v for k, v in spec.items() if k not in ("repeats", "join")} if "join" in spec else spec
              for name, spec in template["fields"].items()}
    return {**template, "fields": fields}


def test_the_extra_outputs_do_fall_into_traps():
    """The watcher's test is not idle: its extra outputs drop text, and replace it where the
    template does not join its pieces."""
    kinds = set()
    for family, texts in EXTRA.items():
        prompt = load(next(p for p in CASES if p.parent.name == family)).prompt()[0]
        for text in texts:
            for template in (_template(family), _without_join(_template(family))):
                kinds |= {t.kind for t in parse_with_traps(text, template, prefix=prompt)[1]}
    assert kinds == {DROPPED, OVERWRITTEN}


@pytest.mark.parametrize("family, marker", [
    ("qwen3", "<tool_call>"), ("hermes", "<tool_call>"), ("gpt_oss", "<|channel|>"), ("mistral", "[TOOL_CALLS]"),
    ("deepseek_v3_1", "<｜tool▁calls▁begin｜>"), ("kimi_k2", "<|tool_call_begin|>"), ("glm45", "<arg_key>"),
    ("minimax_m2", "<minimax:tool_call>"),
])
def test_each_family_says_its_call_markers(family, marker):
    for fmt in FORMATS:
        path = ROOT / "schemas" / f"{family}{fmt.suffix}"
        found = fmt.markers(json.loads(path.read_text(encoding="utf-8")))
        assert marker in found, (fmt.name, found)
        assert not [m for m in found if "(" in m or "\\" in m or "?" in m]


def test_markers_are_read_from_regex_source():
    assert literal_markers([r"<\|channel\|>(?P<name>\w+)<(?:tool_call|tools?)>", r"(?<=</x)>", r"<[^>]+>"]) == [
        "<tool_call>", "<tools>", "<tool>", "<|channel|>"]


def test_chunkings_are_seeded_and_cut_into_every_marker():
    text = "Hi <tool_call>{}</tool_call> there"
    a, b = chunkings(text, ["<tool_call>", "</tool_call>"], 3, "s"), chunkings(text, ["<tool_call>", "</tool_call>"], 3, "s")
    assert a == b and len(a) == 4 and a != chunkings(text, ["<tool_call>"], 3, "t")
    assert all(0 < c < len(text) and cuts == sorted(cuts) for cuts in a for c in cuts)
    assert {3, 4, 13, 14} <= set(a[-1])  # before, inside, at the end of <tool_call>
