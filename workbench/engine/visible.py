"""Text from strangers made safe to show: every control character as a visible symbol.

File names, schema keys, values and error texts come from files off the Hub. Written to a
terminal as they are, an escape sequence in one sets the window title, writes the clipboard
(OSC 52) or paints the screen; a bidi override reorders what the user reads. So whatever the
workbench shows that came from a file passes through ``visible`` first (the raw view uses the
same table, one cell per character, so its columns stay text offsets).
"""

from __future__ import annotations

import re

# C0 as Unicode's control pictures (␀ … ␟), tab as an arrow, DEL as ␡.
_C0 = {i: chr(0x2400 + i) for i in range(32)}
_C0[9] = "→"
_C0[127] = "␡"
# C1 (U+0080–U+009F: CSI, OSC, … for terminals that read 8-bit controls) has no pictures: one
# symbol that says "a control was here". Bidi controls and the Unicode line separators likewise.
C1_SYMBOL = "⍰"
_OTHER = {i: C1_SYMBOL for i in range(0x80, 0xA0)}
for _cp in (0x2028, 0x2029, *range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C, 0xFEFF):
    _OTHER[_cp] = C1_SYMBOL

#: One symbol per character (line feed included): what a one-line label shows.
LABEL_TABLE = {**_C0, **_OTHER}
#: The raw view's table: line feeds stay line breaks there.
TEXT_TABLE = {k: v for k, v in LABEL_TABLE.items() if k != 10}

_SURROGATE = re.compile("[\ud800-\udfff]")
# What JSON text must not carry raw: lone surrogates (UTF-8 cannot encode them) and the controls
# json.dumps leaves as they are (DEL, C1, bidi, line separators), which a terminal would act on.
_JSON_UNSAFE = re.compile("[\ud800-\udfff\x7f" + "".join(re.escape(chr(c)) for c in sorted(_OTHER)) + "]")


def _surrogate(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


# What ``visible`` changes. Most text holds none of it, and a search costs a tenth of the
# translation (tree labels are made by the hundred on every keystroke), so it is looked for first.
_UNSAFE = re.compile("[" + "".join(re.escape(chr(c)) for c in sorted(LABEL_TABLE)) + "\ud800-\udfff]")
_UNSAFE_KEEPING_NEWLINES = re.compile("[" + "".join(re.escape(chr(c)) for c in sorted(TEXT_TABLE)) + "\ud800-\udfff]")


def needs_showing(text: str, keep_newlines: bool = False) -> bool:
    """Whether ``visible`` would change ``text``."""
    return (_UNSAFE_KEEPING_NEWLINES if keep_newlines else _UNSAFE).search(text) is not None


def visible(text: str, keep_newlines: bool = False) -> str:
    """``text`` with every control character (C0, DEL, C1, bidi, line separators) replaced by a
    visible symbol, and a lone surrogate (which no terminal encoding can carry) written as its
    ``\\udXXX`` escape. With ``keep_newlines``, line feeds stay (a multi-line message). Text that
    needs none of it comes back as it is."""
    if not needs_showing(text, keep_newlines):
        return text
    shown = text.translate(TEXT_TABLE if keep_newlines else LABEL_TABLE)
    return _SURROGATE.sub(_surrogate, shown) if _SURROGATE.search(shown) else shown


def escape_json_text(text: str) -> str:
    """JSON text (from ``json.dumps(..., ensure_ascii=False)``) with each lone surrogate, C1,
    bidi or line-separator character as its ``\\uXXXX`` escape: it then encodes as UTF-8, is safe
    on a terminal, and loads back to the same value. json.dumps writes such characters only
    inside strings, where the escape means the same code point."""
    return _JSON_UNSAFE.sub(_surrogate, text) if _JSON_UNSAFE.search(text) else text
