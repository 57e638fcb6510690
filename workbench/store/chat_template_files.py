"""Where a model's chat template is read from, as transformers 5.23.0 finds it in a tokenizer folder.

``load_chat_template(SRC)`` takes a ``.jinja`` file or a folder:

- ``chat_template.jinja`` (the default) and ``additional_chat_templates/<name>.jinja`` (named ones);
  these files win over the ``chat_template`` key of ``tokenizer_config.json``, as in transformers;
- else ``tokenizer_config.json``'s ``chat_template``: a string, or the list of ``{"name",
  "template"}`` that holds several named templates;
- else a processor's ``chat_template.json`` (``{"chat_template": …}``).

The tokenizer's named special tokens (``bos_token``, ``eos_token``, …) come from
``tokenizer_config.json`` (a token may be written as a string or as an ``AddedToken`` object) and a
legacy ``special_tokens_map.json``. ``ChatTemplate.pick`` chooses among named templates as
``tokenizer.get_chat_template`` does. Problems are ``InputError``s naming the file.

``load_renderer("FILE.py:FUNC", trusted)`` stands for a model whose chat format is a Python function.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .files import InputError, load_json, read_text

SPECIAL_TOKENS = ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token")
TEMPLATE_FILE = "chat_template.jinja"
TEMPLATE_DIR = "additional_chat_templates"
CONFIG_FILE = "tokenizer_config.json"
PROCESSOR_FILE = "chat_template.json"
SPECIAL_TOKENS_FILE = "special_tokens_map.json"


@dataclass
class ChatTemplate:
    """A model's chat template(s) and the special tokens a render sees."""

    templates: dict[str, str]  # "default" for a single template, else each template by name
    origin: dict[str, Path]  # the file each template was read from
    special_tokens: dict[str, str] = field(default_factory=dict)
    files: list[Path] = field(default_factory=list)  # every file read: a command must not write over one
    # a Python renderer (``load_renderer``): the function of the file ``origin["default"]`` that renders
    function: str | None = None

    def pick(self, name: str | None = None, tools: bool = False) -> tuple[str, str]:
        """(name, source) of the template a render uses: ``name`` if given, else ``tool_use`` when
        there are tools and the model has one, else ``default``."""
        if name is not None:
            if name not in self.templates:
                raise InputError(f"no chat template named {name!r}; there are: {', '.join(sorted(self.templates))}")
            return name, self.templates[name]
        if tools and "tool_use" in self.templates:
            return "tool_use", self.templates["tool_use"]
        if "default" in self.templates:
            return "default", self.templates["default"]
        raise InputError(
            "the model has several chat templates and none is the default; pick one by name: " + ", ".join(sorted(self.templates))
        )


def load_chat_template(src: str | Path) -> ChatTemplate:
    model = _load(Path(src))
    folder = Path(src) if Path(src).is_dir() else Path(src).parent
    read = [*model.origin.values(), *(folder / name for name in (CONFIG_FILE, SPECIAL_TOKENS_FILE) if (folder / name).is_file())]
    model.files = list(dict.fromkeys(read))
    return model


def load_renderer(spec: str, trusted: bool) -> ChatTemplate:
    """A Python renderer, ``FILE.py:FUNC`` (``engine.chat_template.python_renderer``), as a model
    whose one chat template is that function. The file is code from a model repo: without
    ``trusted`` (``--trust-renderer``) it is an ``InputError`` and nothing of it runs."""
    file, sep, function = spec.rpartition(":")
    if not sep or not file or not function.isidentifier():
        raise InputError(f"--renderer {spec!r}: expected FILE.py:FUNCTION (e.g. encoding.py:encode_messages)")
    path = Path(file)
    if not path.is_file():
        raise InputError(f"{path}: no such renderer file")
    if not trusted:
        raise InputError(f"{path} is Python code from the model's repo: it runs only with --trust-renderer "
                         "(then in a child process, under the render budget)")
    return ChatTemplate({"default": read_text(path, "renderer")}, {"default": path}, files=[path], function=function)


