"""Which sample is open, and how the schema fares on every sample."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from ...samples import DIFFERS, FAILS, MATCHES, PARSES, Verdict
from ..plain import shown, visible

SPLIT_MARK = "⇄"  # the sample's result depends on the transformers release
_MARK = {PARSES: ("✓", "green"), MATCHES: ("✓✓", "bold green"), FAILS: ("✗", "red"), DIFFERS: ("≠", "bold red")}


class SampleBar(Static):
    DEFAULT_CSS = "SampleBar { height: auto; padding: 0 1; background: $boost; }"

    def show(self, names: list[str], current: int, verdicts: dict[int, Verdict], stale: bool = False, noun: str = "schema",
             splits: dict[int, str] | None = None) -> None:
        """``stale``: the schema (or ``noun``) being edited has errors, so the verdicts are those of
        the last one that had none (or there are none yet). ``splits``: the samples whose result
        depends on the transformers release (marked ⇄), each with how the releases part."""
        splits = splits or {}
        text = Text(f"sample {current + 1}/{len(names)}  ", style="dim")
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
            text.append_text(entry)
        current_verdict = verdicts.get(current)
        if stale:
            last = f"of the last {noun} without errors" if verdicts else f"wait for a {noun} without errors"
            text.append(f"   verdicts {last}", style="dim italic")
        elif current_verdict is not None:
            text.append(f"   {current_verdict.status}", style="bold")
            if current_verdict.detail and not current_verdict.good:
                text.append(f": {visible(current_verdict.detail[:100])}", style="dim")
        if current in splits and not stale:
            text.append(f"   {SPLIT_MARK} depends on the release: ", style="bold yellow")
            text.append(visible(splits[current][:160]), style="yellow")
        self.update(shown(text, keep_newlines=False))  # names from the folder, verdicts quoting values
