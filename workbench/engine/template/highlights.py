"""Which spans of a template parse to colour, and how: a ``TemplateTrace`` as the colour runs the
raw pane (and the prompt pane) paint, in the vocabulary of ``engine/highlights.py``.

One colour per field, in the template's field order (so a field keeps its colour on every sample);
a region's opener and closer are told apart from its body, and the regions of one field alternate
two shades. The traps of the format show on top: text thrown away (``DROPPED``), a region whose
value a later one replaced (``OVERWRITTEN``), a region whose value was dropped at the end for being
empty (``EMPTIED``), and where a region's closer was expected when the text ended (``LEFT_OPEN``).
(The implicit field's closer matching where nothing is open drops no content: it is drawn as a
delimiter, and the tree says what it did.)

Spans in a trace are offsets into the parser's buffer (the prompt tail, then the output);
``split_runs`` cuts the runs into the two texts the user sees.
"""

from __future__ import annotations

import bisect
from operator import itemgetter
from typing import Any

from ..paint import (
    BODY, BODY_ALT, CAPTURE, DELIMITER, DROPPED, EMPTIED, LEFT_OPEN, NO_FIELD, OVERWRITTEN, RANK, Paint, merge, merge_keyed, sweep,
)
from .trace_types import EMPTY_CLOSER, TemplateTrace


def field_names(trace: TemplateTrace) -> list[Any]:
    """The fields, each with its colour: the template's order, then any other a region names."""
    names = list(trace.template.fields) if trace.template is not None else []
    for region in trace.regions:
        if region.field not in names:
            names.append(region.field)
    return names


def template_paints(trace: TemplateTrace, fields: list[Any] | None = None) -> list[Paint]:
    """Every paint of the trace, in buffer offsets (overlapping: ``flatten`` resolves them)."""
    return [paint for part in _paint_parts(trace, fields) for paint in part]


def _paint_parts(trace: TemplateTrace, fields: list[Any] | None = None) -> list[list[tuple]]:
    """template_paints, one list per region, then one of the dropped text. Plain tuples: a 2 MB
    output has ~50,000 of them, and a NamedTuple costs several times as much to make."""
    fields = field_names(trace) if fields is None else fields
    index = {name: i for i, name in enumerate(fields)}
    emptied = {i for e in trace.emptied for i in e.regions}
    seen: dict[int, int] = {}
    parts: list[list[Paint]] = []
    for region in trace.regions:
        field = index.get(region.field, NO_FIELD)
        nth = seen[field] = seen.get(field, -1) + 1
        paints: list[Paint] = []
        parts.append(paints)
        if region.open is not None:
            paints.append((*region.open.span, field, DELIMITER))
            paints.extend((*g.span, field, CAPTURE) for g in region.open.groups if isinstance(g.name, str) and g.span)
        paints.append((*region.body, field, BODY_ALT if nth % 2 else BODY))
        if region.close is not None:
            paints.append((*region.close.span, field, DELIMITER))
        if region.overwritten_by is not None:
            paints.append((*region.body, field, OVERWRITTEN))
        if region.index in emptied:
            paints.append((*region.span, field, EMPTIED))
        if region.left_open:
            if region.open is not None:
                paints.append((*region.open.span, field, LEFT_OPEN))
            end = region.body[1]
            if end > region.body[0] and region.index not in emptied:  # the last character: where the closer was due
                paints.append((end - 1, end, field, LEFT_OPEN))
    paints = []
    parts.append(paints)
    implicit = index.get(trace.template.implicit, NO_FIELD) if trace.template is not None else NO_FIELD
    for d in trace.dropped:
        if d.reason == EMPTY_CLOSER:  # the implicit field's closer with nothing to close: a delimiter, not lost text
            paints.append((*d.span, implicit, DELIMITER))
        else:
            paints.append((*d.span, NO_FIELD, DROPPED))
    return parts


def _flattened(trace: TemplateTrace, fields: list[Any]) -> list[Paint]:
    """flatten(template_paints(trace, fields)), region by region: the regions follow one another
    in the text, so their runs join in one pass, and only the dropped text is merged over them
    (a sweep of a 2 MB output's ~20,000 paints at once costs twice as much)."""
    parts = _paint_parts(trace, fields)
    swept = [_swept(paints, i) for i, paints in enumerate(parts)]
    return merge([merge_keyed(swept[:-1]), swept[-1]])


def _swept(paints: list[tuple], part: int) -> list[tuple]:
    """``sweep(paints, part)`` for the usual region, keyed as sweep keys its runs: paints one after
    another, an opener's named groups drawn over it. Anything else is swept (a 2 MB output has
    thousands of regions; the heap costs most of their colouring)."""
    out: list[tuple] = []
    n, i, end = len(paints), 0, -1
    while i < n:
        start, stop, field, kind = paints[i]
        if start < end:
            return sweep(paints, part)
        key, at, j = (RANK[kind], start, -stop, part, i), start, i + 1
        while j < n and paints[j][3] == CAPTURE and start <= paints[j][0] and paints[j][1] <= stop:
            cs, ce, cf, ck = paints[j]
            if ce > cs:
                if cs < at:
                    return sweep(paints, part)  # groups that overlap each other
                if cs > at:
                    out.append((at, cs, field, kind, key))
                out.append((cs, ce, cf, ck, (RANK[ck], cs, -ce, part, j)))
                at = ce
            j += 1
        if stop > at:
            out.append((at, stop, field, kind, key))
        end, i = stop, j
    return out


def split_runs(trace: TemplateTrace, runs: list[Paint]) -> tuple[list[tuple], list[tuple]]:
    """Disjoint runs in buffer offsets cut into (output runs, in output offsets; prompt runs, in
    offsets of the whole prompt). Plain tuples: they cross to the UI process by the thousand."""
    cut, shift = trace.output_start, trace.prefix_tail_start
    # The runs are sorted and disjoint: only those before the first run past ``cut`` touch the
    # prompt, and a 2 MB output's tens of thousands after it need shifting only (or not at all).
    first = bisect.bisect_right(runs, cut, key=_end)
    prompt = [(start + shift, min(end, cut) + shift, field, kind) for start, end, field, kind in runs[:first]]
    if first < len(runs) and runs[first][0] < cut:  # the run across the cut
        start, end, field, kind = runs[first]
        prompt.append((start + shift, cut + shift, field, kind))
    rest = runs[first:]
    if cut == 0:
        output = list(map(tuple, rest))
    else:
        output = [(max(start, cut) - cut, end - cut, field, kind) for start, end, field, kind in rest]
    return output, prompt


_end = itemgetter(1)


def template_runs(trace: TemplateTrace) -> tuple[list[Any], list[tuple], list[tuple]]:
    """Field names, and the disjoint runs of the output and of the prompt."""
    fields = field_names(trace)
    output, prompt = split_runs(trace, _flattened(trace, fields))
    return fields, output, prompt


def anchor_span(trace: TemplateTrace, prompt: str, time_limit: float | None = None) -> tuple[int, int] | None:
    """The start anchor's last match in the prompt (the tail starts at its end), if it was found:
    searched as the parser searches it."""
    if not trace.anchor_found or trace.template is None:
        return None
    last = None
    try:
        for match in trace.template.anchor.pattern.finditer(prompt, timeout=time_limit):
            last = match
    except TimeoutError:
        return None
    return last.span() if last is not None else None
