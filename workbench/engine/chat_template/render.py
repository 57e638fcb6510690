"""Chat templates rendered as transformers 5.23.0 renders them, byte for byte.

What ``tokenizer.apply_chat_template(messages, tokenize=False, ...)`` does, read from
``transformers/utils/chat_template_utils.py`` and ``tokenization_utils_base.py``:

- jinja2's ``ImmutableSandboxedEnvironment`` with ``trim_blocks``, ``lstrip_blocks`` and the
  ``loopcontrols`` extension, plus ``{% generation %}`` (which only marks the assistant's text);
- a ``tojson`` that is ``json.dumps`` (no HTML escaping, ``ensure_ascii=False``), and the globals
  ``raise_exception``, ``strftime_now``, a ``dict`` and a ``namespace`` that refuse underscore names;
- keys whose value is ``None`` are dropped from each message, and a message's reasoning given under
  any of ``reasoning_content``, ``thinking``, ``reasoning`` is passed under ``thinking`` and
  ``reasoning_content`` too;
- the variables: ``messages``, ``tools``, ``documents``, ``add_generation_prompt``, the tokenizer's
  named special tokens (``bos_token``, ``eos_token``, …), then any extra keyword (``enable_thinking``),
  which wins over a special token of the same name.

The template is the only code that runs, and it runs in the sandbox. Every failure is a
``ChatTemplateError`` naming the template line where jinja2 knows it. The sandbox bounds what a
template may touch, not what it may cost: ``budget.py`` renders under a time, output and memory
budget in a child process (jinja2 folds constant expressions such as ``'x' * 10**10`` when it
compiles, so compiling an untrusted template is part of what runs there).
"""

from __future__ import annotations

import json
from datetime import datetime
from functools import lru_cache
from typing import Any

import jinja2
import jinja2.ext
import jinja2.nodes
import jinja2.utils
from jinja2.sandbox import ImmutableSandboxedEnvironment

REASONING_FIELDS = ("reasoning_content", "thinking", "reasoning")
_TEMPLATE_FILE = "<template>"  # the file name jinja2 gives a template compiled from a string


class ChatTemplateError(Exception):
    """A chat template that does not compile or raised while rendering; ``line`` is the template's."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" if self.line else self.message


class _Generation(jinja2.ext.Extension):
    """``{% generation %}…{% endgeneration %}``: transformers records where the assistant's text is;
    the rendered text is the body's."""

    tags = {"generation"}

    def parse(self, parser: jinja2.parser.Parser) -> jinja2.nodes.CallBlock:
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        return jinja2.nodes.CallBlock(self.call_method("_body"), [], [], body).set_lineno(lineno)

    @staticmethod
    def _body(caller: Any) -> str:
        return caller()


class _Dict:
    """The template's ``dict``: a call and ``fromkeys``, nothing a template could climb out through."""

    def __call__(self, *args: Any, **kwargs: Any) -> dict:
        return dict(*args, **kwargs)

    def fromkeys(self, *args: Any, **kwargs: Any) -> dict:
        return dict.fromkeys(*args, **kwargs)


class _Namespace(jinja2.utils.Namespace):
    """jinja2's ``namespace``, refusing underscore-prefixed attributes as transformers does."""

    def __init__(*args: Any, **kwargs: Any) -> None:  # jinja2's signature trick: ``namespace(self=…)`` works
        self, args = args[0], args[1:]
        attrs = dict(*args, **kwargs)
        for name in attrs:
            _Namespace._check(name)
        jinja2.utils.Namespace.__init__(self, attrs)

    def __setitem__(self, name: str, value: Any) -> None:
        _Namespace._check(name)
        jinja2.utils.Namespace.__setitem__(self, name, value)

    @staticmethod
    def _check(name: Any) -> None:
        if isinstance(name, str) and name.startswith("_"):
            raise jinja2.exceptions.SecurityError(
                f"Chat templates cannot store underscore-prefixed attributes on a namespace, but got {name!r}. "
                "Please rename the attribute."
            )


def _raise_exception(message: str) -> None:
    raise jinja2.exceptions.TemplateError(message)


def _tojson(x: Any, ensure_ascii: bool = False, indent: Any = None, separators: Any = None, sort_keys: bool = False) -> str:
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def _strftime_now(format: str) -> str:
    return datetime.now().strftime(format)


@lru_cache(maxsize=32)
def compile_chat_template(source: str) -> jinja2.Template:
    """The compiled template, or ``ChatTemplateError`` at the line jinja2 could not read."""
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[_Generation, jinja2.ext.loopcontrols])
    env.filters["tojson"] = _tojson
    env.globals["raise_exception"] = _raise_exception
    env.globals["strftime_now"] = _strftime_now
    env.globals["dict"] = _Dict()
    env.globals["namespace"] = _Namespace
    try:
        return env.from_string(source)
    except jinja2.exceptions.TemplateSyntaxError as exc:
        raise ChatTemplateError(f"template syntax error: {exc.message}", exc.lineno) from None


