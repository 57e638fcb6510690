"""The content parsers a field's ``content`` names, with their ``content_args``
(docs/response-template.md#content-parsers).

Each reads its arguments with ``args.get`` in the order transformers 5.23.0 does, so arguments of
the wrong type fail exactly as there (``content_args`` that is not a dict: AttributeError; an
unknown ``value_parser`` name: KeyError). ``where`` is the template pointer of the arguments
(for naming a ``tag_pattern`` that runs past the time limit), ``limit`` that limit in seconds.
"""

from __future__ import annotations

import json
from typing import Any

import regex

from ..depth import RUNTIME_JSON_DEPTH, runtime_json_overflow
from .errors import TemplateRegexTimeout
from .python_calls import parse_python_call_list
from ..releases import NEWEST, Release, release_of_change

# Stand-ins for custom-delimited strings while the JSON dialect is rewritten.
SENTINEL_OPEN, SENTINEL_CLOSE = "\x01", "\x02"
UNQUOTED_KEY = regex.compile(r"(?<=[{,])(\w+):")
# 5.24 on: whitespace around a bare key, and whole double-quoted strings matched (and kept as they
# are) so that key-like text inside a string is never quoted.
UNQUOTED_KEY_SPACED = regex.compile(r'"(?:\\.|[^"\\])*"|(?<=[{,])(\s*)(\w+)(\s*):')


def _quote_key(match: Any) -> str:
    if match.group(2) is None:
        return match.group(0)
    return f'{match.group(1)}"{match.group(2)}"{match.group(3)}:'


def parse_text(text: str, args: Any, limit=None, where=(), release: Release = NEWEST) -> str:
    return text.strip() if args.get("strip", True) else text


def parse_int(text: str, args: Any, limit=None, where=(), release: Release = NEWEST) -> int:
    return int(parse_text(text, args))


def parse_float(text: str, args: Any, limit=None, where=(), release: Release = NEWEST) -> float:
    return float(parse_text(text, args))


def parse_bool(text: str, args: Any, limit=None, where=(), release: Release = NEWEST) -> bool:
    return parse_text(text, args).lower() in ("true", "1")


def _check_depth(text: str) -> None:
    """The runtime's json.loads raises RecursionError past the nesting Python's default recursion
    limit allows (depth.RUNTIME_JSON_DEPTH); ours may run under a higher limit, so it raises the
    same error there itself."""
    if isinstance(text, str) and len(text) > 2 * RUNTIME_JSON_DEPTH:  # (json.loads names other types itself)
        overflow = runtime_json_overflow(text)
        if overflow is not None:
            raise RecursionError(overflow)


def parse_json(text: str, args: Any, limit=None, where=(), release: Release = NEWEST) -> Any:
    """``json.loads`` after the dialect rewrites: custom string delimiters cut out (non-greedy),
    bare keys right after ``{`` or ``,`` quoted (5.24 on: with whitespace around them, never inside a
    quoted string), the strings put back as JSON strings."""
    delims = args.get("string_delims", [])
    unquoted_keys = args.get("unquoted_keys", False)
    if delims and (SENTINEL_OPEN in text or SENTINEL_CLOSE in text):
        raise ValueError("json: input contains reserved sentinel characters (\\x01/\\x02); cannot parse safely.")
    rewritten = text
    strings: list[str] = []

    def stash(match: Any) -> str:
        strings.append(match.group(1))
        return f"{SENTINEL_OPEN}{len(strings) - 1}{SENTINEL_CLOSE}"

    for opener, closer in delims:
        rewritten = regex.sub(regex.escape(opener) + r"(.*?)" + regex.escape(closer), stash, rewritten, flags=regex.DOTALL)
    if unquoted_keys:
        if release.has("json_keys_spaced"):
            rewritten = UNQUOTED_KEY_SPACED.sub(_quote_key, rewritten)
        else:
            rewritten = UNQUOTED_KEY.sub(r'"\1":', rewritten)
    for index, string in enumerate(strings):
        rewritten = rewritten.replace(f"{SENTINEL_OPEN}{index}{SENTINEL_CLOSE}", json.dumps(string))
    _check_depth(rewritten)
    try:
        return json.loads(rewritten)
    except json.JSONDecodeError as exc:
        if args.get("allow_non_json"):
            return parse_text(text, args)
        if rewritten == text:
            raise ValueError(f"json parser could not parse region as JSON.\nContent: {text!r}\nError: {exc}") from exc
        raise ValueError(
            "json: could not parse after dialect transforms.\n"
            f"Original: {text!r}\nTransformed: {rewritten!r}\nError: {exc}"
        ) from exc


