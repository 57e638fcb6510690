"""An answer that names its family's reasoning tags in prose keeps them as content (issue 24, item 8).

For every shipped family with a reasoning tag, and both formats, an answer holding the family's own
opening and closing tags mid-sentence ("… in <think> and </think> tags …") is parsed by the runtime
itself (transformers 5.14.1 for a schema, 5.24.0 for a template, the prompt ending at the assistant
header with no reasoning pre-written) and must come out as one message whose content is the whole
sentence and which has no thinking: a `<think>` in the middle of an answer never opens reasoning, and
text holding one before the `</think>` is not pre-written reasoning. The same sentence after a real
reasoning block must leave the block as thinking and the sentence as content.

Where a format cannot tell (the family's reasoning has no opening tag in the output, so every output
starts inside it), the family is in DECIDED with the phrase its row in schemas/README.md uses to say
so; the test then checks that the row says it, and that no text is lost: the message holds the whole
sentence, in one field.

Our own engine must give the runtime's result in every case.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import workbench
from families import has_schema
from oracle import RAISED, run_oracle, same

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = ROOT / "schemas"

# The family's own reasoning delimiters as they appear in an output; several pairs where the family
# accepts several spellings.
TAGS: dict[str, list[tuple[str, str]]] = {
    "qwen3": [("<think>", "</think>")],
    "qwq": [("<think>", "</think>")],
    "deepseek_r1": [("<think>", "</think>")],
    "deepseek_v3_1": [("<think>", "</think>")],
    "deepseek_v3_2": [("<think>", "</think>")],
    "glm45": [("<think>", "</think>")],
    "glm47": [("<think>", "</think>")],
    "minimax_m1": [("<think>", "</think>")],
    "minimax_m2": [("<think>", "</think>")],
    "mimo": [("<think>", "</think>")],
    "smollm3": [("<think>", "</think>")],
    "hunyuan": [("<think>", "</think>")],
    "ernie45": [("<think>", "</think>")],
    "seed_oss": [("<seed:think>", "</seed:think>")],
    "kimi_k2": [("<think>", "</think>")],
    "nemotron3": [("<think>", "</think>")],
    "nemotron_nano2": [("<think>", "</think>")],
    "granite3": [("<think>", "</think>"), ("Here is my thought process:", "Here is my response:")],
    "lfm2": [("<think>", "</think>")],
    "lfm2_pythonic": [("<think>", "</think>")],
    "step3": [("<think>", "</think>")],
    "magistral": [("[THINK]", "[/THINK]"), ("<think>", "</think>")],
    "apriel": [("<thinking>", "[BEGIN FINAL RESPONSE]")],
    "xlam": [("<think>", "</think>")],
    "cohere_command": [("<|START_THINKING|>", "<|END_THINKING|>")],
    "apertus": [("<|inner_prefix|>", "<|inner_suffix|>")],
    "gemma4": [("<|channel>thought\n", "<channel|>")],
    "deepseek_v4": [("<think>", "</think>")],
    "gigachat35": [("<think>", "</think>")],
    "hy_v3": [("<think:opensource>", "</think:opensource>"), ("<think>", "</think>")],
    "kimi_k3": [("<|open|>think<|sep|>", "<|close|>think<|sep|>")],
    "solar_open2": [("<|think:start|>", "<|think:end|>")],
    "inkling": [("<|content_thinking|>", "<|end_message|>")],
    "hy_v4": [("<think:opensource>", "</think:opensource>"), ("<think>", "</think>")],
    "minicpm5": [("<think>", "</think>")],
    "deepseek_v4_1": [("<think>", "</think>")],
    "ling3": [("<think>", "</think>")],
    "minimax_m3": [("<mm:think>", "</mm:think>")],
}

# Families with a thinking field whose reasoning is not delimited by tags a sentence could hold.
NO_TAGS = {
    "gpt_oss": "harmony channels: reasoning is a whole `analysis` message, not a tagged span",
    "muse_glimmer": "ATEM channels: reasoning is a whole message addressed `to=self`, not a tagged span",
}

# (family, format) -> the phrase of the family's schemas/README.md row that documents the decision.
DECIDED: dict[tuple[str, str], str] = {
    ("apriel", "template"): "an output holding `[BEGIN FINAL RESPONSE]` is read as starting inside the reasoning, so the marker ends the reasoning wherever it stands",
}


def sentence(open_tag: str, close_tag: str) -> str:
    return f"Reasoning models wrap their chain of thought in {open_tag} and {close_tag} tags before they answer."


# Not yet following the rule: families added beside it (issue 24), each (family, format, opening
# tag) for the mid-answer test and, in AFTER_REASONING, for the test after real reasoning. Strict:
# a fixed case fails until it is taken off the list. inkling: text before a block's marker is
# header metadata (vLLM drops it too) and `<|end_message|>` ends any block, so the sentence outside a
# block cannot be kept whole without reading headers as content; its thinking opener is anchored
# (test_inkling_thinking_opens_only_at_the_start_or_after_a_message_header).
OPEN = {
    ("inkling", "schema", "<|content_thinking|>"), ("inkling", "template", "<|content_thinking|>"),
}
OPEN_AFTER_REASONING = {
    ("inkling", "schema", "<|content_thinking|>"), ("inkling", "template", "<|content_thinking|>"),
}


def cases(still_open: set = frozenset()):
    for family, pairs in TAGS.items():
        for fmt in ("schema", "template"):
            if fmt == "schema" and not has_schema(family):
                continue
            for open_tag, close_tag in pairs:
                marks = [pytest.mark.xfail(strict=True, reason="not yet following the rule (OPEN)")] \
                    if (family, fmt, open_tag) in still_open else []
                yield pytest.param(family, fmt, open_tag, close_tag, id=f"{family}-{fmt}-{open_tag.strip()}", marks=marks)


def template_prompt(template: dict) -> str:
    """A prompt that ends at the assistant header: nothing pre-written."""
    anchor = template.get("start_anchor", "")  # none: the template reads the output from its start
    return anchor[0] if isinstance(anchor, list) else anchor


def readme_row(family: str, table: int) -> str:
    rows = [line for line in (SCHEMAS / "README.md").read_text(encoding="utf-8").splitlines()
            if line.startswith(f"| `{family}` |")]
    return rows[table]


def parse(family: str, fmt: str, text: str, newest_oracle):
    """The runtime's message (or RAISED), after checking that our engine gives the same."""
    if fmt == "schema":
        schema = json.loads((SCHEMAS / f"{family}.json").read_text(encoding="utf-8"))
        expected = run_oracle(text, schema)
        try:
            ours = workbench.parse_response(text, schema)
        except workbench.ParseFailure:
            ours = RAISED
        assert same(ours, expected), (ours, expected)
        return expected
    template = json.loads((SCHEMAS / f"{family}.template.json").read_text(encoding="utf-8"))
    prompt = template_prompt(template)
    result = newest_oracle.parse(text, template, prefix=prompt)
    try:
        ours = workbench.parse_response(text, template, prefix=prompt)
    except workbench.ParseFailure:
        ours = RAISED
    if result[0] == "value":
        assert same(ours, result[1]), (ours, result)
        return result[1]
    assert ours is RAISED, (ours, result)
    return RAISED


