"""workbench check --linear: token boundaries, the growth rule, and slow schemas failing it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.jobs.linearity import FLOOR, MAX_GROWTH, boundaries, check_linear, growth

LINEAR = {
    "type": "object",
    "properties": {
        "thinking": {"type": "string", "x-regex": r"^\s*(?:<think>\s*)?(?!\s)((?:.*?\S)??)\s*</think>"},
        "content": {"type": "string", "x-regex": r"^(?:.*?</think>)?\s*((?:.*?\S)??)\s*(?:<tool_call>|$)"},
        "tool_calls": {
            "type": "array",
            "x-regex-iterator": r"<tool_call>\s*((?:.*?\S)??)\s*(?:</tool_call>|$)",
            "items": {"type": "object", "x-parser": "json"},
        },
    },
}
SAMPLE = '<think>Hm.</think>Sure.<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>'


def swap(pointer: str, pattern: str) -> dict:
    schema = json.loads(json.dumps(LINEAR))
    node = schema
    *parents, last = pointer.strip("/").split("/")
    for key in parents:
        node = node[key]
    node[last] = pattern
    return schema


def tree(tmp_path: Path, schema: dict, sample: str = SAMPLE) -> Path:
    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / "fam.json").write_text(json.dumps(schema))
    (tmp_path / "sample_outputs" / "fam").mkdir(parents=True)
    (tmp_path / "sample_outputs" / "fam" / "case.txt").write_text(sample)
    return tmp_path


def run_check(root: Path, time_limit: float = 0.5):  # each regex call gets WALL_SLACK times it
    # A short limit keeps the failing cases fast; a linear schema needs milliseconds anyway.
    [result] = check_linear(root / "schemas", root / "sample_outputs", jobs=1, time_limit=time_limit)
    return result


def test_boundaries_are_the_start_the_end_and_between_tokens():
    text = '<think>Hi there.</think>\n[TOOL_CALLS][{"a": 1}]'
    found = [(b.offset, b.left, b.right) for b in boundaries(text)]
    assert found == [
        (0, "", "<think>"),
        (7, "<think>", "Hi"),
        (9, "Hi", " "),  # a whitespace run: its start only (its end lengthens the same run)
        (15, "there", "."),
        (16, ".", "</think>"),
        (24, "</think>", "\n"),
        (37, "[TOOL_CALLS]", '[{"'),
        (40, '[{"', "a"),
        (41, "a", '":'),
        (43, '":', " "),
        (45, "1", "}]"),
        (47, "}]", ""),
    ]


def test_underscores_split_names():
    assert [b.offset for b in boundaries("get_weather")] == [0, 3, 4, 11]


def test_look_alike_boundaries_in_the_same_section_are_tried_once():
    found = [b.offset for b in boundaries("<a>x y z w</a>v, u, t")]
    # after <a>: x|space once, then no other word|space; after </a>: v|, and ,|space once
    assert found == [0, 3, 4, 10, 14, 15, 16, 21]


def test_growth_counts_small_times_as_the_floor():
    assert growth(0.001, 0.01) == pytest.approx(0.01 / FLOOR)
    assert growth(FLOOR / 10, MAX_GROWTH * FLOOR) <= MAX_GROWTH  # fast: noise, not growth
    assert growth(0.1, 10.0) > MAX_GROWTH  # quadratic: 100x for 10x the input
    assert growth(0.1, 1.0) <= MAX_GROWTH


def test_a_linear_schema_passes(tmp_path):
    result = run_check(tree(tmp_path, LINEAR))
    assert result.ok, [(t.where, t.kind, t.seconds) for t in result.failures]
    # every boundary once, all four kinds at the start and the end, and the repeated sample; then
    # the plain answers: all four kinds before the lone answer, one kind for each other input
    from workbench.jobs.linearity import delimiters, plain_inputs

    plain = len(plain_inputs(*delimiters([SAMPLE]))) - 1 + 4
    assert result.inputs == len(boundaries(SAMPLE)) + 6 + 1 + plain


@pytest.mark.parametrize(
    "pointer, pattern, sample, where",
    [
        # cubic: a leading whitespace run shared by three loops, with no </think> to end the search
        ("/properties/thinking/x-regex", r"^\s*(?:<think>)?\s*((?:.*?\S)??)\s*</think>", "Hello.", "offset 0"),
        # quadratic: the lazy group and the trailing \s* share a run inside the call
        ("/properties/tool_calls/items/x-regex", r"(\{.*?)\s*$", SAMPLE, "offset"),
    ],
)
def test_a_slow_schema_fails_with_a_timeout(tmp_path, pointer, pattern, sample, where):
    schema = swap(pointer, pattern)
    if pointer.endswith("items/x-regex"):
        schema["properties"]["tool_calls"]["items"] = {"type": "object", "x-regex": pattern, "x-parser": "json"}
    result = run_check(tree(tmp_path, schema, sample))
    assert not result.ok
    assert any(t.timed_out and t.variant == "whitespace" and where in t.where for t in result.failures), result.failures


def test_the_command_prints_a_table_and_json(tmp_path):
    root = tree(tmp_path, LINEAR)
    args = [sys.executable, "-m", "workbench", "check", "--linear", "schemas", "sample_outputs"]
    shown = subprocess.run(args, capture_output=True, text=True, cwd=root)
    assert shown.returncode == 0, shown.stdout + shown.stderr
    assert "fam" in shown.stdout and "pass" in shown.stdout and "1 of 1 parsers" in shown.stdout
    as_json = subprocess.run([*args, "--json"], capture_output=True, text=True, cwd=root)
    [family] = json.loads(as_json.stdout)
    assert family["ok"] and family["worst"]["case"] == "case" and family["failures"] == []


def test_update_does_not_go_with_linear(tmp_path):
    root = tree(tmp_path, LINEAR)
    result = subprocess.run([sys.executable, "-m", "workbench", "check", "--linear", "--update"],
                            capture_output=True, text=True, cwd=root)
    assert result.returncode == 2 and "--update" in result.stderr


def template(opener: str) -> dict:
    return {
        "version": 1,
        "defaults": {"role": "assistant"},
        "start_anchor": "<|im_start|>assistant\n",
        "fields": {
            "thinking": {"open": "<think>", "close": "</think>", "content": "text"},
            "tool_calls": {"open_pattern": opener, "close": "</tool_call>", "repeats": True, "content": "json"},
            "content": {"content": "text"},
        },
    }


def template_tree(tmp_path: Path, opener: str) -> Path:
    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / "fam.template.json").write_text(json.dumps(template(opener)))
    folder = tmp_path / "sample_outputs" / "fam"
    folder.mkdir(parents=True)
    (folder / "case.txt").write_text(SAMPLE)
    (folder / "default.prompt.txt").write_text("<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n")
    return tmp_path


def test_a_template_is_checked_with_its_prompt_and_a_bounded_whitespace_guard_passes(tmp_path):
    # \s{0,64} before the opener: a partial-mode search tries at most 64 characters per start.
    result = run_check(template_tree(tmp_path, r"\s{0,64}<tool_call>"))
    assert result.format == "response_template" and result.schema.endswith("fam.template.json")
    assert result.ok and result.inputs > 0, result.failures


def test_a_template_opener_led_by_an_unbounded_whitespace_repeat_is_quadratic(tmp_path):
    # transformers searches delimiters with partial=True, and a partial search of a pattern led
    # by \s* retries the repeat to the end of the text from every start: quadratic on any text.
    result = run_check(template_tree(tmp_path, r"\s*<tool_call>"))
    assert not result.ok and result.worst.timed_out


# -- plain answers after whitespace runs -------------------------------------------------------

ROOT = Path(__file__).resolve().parent.parent


def test_delimiters_and_their_plain_inputs():
    from workbench.jobs.linearity import delimiters, plain_inputs

    markers, pairs = delimiters(["<think>a</think>\n\n<response>b</response>", "<tool_call>{}</tool_call><|im_end|>"])
    assert markers == ["<think>", "</think>", "<response>", "</response>", "<tool_call>", "</tool_call>", "<|im_end|>"]
    assert pairs == [("<think>", "</think>"), ("</think>", "<response>"), ("<response>", "</response>"),
                     ("<tool_call>", "</tool_call>"), ("</tool_call>", "<|im_end|>")]
    parts = [p for _, p, _ in plain_inputs(["</think>"], [("<think>", "</think>")])]
    # alone, after and before the delimiter, inside it at each token boundary, between the pair
    assert parts == [["", "Hello."], ["</think>", "Hello."], ["", "</think>Hello."], ["</", "think>Hello."],
                     ["</think", ">Hello."], ["<think>", "</think>", "Hello."]]


def test_markers_that_differ_only_in_a_name_are_one_delimiter():
    from workbench.jobs.linearity import delimiters

    markers, pairs = delimiters(['<invoke name="f"><parameter=a>1</parameter></invoke><invoke name="g"><parameter=b>2</parameter></invoke>'])
    assert markers == ['<invoke name="f">', "<parameter=a>", "</parameter>", "</invoke>"]
    assert pairs == [('<invoke name="f">', "<parameter=a>"), ("<parameter=a>", "</parameter>"),
                     ("</parameter>", "</invoke>"), ("</invoke>", '<invoke name="f">')]


def family_tree(tmp_path: Path, schema_text: str, family: str, cases: list[str]) -> Path:
    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / f"{family}.json").write_text(schema_text)
    folder = tmp_path / "sample_outputs" / family
    folder.mkdir(parents=True)
    for case in cases:
        (folder / f"{case}.txt").write_text((ROOT / "sample_outputs" / family / f"{case}.txt").read_text())
    return tmp_path


def test_ernie45_as_on_main_fails_on_spaces_before_a_plain_answer(tmp_path):
    # main's ernie45 thinking regex, ^\s*(?:<think>|(?=.*?</think>)), scans to the end for </think>
    # from every character of a leading run: 16,000 spaces before "Hello." took 1.7 s in transformers.
    # Every ernie45 sample holds </think>, so only the plain-answer inputs find it.
    main = (Path(__file__).parent / "linearity_data" / "ernie45_main.json").read_text()
    result = run_check(family_tree(tmp_path, main, "ernie45", ["plain_answer"]))
    assert not result.ok
    [failure] = result.failures
    assert failure.case == "plain answer" and failure.where.startswith("run + answer") and failure.timed_out


def test_shipped_ernie45_passes_the_plain_answers(tmp_path):
    shipped = (ROOT / "schemas" / "ernie45.json").read_text()
    result = run_check(family_tree(tmp_path, shipped, "ernie45", ["plain_answer"]))
    assert result.ok, [(t.where, t.kind, t.seconds) for t in result.failures]
    assert any(s.case == "plain answer" and s.inputs > 10 for s in result.samples)


def shipped_parsers():
    from workbench.jobs.families import family_parsers

    for family in family_parsers(ROOT / "schemas", ROOT / "sample_outputs"):
        yield pytest.param(family.folder, family.path, family.format, id=family.path.name)


@pytest.mark.parametrize("folder, path, fmt", list(shipped_parsers()))
def test_every_shipped_parser_passes_the_plain_answers(folder, path, fmt, monkeypatch):
    # Runs of 50,000 (5,000 at 1x) keep this under half a minute for every parser; a quadratic
    # parse still takes seconds there and hits the limit (each parser named above did).
    monkeypatch.setattr("workbench.jobs.linearity.RUN", 50_000)
    # These timed out here before this branch: ernie45's thinking regex and the call regexes of
    # deepseek_v3_2, deepseek_v4 and gigachat35 (schemas); `<tool_call>\s*\[?\s*` and the like
    # (granite3, apriel, mistral, nemotron_nano2, phi4_mini templates) and hermes' `<function=…>`
    # opener (template): a run before an answer that never brings what they look for.
    from workbench.store.files import load_schema, read_sample
    from workbench.jobs.linearity import check_plain, delimiters
    from workbench.store.samples import Sample, is_sample_file

    samples = [Sample(p, read_sample(p)) for p in sorted(folder.iterdir()) if p.is_file() and is_sample_file(p)]
    prompts = list(dict.fromkeys(s.prompt()[0] for s in samples)) if fmt.reads_prompt else [""]
    markers, pairs = delimiters([s.text for s in samples])
    result = check_plain(folder.name, markers, pairs, load_schema(path), prompts)  # check --linear's limit
    assert not result.failures, [(t.where, t.kind, t.seconds, t.growth) for t in result.failures]
