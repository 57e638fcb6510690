"""Which sample is open, and how the schema fares on every sample."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from ...store.samples import DIFFERS, FAILS, MATCHES, PARSES, Verdict
from ..plain import shown, visible

SPLIT_MARK = "⇄"  # the sample's result depends on the transformers release
_MARK = {PARSES: ("✓", "green"), MATCHES: ("✓✓", "bold green"), FAILS: ("✗", "red"), DIFFERS: ("≠", "bold red")}


MAX_LINES = 6  # the bar's height at most: with many samples (a scan's failing rows) it shows those around the open one


class SampleBar(Static):
    DEFAULT_CSS = "SampleBar { height: auto; padding: 0 1; background: $boost; }"

    _shown: tuple | None = None

    def show(self, names: list[str], current: int, verdicts: dict[int, Verdict], stale: bool = False, noun: str = "schema",
             splits: dict[int, str] | None = None) -> None:
        """``stale``: the schema (or ``noun``) being edited has errors, so the verdicts are those of
        the last one that had none (or there are none yet). ``splits``: the samples whose result
        depends on the transformers release (marked ⇄), each with how the releases part. More
        samples than fit in ``MAX_LINES`` lines: those around the open one, and how many are left
        out on each side."""
        self._shown = (names, current, verdicts, stale, noun, splits)
        splits = splits or {}
        text = Text(f"sample {current + 1}/{len(names)}  ", style="dim")
        entries = []
        for i, name in enumerate(names):
            verdict = verdicts.get(i)
            mark, style = _MARK.get(verdict.status, ("…", "dim")) if verdict else ("…", "dim")
            if stale:
                style = "dim"
            entry = Text(f" {mark} {visible(name)} ", style=style)
            if i in splits:
                entry.append(SPLIT_MARK + " ", style="dim" if stale else "bold yellow")
            if i == current:
                entry.stylize("reverse")
            entries.append(entry)
        tail = Text()
        current_verdict = verdicts.get(current)
        if stale:
            last = f"of the last {noun} without errors" if verdicts else f"wait for a {noun} without errors"
            tail.append(f"   verdicts {last}", style="dim italic")
        elif current_verdict is not None:
            tail.append(f"   {current_verdict.status}", style="bold")
            if current_verdict.detail and not current_verdict.good:
                tail.append(f": {visible(current_verdict.detail[:100])}", style="dim")
        if current in splits and not stale:
            tail.append(f"   {SPLIT_MARK} depends on the release: ", style="bold yellow")
            tail.append(visible(splits[current][:160]), style="yellow")
        width = self.content_size.width or 80

        def bar(low: int, high: int) -> Text:
            shown_ = text.copy()
            if low > 0:
                shown_.append(f"… {low} before ", style="dim")
            for entry in entries[low:high]:
                shown_.append_text(entry)
            if high < len(entries):
                shown_.append(f" … {len(entries) - high} after", style="dim")
            shown_.append_text(tail)
            return shown_

        def fits(candidate: Text) -> bool:
            return len(candidate.wrap(self.app.console, width)) <= MAX_LINES

        chosen = bar(0, len(entries))
        if not fits(chosen) and entries:
            # Those around the open one, one more at a time (after, then before), while they fit.
            low, high = current, current + 1
            chosen = bar(low, high)
            grew = True
            while grew:
                grew = False
                for after in (1, 0):
                    low_, high_ = (low, high + 1) if after else (low - 1, high)
                    if 0 <= low_ and high_ <= len(entries) and fits(candidate := bar(low_, high_)):
                        low, high, chosen, grew = low_, high_, candidate, True
        self.update(shown(chosen, keep_newlines=False))  # names from the folder, verdicts quoting values

    def on_resize(self) -> None:
        if self._shown is not None:  # as many samples as the new width holds
            self.show(*self._shown)
