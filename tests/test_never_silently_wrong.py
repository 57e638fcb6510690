"""Never silently wrong, as a property (issue 24): every shipped family, in both formats, on outputs
a model really drifts into near its samples, gives the right message or fails, never a message that
looks right and is not.

For each sample with tool calls, each call is varied where it sits in the output:

- ``arguments_as_string``: the arguments object written as a JSON string holding it;
- ``extra_key``: an unknown key first in the call's JSON object (``{"qz_extra": 1, "name": …}``);
- ``bogus_name``: the call's name replaced by text no tool is called (``bad name!``): given back
  as the model wrote it, it is the caller's to refuse (below); cut short or lost, it is the parser's fault;
- ``cut``: the output cut after every token inside the call (a generation that stopped there);
- ``dropped_marker``: one marker-like token from the first call on (an argument's closing tag, a
  call's opener, a separator) left out, as a model drops one now and then; a marker that the calls'
  values or the text themselves hold, or that holds a call's name, is left alone (leaving it out
  changes what was written).

For each sample whose message has content, and for each plain (no-call) sample:

- ``marker_in_prose``: a sentence naming the family's call opener and closer literally ("Tool calls
  are written between <tool_call> and </tool_call> tags.") put at the end of the content's text in
  the output, or, in a plain sample (no call, and no call marker in its content: an unread call is
  not an answer), written as its whole answer. The markers are read off the
  family's own call samples (``call_markers``), no list per family: the opener is a marker-like
  token (``<…>``, ``<|…|>``, ``<｜…｜>``, ``[WORD]``) between the text before the first call and the
  end of its name — the one nearest the name (its own tag, ``<function=NAME>``, where the name is in
  one) and the first of the run (a section opener, ``<|tool_calls_section_begin|>``) — or, where
  there is none, the bare word before the name (``functools``, ``>>>``); the closer is the opener's
  counterpart written later in the output (``</tag>``, ``…begin…``/``…end…``, ``<|x>``/``<x|>``), or
  none (``[TOOL_CALLS]``: "… written after a [TOOL_CALLS] marker."); the end-of-turn token is no
  call marker and is never named.

and for ``marker_in_prose`` the parse must fail, or give every baseline call back unchanged, invent
no call, and keep the whole baseline content and the sentence visible (content or reasoning): a
lost sentence is silently wrong too.

and the result must account for every call of the sample's own message (the baseline):

- a call comes back as it was (name and arguments, value for value and type for type); or
- its text stays visible in the message (content or reasoning) where the parser did not read it
  as a call; or
- the parse fails (a schema names the node; a template cannot fail on a value, so for a template
  only the first two count).

and every call the parse gives has a tool-like name and is one of the baseline's calls (a cut
call is never given back as if whole, and the arguments never change type).

A name exactly as the model wrote it counts as right even when it is no tool's name: neither format
can refuse a name held in a JSON body. In a schema a guard regex on the ``name`` node gives
``"name": None`` in transformers 5.14.1 (a nameless call, the worse fault), and a template can only
look ahead for ``"name"`` before the body, which turns every valid call written with its keys in
another order into text. Whether the name is one of the request's tools is known where the tools
are: ``workbench scan --tools-column`` says so for each row. A name the parser made up (cut, taken
from a counter or an id, or empty) is the parser's fault and fails here.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from families import has_schema
from oracle import RAISED, run_ours, same
from workbench.store.samples import expected_of, is_sample_file, load
from workbench.formats import FORMATS

ROOT = Path(__file__).resolve().parent.parent
TOOL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-:/]*")
SAMPLES = sorted(p for p in (ROOT / "sample_outputs").glob("*/*.txt") if is_sample_file(p))
BOGUS = "bad name!"  # what no tool is called
TOKEN_END = re.compile(r"[>}\]\",\n|]")


def _calls(message) -> list[dict]:
    """Each tool call's ``function`` (an empty dict where a call has none: a nameless call)."""
    calls = message.get("tool_calls") if isinstance(message, dict) else None
    functions = [c.get("function") if isinstance(c, dict) else None for c in calls or []]
    return [f if isinstance(f, dict) else {} for f in functions]


