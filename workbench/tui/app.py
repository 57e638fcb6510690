"""The workbench app: global keys, saving, quitting, exporting; the panes live in WorkbenchScreen."""

from __future__ import annotations

import asyncio
import gc
import signal
from functools import partial
from pathlib import Path
from typing import Any, Callable, Iterable

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.worker import WorkerState, get_current_worker

from ..live import child
from ..store.document import SchemaDocument
from ..engine.releases import NEWEST, OLDEST, release, span
from ..jobs.export import ExportRefused, export_to, verify_tokenizer_dir
from ..store.files import InputError, ReadOnlyError
from ..formats import other_format
from ..store.goldens import Golden, NoGolden, golden_of
from ..jobs.migration import anchor_from, cases_of, schema_to_migrate, unescape
from .rescue import rescue
from ..live.process import AnalysisClient
from ..store.samples import Sample
from .plain import markup_safe, visible
from .screens.confirm import ConfirmScreen
from .screens.help import HelpScreen
from .screens.main import WorkbenchScreen
from .screens.migration import MigrationScreen
from .screens.prompt import PromptScreen
from .stream.screen import StreamScreen
from .widgets.schema_editor import SchemaEditor

# Actions that open a dialog or write a file. They run only from the main screen: a key pressed
# again while their dialog is open must not stack a second dialog or write behind the user's back.
_MAIN_SCREEN_ACTIONS = {"save", "save_as", "save_prompt", "export", "write_golden", "migrate", "help", "quit"}

# Seconds an export's check with transformers (loading the staged folder, both parses of the
# sample) may take before its child process is killed: transformers' parse has no time limit.
EXPORT_BUDGET = 60.0


def _export_job(text: str, target: Path, sample: str, source: Path | None = None) -> list[str]:
    """An export, in a thread worker. Its check runs in a child process (``workbench.live.child``), so a
    regex that backtracks too much neither freezes the app (it would hold the GIL) nor runs on:
    the child is killed past EXPORT_BUDGET, or when the worker is cancelled (the app quits), and
    the staged folder, made here, is removed with nothing written. The check is the one
    transformers installed here: its lines say so, and name the ``export --verify`` command that
    checks every release range (``source``: the saved file it would export)."""
    worker = get_current_worker()

    def verify(*args: Any, **kwargs: Any):
        return child.call(verify_tokenizer_dir, *args, timeout=EXPORT_BUDGET, cancelled=lambda: worker.is_cancelled, **kwargs)

    try:
        # force: _write_after_asking has asked before replacing an existing file.
        return export_to(text, target, sample, force=True, verifier=verify, source=source)
    except child.ChildTimeout as exc:
        raise ExportRefused(f"the check with transformers did not finish within {exc.seconds:g} s and was stopped "
                            "(transformers' parse_response has no time limit: a regex may backtrack too much on "
                            "the sample)") from None
    except child.ChildFailed as exc:
        raise ExportRefused(f"the check with transformers failed: {exc}") from None


