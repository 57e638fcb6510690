"""The streaming view: the output replayed to ``ResponseParser`` in chunks, call by call, as
``workbench parse --stream`` feeds it, with the events, the message a client builds from them, and
the flags of what a streaming client suffers from (engine/template/replay.py).

The replay runs in the analysis process (``AnalysisClient.replay``), like every parse; this
screen only steps through its result. The output pane shows the text each call routed in its
field's colour (delimiters underlined), the text fed but held back, and in grey what is not fed yet.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static
from textual.worker import Worker, WorkerState, get_current_worker

from ...engine.paint import BODY, BODY_ALT, DELIMITER, FLAGGED, HELD, NO_FIELD, UNFED, Paint, flatten
from ...engine.releases import NEWEST
from ...engine.template.replay import FINALIZE, Replay, assemble
from ...live.process import AnalysisClient
from ..plain import plain
from .client_message import ClientMessage
from .flag_list import FlagList
from ..widgets.raw_view import RawView
from .step_events import StepEvents

CHUNKS = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 128, 256, 512, 1024]
PLAY_EVERY = 0.12  # seconds per call while playing


@dataclass
class StreamSource:
    """What to replay: the template text, the sample (key in the analysis process, name, output),
    its prompt and tools, and the fields in colour order (as the main screen colours them)."""

    template_text: str
    sample_key: str
    sample_name: str
    output: str
    prefix: str
    tools: Any
    fields: list[str]
    time_limit: float
    runtime: str | None = None  # the transformers release the main screen behaves as


class StreamScreen(Screen):
    BINDINGS = [
        Binding("right,n", "step(1)", "Step"),
        Binding("left,p", "step(-1)", "Back"),
        Binding("space", "play", "Play/pause"),
        Binding("plus,equals_sign", "chunk(1)", "Chunk +"),
        Binding("minus,underscore", "chunk(-1)", "Chunk −"),
        Binding("home", "edge(0)", "First", show=False, priority=True),
        Binding("end", "edge(1)", "Last", show=False, priority=True),
        Binding("f9", "next_flag", "Next flag"),
        Binding("escape,q,ctrl+t", "close", "Close"),
    ]

    def __init__(self, client: AnalysisClient, source: StreamSource, chunk: int = 4) -> None:
        super().__init__()
        self.client = client
        self.source = source
        self.chunk = chunk
        self.replay: Replay | None = None
        self.step = 0
        self.buffer = ""
        self._colours = {name: i for i, name in enumerate(source.fields)}
        self._paints: list[list[Paint]] = []  # per call: what it routed and matched, in output offsets
        self._playing = None

    def compose(self) -> ComposeResult:
        yield Static(id="stream-title")
        raw = RawView(id="stream-raw")
        raw.border_title = plain(f"Output · {self.source.sample_name}")
        yield raw
        with Horizontal(id="stream-panes"):
            with VerticalScroll(id="stream-events") as events:
                events.border_title = "This call"
                yield StepEvents()
            with VerticalScroll(id="stream-message") as message:
                message.border_title = "As a client assembles it"
                yield ClientMessage()
            flags = FlagList(id="stream-flags")
            flags.border_title = "Flags"
            yield flags
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(RawView).set_text(self.source.output)
        self._title("replaying…")
        self._request()

    # ----- the replay ---------------------------------------------------------------------------
    def _request(self) -> None:
        source, chunk = self.source, self.chunk

        def run():
            worker = get_current_worker()
            return self.client.replay(source.template_text, source.sample_key, source.prefix, source.tools, chunk,
                                      source.time_limit, lambda: worker.is_cancelled, source.runtime)

        self.run_worker(run, name="replay", group="replay", thread=True, exclusive=True, exit_on_error=False)

    @on(Worker.StateChanged)
    def _replayed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if worker.group != "replay":
            return
        if event.state == WorkerState.ERROR:
            self._title(f"the replay failed: {worker.error}", error=True)
            return
        if event.state != WorkerState.SUCCESS or worker.result is None:
            return
        result, why = worker.result
        if result is None:
            self._title(f"cannot replay: {why}", error=True)
            return
        previous = self.replay.steps[self.step] if self.replay is not None else None
        at = previous.fed[1] if previous is not None and previous.fed else None
        self.replay = result
        self.chunk = result.chunk
        self.buffer = result.prefix_tail + self.source.output
        nth: dict = {}  # per field, the regions opened so far: successive ones alternate shades
        self._paints = [self._step_paints(s, nth) for s in result.steps]
        step = 0
        if at is not None:  # keep the place in the text across a change of chunk size
            step = next((i for i, s in enumerate(result.steps) if s.fed and s.fed[1] >= at), len(result.steps) - 1)
        elif previous is not None and previous.call == FINALIZE:
            step = len(result.steps) - 1
        self.show_step(step)

    def _step_paints(self, step, nth: dict) -> list[Paint]:
        """What one call routed (in its field's colour) and matched (its delimiters)."""
        base = self.replay.output_start
        paints = []
        for event, span in zip(step.events, step.spans):
            kind = event["type"]
            if kind == "region_open":
                nth[event["field"]] = nth.get(event["field"], -1) + 1
            if kind == "region_chunk" and span is not None:
                field = self._colours.get(event["field"], NO_FIELD)
                paints.append((span[0] - base, span[1] - base, field, BODY_ALT if nth.get(event["field"], 0) % 2 else BODY))
            elif kind == "region_open" and span is not None:
                paints.append((span[0] - base, span[1] - base, self._colours.get(event["field"], NO_FIELD), DELIMITER))
            elif kind == "region_close" and span is not None and span[0] is not None:
                closer = span[0]
                paints.append((closer[0] - base, closer[1] - base, self._colours.get(event["field"], NO_FIELD), DELIMITER))
        return [Paint(max(s, 0), e, f, k) for s, e, f, k in paints if e > 0]

    # ----- showing a call -------------------------------------------------------------------------
    def show_step(self, step: int) -> None:
        replay = self.replay
        if replay is None:
            return
        self.step = max(0, min(step, len(replay.steps) - 1))
        current = replay.steps[self.step]
        base = replay.output_start
        length = len(self.source.output)
        paints: list[Paint] = []
        for i in range(self.step + 1):
            for p in self._paints[i]:  # in text order: a region's successive chunks join into one run
                if paints and paints[-1].end == p.start and paints[-1][2:] == p[2:]:
                    paints[-1] = Paint(paints[-1].start, p.end, p.field, p.kind)
                else:
                    paints.append(p)
        read = max(current.read - base, 0)
        fed = (current.fed[1] - base) if current.fed else (length if current.call == FINALIZE else read)
        if fed > read:
            paints.append(Paint(read, fed, NO_FIELD, HELD))
        if fed < length:
            paints.append(Paint(fed, length, NO_FIELD, UNFED))
        for flag in replay.flags_until(self.step):
            if flag.span is not None and flag.span[1] > base:
                paints.append(Paint(max(flag.span[0] - base, 0), flag.span[1] - base, NO_FIELD, FLAGGED))
        raw = self.query_one(RawView)
        raw.set_runs(flatten(paints))
        raw.scroll_to_offset(min(max(read, 0), max(length - 1, 0)))
        self.query_one(StepEvents).show(replay, self.step, self.buffer, self._colours)
        final = replay.message if current.call == FINALIZE else None
        self.query_one(ClientMessage).show(assemble(replay, self.step), self._colours, final)
        self.query_one(FlagList).show(replay.flags, self.step)
        self._title()

    def _title(self, note: str | None = None, error: bool = False) -> None:
        title = self.query_one("#stream-title", Static)
        title.set_class(error, "-error")
        replay = self.replay
        if replay is None or note is not None:
            title.update(plain(f"Streaming replay · {self.source.sample_name} · {note or ''}"))
            return
        current = replay.steps[self.step]
        chunk = f"chunk {replay.chunk}" + (f" (raised from {replay.asked}: at most 20,000 feeds)" if replay.chunk != replay.asked else "")
        same = "streamed = one-shot ✓" if replay.same_as_oneshot else "streamed ≠ one-shot"
        flags = len(replay.flags)
        title.update(plain(
            f"Streaming replay · {self.source.sample_name} · as transformers {self.source.runtime or NEWEST} · {chunk} · "
            f"call {self.step}/{len(replay.steps) - 1} "
            f"({current.call}) · {flags} flag{'s' if flags != 1 else ''} · {same}"
        ))

    # ----- keys -----------------------------------------------------------------------------------
    def action_step(self, delta: int) -> None:
        self._stop()
        self.show_step(self.step + delta)

    def action_edge(self, end: int) -> None:
        self._stop()
        if self.replay is not None:
            self.show_step(len(self.replay.steps) - 1 if end else 0)

    def action_play(self) -> None:
        if self._playing is not None:
            self._stop()
            return
        if self.replay is not None and self.step >= len(self.replay.steps) - 1:
            self.show_step(0)
        self._playing = self.set_interval(PLAY_EVERY, self._tick)

    def _tick(self) -> None:
        if self.replay is None or self.step >= len(self.replay.steps) - 1:
            self._stop()
            return
        self.show_step(self.step + 1)

    def _stop(self) -> None:
        if self._playing is not None:
            self._playing.stop()
            self._playing = None

    def action_chunk(self, delta: int) -> None:
        sizes = CHUNKS
        now = next((i for i, c in enumerate(sizes) if c >= self.chunk), len(sizes) - 1)
        wanted = sizes[max(0, min(len(sizes) - 1, now + delta))]
        if wanted != self.chunk:
            self._stop()
            self.chunk = wanted
            self._title(f"replaying with chunk {wanted}…")
            self._request()

    def action_next_flag(self) -> None:
        if self.replay is None or not self.replay.flags:
            return
        later = [f for f in self.replay.flags if f.step > self.step]
        flag = later[0] if later else self.replay.flags[0]
        self._go_to_flag(flag)

    @on(FlagList.Picked)
    def _flag_picked(self, event: FlagList.Picked) -> None:
        self._go_to_flag(event.flag)

    def _go_to_flag(self, flag) -> None:
        self._stop()
        self.show_step(flag.step)
        if flag.span is not None and self.replay is not None:
            base = self.replay.output_start
            self.query_one(RawView).select([(max(flag.span[0] - base, 0), max(flag.span[1] - base, 0))])

    def action_close(self) -> None:
        self._stop()
        self.app.pop_screen()
