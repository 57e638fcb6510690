"""What the workbench needs around a response_template beyond the engine: a starter template for a
new file, and the prompt a sample is parsed with (``prefix=``) as a document the user can edit
and save.

A sample's prompt is ``<case>.prompt.txt``, else its folder's ``default.prompt.txt``, else none
(``Sample.prompt``); saving an edited prompt always writes the sample's own ``<case>.prompt.txt``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .files import InputError, atomic_write
from .samples import DEFAULT_PROMPT, PROMPT_SUFFIX, Sample

STARTER_TEMPLATE = """\
{
  "version": 1,
  "defaults": {"role": "assistant"},
  "start_anchor": "<|im_start|>assistant\\n",
  "fields": {
    "reasoning_content": {"open": "<think>", "close": "</think>", "content": "text"},
    "tool_calls": {
      "open_pattern": "<tool_call>\\\\s*\\\\{\\\\s*\\"name\\"\\\\s*:\\\\s*\\"(?P<name>[^\\"\\\\\\\\]+)\\"\\\\s*,\\\\s*\\"arguments\\"\\\\s*:\\\\s*(?=\\\\{)",
      "close_pattern": "\\\\}\\\\s*</tool_call>\\\\s*",
      "repeats": true,
      "content": "json",
      "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}
    },
    "content": {"close_pattern": "<\\\\|im_end\\\\|>\\\\s*", "content": "text"}
  }
}
"""


@dataclass
class PromptDocument:
    """One sample's prompt: where it was read from, what is on disk, and the text being edited."""

    target: Path  # <case>.prompt.txt: where saving writes
    source: Path | None  # the file it was read from (None: no prompt, prefix="")
    saved_text: str
    text: str
    error: str | None = None  # why the prompt file could not be read (the prompt is then "")
    stamp: tuple | None = None  # the prompt files as read: which one, and its mtime
    notices: tuple[str, ...] = ()  # from the last save: a hard link broken, a link written through

    @classmethod
    def of(cls, sample: Sample) -> "PromptDocument":
        target = sample.path.with_name(sample.path.stem + PROMPT_SUFFIX)
        stamp = _stamp(sample)
        try:
            text, source = sample.prompt()
        except InputError as exc:
            return cls(target, None, "", "", str(exc), stamp)
        return cls(target, source, text, text, None, stamp)

    def changed_on_disk(self, sample: Sample) -> bool:
        """Another program wrote (or created, or removed) the sample's prompt file since it was read."""
        return _stamp(sample) != self.stamp

    @property
    def dirty(self) -> bool:
        return self.text != self.saved_text

    @property
    def name(self) -> str:
        """Where the prompt comes from, for a title."""
        if self.source is None:
            return "none (prefix=\"\")" if not self.dirty else f"new: {self.target.name}"
        if self.source.name == DEFAULT_PROMPT:
            return f"{self.source.name} (the folder's)"
        return self.source.name

    def save(self, allow_read_only: bool = False) -> Path:
        """Write the text to ``<case>.prompt.txt`` atomically; it is then this sample's prompt. A
        read-only file raises ``files.ReadOnlyError`` unless ``allow_read_only``."""
        self.notices = tuple(atomic_write(self.target, self.text, allow_read_only=allow_read_only))
        self.source, self.saved_text = self.target, self.text
        self.stamp = (_stamp_of(self.target), _stamp_of(self.target.with_name(DEFAULT_PROMPT)))
        return self.target

    def reread(self, sample: Sample) -> None:
        """Take the prompt on disk again (when it is not being edited)."""
        fresh = PromptDocument.of(sample)
        self.source, self.saved_text, self.text, self.error, self.stamp = (
            fresh.source, fresh.saved_text, fresh.text, fresh.error, fresh.stamp
        )


def _stamp_of(path: Path) -> tuple | None:
    try:
        return str(path), path.stat().st_mtime_ns
    except OSError:
        return None


def _stamp(sample: Sample) -> tuple:
    """The sample's own prompt file and its folder's default, as they are on disk now."""
    own = sample.path.with_name(sample.path.stem + PROMPT_SUFFIX)
    return _stamp_of(own), _stamp_of(sample.path.with_name(DEFAULT_PROMPT))
