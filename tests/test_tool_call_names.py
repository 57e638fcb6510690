"""Every shipped schema gives tool calls with a string name, or fails: never a nameless call; every
shipped template gives named calls, or leaves a call it cannot name as text.

Each sample is parsed as it is and in variants a model really drifts into (the fence removed, one
object where a list is expected, calls on separate lines, the name key misspelt, null or missing,
the call written twice). Whatever a variant gives, transformers 5.14.1 gives the same, and every
tool call in it is an object with a ``function`` holding a ``name`` that is a string.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from families import has_schema  # schema families only (tests/families.py)
from oracle import RAISED, run_oracle, run_ours, same
from workbench.engine.template import parse_response as template_parse
from workbench.store.samples import is_sample_file, load

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted(p for p in (ROOT / "sample_outputs").glob("*/*.txt") if is_sample_file(p) and has_schema(p.parent.name))


def _first_call_span(text: str) -> tuple[int, int] | None:
    """The span of the first `{"name": …}` object in the text (balanced braces, strings skipped)."""
    m = re.search(r'\{\s*"name"', text)
    if not m:
        return None
    depth, i, in_string = 0, m.start(), False
    while i < len(text):
        c = text[i]
        if in_string:
            if c == "\\":
                i += 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return m.start(), i + 1
        i += 1
    return None


def variants(text: str) -> dict[str, str]:
    out = {"as_is": text}
    out["fence_removed"] = re.sub(r"```(?:json|xml)?[ \t]*\n?", "", text)
    out["single_object"] = re.sub(r"\[\s*\{", "{", re.sub(r"\}\s*\]", "}", text, count=1), count=1)
    out["calls_on_lines"] = re.sub(r"\}\s*[,;]\s*\{(?=\s*\")", "}\n{", text)
    out["calls_back_to_back"] = re.sub(r"\}\s*[,;]\s*\{(?=\s*\")", "}{", text)
    out["name_misspelt"] = text.replace('"name"', '"nmae"', 1)
    out["name_null"] = re.sub(r'"name"(\s*):(\s*)"[^"]*"', r'"name"\1:\2null', text, count=1)
    out["name_number"] = re.sub(r'"name"(\s*):(\s*)"[^"]*"', r'"name"\1:\g<2>7', text, count=1)
    out["name_empty"] = re.sub(r'"name"(\s*):(\s*)"[^"]*"', r'"name"\1:\2""', text, count=1)
    out["name_removed"] = re.sub(r'"name"\s*:\s*"[^"]*"\s*,\s*', "", text, count=1)
    for attr in ("name", "function", "invoke name"):
        # a namespaced tag too: <steptml:invoke name=…>, <｜DSML｜invoke name=…>
        out[f"{attr}_attribute_emptied"] = re.sub(rf'(<(?:[\w｜]+[:｜])?{attr}[=\s]*"?)[^>"\n]+', r"\1", text, count=1)
    # GLM writes the name as the call's first line: <tool_call>NAME\n<arg_key>…
    out["name_line_removed"] = re.sub(r"(<tool_call>)\s*[^<\s]+\s*(?=<arg_key>)", r"\1", text, count=1)
    span = _first_call_span(text)
    if span:
        call = text[span[0] : span[1]]
        out["call_twice"] = text[: span[1]] + "\n" + call + text[span[1] :]
        out["call_without_list"] = text[: span[0]] + call + text[span[1] :]
    return {k: v for k, v in out.items() if k == "as_is" or v != text}


def _nameless(value) -> list:
    calls = value.get("tool_calls") if isinstance(value, dict) else None
    if not calls:
        return []
    return [
        call
        for call in calls
        if not (
            isinstance(call, dict)
            and isinstance(call.get("function"), dict)
            and isinstance(call["function"].get("name"), str)
            and call["function"]["name"] != ""
        )
    ]


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_tool_call_has_a_string_name(sample: Path):
    schema = json.loads((ROOT / "schemas" / f"{sample.parent.name}.json").read_text(encoding="utf-8"))
    text = sample.read_bytes().decode("utf-8")
    problems = []
    for kind, variant in variants(text).items():
        ours = run_ours(variant, schema)
        if not same(ours, run_oracle(variant, schema)):
            problems.append(f"{kind}: differs from transformers")
        if ours is not RAISED and (bad := _nameless(ours)):
            problems.append(f"{kind}: tool call without a string name: {bad[0]!r}"[:300])
    assert not problems, "\n".join(problems)


def test_variants_change_the_samples_they_are_meant_for():
    """The generator is not idle: on a list of calls it drops the list, on one call it writes two."""
    text = '[TOOL_CALLS][{"name": "f", "arguments": {"a": 1}}, {"name": "g", "arguments": {}}]</s>'
    made = variants(text)
    assert made["single_object"] == '[TOOL_CALLS]{"name": "f", "arguments": {"a": 1}}, {"name": "g", "arguments": {}}</s>'
    assert made["calls_on_lines"].count("}\n{") == 1
    assert made["name_null"].startswith('[TOOL_CALLS][{"name": null')
    assert made["call_twice"].count('"name": "f"') == 2
    step3 = '<steptml:invoke name="run">x</steptml:invoke> <｜DSML｜invoke name="run">'
    assert variants(step3)["invoke name_attribute_emptied"] == '<steptml:invoke name="">x</steptml:invoke> <｜DSML｜invoke name="run">'
    assert variants("<tool_call>get_time\n<arg_key>tz</arg_key>")["name_line_removed"] == "<tool_call><arg_key>tz</arg_key>"


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_template_tool_call_has_a_string_name(sample: Path, release, release_oracle):
    """The same variants through the family's response_template (with the sample's prompt): a template
    cannot fail on a value, so a call it cannot name must stay text, never become a nameless call.
    Whatever a variant gives, transformers gives the same (each release, our engine as that release)."""
    template = json.loads((ROOT / "schemas" / f"{sample.parent.name}.template.json").read_text(encoding="utf-8"))
    prompt = load(sample).prompt()[0]
    problems = []
    for kind, variant in variants(sample.read_bytes().decode("utf-8")).items():
        try:
            ours = ("value", template_parse(variant, template, prefix=prompt, runtime=release.runtime))
        except Exception as exc:  # noqa: BLE001 - the runtime's own error, compared below
            ours = ("error", type(exc).__name__)
        theirs = release_oracle.parse(variant, template, prefix=prompt)
        if ours != tuple(theirs[:2]):
            problems.append(f"{kind}: differs from transformers {release.version}: {str(ours)[:120]} vs {str(theirs)[:120]}")
        if ours[0] == "value" and (bad := _nameless(ours[1])):
            problems.append(f"{kind}: tool call without a string name: {bad[0]!r}"[:300])
    assert not problems, "\n".join(problems)