def prepare_messages(messages: list[dict]) -> list[dict]:
    """The messages as the template sees them: ``None`` values dropped, reasoning aliased."""
    prepared = []
    for message in messages:
        if not isinstance(message, dict):
            raise ChatTemplateError(f"a message must be an object, got {message!r}")
        message = {key: value for key, value in message.items() if value is not None}
        reasoning = next((message[key] for key in REASONING_FIELDS if message.get(key) is not None), None)
        if reasoning is not None:
            message = {"thinking": reasoning, **message, "reasoning_content": reasoning}
        prepared.append(message)
    return prepared


# No template variable can have these names: the render passes the first group itself (transformers
# raises ``TypeError: … got multiple values`` for a keyword of that name), and ``apply_chat_template``
# keeps the second as its own arguments, never passing them to the template.
SET_BY_THE_RENDER = ("messages", "tools", "documents", "add_generation_prompt")
APPLY_CHAT_TEMPLATE_ARGUMENTS = (
    "conversation", "conversations", "chat_template", "continue_final_message", "tokenize", "sanitize_control_tokens",
    "padding", "truncation", "max_length", "return_tensors", "return_dict", "return_assistant_tokens_mask",
    "tokenizer_kwargs", "self",
)
RESERVED_VARIABLES = SET_BY_THE_RENDER + APPLY_CHAT_TEMPLATE_ARGUMENTS


def reserved_variable(name: str) -> str:
    """Why ``name`` cannot be a template variable, in one sentence."""
    return (f"{name!r} cannot be a template variable: the render sets {', '.join(SET_BY_THE_RENDER)} itself, and "
            f"{', '.join(APPLY_CHAT_TEMPLATE_ARGUMENTS)} are apply_chat_template's own arguments")


class OutputCapExceeded(Exception):
    """A render wrote more than ``max_chars`` characters (raised as soon as it passes the cap)."""

    def __init__(self, max_chars: int) -> None:
        super().__init__(f"the render passed {max_chars:,} characters")
        self.max_chars = max_chars


def render_chat(
    source: str,
    messages: list[dict],
    *,
    tools: list[dict] | None = None,
    documents: list[dict] | None = None,
    add_generation_prompt: bool = False,
    special_tokens: dict[str, str] | None = None,
    **kwargs: Any,
) -> str:
    """``apply_chat_template(messages, tokenize=False, ...)`` for a tokenizer whose named special
    tokens are ``special_tokens``. Values must be plain JSON data (as read from a file)."""
    if not messages:
        raise ChatTemplateError("Cannot apply chat template to an empty conversation. Provide at least one message.")
    try:
        return render_compiled(compile_chat_template(source), messages, tools=tools, documents=documents,
                               add_generation_prompt=add_generation_prompt, variables={**(special_tokens or {}), **kwargs})
    except MemoryError as exc:  # in process there is no budget: the template's error like any other
        raise ChatTemplateError(_describe(exc), _template_line(exc)) from None


def render_compiled(
    template: jinja2.Template,
    messages: list[dict],
    *,
    tools: list[dict] | None = None,
    documents: list[dict] | None = None,
    add_generation_prompt: bool = False,
    variables: dict[str, Any] | None = None,
    max_chars: int | None = None,
) -> str:
    """``render_chat`` for a compiled template, the special tokens and extra keywords together in
    ``variables`` (a reserved name is a ``ChatTemplateError``). The text is joined from
    ``template.generate()``, piece for piece what ``template.render()`` joins; past ``max_chars``
    characters the render stops with ``OutputCapExceeded``. A ``MemoryError`` is let through, so a
    caller under a memory limit can tell it from the template's own errors."""
    if not messages:
        raise ChatTemplateError("Cannot apply chat template to an empty conversation. Provide at least one message.")
    variables = variables or {}
    reserved = [name for name in variables if name in RESERVED_VARIABLES]
    if reserved:
        raise ChatTemplateError(reserved_variable(reserved[0]))
    # transformers' order: render(messages=…, tools=…, documents=…, add_generation_prompt=…, **kwargs)
    context = {"messages": prepare_messages(messages), "tools": tools, "documents": documents,
               "add_generation_prompt": add_generation_prompt, **variables}
    pieces: list[str] = []
    count = 0
    try:
        for piece in template.generate(context):
            count += len(piece)
            if max_chars is not None and count > max_chars:
                raise OutputCapExceeded(max_chars)
            pieces.append(piece)
    except (ChatTemplateError, OutputCapExceeded, MemoryError):
        raise
    except Exception as exc:  # noqa: BLE001 - whatever the template raised, named at its line
        raise ChatTemplateError(_describe(exc), _template_line(exc)) from None
    return "".join(pieces)


def _describe(exc: Exception) -> str:
    if isinstance(exc, jinja2.exceptions.TemplateError) and type(exc) is jinja2.exceptions.TemplateError:
        return f"the template raised: {exc}"  # raise_exception("...")
    return f"{type(exc).__name__}: {exc}"


def _template_line(exc: BaseException) -> int | None:
    """The template line of the innermost frame jinja2 mapped back to the template."""
    line = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == _TEMPLATE_FILE:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line

