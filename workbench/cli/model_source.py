"""Where a command that renders probes gets the model's chat format: ``--chat-template SRC`` (a
tokenizer folder or a ``.jinja`` file) or ``--renderer FILE.py:FUNC`` with ``--trust-renderer``
(a chat format written as a Python function). Shared by ``roundtrip``, ``draft`` and ``new``."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..store.chat_template_files import ChatTemplate, load_chat_template, load_renderer
from ..store.files import InputError


def chat_template_option():
    return typer.Option(None, "--chat-template", help="A tokenizer folder or a .jinja file.")


def renderer_option():
    return typer.Option(None, "--renderer", metavar="FILE.py:FUNC",
                        help="The chat format as a Python function FUNC(messages, tools=, add_generation_prompt=, ...) "
                             "returning the text, for models that ship an encoder instead of a chat template; "
                             "runs only with --trust-renderer.")


def trust_renderer_option():
    return typer.Option(False, "--trust-renderer",
                        help="Run the --renderer file (code from a model repo) in a child process under the render budget.")


def model_from(chat_template: Optional[Path], renderer: Optional[str], trust_renderer: bool) -> ChatTemplate:
    """The model whose chat format the command renders; ``InputError`` unless exactly one source is given."""
    if (chat_template is None) == (renderer is None):
        raise InputError("give the model's chat format: --chat-template SRC or --renderer FILE.py:FUNC --trust-renderer")
    if renderer is not None:
        return load_renderer(renderer, trust_renderer)
    if trust_renderer:
        raise InputError("--trust-renderer goes with --renderer FILE.py:FUNC")
    return load_chat_template(chat_template)
