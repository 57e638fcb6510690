"""``workbench parse`` on a response_template: the message, the event stream, or the message with
its trace, as transformers 5.23.0 gives them for this output and prompt."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from ..engine.template import ResponseParser, load_failure, parse_response, trace_response
from ..engine.versions import tools_narrowing
from ..files import InputError, dump_json, load_json, read_text
from ..samples import prompt_file
from .output import FAILED, UNUSABLE, emit, say, stop

PROMPT_SUFFIX = ".prompt.txt"


def prompt_for(sample: Path, prefix: Optional[str], prefix_file: Optional[Path]) -> tuple[str, str]:
    """The prefix (the generation prompt) and where it came from: --prefix, --prefix-file, the
    sample's ``<case>.prompt.txt``, its folder's ``default.prompt.txt`` (as ``workbench check``,
    the goldens and the TUI take it: ``samples.prompt_file``), or none ("": no anchor is used)."""
    if prefix is not None and prefix_file is not None:
        raise InputError("give --prefix or --prefix-file, not both")
    if prefix is not None:
        return prefix, "--prefix"
    if prefix_file is not None:
        return read_text(prefix_file, "prompt"), str(prefix_file)
    beside = prompt_file(sample)
    if beside is not None:
        return read_text(beside, "prompt"), str(beside)
    return "", "none"


def tools_from(path: Optional[Path]) -> Any:
    if path is None:
        return None
    tools = load_json(path, "tools")
    if not isinstance(tools, list):
        raise InputError(f"{path}: tool definitions must be a JSON list")
    return tools


def parse_with_template(
    sample: Path, text: str, schema: Path, template: Any, prefix: str, tools: Any, stream: bool, chunk: int, show_trace: bool = False,
    runtime: Any = None,
) -> None:
    failure = load_failure(template, runtime)
    if failure is not None:
        raise stop(f"error: {schema}: {failure}", UNUSABLE)
    if tools is not None:
        say(f"note: {tools_narrowing().why}")
    if show_trace:
        result = trace_response(text, template, prefix=prefix, tools=tools, runtime=runtime)
        emit(dump_json({"message": result.message, "error": result.error_dict(), "trace": result.to_dict()}))
        if not result.ok:
            raise stop(f"error: {sample}: {result.error.type}: {result.error.message}", FAILED)
        return
    if not stream:
        try:
            message = parse_response(text, template, prefix=prefix, tools=tools, runtime=runtime)
        except Exception as exc:  # what transformers raises on this output, named as it names it
            raise stop(f"error: {sample}: {type(exc).__name__}: {exc}", FAILED)
        emit(dump_json(message))
        return
    if chunk < 1:
        raise stop("error: --chunk must be at least 1", UNUSABLE)
    step = "construct"
    try:
        parser = ResponseParser(template, prefix=prefix, tools=tools, runtime=runtime)
        _events("initial", parser.initial_events)
        for at in range(0, len(text), chunk):
            step = f"feed {at}"
            _events("feed", parser.feed(text[at : at + chunk]), text[at : at + chunk])
        step = "finalize"
        message, events = parser.finalize()
    except Exception as exc:
        raise stop(f"error: {sample}: at {step}: {type(exc).__name__}: {exc}", FAILED)
    _events("finalize", events)
    emit(dump_json({"step": "message", "message": message}, indent=None))


def _events(step: str, events: list, chunk: str | None = None) -> None:
    """One JSON line per call: which call, the chunk fed, the events it gave."""
    line: dict = {"step": step}
    if chunk is not None:
        line["chunk"] = chunk
    line["events"] = events
    emit(dump_json(line, indent=None))


def describe_prompt(source: str) -> None:
    if source == "none":
        say("note: no prompt (--prefix, --prefix-file or <case>.prompt.txt): parsing with prefix=\"\"")