def _visible(message) -> str:
    if not isinstance(message, dict):
        return ""
    return "\n".join(str(message.get(k) or "") for k in ("content", "thinking", "reasoning_content", "reasoning"))


def _json_objects(text: str):
    """Each JSON object that starts at a "{" of ``text``: (value, start, end)."""
    decoder = json.JSONDecoder()
    for m in re.finditer(r"\{", text):
        try:
            value, end = decoder.raw_decode(text, m.start())
        except ValueError:
            continue
        yield value, m.start(), end


def _json_at(text: str, wanted) -> tuple[int, int] | None:
    """The span of the first JSON value in ``text`` equal to ``wanted`` (key order and types too)."""
    return next(((a, b) for value, a, b in _json_objects(text) if same(value, wanted)), None)


def _call_object_at(text: str, name: str) -> tuple[int, int] | None:
    """The span of the first JSON object in ``text`` whose ``name`` is ``name``."""
    return next(((a, b) for value, a, b in _json_objects(text) if isinstance(value, dict) and value.get("name") == name), None)


def variants(text: str, baseline: dict) -> list[tuple[str, str]]:
    """(kind, varied output) for each call of the baseline message, as the module docstring lists."""
    out = []
    for i, call in enumerate(_calls(baseline)):
        name, arguments = call.get("name"), call.get("arguments")
        if isinstance(arguments, dict) and arguments and (span := _json_at(text, arguments)):
            a, b = span
            out.append((f"arguments_as_string#{i}", text[:a] + json.dumps(text[a:b], ensure_ascii=False) + text[b:]))
        if isinstance(name, str) and (span := _call_object_at(text, name)):
            a, _ = span
            out.append((f"extra_key#{i}", text[: a + 1] + '"qz_extra": 1, ' + text[a + 1:]))
        at = _name_at(text, baseline, i)
        if at is not None:
            out.append((f"bogus_name#{i}", text[:at] + BOGUS + text[at + len(name):]))
    first = _first_call_start(text, baseline)
    if first is not None:
        written = json.dumps([_calls(baseline), _visible(baseline)], ensure_ascii=False)
        names = [c["name"] for c in _calls(baseline) if isinstance(c.get("name"), str) and c["name"]]
        for m in MARKER.finditer(text, _gap_start(text, baseline, first)):
            if m.group() not in written and json.dumps(m.group(), ensure_ascii=False)[1:-1] not in written \
                    and not any(name in m.group() for name in names):  # (leaving out a name is not a marker's fault)
                out.append((f"dropped_marker@{m.start()}", text[:m.start()] + text[m.end():]))
        for m in TOKEN_END.finditer(text, first):
            if m.end() < len(text.rstrip()):
                out.append((f"cut@{m.end()}", text[: m.end()]))
    return out

MARKER = re.compile(r"<\|[^<>\n]*?\|>|<｜[^<>\n]*?>|<\|[^<>|\n]*>|</?[A-Za-z_][\w:.\-]*(?:[= ][^<>\n]*)?\|?>|\[/?[A-Z][A-Z_]*\]")
_PAIRS = (("begin", "end"), ("start", "end"), ("open", "close"), ("BEGIN", "END"), ("START", "END"), ("prefix", "suffix"))


def _counterparts(opener: str) -> list[str]:
    """What would close ``opener`` in the same spelling: ``</tag>``, begin/end, start/end, ``<|x>``/``<x|>``."""
    out = []
    if m := re.fullmatch(r"<([A-Za-z_][\w:.\-]*)(?:[= ][^<>\n]*)?>", opener):
        out.append(f"</{m.group(1)}>")
    if m := re.fullmatch(r"<(｜[^<>\n]*?｜)([\w:.\-]+)(?: [^<>\n]*)?>", opener):  # <｜DSML｜invoke name="x">
        out.append(f"</{m.group(1)}{m.group(2)}>")
    if m := re.fullmatch(r"<\|([^<>|\n]*)>", opener):
        out.append(f"<{m.group(1)}|>")
    for a, b in _PAIRS:
        if a in opener:
            i = opener.rindex(a)
            out.append(opener[:i] + b + opener[i + len(a):])
    if m := re.fullmatch(r"\[([A-Z][A-Z_]*)\]", opener):
        out.append(f"[/{m.group(1)}]")
    return out