def has_chat_template(folder: Path) -> bool:
    """Whether a tokenizer folder keeps a chat template where ``load_chat_template`` looks (one it
    cannot read counts: loading it then says why). An unreadable config counts as none."""
    if not folder.is_dir():
        return False
    if (folder / TEMPLATE_FILE).exists() or (folder / PROCESSOR_FILE).exists() or any((folder / TEMPLATE_DIR).glob("*.jinja")):
        return True
    try:
        return (folder / CONFIG_FILE).is_file() and "chat_template" in _read_json(folder / CONFIG_FILE)
    except InputError:
        return False


def _load(path: Path) -> ChatTemplate:
    if not path.exists():
        raise InputError(f"{path}: no such chat template file or tokenizer folder")
    if path.is_file():
        if path.name == CONFIG_FILE:
            return _load(path.parent)
        if path.suffix == ".json":
            return _from_json_file(path, path.parent)
        return ChatTemplate({"default": read_text(path, "chat template")}, {"default": path}, _special_tokens(path.parent))
    return _from_folder(path)


def _from_folder(folder: Path) -> ChatTemplate:
    templates: dict[str, str] = {}
    origin: dict[str, Path] = {}
    default = folder / TEMPLATE_FILE
    if default.is_file():
        templates["default"], origin["default"] = read_text(default, "chat template"), default
    extra = folder / TEMPLATE_DIR
    if extra.is_dir():
        for file in sorted(extra.glob("*.jinja")):
            templates[file.stem], origin[file.stem] = read_text(file, "chat template"), file
    if not templates:
        config = folder / CONFIG_FILE
        value = _read_json(config).get("chat_template") if config.is_file() else None
        if value is not None:
            templates, origin = _templates_of(value, config)
    if not templates and (folder / PROCESSOR_FILE).is_file():
        return _from_json_file(folder / PROCESSOR_FILE, folder)
    if not templates:
        raise InputError(
            f"{folder}: no chat template here (looked for {TEMPLATE_FILE}, {TEMPLATE_DIR}/*.jinja, "
            f"the chat_template key of {CONFIG_FILE}, and {PROCESSOR_FILE})"
        )
    return ChatTemplate(templates, origin, _special_tokens(folder))


def _from_json_file(path: Path, folder: Path) -> ChatTemplate:
    value = _read_json(path).get("chat_template")
    if value is None:
        raise InputError(f"{path}: has no chat_template key")
    templates, origin = _templates_of(value, path)
    return ChatTemplate(templates, origin, _special_tokens(folder))


def _templates_of(value: Any, path: Path) -> tuple[dict[str, str], dict[str, Path]]:
    if isinstance(value, str):
        return {"default": value}, {"default": path}
    if isinstance(value, list) and all(isinstance(v, dict) and isinstance(v.get("name"), str) and isinstance(v.get("template"), str) for v in value):
        return {v["name"]: v["template"] for v in value}, {v["name"]: path for v in value}
    raise InputError(f"{path}: chat_template must be a string or a list of {{\"name\", \"template\"}} objects")


def _read_json(path: Path) -> dict:
    value = load_json(path, "JSON")
    if not isinstance(value, dict):
        raise InputError(f"{path}: expected a JSON object")
    return value


def _special_tokens(folder: Path) -> dict[str, str]:
    """The named special tokens, as ``tokenizer.special_tokens_map`` gives them to a render."""
    found: dict[str, str] = {}
    for name in (CONFIG_FILE, SPECIAL_TOKENS_FILE):  # a legacy special_tokens_map.json wins, as in transformers
        path = folder / name
        if not path.is_file():
            continue
        config = _read_json(path)
        for key in SPECIAL_TOKENS:
            token = config.get(key)
            if isinstance(token, dict):  # an AddedToken written out
                token = token.get("content")
            if isinstance(token, str):
                found[key] = token
    return found
