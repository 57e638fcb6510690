"""Under the editor, for a response_template: the release the workbench behaves as, which
transformers releases read the template and which of them give the result shown, and whether vLLM
serves it (the narrowings and vLLM's refusals themselves are listed with the problems, at their key)."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from ...engine.releases import NEWEST, Release
from ...formats.template import VLLM
from ...engine.versions import Releases, span


class ReleaseLine(Static):
    def show(self, releases: Releases | None, runtime: Release | None = None) -> None:
        """``runtime``: the release the workbench behaves as (ctrl+r picks another)."""
        self.display = releases is not None
        if releases is None:
            return
        text = Text("as ", style="dim")
        text.append(f"transformers {runtime or NEWEST}", style="bold cyan")
        text.append(" (ctrl+r) · ", style="dim")
        text.append("transformers ", style="dim")
        text.append(span(releases.reads), style="bold")
        same = releases.same
        if same != releases.reads:
            text.append(" read it; only ", style="dim")
            text.append(span(same), style="bold yellow")
            text.append(" give this result", style="dim")
        else:
            text.append(" give this result", style="dim")
        if releases.served is not None:
            # Only the verdict: the reasons name keys from the file, and are listed with the problems.
            text.append(" · ", style="dim")
            if releases.served:
                text.append(f"{VLLM} can serve it", style="green")
            else:
                text.append(f"{VLLM} refuses it", style="bold yellow")
        self.update(text)