def _closes(token: str) -> bool:
    """A closer-like token (``</…>``, ``[/…]``, ``<…|>``, or one naming an end), which opens no call."""
    return bool(re.match(r"</|\[/|<[^|｜]", token) and token.endswith("|>")
                or re.match(r"</|\[/", token) or re.search(r"end|END|suffix|close|eom", token))


def _gap_start(text: str, baseline: dict, at: int) -> int:
    """Where the text the message shows ends before ``at`` (0 when none of it is written before)."""
    ends = [0]
    for key in ("content", "thinking", "reasoning_content", "reasoning"):
        value = baseline.get(key)
        if isinstance(value, str) and value.strip():
            i = text.rfind(value.strip(), 0, at)
            if i >= 0:
                ends.append(i + len(value.strip()))
    return max(ends)


def call_markers(text: str, baseline: dict) -> list[tuple[str, str]]:
    """(opener, closer) of the first call of ``baseline`` as written in ``text`` (module docstring);
    closer is "" where none is found. Empty where the call has no marker (bare JSON, a bare list)."""
    at = _name_at(text, baseline, 0)
    if at is None:
        return []
    name = _calls(baseline)[0]["name"]
    g = _gap_start(text, baseline, at)
    end_of_name = at + len(name)
    written = [m for m in MARKER.finditer(text, g) if m.start() < end_of_name]
    tokens = [m for m in written if not _closes(m.group())]  # what ends the reasoning or the answer
    if written and not tokens:
        return []
    if tokens:
        openers = [m.group() for m in (tokens[0], tokens[-1])]
        after = tokens[-1].end()
    else:
        word = re.sub(r'[\s\[{"]*(?:"?name"?\s*:\s*"?)?$', "", text[g:at]).strip()
        if not word or len(word) > 24:
            return []
        openers, after = [word], at
    later = max(after, end_of_name)
    out = []
    for opener in dict.fromkeys(openers):
        closer = next((c for c in _counterparts(opener) if c in text[later:]), "")
        out.append((opener, closer))
    return out


def prose(opener: str, closer: str) -> str:
    """The sentence of ``marker_in_prose``."""
    if closer:
        return f"Tool calls are written between {opener} and {closer} tags."
    return f"Tool calls are written after a {opener} marker."


def prose_variants(text: str, baseline: dict, markers: list[tuple[str, str]]) -> list[tuple[str, str, str]]:
    """(kind, varied output, sentence) of ``marker_in_prose``: the sentence after the content's text
    (with calls) or in place of it (a plain answer)."""
    content = baseline.get("content") if isinstance(baseline, dict) else None
    if not (isinstance(content, str) and content.strip()):
        return []
    content = content.strip()
    at = _name_at(text, baseline, 0) if _calls(baseline) else None
    i = text.rfind(content, 0, at) if at is not None else -1
    if i < 0:
        i = text.find(content)
    if i < 0:
        return []
    out = []
    for k, (opener, closer) in enumerate(markers):
        said = prose(opener, closer)
        if _calls(baseline):
            varied = text[: i + len(content)] + " " + said + text[i + len(content):]
        else:
            varied = text[:i] + said + text[i + len(content):]
        out.append((f"marker_in_prose#{k}", varied, said))
    return out


def prose_problems(said: str, baseline: dict, got, raised: bool) -> list[str]:
    """What is silently wrong in ``got`` (the parse of a ``marker_in_prose`` output)."""
    if raised:
        return []
    out = []
    given, whole = _calls(got), _calls(baseline)
    for call in given:
        if not any(same(call.get("name"), w.get("name")) and same(call.get("arguments"), w.get("arguments")) for w in whole):
            out.append(f"an invented call: {json.dumps(call, ensure_ascii=False)[:160]}")
    for call in whole:
        if not any(same(call.get("name"), g.get("name")) and same(call.get("arguments"), g.get("arguments")) for g in given):
            out.append(f"the call {call.get('name')!r} is gone")
    visible = _visible(got)
    if said not in visible:
        out.append(f"the sentence is not kept whole: {json.dumps(_visible(got), ensure_ascii=False)[:200]}")
    content = (baseline.get("content") or "").strip()
    if content and content not in visible and _calls(baseline):
        out.append("the baseline content is lost")
    return out