def test_every_family_with_a_thinking_field_is_covered():
    with_thinking = set()
    for path in SCHEMAS.glob("*.template.json"):
        fields = json.loads(path.read_text(encoding="utf-8"))["fields"]
        if "thinking" in fields or "reasoning_content" in fields:
            with_thinking.add(path.name.removesuffix(".template.json"))
    for path in SCHEMAS.glob("*.json"):
        if not path.name.endswith(".template.json"):
            if "thinking" in json.loads(path.read_text(encoding="utf-8")).get("properties", {}):
                with_thinking.add(path.stem)
    assert with_thinking == set(TAGS) | set(NO_TAGS)


@pytest.mark.parametrize("family,fmt,open_tag,close_tag", list(cases(OPEN)))
def test_tags_named_mid_answer_stay_content(family, fmt, open_tag, close_tag, newest_oracle):
    answer = sentence(open_tag, close_tag)
    message = parse(family, fmt, answer, newest_oracle)
    if (family, fmt) in DECIDED:
        assert DECIDED[family, fmt] in readme_row(family, 0 if fmt == "schema" else 1)
        # nothing lost: the message's text, in field order, is the sentence less at most its tags
        if message is not RAISED:
            words = " ".join(v for v in message.values() if isinstance(v, str) and v != "assistant").split()
            assert words in (answer.split(), answer.replace(open_tag, "").replace(close_tag, "").split(),
                             answer.replace(close_tag, "").split()), f"text lost: {message!r}"
        return
    assert message is not RAISED
    assert message.get("content") == answer, message
    assert "thinking" not in message, message