def parse_value(raw: Any, value_parser: Any, limit=None, where=(), release: Release = NEWEST) -> Any:
    """A ``value_parser`` (``{"name": ..., "args": ...}``) applied to one xml-inline/kv-lines value."""
    if value_parser is None:
        return raw
    return parse_content(
        raw, value_parser.get("name", "text"), value_parser.get("args", {}), limit, (*where, "value_parser", "args"), release
    )


def parse_xml_inline(text: str, args: Any, limit=None, where=(), release: Release = NEWEST) -> dict:
    """One entry per ``tag_pattern`` match: its ``key`` group, its ``value`` group (raw, or through
    ``value_parser``); a repeated key overwrites, or with ``merge_duplicates`` collects a list (before
    5.24, a first value that is itself a list is extended instead of wrapped)."""
    tag_pattern = args.get("tag_pattern")
    if tag_pattern is None:
        raise ValueError("xml-inline: 'tag_pattern' content_arg is required")
    value_parser = args.get("value_parser")
    merge = args.get("merge_duplicates", False)
    result: dict[str, Any] = {}
    wraps = release.has("merge_wraps_lists")
    merged: set = set()
    try:
        matches = regex.finditer(tag_pattern, text, flags=regex.DOTALL, timeout=limit)
        for match in matches:
            groups = match.groupdict()
            key = groups.get("key")
            if key is None:
                raise ValueError(f"xml-inline: tag_pattern must have a named group 'key'. Pattern: {tag_pattern}")
            value = parse_value(groups.get("value", ""), value_parser, limit, where, release)
            if key in result and merge:
                if wraps:
                    if key not in merged:
                        result[key] = [result[key]]
                        merged.add(key)
                elif not isinstance(result[key], list):
                    result[key] = [result[key]]
                result[key].append(value)
            else:
                result[key] = value
    except TimeoutError as exc:
        if isinstance(exc, TemplateRegexTimeout):
            raise
        raise TemplateRegexTimeout((*where, "tag_pattern"), limit) from None
    return result


def parse_kv_lines(text: str, args: Any, limit=None, where=(), release: Release = NEWEST) -> dict:
    """``key<kv_sep>value`` lines split at ``line_sep``; lines without ``kv_sep`` are skipped, the
    last repeated key wins."""
    line_sep = args.get("line_sep", "\n")
    kv_sep = args.get("kv_sep", ":")
    value_parser = args.get("value_parser")
    result: dict[str, Any] = {}
    for line in text.split(line_sep):
        line = parse_text(line, args)
        if not line or kv_sep not in line:
            continue
        key, value = line.split(kv_sep, 1)
        key, value = parse_text(key, args), parse_text(value, args)
        result[key] = parse_value(value, value_parser, limit, where, release)
    return result


# Every parser, with the first release that has it (a parser missing from a release is refused when
# a template loads, and is a KeyError as a value_parser).
PARSERS = {
    "text": parse_text,
    "int": parse_int,
    "float": parse_float,
    "bool": parse_bool,
    "json": parse_json,
    "xml-inline": parse_xml_inline,
    "kv-lines": parse_kv_lines,
    "python-call-list": parse_python_call_list,
}

# Parsers whose value is the body itself (give or take whitespace): their chunks stream clean
# (``dirty: False``); the others' chunks are raw text until the region closes (``dirty: True``).
CLEAN_CHUNK_PARSERS = frozenset({"text", "int", "float", "bool"})


# The parsers a release added after the first (their CHANGES rows).
PARSER_SINCE = {"python-call-list": release_of_change("python_call_list").minor}


def parsers_of(release: Release) -> dict:
    """The parsers ``release`` has, by name."""
    return {name: parse for name, parse in PARSERS.items() if release.minor >= PARSER_SINCE.get(name, (0, 0))}


def parse_content(text: Any, name: Any, args: Any, limit=None, where=(), release: Release = NEWEST) -> Any:
    if name in PARSER_SINCE and release.minor < PARSER_SINCE[name]:
        raise KeyError(name)
    return PARSERS[name](text, args, limit, where, release)
