"""Shipped templates whose delimiters used to decide on a prefix of the text (an optional tail, a
negative look-ahead, a shorter alternative) what the whole text decides otherwise: an output of the
family's format, cut into two chunks at every position, streams to its one-shot message in 5.23 and
5.24 (tests/test_family_streaming.py checks the samples with seeded chunkings; these outputs are
written here, and every cut is tried). And where the fix eats a marker cut by the end of the text,
an output that ends inside it (a generation stopped there) gives no piece of it as text (before:
the piece became content, replacing the text before the calls)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.engine.template import parse_response
from workbench.engine.template.chunked import closes
from workbench.store.samples import load

ROOT = Path(__file__).resolve().parent.parent

# family -> (an output written in its format, the marker a stream used to cut wrongly, runtimes)
OUTPUTS = {
    "ernie45": ("Two plus two.\n</think>\n\n<response>\nFour.\n</response>", "<response>", ("5.23", "5.24")),
    "kimi_k3": ("Two plus two.<|close|>think<|sep|><|open|>response<|sep|>Four.<|close|>response<|sep|>"
                "<|close|>message<|sep|>", "<|open|>response<|sep|>", ("5.23", "5.24")),
    "minimax_m1": ("<think>\nBoth at once.\n</think>\n\nChecking.\n<tool_calls>\n"
                   '{"name": "get_time", "arguments": {"tz": "UTC"}}\n{"name": "get_date", "arguments": {}}\n'
                   "</tool_calls><end_of_sentence>", "</tool_calls>", ("5.23", "5.24")),
    "xlam": ('Checking.\n<tool_call>[{"name": "get_time", "arguments": {"tz": "UTC"}}]</tool_call><|im_end|>',
             "</tool_call>", ("5.23", "5.24")),
    "hy_v3": ("Checking.<tool_calls:opensource>\n<tool_call:opensource>get_time<tool_sep:opensource>\n"
              "<arg_key:opensource>tz</arg_key:opensource>\n<arg_value:opensource>UTC</arg_value:opensource>\n"
              "</tool_call:opensource>\n</tool_calls:opensource><｜hy_eos:opensource｜>",
              "</tool_calls:opensource>", ("5.23", "5.24")),
    "gpt_oss": ("<|channel|>analysis<|message|>Call it.<|end|><|start|>assistant<|channel|>commentary "
                'to=functions.get_time <|constrain|>json<|message|>{"tz": "UTC"}<|call|>',
                " <|constrain|>json<|message|>", ("5.23", "5.24")),
    "step3": ("Call it.\n</think>\n\nChecking.<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>"
              '<steptml:invoke name="get_time">\n<steptml:parameter name="tz">UTC</steptml:parameter>\n'
              "</steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜><|EOT|>",
              '<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="get_time">', ("5.23", "5.24")),
    # 5.23 stays open for inkling (schemas/README.md): its opener needs the end of the text.
    "inkling": ('<|content_thinking|>Call it.<|end_message|><|message_model|><|content_text|>Checking.<|end_message|>'
                '<|message_model|>get_time<|content_invoke_tool_json|>{"args":{"tz":"UTC"},"name":"get_time"}'
                "<|end_message|><|content_model_end_sampling|>", '{"args":{"tz":"UTC"},"name":"get_time"}', ("5.24",)),
}


def _template(family):
    return json.loads((ROOT / "schemas" / f"{family}.template.json").read_text(encoding="utf-8"))


def _prompt(family):
    return load(ROOT / "sample_outputs" / family / "tool_call.txt").prompt()[0]


def _outcome(run):
    try:
        return ("message", run())
    except Exception as exc:  # noqa: BLE001 - a failure must be the same failure
        return ("raised", type(exc).__name__, str(exc).splitlines()[0] if str(exc) else "")


CASES = [(family, runtime) for family, (_, _, runtimes) in OUTPUTS.items() for runtime in runtimes]


@pytest.mark.parametrize(("family", "runtime"), CASES, ids=[f"{f}-{r}" for f, r in CASES])
def test_an_output_cut_in_two_anywhere_streams_to_its_one_shot_message(family, runtime):
    text, marker, _ = OUTPUTS[family]
    template, prompt = _template(family), _prompt(family)
    whole = _outcome(lambda: parse_response(text, template, prefix=prompt, runtime=runtime))
    assert whole[0] == "message" and marker.strip() not in json.dumps(whole[1], ensure_ascii=False)
    parted = [cut for cut in range(1, len(text))
              if _outcome(lambda: closes(text, template, [cut], prefix=prompt, runtime=runtime)[0]) != whole]
    assert parted == [], f"cuts {parted[:5]} (text {[text[max(0, c - 12):c] for c in parted[:3]]}) stream otherwise"


EATEN = {"kimi_k3": "<|open|>response<|sep|>", "minimax_m1": "</tool_calls>", "xlam": "</tool_call>",
         "hy_v3": "</tool_calls:opensource>", "step3": "<｜tool_calls_end｜>"}


@pytest.mark.parametrize("family", sorted(EATEN))
def test_an_output_ending_inside_the_marker_gives_no_piece_of_it_as_text(family):
    text, marker = OUTPUTS[family][0], EATEN[family]
    template, prompt = _template(family), _prompt(family)
    start = text.index(marker.strip())
    for end in range(start + 1, start + len(marker.strip())):
        message = parse_response(text[:end], template, prefix=prompt, runtime="5.24")
        shown = message.get("content", "") + message.get("thinking", "")
        assert text[start:end] not in shown, (text[start:end], message)