def written_reasoning(family: str, open_tag: str, close_tag: str) -> str:
    if open_tag == "Here is my thought process:":
        return f"{open_tag} The user asks how reasoning is marked. {close_tag} "
    return f"{open_tag}The user asks how reasoning is marked.{close_tag}\n\n"


@pytest.mark.parametrize("family,fmt,open_tag,close_tag",
                         [c for c in cases(OPEN_AFTER_REASONING) if (c.values[0], c.values[1]) not in DECIDED])
def test_tags_named_after_real_reasoning_stay_content(family, fmt, open_tag, close_tag, newest_oracle):
    answer = sentence(open_tag, close_tag)
    message = parse(family, fmt, written_reasoning(family, open_tag, close_tag) + answer, newest_oracle)
    assert message is not RAISED
    assert message.get("thinking") == "The user asks how reasoning is marked.", message
    assert message.get("content") == answer, message


def test_prewritten_reasoning_without_a_literal_opener_is_still_read():
    """The rule leaves pre-written reasoning alone: only `</think>` in the output is thinking before it."""
    schema = json.loads((SCHEMAS / "qwen3.json").read_text(encoding="utf-8"))
    message = run_oracle("Plan the answer.\n</think>\n\nThe answer.", schema)
    assert message == {"role": "assistant", "thinking": "Plan the answer.", "content": "The answer."}


@pytest.mark.parametrize("text,expected", [
    ("\n<think>reasoning</think>\nanswer", {"role": "assistant", "thinking": "reasoning", "content": "answer"}),
    ("\n\n<think>\nreasoning\n</think>\n\nanswer", {"role": "assistant", "thinking": "reasoning", "content": "answer"}),
    # cut off while reasoning: thinking with the tag stripped (vLLM's deepseek_r1 reads an output
    # without </think> as all reasoning); the schema's empty content stays, as for every sample
    ("<think>\nreasoning cut off", {"role": "assistant", "thinking": "reasoning cut off", "content": ""}),
    ("\n<think>reasoning cut off", {"role": "assistant", "thinking": "reasoning cut off", "content": ""}),
])
def test_deepseek_r1_reads_the_think_tag_after_whitespace_and_when_cut_off(text, expected):
    schema = json.loads((SCHEMAS / "deepseek_r1.json").read_text(encoding="utf-8"))
    message = run_oracle(text, schema)
    assert message == expected
    assert same(workbench.parse_response(text, schema), message)
    assert not re.search(r"</?think>", json.dumps(message))


SEED_ANCHOR = "<seed:bos>assistant\n"


@pytest.mark.parametrize("text,prompt_tail", [
    # the model wrote <seed:think>: a closing note tag named in its reasoning is text, nothing is added
    ("<seed:think>\nThe tag </seed:cot_budget_reflect> closes a budget note.\n</seed:think>\nAnswer.", ""),
    # thinking_budget=0 pre-writes <seed:think><seed:cot_budget_reflect>: the output holds only the
    # note's closing tag, and the opening one (in the prompt) is part of the thinking in both formats
    ("My budget is 0, so I answer at once.</seed:cot_budget_reflect>\n</seed:think>\nAnswer.",
     "<seed:think><seed:cot_budget_reflect>"),
])
def test_seed_oss_schema_adds_the_note_opener_only_where_the_prompt_wrote_it(text, prompt_tail, newest_oracle):
    schema = json.loads((SCHEMAS / "seed_oss.json").read_text(encoding="utf-8"))
    template = json.loads((SCHEMAS / "seed_oss.template.json").read_text(encoding="utf-8"))
    from_schema = run_oracle(text, schema)
    kind, from_template = newest_oracle.parse(text, template, prefix=SEED_ANCHOR + prompt_tail)
    assert kind == "value"
    assert from_schema["thinking"] == from_template["thinking"]
    assert from_schema["thinking"].count("<seed:cot_budget_reflect>") == (1 if prompt_tail else 0)
    assert from_schema["content"] == from_template["content"] == "Answer."


INKLING_TEXT_BLOCK = "<|content_text|>Models mark their reasoning with <|content_thinking|> blocks.<|end_message|>"


@pytest.mark.parametrize("fmt", ["schema", "template"])
@pytest.mark.parametrize("text,content", [
    # a thinking marker named inside a text block is text (the schema read it as a second thinking)
    (INKLING_TEXT_BLOCK + "<|content_model_end_sampling|>",
     "Models mark their reasoning with <|content_thinking|> blocks."),
    # one named in prose before any block is no thinking block either (the template read one);
    # the prose itself, outside every block, is header text both formats leave out (still OPEN above)
    (sentence("<|content_thinking|>", "<|end_message|>"), None),
])
def test_inkling_thinking_opens_only_at_the_start_or_after_a_message_header(fmt, text, content, newest_oracle):
    message = parse("inkling", fmt, text, newest_oracle)
    assert message is not RAISED
    assert "thinking" not in message, message
    assert message.get("content") == content, message


