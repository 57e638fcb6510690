"""What ``workbench parse`` reads for a format that parses with a prompt: the prompt (``prefix=``) and
where it came from, and the tool definitions (``tools=``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from ..store.files import InputError, load_json, read_text
from ..store.samples import prompt_file
from .output import say

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


def describe_prompt(source: str) -> None:
    if source == "none":
        say("note: no prompt (--prefix, --prefix-file or <case>.prompt.txt): parsing with prefix=\"\"")
