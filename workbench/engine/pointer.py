"""JSON pointers (RFC 6901) for schema paths."""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=4096)  # the same property names recur in every traced tool call
def escape(segment: object) -> str:
    return str(segment).replace("~", "~0").replace("/", "~1")


def join(*segments: object) -> str:
    return "".join("/" + escape(s) for s in segments)


def split(pointer: str) -> list[str]:
    if pointer in ("", "/"):
        return []
    return [s.replace("~1", "/").replace("~0", "~") for s in pointer.lstrip("/").split("/")]


def display(pointer: str) -> str:
    """The root's pointer is the empty string; people read it better as "/"."""
    return pointer or "/"