@pytest.mark.parametrize("fmt", ["schema", "template"])
def test_inkling_reads_a_thinking_block_after_a_header_or_whitespace(fmt, newest_oracle):
    text = ("\n<|content_thinking|>Plan the reply.<|end_message|><|message_model|><|content_text|>Hi.<|end_message|>"
            "<|message_model|>get_weather<|content_invoke_tool_json|>{\"name\":\"get_weather\",\"args\":{}}<|end_message|>")
    message = parse("inkling", fmt, text, newest_oracle)
    assert message["thinking"] == "Plan the reply."
    assert message["content"] == "Hi."
    assert [c["function"]["name"] for c in message["tool_calls"]] == ["get_weather"]


@pytest.mark.parametrize("family,text", [
    ("hy_v3", "Plan the answer.\n</think:opensource>\n\nThe answer."),
    ("hy_v3", "\n<think>\nPlan the answer.\n</think>\n\nThe answer."),
    ("solar_open2", "Plan the answer.<|think:end|>\nThe answer."),
    ("solar_open2", "  <|think:start|>Plan the answer.<|think:end|>The answer."),
    ("deepseek_v4", "Plan the answer.</think>The answer."),
    ("deepseek_v4", "\n<think>Plan the answer.</think>\nThe answer."),
    ("gigachat35", "Plan the answer.\n</think>\nThe answer."),
    ("kimi_k3", "Plan the answer.<|close|>think<|sep|><|open|>response<|sep|>The answer.<|close|>response<|sep|>"),
    ("kimi_k3", "<|open|>think<|sep|>Plan the answer.<|close|>think<|sep|>\nThe answer."),
])
def test_new_families_still_read_prewritten_and_leading_reasoning(family, text):
    """The guards leave pre-written reasoning (only the closer in the output) and an opener after
    leading whitespace alone."""
    schema = json.loads((SCHEMAS / f"{family}.json").read_text(encoding="utf-8"))
    message = run_oracle(text, schema)
    assert same(workbench.parse_response(text, schema), message)
    assert message["thinking"] == "Plan the answer.", message
    assert message["content"] == "The answer.", message


KIMI_ANCHOR = '<|open|>message role="assistant"<|sep|>'


@pytest.mark.parametrize("prompt_tail,text,expected", [
    # the zero-width content openers never meet the zero-width closers (the runtime would loop forever)
    ("", "<|close|>message<|sep|>", {"role": "assistant"}),
    ("<|open|>think<|sep|>", "Plan<|close|>think<|sep|>  <|close|>message<|sep|>", {"role": "assistant", "thinking": "Plan"}),
    # text outside the response channel is content up to the tools channel, whose call is still read
    ("<|open|>think<|sep|>",
     'Plan<|close|>think<|sep|>\nBare answer<|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|>'
     '<|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|>',
     {"role": "assistant", "thinking": "Plan", "content": "Bare answer",
      "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": {}}}]}),
    ("", "Hi there<|close|>message<|sep|>", {"role": "assistant", "content": "Hi there"}),
])
def test_kimi_k3_template_reads_text_outside_the_response_channel(prompt_tail, text, expected, newest_oracle):
    template = json.loads((SCHEMAS / "kimi_k3.template.json").read_text(encoding="utf-8"))
    result = newest_oracle.parse(text, template, prefix=KIMI_ANCHOR + prompt_tail)
    assert result == ("value", expected)
    assert workbench.parse_response(text, template, prefix=KIMI_ANCHOR + prompt_tail) == expected


@pytest.mark.parametrize("fmt", ["schema", "template"])
def test_inkling_text_marker_named_in_reasoning_stays_thinking(fmt, newest_oracle):
    """A `<|content_text|>` named inside a thinking block opens no text block (the schema read the
    rest of the reasoning as the answer): the text block is the one after `<|message_model|>`."""
    text = ("<|content_thinking|>Answer in a <|content_text|> block.<|end_message|>"
            "<|message_model|><|content_text|>Real.<|end_message|><|content_model_end_sampling|>")
    message = parse("inkling", fmt, text, newest_oracle)
    assert message["thinking"] == "Answer in a <|content_text|> block."
    assert message["content"] == "Real."