def _name_at(text: str, baseline: dict, i: int) -> int | None:
    """Where call ``i``'s name is written: its occurrences as a word, less those the message's text
    holds (reasoning and content come before the calls), then one per earlier call of that name.
    A channel recipient (``to=NAME``, muse_glimmer's header before its ``<atem:invoke name="NAME">``)
    addresses the message, it is not where a call is named: counted, it took the place of the first
    call's name, so ``bogus_name`` renamed the recipient and left the call as it was, and a cut
    before a later call was taken for one after its name was written."""
    calls = _calls(baseline)
    name = calls[i].get("name")
    if not (isinstance(name, str) and name):
        return None
    word = r"(?<!\w)(?<!to=)" + re.escape(name) + r"(?![\w])"
    found = [m.start() for m in re.finditer(word, text)]
    skip = len(re.findall(word, _visible(baseline)))
    k = skip + sum(1 for c in calls[:i] if c.get("name") == name)
    return found[k] if k < len(found) else None


def _first_call_start(text: str, baseline: dict) -> int | None:
    names = [c.get("name") for c in _calls(baseline) if isinstance(c.get("name"), str) and c.get("name")]
    found = [text.find(n) for n in names if n in text]
    return min(found) if found else None


def problems_of(kind: str, varied: str, baseline: dict, got, raised: bool) -> list[str]:
    """What is silently wrong in ``got`` (the parse of ``varied``), by the rules of the docstring."""
    if raised:
        return []
    said = []
    given = _calls(got)
    whole = _calls(baseline)
    if kind.startswith("bogus_name"):  # the call the model misnamed, given back as written, is right
        i = int(kind.split("#")[1])
        whole = [{**c, "name": BOGUS} if j == i else c for j, c in enumerate(whole)]
    for call in given:
        name = call.get("name") if isinstance(call, dict) else None
        if name == BOGUS and kind.startswith("bogus_name"):
            pass
        elif not (isinstance(name, str) and TOOL_NAME.fullmatch(name)):
            said.append(f"a call named {name!r}")
        elif not any(same(call.get("name"), w.get("name")) and same(call.get("arguments"), w.get("arguments")) for w in whole):
            said.append(f"a call that is not one of the sample's: {json.dumps(call, ensure_ascii=False)[:160]}")
    visible = _visible(got)
    for i, call in enumerate(whole):
        back = any(same(call.get("name"), g.get("name")) and same(call.get("arguments"), g.get("arguments")) for g in given)
        shown = kind.startswith("bogus_name") and BOGUS in visible or (
            isinstance(call.get("name"), str) and call["name"] in visible)
        cut_away = kind.startswith("cut@") and _name_at(varied, baseline, i) is None  # not written yet
        if not (back or shown or cut_away):
            said.append(f"the call {call.get('name')!r} is gone")
    return said


# What is still open, per family and format: the variant kinds that are silently wrong today
# (tests/never_silently_wrong_open.json). A kind listed here must still go wrong, so a fix shows up
# as a failure until its entry is removed; a kind not listed must not go wrong at all. "decided"
# holds the kinds where the format's own reading differs from the rule, each with its reason (which
# the family's row in schemas/README.md gives too); they are held to the same "still goes wrong".
OPEN_FILE = Path(__file__).parent / "never_silently_wrong_open.json"
_LISTS = json.loads(OPEN_FILE.read_text(encoding="utf-8"))
OPEN: dict[str, list[str]] = _LISTS["open"]
DECIDED: dict[str, dict[str, str]] = _LISTS.get("decided", {})


def _kind(variant: str) -> str:
    return re.split(r"[#@]", variant)[0]