class WorkbenchApp(App):
    TITLE = "workbench"
    CSS_PATH = "workbench.tcss"
    # None of these keys may be one the schema editor (a TextArea) edits with: ctrl+a/e/k/u/w/d,
    # ctrl+x/c/v/z/y, f6/f7 are all taken there, so export is ctrl+o rather than ctrl+e.
    BINDINGS = [
        Binding("ctrl+s", "save", "Save", priority=True),
        Binding("ctrl+o", "export", "Export", priority=True),
        Binding("ctrl+q", "quit", "Quit", priority=True),
        Binding("f1", "help", "Help"),
    ]

    rescued: list[str] = []  # after an unexpected error: where the unsaved edits went

    def __init__(self, document: SchemaDocument, samples: list[Sample], start: int = 0, tools: Any = None,
                 runtime: Any = None, temporary: Path | None = None, start_notice: str | None = None) -> None:
        super().__init__()
        self.document = document
        self.samples = samples
        self.start = start
        # A folder removed when the app ends (open --scan's rows): what is saved into it is said to
        # be temporary when saved, and quitting asks before it goes (kept: what was saved there).
        self.temporary = temporary.resolve() if temporary is not None else None
        self.kept_in_temporary: list[Path] = []
        self.start_notice = start_notice  # said as the app starts (where the samples are)
        self.tools = tools  # tools= for template parses (workbench open --tools)
        self.runtime = release(runtime)  # the release a template runs as (workbench open --runtime; ctrl+r)
        self.client = AnalysisClient()  # the analysis process; the main screen owns it once mounted
        self.client.warm_up()  # now: its start (~0.3 s) overlaps the UI's own

    @property
    def main(self) -> WorkbenchScreen:
        return self.get_screen("main")  # type: ignore[return-value]

    def on_mount(self) -> None:
        self.install_screen(WorkbenchScreen(self.document, self.samples, self.start, self.tools, self.runtime, self.client), "main")
        self.push_screen("main")
        self.set_interval(1.0, self._check_disk)
        if self.start_notice:
            self.notify(self.start_notice, timeout=15)
        # A 2 MB trace is hundreds of thousands of objects; a cycle collection over them stalls
        # the interface for 100-300 ms mid-typing. Collect only when the user pauses instead.
        gc.freeze()
        gc.disable()
        self.set_interval(2.0, self._collect_when_idle)
        # Closing the terminal (SIGHUP) or a `kill` (SIGTERM) would end the process on the spot:
        # the unsaved edits are kept first, and the app closes as after an error.
        self._signals = []
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGHUP, signal.SIGTERM):
            try:
                loop.add_signal_handler(sig, self.stop_on_signal, sig)
                self._signals.append(sig)
            except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or no such signal here
                pass

    def stop_on_signal(self, sig: int) -> None:
        self.rescued = rescue(self.main.unsaved_texts())
        self.exit(return_code=128 + sig)

    def _collect_when_idle(self) -> None:
        if self.main.idle_for() > 1.5:
            gc.collect()

    def on_unmount(self) -> None:
        self.client.close()  # (the main screen closes it too; closing twice is harmless)
        gc.unfreeze()
        gc.enable()
        loop = asyncio.get_running_loop()
        for sig in getattr(self, "_signals", ()):
            loop.remove_signal_handler(sig)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action not in _MAIN_SCREEN_ACTIONS or not self.is_screen_installed("main"):
            return True
        if action == "quit" and isinstance(self.screen, HelpScreen):
            return True  # reading help is no reason to refuse to quit
        return self.screen is self.main

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information", timeout: float | None = None,
               markup: bool = False) -> None:
        """A toast, as plain text: the workbench's toasts name files and quote errors, so they are
        never read as markup (Textual's default) and their control characters are shown as symbols."""
        super().notify(visible(str(message), keep_newlines=True), title=visible(title), severity=severity,
                       timeout=timeout, markup=False)

    def _error(self, message: str) -> None:
        """An error the user must see until they act: in the status line, not only a toast."""
        self.main.status.say(message, "error")
        self.bell()

    # ----- palette and help ---------------------------------------------------------------
    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        if screen is not self.main:
            return  # over a dialog, these would stack a second dialog on it
        main = self.main
        noun = main.noun
        yield SystemCommand(f"Save {noun}", f"Write the {noun} to its file (ctrl+s)", self.action_save)
        yield SystemCommand(f"Save {noun} as…", f"Write the {noun} to a new file", self.action_save_as)
        yield SystemCommand(f"Export {noun}", "As JSON, or into a tokenizer folder (ctrl+o)", self.action_export)
        golden = "<case>.template.expected.json" if noun == "template" else "<case>.expected.json"
        yield SystemCommand(
            "Write result as golden",
            f"Keep this sample's current result as its {golden} (or .expected-error.txt)",
            self.action_write_golden,
        )
        if noun == "schema":
            yield SystemCommand("Migrate to a template…", "Translate this schema into a response_template, list what "
                                "cannot be translated, and compare both on the samples (workbench migrate)", self.action_migrate)
        if noun == "template":
            yield SystemCommand("Streaming view", "Replay the output in chunks, event by event, with what a client suffers (ctrl+t)",
                                main.action_stream)
            yield SystemCommand("Release…", f"Behave as another transformers release, {span(OLDEST, NEWEST)} (now {main.runtime}; ctrl+r)",
                                main.action_pick_release)
            # The palette reads help texts as markup: the file name is escaped.
            yield SystemCommand("Save prompt", f"Write this sample's prompt to {markup_safe(main.prompt.target.name)} (ctrl+s in the prompt pane)",
                                self.action_save_prompt)
            yield SystemCommand("Clear prompt", 'Parse with an empty prompt (prefix=""); ctrl+z in the prompt pane brings it back',
                                lambda: main.set_prompt(""))
            yield SystemCommand("Revert prompt", "Discard the prompt's edits: the one on disk again",
                                lambda: main.set_prompt(main.prompt.saved_text))
            yield SystemCommand("Focus prompt", "Edit the prompt the template parses this sample with (f12)",
                                lambda: main.action_focus_pane("prompt"))
        yield SystemCommand("Toggle soft wrap", "Wrap long schema lines, or scroll them sideways (alt+z)",
                            self.main.editor.action_toggle_wrap)
        yield SystemCommand("Next sample", "Open the next raw output (f8)", lambda: self.main.action_sample(1))
        yield SystemCommand("Previous sample", "Open the previous raw output (shift+f8)", lambda: self.main.action_sample(-1))
        yield SystemCommand("Go to first problem", f"Jump to the {noun}'s first problem (f9)", self.main.action_first_problem)
        yield SystemCommand("Go to line…", f"Move the editor cursor to a line of the {noun} (ctrl+g)", self.main.action_go_to_line)
        yield SystemCommand(f"Find in {noun}…", "Select the next occurrence of a text (ctrl+f)", self.main.action_find)
        yield SystemCommand(f"Reload {noun} from disk", "Discard edits and read the file again", self._ask_reload)
        yield SystemCommand("Help", "Keys and what the panes show (f1)", self.action_help)

    def action_help(self) -> None:
        bindings = self.BINDINGS + WorkbenchScreen.BINDINGS + SchemaEditor.BINDINGS
        keys = [(b.key, b.description) for b in bindings if b.description]
        keys += [("ctrl+s in the prompt pane", "save the prompt as <case>.prompt.txt (templates)"),
                 ("ctrl+p", "command palette (also: save as, write result as golden, clear / revert / save the prompt)"),
                 ("tab / shift+tab", "move between panes"), ("left / right", "move between a dialog's buttons (stopping at the ends)"),
                 ("escape / n", "a dialog's safe answer (focused at first); its other answer: its first letter (q Quit, r Reload) or y")]
        stream = [(b.key, b.description) for b in StreamScreen.BINDINGS if b.description]
        self.push_screen(HelpScreen(keys, stream))

    # ----- never lose work ------------------------------------------------------------------
    def _refusal(self, target: Path) -> str | None:
        """Why ``target`` must never be written over, whatever the user answers."""
        resolved = target.resolve()
        for sample in self.main.samples:
            if sample.path.resolve() == resolved:
                return f"{target} is the open sample {sample.name}: choose another file"
        return None

    def _write_after_asking(self, target: Path, what: str, write: Callable[[Path], None], ask: bool = True) -> None:
        """``write(target)``, unless target is an open sample; over an existing file only once the
        user agrees."""
        refused = self._refusal(target)
        if refused:
            self._error(f"Not {what}: {refused}")
            return
        if ask and target.exists():

            def answered(replace: bool | None) -> None:
                if replace:
                    write(target)

            self.push_screen(ConfirmScreen(f"{target} exists. Replace it?", "Replace"), answered)
            return
        write(target)

    def action_save(self) -> None:
        if self.main.prompt_focused:
            self.action_save_prompt()  # ctrl+s saves what is being edited
            return
        path = self.document.path
        if path is None or not path.parent.is_dir():
            # no file yet, or one in a folder that does not exist yet (a new family's schemas/):
            # the user sees the full path and confirms it, nothing is created unasked
            self.action_save_as()
        else:
            self._write_after_asking(self.document.path, "saved", self._save, ask=False)

    def action_save_as(self) -> None:
        def chosen(name: str | None) -> None:
            if not name:
                return
            target = Path(name).expanduser()
            if target.is_dir():
                self._error(f"Not saved: {target} is a folder; give a file name")
                return
            current = self.document.path
            same = current is not None and target.resolve() == current.resolve()
            if same and not target.parent.is_dir():
                # the user confirmed the proposed file (a new family's schemas/<family>.template.json);
                # any other missing folder stays an error, as a typo's would
                try:
                    target.parent.mkdir(parents=True)
                except OSError as exc:
                    self._error(f"Not saved: could not make {target.parent}: {exc}")
                    return
            self._write_after_asking(target, "saved", self._save, ask=not same)

        noun = self.main.noun
        # the proposal is a full path (the family's file when the document has one): a bare
        # "template.json" would land in whatever folder the app was started from
        proposed = self.document.path or Path.cwd() / f"{noun}.json"
        self.push_screen(PromptScreen(f"Save the {noun} as:", str(proposed.absolute())), chosen)

    def _save(self, path: Path, allow_read_only: bool = False) -> None:
        try:
            written = self.document.save(self.main.editor.text, path, allow_read_only=allow_read_only)
        except ReadOnlyError:
            self._ask_read_only(path, partial(self._save, path, allow_read_only=True))
            return
        except OSError as exc:
            self._error(f"Could not save: {exc}")
            return
        self.main.saved(written)
        for notice in self.document.notices:
            self.notify(visible(notice), timeout=10, markup=False)

    def _ask_read_only(self, path: Path, replace: Callable[[], None]) -> None:
        """A read-only file is replaced only once the user says so (nothing was written yet)."""

        def answered(yes: bool | None) -> None:
            if yes:
                replace()
            else:
                self.main.status.say(f"Not saved: {path} is read-only")

        self.push_screen(ConfirmScreen(f"{path} is read-only. Replace it anyway?", "Replace"), answered)

    def action_save_prompt(self) -> None:
        """Write the open sample's prompt to its <case>.prompt.txt (asking before replacing one)."""
        main = self.main
        if not main.format.reads_prompt:
            self._error(f"No prompt saved: the prompt is for response templates; this is a {main.format}")
            return
        prompt = main.prompt

        def write(target: Path, allow_read_only: bool = False) -> None:
            try:
                written = prompt.save(allow_read_only=allow_read_only)
            except ReadOnlyError:
                self._ask_read_only(target, partial(write, target, allow_read_only=True))
                return
            except OSError as exc:
                self._error(f"Could not save the prompt: {exc}")
                return
            main.prompt_saved(written)
            if self._temporary(written):
                main.status.say(f"Saved the prompt to {written}{self._temporary(written)}", "warning")
            for notice in prompt.notices:
                self.notify(visible(notice), timeout=10, markup=False)

        self._write_after_asking(prompt.target, "saved", write)

    def _handle_exception(self, error: Exception) -> None:
        # Textual's hook for an error nothing handled: the app closes after it, so the unsaved
        # edits are written out now, while the editors still hold them (textual is pinned, and
        # tests/test_tui_rescue.py guards this override).
        try:
            self.rescued = rescue(self.main.unsaved_texts())
        except Exception as exc:  # the rescue must never hide the error that called it
            self.rescued = [f"unsaved edits could not be kept: {exc}"]
        super()._handle_exception(error)

    async def action_quit(self) -> None:
        lost = self.main.unsaved()
        kept = [p for p in dict.fromkeys(self.kept_in_temporary) if p.exists()]
        if not lost and not kept:
            self.exit()
            return

        def answered(discard: bool | None) -> None:
            if discard:
                self.exit()

        what = " and ".join(lost)
        question = f"{what[0].upper()}{what[1:]} {'has' if len(lost) == 1 else 'have'} unsaved edits. " if lost else ""
        if kept:
            names = ", ".join(p.name for p in kept[:3]) + (f" and {len(kept) - 3} more" if len(kept) > 3 else "")
            question += (f"What you saved beside the samples ({names}) is in {self.temporary}, a temporary folder "
                         "removed on quit (workbench open --scan RESULT --samples-dir DIR keeps it). ")
        self.push_screen(ConfirmScreen(question + "Quit and lose them?", "Quit"), answered)

    def _temporary(self, written: Path) -> str:
        """For a file just written into the temporary folder: a note saying so (it is kept in
        ``kept_in_temporary`` for the question on quit); else ""."""
        if self.temporary is None or not written.resolve().is_relative_to(self.temporary):
            return ""
        self.kept_in_temporary.append(written)
        return (" — in a temporary folder, removed on quit (workbench open --scan RESULT --samples-dir DIR keeps "
                "what you save)")

    def _check_disk(self) -> None:
        main = self.main
        sample = main.sample
        prompt = main.prompt
        if main.format.reads_prompt and not prompt.dirty and prompt.changed_on_disk(sample):
            prompt.reread(sample)
            main.prompt_reloaded()
            self.notify(f"The prompt of {sample.name} changed on disk: reloaded")
        try:
            changed = sample.path.stat().st_mtime_ns != sample.stamp
        except OSError:
            changed = False
        if changed:
            try:
                main.reload_sample()
            except InputError as exc:
                self._error(str(exc))
                sample.stamp = sample.path.stat().st_mtime_ns
            else:
                self.notify(f"{sample.name} changed on disk: reloaded")
        # Asked only over the main screen: a dialog the user is answering must not be covered.
        if self.document.changed_on_disk() and self.screen is main:
            self._ask_reload(changed=True)

    def _ask_reload(self, changed: bool = False) -> None:
        if self.document.path is None:
            return
        name = self.document.name
        question = f"{name} changed on disk. " if changed else ""
        question += "Reload it and discard your edits?" if self.main.dirty else "Reload it?"

        def answered(reload: bool | None) -> None:
            if reload:
                self.main.reload_schema()
            else:
                self.document.keep_disk_version_pending()

        self.push_screen(ConfirmScreen(question, "Reload", "Keep mine"), answered)

    # ----- goldens ---------------------------------------------------------------------------
    def action_write_golden(self) -> None:
        """Keep the current sample's result as its golden, so the sample bar and `workbench check`
        compare later schemas with it."""
        main = self.main
        sample, analysis = main.sample, main.analysis
        if analysis is not None and analysis.hung:
            self._error(f"No golden written: {analysis.hung}")
            return
        if analysis is None or not analysis.usable:
            self._error(f"No golden written: the {main.noun} has errors, so there is no result to keep")
            return
        stale_prompt = analysis.shows_prompt and analysis.prompt != main.prompt.text
        if analysis.schema_text != main.editor.text or analysis.output_text != sample.text or stale_prompt:
            self._error("No golden written: the result is not up to date yet; try again in a moment")
            return
        try:
            golden = golden_of(sample, analysis)
        except NoGolden as exc:
            self._error(f"No golden written: {exc}")
            return
        existing = golden.existing()
        if golden.already_written():
            main.status.say(f"{golden.target.name} already holds this result")
        elif not existing:
            self._write_golden(golden)
        else:
            names = " and ".join(p.name for p in existing)
            them = "them" if len(existing) > 1 else "it"
            question = f"{sample.name} already has {names}. Replace {them} with {golden.target.name}?"
            self.push_screen(ConfirmScreen(question, "Replace"), lambda yes: yes and self._write_golden(golden))

    def _write_golden(self, golden: Golden) -> None:
        try:
            said = golden.write()
        except OSError as exc:
            self._error(f"Could not write the golden: {exc}")
            return
        said += self._temporary(golden.target)
        self.main.reparse(notice=said)  # the sample bar judges against the new golden

    # ----- migrate ---------------------------------------------------------------------------
    def action_migrate(self) -> None:
        """``workbench migrate`` on the editor's schema: the template goes beside the schema as
        ``<name>.template.json`` (asked for when the schema has no file), replacing one only once
        the user agrees; the report follows, with the template a button away."""
        main = self.main
        if not main.format.migrates:
            self._error("Nothing to migrate: this is already a response template")
            return
        try:
            schema = schema_to_migrate(main.editor.text)
        except InputError as exc:
            self._error(f"Not migrated: {exc}")
            return
        cases = cases_of(main.samples, {key: p.text for key, p in main.prompts.items()})
        anchor = anchor_from(cases)
        if anchor is None:
            def given(answer: str | None) -> None:
                if answer:
                    self._migrate_to_target(schema, cases, unescape(answer), "you")

            self.push_screen(PromptScreen("Where does the assistant's message begin in the prompt (the start "
                                          "anchor; \\n for a line break)?", "<|im_start|>assistant\\n"), given)
            return
        self._migrate_to_target(schema, cases, anchor, "the samples' prompts")

    def _migrate_to_target(self, schema: Any, cases: list, anchor: Any, source: str) -> None:
        def start(target: Path) -> None:
            self.push_screen(MigrationScreen(schema, cases, anchor, source, target), partial(self._open_migrated, target))

        target_format = other_format(self.main.format)
        path = self.document.path
        if path is not None:
            # schemas/<family>.json → schemas/<family>.template.json: each format's own suffix
            self._write_after_asking(path.with_name(path.name.removesuffix(self.main.format.suffix) + target_format.suffix),
                                     "written", start)
            return

        def chosen(name: str | None) -> None:
            if name:
                self._write_after_asking(Path(name).expanduser(), "written", start)

        self.push_screen(PromptScreen(f"Write the {target_format.noun} to:", f"{target_format.name}.json"), chosen)

    def _open_migrated(self, target: Path, wanted: bool | None) -> None:
        if not wanted:
            return

        def switch(yes: bool | None = True) -> None:
            if yes:
                self.document = SchemaDocument.open(target)
                self.main.open_document(self.document)

        if self.main.dirty:
            self.push_screen(ConfirmScreen("The schema has unsaved edits. Open the template and lose them?", "Open"), switch)
        else:
            switch()

    # ----- export ----------------------------------------------------------------------------
    def action_export(self) -> None:
        def chosen(answer: str | None) -> None:
            if answer:
                target = Path(answer).expanduser()
                # A folder is a tokenizer folder: only its config's response_schema changes, which
                # is what exporting there means, so only a file target asks before replacing.
                self._write_after_asking(target, "exported", self._export, ask=not target.is_dir())

        name = f"{self.main.format}.json"
        self.push_screen(PromptScreen("Export to (a .json file, or a tokenizer folder):", name), chosen)

    def _export(self, target: Path) -> None:
        text, sample = self.main.editor.text, self.main.sample.text
        # The command that checks every release range reads the file: named only when it holds this text.
        source = self.main.document.path if not self.main.dirty else None
        self.run_worker(partial(_export_job, text, target, sample, source), name="export", group="export", thread=True,
                        exclusive=True, exit_on_error=False)

    def on_worker_state_changed(self, event) -> None:
        worker = event.worker
        # event.state, not worker.state: by the time the pending and running messages arrive the
        # worker may have finished, and each would report the result again.
        if worker.group != "export" or event.state not in (WorkerState.SUCCESS, WorkerState.ERROR):
            return
        if worker.is_cancelled:
            return  # the app is quitting: its check was killed, nothing was written
        if event.state == WorkerState.ERROR:
            self._error(f"Export refused, nothing written: {worker.error}")
            self.notify(f"Export refused, nothing written: {worker.error}", severity="error", timeout=10)
            return
        lines: list[str] = [line for line in worker.result if line]
        failed = next((line for line in lines if line.startswith("VERIFY FAILED")), None)
        if failed:
            self._error(f"{lines[0]}; {failed}")
        else:
            self.main.status.say(lines[0])
        self.notify("\n".join(lines), severity="error" if failed else "information", timeout=12)

