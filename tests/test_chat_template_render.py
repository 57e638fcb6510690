"""Chat templates render as transformers 5.23.0's ``apply_chat_template(..., tokenize=False)`` does,
byte for byte (the oracle loads the same tokenizer folder with ``AutoTokenizer``), in this process
and in the child process the commands render in, under the render budget; they are found
in a folder where transformers finds them; failures name the file or the template line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tokenizers import Tokenizer
from tokenizers.models import WordLevel

from workbench.store.chat_template_files import load_chat_template
from workbench.engine.chat_template import ChatTemplateError, SandboxedRenderer, render_chat
from workbench.store.files import InputError

TEMPLATES = sorted((Path(__file__).parent / "chat_templates").glob("*.jinja"))

TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "description": "Weather for a city.",
     "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}, "required": ["city"]}}},
]
CALL = {"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Zürich \"Altstadt\"", "days": 2, "opts": {"units": ["°C"]}}}}
CONVERSATIONS = {
    "plain": [{"role": "user", "content": "Hi there"}, {"role": "assistant", "content": "Hello! ✓"}],
    "system_and_reasoning": [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Is 7 prime?"},
        {"role": "assistant", "reasoning_content": "7 has no divisor but 1 and 7.", "content": "Yes."},
    ],
    "reasoning_as_thinking": [
        {"role": "user", "content": "2+2?"},
        {"role": "assistant", "thinking": "Simple sum.", "content": "4"},
    ],
    "calls_and_tool_turn": [
        {"role": "user", "content": "Weather in Zürich?"},
        {"role": "assistant", "content": None, "tool_calls": [CALL, {"type": "function", "function": {"name": "get_weather", "arguments": {}}}]},
        {"role": "tool", "name": "get_weather", "content": "{\"temp\": 3}"},
        {"role": "assistant", "content": "3 °C."},
    ],
    "ends_with_user": [{"role": "user", "content": "One more question"}],
}


def tokenizer_folder(folder: Path, template: str | None = None, **config) -> Path:
    """A tokenizer folder transformers loads: a word-level tokenizer.json, the config, the template."""
    folder.mkdir(parents=True, exist_ok=True)
    vocab = {"<unk>": 0, "<s>": 1, "</s>": 2}
    Tokenizer(WordLevel(vocab, unk_token="<unk>")).save(str(folder / "tokenizer.json"))
    config = {"tokenizer_class": "PreTrainedTokenizerFast", "bos_token": "<s>",
              "eos_token": {"__type": "AddedToken", "content": "</s>", "special": True}, "unk_token": "<unk>", **config}
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    if template is not None:
        (folder / "chat_template.jinja").write_text(template, encoding="utf-8")
    return folder


def ours(folder: Path, messages, tools=None, add_generation_prompt=False, name=None, **kwargs):
    model = load_chat_template(folder)
    try:
        _, source = model.pick(name, tools=tools is not None)
        return ("value", render_chat(source, messages, tools=tools, add_generation_prompt=add_generation_prompt,
                                     special_tokens=model.special_tokens, **kwargs))
    except (ChatTemplateError, InputError) as exc:
        return ("error", str(exc))


def sandboxed(renderer: SandboxedRenderer, messages, tools=None, add_generation_prompt=False):
    """What the commands render: the same, in a child process under the render budget."""
    try:
        return ("value", renderer.render(messages, tools=tools, add_generation_prompt=add_generation_prompt))
    except ChatTemplateError as exc:
        return ("error", str(exc))


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda p: p.stem)
def test_renders_as_transformers(template: Path, tmp_path, template_oracle):
    folder = tokenizer_folder(tmp_path / "tok", template.read_text(encoding="utf-8"))
    model = load_chat_template(folder)
    renderers = {key: SandboxedRenderer(model.pick()[1], model.special_tokens, kwargs)
                 for key, kwargs in (("plain", {}), ("no_thinking", {"enable_thinking": False}))}
    checked = 0
    try:
        for case, messages in CONVERSATIONS.items():
            for tools in (None, TOOLS):
                for add_generation_prompt in (False, True):
                    for key, kwargs in (("plain", {}), ("no_thinking", {"enable_thinking": False})):
                        theirs = template_oracle.render(folder, messages, tools, add_generation_prompt, **kwargs)
                        got = ours(folder, messages, tools, add_generation_prompt, **kwargs)
                        where = f"{case}, tools={tools is not None}, add_generation_prompt={add_generation_prompt}, {kwargs}"
                        assert got[0] == theirs[0], (where, got, theirs)
                        assert sandboxed(renderers[key], messages, tools, add_generation_prompt) == got, where
                        if got[0] == "value":
                            assert got[1] == theirs[1], where
                            checked += 1
    finally:
        for renderer in renderers.values():
            renderer.close()
    assert checked, "every render failed: the test compares nothing"


def test_the_template_sees_special_tokens_and_reasoning_under_every_name(tmp_path):
    folder = tokenizer_folder(tmp_path / "tok", (Path(__file__).parent / "chat_templates" / "channels.jinja").read_text())
    got = ours(folder, CONVERSATIONS["reasoning_as_thinking"])[1]
    assert got.startswith("<s>") and "<|channel|>analysis<|message|>Simple sum.<|end|>" in got and got.endswith("4</s>")
    qwen = tokenizer_folder(tmp_path / "q", (Path(__file__).parent / "chat_templates" / "thinking_chatml.jinja").read_text())
    assert "<think>\nSimple sum.\n</think>" in ours(qwen, CONVERSATIONS["reasoning_as_thinking"])[1]  # thinking -> reasoning_content


def test_named_templates_in_the_config_and_the_tool_use_pick(tmp_path, template_oracle):
    folder = tokenizer_folder(tmp_path / "tok", chat_template=[
        {"name": "default", "template": "{% for m in messages %}D:{{ m.content }}\n{% endfor %}"},
        {"name": "tool_use", "template": "{{ tools | length }} tools\n{% for m in messages %}T:{{ m.content }}\n{% endfor %}"},
    ])
    messages = CONVERSATIONS["plain"]
    assert ours(folder, messages) == template_oracle.render(folder, messages) == ("value", "D:Hi there\nD:Hello! ✓\n")
    assert ours(folder, messages, TOOLS) == template_oracle.render(folder, messages, TOOLS)
    assert ours(folder, messages, TOOLS)[1].startswith("1 tools")
    assert ours(folder, messages, TOOLS, name="default") == template_oracle.render(folder, messages, TOOLS, name="default")
    assert ours(folder, messages, name="tool_use")[0] == template_oracle.render(folder, messages, name="tool_use")[0] == "error"


def test_template_files_win_over_the_config_key(tmp_path, template_oracle):
    folder = tokenizer_folder(tmp_path / "tok", "FILE{{ messages[0].content }}", chat_template="CONFIG{{ messages[0].content }}")
    (folder / "additional_chat_templates").mkdir()
    (folder / "additional_chat_templates" / "short.jinja").write_text("SHORT", encoding="utf-8")
    messages = CONVERSATIONS["ends_with_user"]
    assert ours(folder, messages) == template_oracle.render(folder, messages) == ("value", "FILEOne more question")
    assert ours(folder, messages, name="short") == template_oracle.render(folder, messages, name="short") == ("value", "SHORT")
    assert load_chat_template(folder).origin["short"] == folder / "additional_chat_templates" / "short.jinja"


def test_a_jinja_file_a_processor_file_and_the_config_file_itself(tmp_path):
    jinja = tmp_path / "t.jinja"
    jinja.write_text("{{ messages[0].content }}!", encoding="utf-8")
    assert render_chat(load_chat_template(jinja).pick()[1], CONVERSATIONS["ends_with_user"]) == "One more question!"
    processor = tmp_path / "proc"
    processor.mkdir()
    (processor / "chat_template.json").write_text(json.dumps({"chat_template": "P{{ messages | length }}"}), encoding="utf-8")
    assert load_chat_template(processor).pick() == ("default", "P{{ messages | length }}")
    folder = tokenizer_folder(tmp_path / "tok", chat_template="C")
    assert load_chat_template(folder / "tokenizer_config.json").pick() == ("default", "C")
    assert load_chat_template(folder).special_tokens == {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"}


def test_errors_name_the_file_or_the_template_line(tmp_path):
    with pytest.raises(InputError, match="no such chat template file or tokenizer folder"):
        load_chat_template(tmp_path / "missing")
    empty = tokenizer_folder(tmp_path / "empty")
    with pytest.raises(InputError, match=r"empty: no chat template here"):
        load_chat_template(empty)
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "tokenizer_config.json").write_text('{"chat_template": "x",\n  oops}', encoding="utf-8")
    with pytest.raises(InputError, match=r"tokenizer_config.json:2:3: invalid JSON"):
        load_chat_template(broken)
    raises = (Path(__file__).parent / "chat_templates" / "raises.jinja").read_text(encoding="utf-8")
    with pytest.raises(ChatTemplateError) as caught:
        render_chat(raises, CONVERSATIONS["system_and_reasoning"])
    assert str(caught.value) == "line 4: the template raised: System role not supported"
    with pytest.raises(ChatTemplateError, match=r"^line 2: template syntax error: "):
        render_chat("ok\n{% if x %}\n", CONVERSATIONS["plain"])
    with pytest.raises(ChatTemplateError, match=r"^line 3: UndefinedError: "):
        render_chat("a\nb\n{{ messages[9].content }}", CONVERSATIONS["plain"])


def test_the_sandbox_holds(tmp_path):
    with pytest.raises(ChatTemplateError, match=r"^line 1: SecurityError: access to attribute '__class__'"):
        render_chat("{{ messages.__class__.__mro__[1].__subclasses__() }}", CONVERSATIONS["plain"])
    with pytest.raises(ChatTemplateError, match="SecurityError"):
        render_chat("{% set ns = namespace(_x=1) %}", CONVERSATIONS["plain"])
    with pytest.raises(ChatTemplateError, match="SecurityError"):
        render_chat("{{ messages.append(1) }}", CONVERSATIONS["plain"])  # immutable: no mutating calls