def _parse(fmt, parser: dict, text: str, prompt: str):
    try:
        return fmt.parse(parser, text, prompt), False
    except Exception as exc:  # noqa: BLE001 - the parser's own failure on this output; anything else is a bug
        if fmt.failure(exc) is None:
            raise
        return None, True


CASES = [(p, fmt) for p in SAMPLES for fmt in FORMATS if (ROOT / "schemas" / f"{p.parent.name}{fmt.suffix}").is_file()]


def family_markers(family: str, fmt: str) -> list[tuple[str, str]]:
    """The markers of the family's call samples (each pair once), for its plain samples."""
    parser = json.loads((ROOT / "schemas" / f"{family}{fmt.suffix}").read_text(encoding="utf-8"))
    out: dict[tuple[str, str], None] = {}
    for sample in SAMPLES:
        if sample.parent.name == family:
            loaded = load(sample)
            baseline, failed = _parse(fmt, parser, loaded.text, loaded.prompt()[0])
            if not failed and _calls(baseline):
                out.update(dict.fromkeys(call_markers(loaded.text, baseline)))
    return list(out)


def silently_wrong(sample: Path, fmt: str) -> dict[str, list[str]]:
    """Each variant kind that goes wrong on ``sample`` with its family's parser, with what went wrong."""
    parser = json.loads((ROOT / "schemas" / f"{sample.parent.name}{fmt.suffix}").read_text(encoding="utf-8"))
    loaded = load(sample)
    prompt = loaded.prompt()[0]
    baseline, failed = _parse(fmt, parser, loaded.text, prompt)
    found: dict[str, list[str]] = {}
    if failed:
        return found
    if _calls(baseline):
        markers = call_markers(loaded.text, baseline)
    else:  # a plain answer: one whose content holds no call markup (an unread call is no answer to replace)
        content = str(baseline.get("content") or "")
        markers = family_markers(sample.parent.name, fmt)
        if any(m and m in content for pair in markers for m in pair):
            markers = []
    for variant, varied, said in prose_variants(loaded.text, baseline, markers):
        got, raised = _parse(fmt, parser, varied, prompt)
        for problem in prose_problems(said, baseline, got, raised):
            found.setdefault(_kind(variant), []).append(f"{variant} {said!r}: {problem}")
    if not _calls(baseline):
        return found
    for variant, varied in variants(loaded.text, baseline):
        got, raised = _parse(fmt, parser, varied, prompt)
        for problem in problems_of(variant, varied, baseline, got, raised):
            found.setdefault(_kind(variant), []).append(f"{variant}: {problem}")
    return found


@pytest.mark.parametrize("sample, fmt", CASES, ids=lambda x: f"{x.parent.name}/{x.stem}" if isinstance(x, Path) else str(x))
def test_near_miss_outputs_are_right_or_fail(sample: Path, fmt: str):
    found = silently_wrong(sample, fmt)
    key = f"{sample.parent.name}/{sample.stem} {fmt}"
    open_kinds = set(OPEN.get(key, [])) | set(DECIDED.get(key, {}))
    new = [line for kind, lines in found.items() if kind not in open_kinds for line in lines]
    assert not new, "\n".join(new[:12]) + (f"\n… {len(new) - 12} more" if len(new) > 12 else "")
    fixed = sorted(open_kinds - set(found))
    assert not fixed, f"no longer silently wrong: {fixed}; remove them from {OPEN_FILE.name}"


