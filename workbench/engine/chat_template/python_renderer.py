"""A model's chat format written as a Python function instead of a Jinja template (an
``encoding_*.py`` beside the weights), rendered under the same budget as a template.

The file is code from a model repo: the commands run it only when the user says so
(``--trust-renderer``), and then only in the renderer's child process, under the time, output and
memory budget of ``budget.py``. Nothing of it is imported in the workbench's own process.

The function is called as ``FUNC(messages, **keywords)`` and must return the rendered text. The
keywords are the render's (``tools``, ``documents``, ``add_generation_prompt``) and the user's
variables (``--var thinking_mode=...``), each passed only if the function declares a parameter of
that name (or takes ``**kwargs``): encoders differ in what they accept, and one that has no
``add_generation_prompt`` decides the prompt's end itself. A variable it does not declare is an
error rather than silently dropped. The messages are plain JSON data, as a template sees them.
An exception the function raises is the render's error, at the innermost line of the file.
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import sys
import traceback
from pathlib import Path
from typing import Any, Callable

from .budget import MEMORY, OUTPUT, RenderBudget, SandboxedRenderer
from .render import ChatTemplateError, prepare_messages

RENDER_KEYWORDS = ("tools", "documents", "add_generation_prompt")


class PythonRenderer(SandboxedRenderer):
    """``FUNC`` of the Python file ``path`` as a renderer (see the module's docstring)."""

    reads_special_tokens = False

    def __init__(self, path: Path, function: str, variables: dict[str, Any] | None = None,
                 budget: RenderBudget = RenderBudget()) -> None:
        super().__init__("", None, variables, budget)
        self.path, self.function = Path(path).resolve(), function

    def _ask(self, request: tuple) -> Any:
        if not hasattr(os, "fork"):  # the base renders in process there; the file's code must not
            raise ChatTemplateError("a Python renderer runs only in a child process, which this platform cannot fork")
        return super()._ask(request)

    def _answerer(self) -> Callable[[tuple], tuple[str, Any]]:
        loaded: list[Callable] = []  # the function, once the child has imported the file

        def answer(request: tuple) -> tuple[str, Any]:
            what, arguments = request
            try:
                if not loaded:
                    loaded.append(load_function(self.path, self.function, self.variables))
                if what == "compile":
                    return ("value", None)
                return ("value", call(loaded[0], arguments, self.variables, self.budget.max_chars, self.path))
            except ChatTemplateError as exc:
                return ("error", (exc.message, exc.line))
            except _TooLong:
                return (OUTPUT, None)
            except MemoryError as exc:
                return (MEMORY, _line_in(exc, self.path))
            except BaseException as exc:  # noqa: BLE001 - whatever the encoder raised (SystemExit too), named at its line
                return ("error", (f"{type(exc).__name__}: {exc}", _line_in(exc, self.path)))

        return answer


class _TooLong(Exception):
    pass


def load_function(path: Path, function: str, variables: dict[str, Any]) -> Callable:
    """Import ``path`` (its folder first on ``sys.path``, for the sibling modules an encoder
    imports) and return its ``function``, checking that it takes every variable."""
    name = f"workbench_renderer_{abs(hash(str(path)))}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ChatTemplateError(f"{path.name}: not a Python file that can be imported")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling look a class's module up here
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        raise ChatTemplateError(f"SyntaxError: {exc.msg}", exc.lineno) from None
    found = getattr(module, function, None)
    if not callable(found):
        defined = sorted(n for n, v in vars(module).items() if inspect.isfunction(v) and v.__module__ == name and not n.startswith("_"))
        raise ChatTemplateError(f"{path.name} defines no function {function!r}" + (f"; it has: {', '.join(defined)}" if defined else ""))
    accepted = _accepted(found)
    refused = [v for v in variables if accepted is not None and v not in accepted]
    if refused:
        raise ChatTemplateError(f"{path.name}: {function}() has no parameter {refused[0]!r} for --var {refused[0]}")
    return found


def call(function: Callable, arguments: dict, variables: dict[str, Any], max_chars: int, path: Path) -> str:
    """The text ``function`` renders for a render request (``ChatRenderer.render``'s arguments)."""
    arguments = dict(arguments)
    arguments.pop("defaults", None)  # default special tokens are a Jinja template's variables
    messages = prepare_messages(arguments.pop("messages"))
    keywords = {**{k: arguments[k] for k in RENDER_KEYWORDS if k in arguments}, **variables}
    accepted = _accepted(function)
    if accepted is not None:
        keywords = {k: v for k, v in keywords.items() if k in accepted}
    text = function(messages, **keywords)
    if not isinstance(text, str):
        raise ChatTemplateError(f"{path.name}: {function.__name__}() returned {type(text).__name__}, not the rendered text")
    if len(text) > max_chars:
        raise _TooLong()
    return text


def _accepted(function: Callable) -> set[str] | None:
    """The keyword names ``function`` takes, or None when it takes any (``**kwargs``)."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is p.VAR_KEYWORD for p in parameters):
        return None
    return {p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


def _line_in(exc: BaseException, path: Path) -> int | None:
    """The innermost line of ``path`` in the exception's traceback."""
    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if Path(frame.filename).resolve() == path:
            line = frame.lineno
    return line
