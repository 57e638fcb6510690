"""A template parse as the tree pane shows it, and what to light for a place in the template.

``outline(trace)`` is the message field by field: each field's regions, in text order, each with
its opener (and the opener's named groups), body, parsed → transformed → cast value and closer;
and the notes on what the message does not show (a region overwritten by a later one, a value
dropped at the end for being empty, a region the text ended inside, text thrown away, which rule
broke a tie between delimiters). Every node names the template key it is about (``path``, a JSON
pointer) and the spans of text it stands for, so a view can link the tree, the text and the
template without knowing the format.

``spans_at(trace, pointer)`` is the other direction: for a place in the template's JSON (an
editor cursor), the delimiter matches or bodies it produced.

Spans are offsets into ``TemplateTrace.text`` (the prompt tail, then the output). UI-free.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import RegexTimeout
from ..pointer import join, split
from ..preview import preview
from ..spans import MISSING, RegexMatch, Span
from .highlights import field_names
from .trace_types import AT_END, BY_OPEN, EMPTY_CLOSER, NO_IMPLICIT, UNREAD, Region, TemplateTrace

# Keys of a field spec, by the part of a region they act on (the rest act on the whole region).
_OPENER_KEYS = ("open", "open_pattern")
_CLOSER_KEYS = ("close", "close_pattern")
_BODY_KEYS = ("content", "content_args", "transform", "transform_each", "join")

_WHY_DROPPED = {
    NO_IMPLICIT: "thrown away: outside every region, and no implicit field (one without 'open') takes it",
    EMPTY_CLOSER: "the implicit field's closer, matched before any text: it closes nothing",
    UNREAD: "never read: the runtime stops after a closer that matches empty text on an empty region",
}


@dataclass(slots=True, eq=False)
class OutlineNode:
    """One line of the tree. ``key`` tells it from its siblings across reparses."""

    key: Any
    name: str
    path: str = ""  # the template key it is about, as a JSON pointer ("" for none)
    value: Any = MISSING  # a value to show
    text: str | None = None  # a description, shown before the value
    note: str | None = None  # a trap of the format: what the message does not show
    error: str | None = None  # where the parse failed
    spans: tuple = ()  # the text it stands for (buffer offsets)
    # Builds the children on first use: a 2 MB output has thousands of regions, and their parts
    # (opener, captures, body, values, closer) would cost more than the parse to build up front.
    parts: Any = None
    _children: list | None = None

    @property
    def children(self) -> list:
        if self._children is None:
            self._children = self.parts() if self.parts is not None else []
            self.parts = None
        return self._children

    @children.setter
    def children(self, value: list) -> None:
        self._children, self.parts = value, None

    def walk(self):
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))


def excerpt(text: str, limit: int = 32) -> str:
    """A short quoted excerpt with line breaks shown."""
    shown = text[:limit].replace("\n", "⏎").replace("\t", "→")
    return repr(shown) + ("…" if len(text) > limit else "")


def where(trace: TemplateTrace, span: Span) -> str:
    """``start–end``, saying when the text is in the prompt tail."""
    start, end = span
    cut = trace.output_start
    place = " (prompt tail)" if end <= cut and start < cut else " (from the prompt tail)" if start < cut else ""
    return f"{start}–{end}{place}"


def failure_text(trace: TemplateTrace) -> str | None:
    if trace.error is None:
        return None
    return f"{trace.error.type}: {trace.error.message}".splitlines()[0][:160]


def outline(trace: TemplateTrace) -> OutlineNode:
    """The tree of a template parse (see the module's docstring)."""
    error = failure_text(trace)
    root = OutlineNode(None, "message", "", value=trace.message if trace.message is not None else MISSING, error=error)
    template = trace.template
    specs = template.fields if template is not None else {}
    defaults = template.defaults if template is not None else {}
    by_field: dict[Any, list[Region]] = {}
    for region in trace.regions:
        by_field.setdefault(region.field, []).append(region)
    emptied = {e.field: e for e in trace.emptied}
    emptied_regions = {i for e in trace.emptied for i in e.regions}
    failed_fields = set(trace.error.fields) if trace.error is not None else set()
    failed_region = trace.error.region if trace.error is not None else None
    message = trace.message or {}
    for name in field_names(trace):
        spec = specs.get(name)
        regions = by_field.get(name, [])
        node = OutlineNode(("field", name), str(name), join("fields", name), spans=tuple(r.span for r in regions))
        if name in message:
            node.value = message[name]
        kind = "implicit" if spec is not None and spec.open is None else ""
        count = f"{len(regions)} region{'s' if len(regions) != 1 else ''}" if regions else "no region"
        node.text = f"{count}{', ' + kind if kind else ''}"
        if name in emptied:
            node.note = f"dropped from the message at the end: its value {preview(emptied[name].value)} is empty"
        if name in failed_fields:
            node.error = error
        node.children = [
            _region_node(trace, region, spec, region.index in emptied_regions, error if region.index == failed_region else None)
            for region in regions
        ]
        root.children.append(node)
    for key, value in defaults.items():
        if key not in specs:
            shown = message.get(key, value) if trace.message is not None else value
            root.children.append(OutlineNode(("default", key), str(key), join("defaults", key), value=shown, text="default"))
    tail = trace.text[: trace.output_start]
    if trace.anchor_found is False or tail:
        anchor_key = template.anchor.key if template is not None else "start_anchor"
        node = OutlineNode(("prompt",), "prompt tail", join(anchor_key), text=f"{excerpt(tail)} parsed before the output",
                           spans=((0, trace.output_start),) if tail else ())
        if trace.anchor_found is False:
            node.note = "the start anchor is not in the prompt: the whole prompt was parsed as the tail"
        root.children.append(node)
    if trace.dropped:
        lost = any(d.reason != EMPTY_CLOSER for d in trace.dropped)
        dropped = OutlineNode(("dropped",), "dropped text", "/fields", text=f"{len(trace.dropped)} span{'s' if len(trace.dropped) != 1 else ''}",
                              note="the message does not have this text" if lost else None, spans=tuple(d.span for d in trace.dropped))
        for i, d in enumerate(trace.dropped):
            why = _WHY_DROPPED.get(d.reason, d.reason)
            dropped.children.append(OutlineNode(
                i, excerpt(trace.text_of(d.span)), "/fields", text=where(trace, d.span) + (f": {why}" if d.reason == EMPTY_CLOSER else ""),
                note=None if d.reason == EMPTY_CLOSER else why, spans=(d.span,),
            ))
        root.children.append(dropped)
    if trace.ties:
        ties = OutlineNode(("ties",), "tie breaks", "/fields", text=f"{len(trace.ties)} place{'s' if len(trace.ties) != 1 else ''} where delimiters matched together")
        for i, tie in enumerate(trace.ties):
            winner = tie.candidates[0]
            lines = OutlineNode(i, f"at {tie.at}", winner.match.key,
                                text=f"{winner.field} {winner.kind} wins by {tie.rule}", spans=tuple(c.match.span for c in tie.candidates))
            for j, c in enumerate(tie.candidates):
                lines.children.append(OutlineNode(
                    j, f"{c.field} {c.kind}", c.match.key, text=f"{excerpt(trace.text_of(c.match.span))} {where(trace, c.match.span)}",
                    note=f"lost: {c.lost_by}" if c.lost_by else None, spans=(c.match.span,),
                ))
            ties.children.append(lines)
        root.children.append(ties)
    return root


def _region_node(trace: TemplateTrace, region: Region, spec: Any, emptied: bool, error: str | None) -> OutlineNode:
    name = region.field
    node = OutlineNode(("region", region.index), f"#{region.index}", join("fields", name), text=where(trace, region.span),
                       spans=(region.span,), error=error, parts=lambda: _region_parts(trace, region, spec))
    if region.value is not MISSING:
        node.value = region.value
    notes = []
    if region.overwritten_by is not None:
        notes.append(f"overwritten by #{region.overwritten_by}: the message keeps only the later value")
    if emptied:
        notes.append("its value is empty: dropped from the message at the end")
    if region.left_open:
        notes.append("left open: the text ended before its closer")
    node.note = "; ".join(notes) or None
    return node


def _region_parts(trace: TemplateTrace, region: Region, spec: Any) -> list[OutlineNode]:
    name = region.field
    children: list[OutlineNode] = []
    if region.open is not None:
        opener = _match_node(trace, "open", "opener", region.open)
        for group in region.open.groups:
            if isinstance(group.name, str):
                opener.children.append(OutlineNode(
                    ("capture", group.name), f"{{{group.name}}}", region.open.key,
                    value=region.captures.get(group.name, MISSING),
                    text=where(trace, group.span) if group.span else "did not take part", spans=(group.span,) if group.span else (),
                ))
        children.append(opener)
    else:
        children.append(OutlineNode("open", "opener", join("fields", name), text="none: the implicit field opens at its first text"))
    content = spec.content if spec is not None else "text"
    body = trace.text_of(region.body)
    children.append(OutlineNode("body", "body", join("fields", name, "content"), text=f"{excerpt(body)} {where(trace, region.body)}",
                                spans=(region.body,)))
    if region.parsed is not MISSING:
        children.append(OutlineNode("parsed", f"parsed ({content})", join("fields", name, "content"), value=region.parsed, spans=(region.body,)))
    if spec is not None and spec.transform is not None and region.transformed is not MISSING:
        children.append(OutlineNode("transformed", "transformed", join("fields", name, "transform"), value=region.transformed,
                                    spans=(region.body,)))
    if region.cast is not MISSING:
        changed = region.cast != region.transformed
        children.append(OutlineNode("cast", "cast (tools=)", join("fields", name), value=region.cast,
                                    text=None if changed else "unchanged", spans=(region.body,)))
    if region.close is not None:
        children.append(_match_node(trace, "close", "closer", region.close))
    else:
        ended = {
            BY_OPEN: "none: an opener ended it" + (f" (#{region.index + 1})" if region.index + 1 < len(trace.regions) else ""),
            AT_END: "none: the text ended",
        }.get(region.ended, "none: the parse stopped in it")
        children.append(OutlineNode("close", "closer", join("fields", name), text=ended))
    return children


def _match_node(trace: TemplateTrace, key: str, name: str, match: RegexMatch) -> OutlineNode:
    return OutlineNode(key, name, match.key, text=f"{excerpt(trace.text_of(match.span))} {where(trace, match.span)}", spans=(match.span,))


def failure_pointer(trace: TemplateTrace) -> str | None:
    """The template key to look at where the parse failed (None when it did not)."""
    error = trace.error
    if error is None:
        return None
    if isinstance(error.exception, RegexTimeout):
        return error.exception.path
    if error.region is not None:
        region = trace.regions[error.region]
        if region.parsed is MISSING:
            return join("fields", region.field, "content")
        if region.transformed is MISSING:
            return join("fields", region.field, "transform")
        return join("fields", region.field)
    if error.fields:
        if "Required" in error.message:
            return join("fields", error.fields[0], "optional")
        return join("fields", error.fields[0])
    return ""


@dataclass
class Lit:
    """What a place in the template produced: the spans to light and the matches to list."""

    field: Any  # the field it is in (None: none)
    part: str | None  # "open", "close", "body", or None for whole regions
    spans: list[Span]
    items: list[tuple[str, Span]]  # (label, span) per match or region


def spans_at(trace: TemplateTrace, pointer: str) -> Lit | None:
    """For a place in the template's JSON: the regions of the field it is in, or only their
    openers, closers or bodies for a key about one of them. None outside every field."""
    parts = split(pointer)
    if len(parts) >= 2 and parts[0] == "defaults":
        name, part = parts[1], None
    elif len(parts) >= 2 and parts[0] == "fields":
        name = parts[1]
        key = parts[2] if len(parts) > 2 else None
        part = "open" if key in _OPENER_KEYS else "close" if key in _CLOSER_KEYS else "body" if key in _BODY_KEYS else None
    else:
        return None
    regions = [r for r in trace.regions if str(r.field) == name]
    spans: list[Span] = []
    items: list[tuple[str, Span]] = []
    for r in regions:
        if part == "open":
            if r.open is not None:
                spans.append(r.open.span)
                spans.extend(g.span for g in r.open.groups if g.span is not None)
                items.append((f"#{r.index} opener", r.open.span))
        elif part == "close":
            if r.close is not None:
                spans.append(r.close.span)
                items.append((f"#{r.index} closer", r.close.span))
        elif part == "body":
            spans.append(r.body)
            items.append((f"#{r.index} body", r.body))
        else:
            spans.append(r.span)
            items.append((f"#{r.index}", r.span))
    field_name = regions[0].field if regions else name
    return Lit(field_name, part, spans, items)
