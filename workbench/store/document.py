"""The schema file being edited: what is on disk, whether the editor differs, saving safely."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from .files import atomic_write, read_text

STARTER_SCHEMA = """\
{
  "type": "object",
  "properties": {
    "role": {"const": "assistant"},
    "thinking": {"type": "string", "x-regex": "<think>\\\\s*(?!\\\\s)((?:.*?\\\\S)??)\\\\s*</think>"},
    "content": {"type": "string", "x-regex": "^(?:.*?</think>)?\\\\s*(?!\\\\s)((?:.*?\\\\S)??)\\\\s*(?:<tool_call>|$)"},
    "tool_calls": {
      "type": "array",
      "x-regex-iterator": "<tool_call>\\\\s*(?!\\\\s)((?:.*?\\\\S)??)\\\\s*(?:</tool_call>|$)",
      "items": {
        "type": "object",
        "properties": {
          "type": {"const": "function"},
          "function": {
            "type": "object",
            "x-parser": "json",
            "properties": {"name": {"type": "string"}, "arguments": {"type": "object", "additionalProperties": {}}}
          }
        }
      }
    }
  }
}
"""


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size


@dataclass
class SchemaDocument:
    path: Path | None
    saved_text: str
    stamp: tuple[int, int] | None = None
    notices: tuple[str, ...] = ()  # from the last save: a hard link broken, a link written through

    @classmethod
    def open(cls, path: str | os.PathLike | None) -> "SchemaDocument":
        """The file's exact text (even if it is not valid JSON: the editor shows the error), or
        the starter schema for None, a path that does not exist yet, or an empty file."""
        if path is None:
            return cls(None, STARTER_SCHEMA)
        path = Path(path)
        if not path.exists():
            return cls(path, STARTER_SCHEMA)
        text = read_text(path, "schema")
        if not text.strip():
            # A file just created to hold a schema (touch, an editor's new buffer) has nothing to
            # keep; an empty editor would only show "not JSON". Ctrl+S writes the starter there.
            return cls(path, STARTER_SCHEMA, _stamp(path))
        return cls(path, text, _stamp(path))

    @property
    def name(self) -> str:
        return self.path.name if self.path else "(new schema)"

    def is_dirty(self, text: str) -> bool:
        """Whether quitting now would lose something the user typed."""
        return text != self.saved_text

    def save(self, text: str, path: str | os.PathLike | None = None, allow_read_only: bool = False) -> Path:
        """Write ``text`` atomically. A read-only file raises ``files.ReadOnlyError`` (nothing
        written) unless ``allow_read_only``; what the user may not expect is in ``notices``."""
        target = Path(path) if path is not None else self.path
        if target is None:
            raise ValueError("no file name yet")
        self.notices = tuple(atomic_write(target, text, allow_read_only=allow_read_only))
        self.path, self.saved_text, self.stamp = target, text, _stamp(target)
        return target

    def changed_on_disk(self) -> bool:
        """Another program wrote the file since we read or saved it."""
        if self.path is None or self.stamp is None:
            return False
        now = _stamp(self.path)
        return now is not None and now != self.stamp

    def reload(self) -> str:
        assert self.path is not None
        self.saved_text, self.stamp = read_text(self.path, "schema"), _stamp(self.path)
        return self.saved_text

    def keep_disk_version_pending(self) -> None:
        """The user chose to keep their text: stop asking about this change on disk."""
        if self.path is not None:
            self.stamp = _stamp(self.path)