def test_the_variants_reach_the_calls():
    """The generator is not idle: each kind changes a call of a sample written for it."""
    text = 'Sure.<tool_call>{"name": "get_time", "arguments": {"tz": "CET", "n": 2}}</tool_call>'
    baseline = {"role": "assistant", "content": "Sure.",
                "tool_calls": [{"type": "function", "function": {"name": "get_time", "arguments": {"tz": "CET", "n": 2}}}]}
    made = dict(variants(text, baseline))
    assert '"arguments": "{\\"tz\\": \\"CET\\", \\"n\\": 2}"' in made["arguments_as_string#0"]
    assert made["extra_key#0"].startswith('Sure.<tool_call>{"qz_extra": 1, "name"')
    assert '"name": "bad name!"' in made["bogus_name#0"]
    assert any(k.startswith("cut@") for k in made)
    assert made["dropped_marker@5"] == "Sure." + text[len("Sure.<tool_call>"):] and "</tool_call>" not in made[f"dropped_marker@{text.index('</tool_call>')}"]
    # a parse that gives the cut call as if whole, or drops a call, is said; a failure is not
    cut = next(v for k, v in made.items() if k.startswith("cut@") and '"tz"' in v and '"n"' not in v)
    partial = {"tool_calls": [{"type": "function", "function": {"name": "get_time", "arguments": {"tz": "CET"}}}]}
    assert problems_of("cut@1", cut, baseline, partial, False)
    assert problems_of("cut@1", cut, baseline, {"content": "Sure."}, False) == ["the call 'get_time' is gone"]
    assert problems_of("cut@1", cut, baseline, None, True) == []


def test_marker_in_prose_names_the_family_markers_and_says_what_is_lost():
    """The markers come from the sample: the section opener and the one nearest the name, each with
    its counterpart; a bare word where there is no tag; the end token is never named."""
    text = 'Sure.<tool_call>{"name": "get_time", "arguments": {"tz": "CET"}}</tool_call><|im_end|>'
    baseline = {"role": "assistant", "content": "Sure.",
                "tool_calls": [{"type": "function", "function": {"name": "get_time", "arguments": {"tz": "CET"}}}]}
    assert call_markers(text, baseline) == [("<tool_call>", "</tool_call>")]
    kimi = ("Sure.<|tool_calls_section_begin|><|tool_call_begin|>functions.get_time:0<|tool_call_argument_begin|>"
            '{"tz": "CET"}<|tool_call_end|><|tool_calls_section_end|>')
    assert call_markers(kimi, baseline) == [("<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"),
                                            ("<|tool_call_begin|>", "<|tool_call_end|>")]
    bare = 'Sure. functools[{"name": "get_time", "arguments": {"tz": "CET"}}]<|eot_id|>'
    assert call_markers(bare, baseline) == [("functools", "")]
    assert call_markers('<think>x</think>{"name": "get_time", "arguments": {"tz": "CET"}}', {**baseline, "thinking": "x", "content": ""}) == []
    (kind, varied, said), = prose_variants(text, baseline, call_markers(text, baseline))
    assert kind == "marker_in_prose#0"
    assert varied.startswith("Sure. Tool calls are written between <tool_call> and </tool_call> tags.<tool_call>{")
    whole = {**baseline, "content": "Sure. " + said}
    assert prose_problems(said, baseline, whole, False) == []
    assert prose_problems(said, baseline, None, True) == []
    assert prose_problems(said, baseline, {**whole, "content": "Sure. Tool calls are written between"}, False) == [
        "the sentence is not kept whole: \"Sure. Tool calls are written between\\n\\n\\n\""]
    assert prose_problems(said, baseline, {"role": "assistant", "content": "Sure. " + said}, False) == ["the call 'get_time' is gone"]
    invented = {**whole, "tool_calls": whole["tool_calls"] + [{"type": "function", "function": {"name": "and", "arguments": {}}}]}
    assert prose_problems(said, baseline, invented, False) == ['an invented call: {"name": "and", "arguments": {}}']
    # a plain answer: the sentence is the whole answer
    plain = {"role": "assistant", "content": "Hello."}
    (_, varied, said), = prose_variants("Hello.<|im_end|>", plain, [("<tool_call>", "</tool_call>")])
    assert varied == said + "<|im_end|>"


@pytest.mark.parametrize("family, text, content, names", [
    # the first <tool_calls> was taken for the block: no call read there, the real calls lost
    ("minimax_m1", 'I check. Calls go between <tool_calls> and </tool_calls> tags.\n<tool_calls>\n'
                   '{"name": "get_time", "arguments": {"tz": "CET"}}\n</tool_calls>',
     "I check. Calls go between <tool_calls> and </tool_calls> tags.", ["get_time"]),
    ("deepseek_v3_2", "Calls go between <｜DSML｜function_calls> and </｜DSML｜function_calls> tags.\n\n"
                      '<｜DSML｜function_calls>\n<｜DSML｜invoke name="get_time">\n</｜DSML｜invoke>\n</｜DSML｜function_calls>',
     "Calls go between <｜DSML｜function_calls> and </｜DSML｜function_calls> tags.", ["get_time"]),
    # the sentence was cut at the marker, the rest of the answer dropped
    ("deepseek_v3", "Calls go between <｜tool▁calls▁begin｜> and <｜tool▁calls▁end｜> tags.<｜end▁of▁sentence｜>",
     "Calls go between <｜tool▁calls▁begin｜> and <｜tool▁calls▁end｜> tags.", []),
    ("gpt_oss", "<|channel|>final<|message|>A new message opens with <|start|> and a header.<|return|>",
     "A new message opens with <|start|> and a header.", []),
    ("functionary_v32", "all\nA call is written after a >>> marker.<|eot_id|>", "A call is written after a >>> marker.", []),
], ids=["minimax_m1", "deepseek_v3_2", "deepseek_v3", "gpt_oss", "functionary_v32"])
def test_a_call_marker_named_in_prose_stays_content(family, text, content, names):
    """The schema is right on these answers as transformers itself reads them (each failed on main)."""
    from oracle import run_oracle

    schema = json.loads((ROOT / "schemas" / f"{family}.json").read_text(encoding="utf-8"))
    message = run_oracle(text, schema)
    assert same(run_ours(text, schema), message)
    assert message["content"] == content, message
    assert [c["name"] for c in _calls(message)] == names


def test_kimi_k2_call_needs_its_argument_marker():
    """A call without `<|tool_call_argument_begin|>` fails at `function` (vLLM's regex needs the
    marker): it gave a call with no `arguments` at all, and a sentence naming the call markers gave
    a call named by its words."""
    from oracle import run_oracle

    schema = json.loads((ROOT / "schemas" / "kimi_k2.json").read_text(encoding="utf-8"))
    for text in ("Hi<|tool_calls_section_begin|><|tool_call_begin|>functions.get_time:0<|tool_call_end|>"
                 "<|tool_calls_section_end|>",
                 "Tool calls are written between <|tool_call_begin|> and <|tool_call_end|> tags."):
        assert run_oracle(text, schema) is RAISED
        assert run_ours(text, schema) is RAISED


def test_a_channel_recipient_is_not_the_call_name():
    """A ``to=NAME`` header names who the message is for; the call names itself after it, so
    ``bogus_name`` renames the call, and a cut between the two is before the call's name."""
    text = ' to=user<|message|>Sure.<|eom|><|start|>assistant to=get_time<|message|><atem:invoke name="get_time">\n' \
           '<atem:parameter name="tz">CET</atem:parameter>\n</atem:invoke>'
    baseline = {"role": "assistant", "content": "Sure.",
                "tool_calls": [{"type": "function", "function": {"name": "get_time", "arguments": {"tz": "CET"}}}]}
    made = dict(variants(text, baseline))
    assert "to=get_time<|message|><atem:invoke name=\"bad name!\">" in made["bogus_name#0"]
    assert _name_at(text[: text.index("<atem:invoke")], baseline, 0) is None
    assert problems_of("cut@1", text[: text.index("<atem:invoke")], baseline, {"content": "Sure."}, False) == []


if __name__ == "__main__":  # python tests/test_never_silently_wrong.py: rewrite the open list from today's parsers
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    today = {}
    for p, fmt in CASES:
        key = f"{p.parent.name}/{p.stem} {fmt}"
        if found := sorted(set(silently_wrong(p, fmt)) - set(DECIDED.get(key, {}))):
            today[key] = found
    OPEN_FILE.write_text(json.dumps({"about": _LISTS["about"], "open": today, "decided": DECIDED},
                                    indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{sum(map(len, today.values()))} open kinds over {len(today)} sample/format pairs, "
          f"{sum(map(len, DECIDED.values()))} decided")
