"""The workbench app: global keys, saving, quitting, exporting; the panes live in WorkbenchScreen."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Iterable

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from ..document import SchemaDocument
from ..engine.export import VERSION_NOTE, ExportRefused, export_schema, verify_tokenizer_dir
from ..files import InputError, parse_schema_text
from ..samples import Sample
from .screens.confirm import ConfirmScreen
from .screens.help import HelpScreen
from .screens.main import WorkbenchScreen
from .screens.prompt import PromptScreen


class WorkbenchApp(App):
    TITLE = "workbench"
    CSS_PATH = "workbench.tcss"
    BINDINGS = [
        Binding("ctrl+s", "save", "Save", priority=True),
        Binding("ctrl+e", "export", "Export", priority=True),
        Binding("ctrl+q", "quit", "Quit", priority=True),
        Binding("f1", "help", "Help"),
    ]

    def __init__(self, document: SchemaDocument, samples: list[Sample], start: int = 0) -> None:
        super().__init__()
        self.document = document
        self.samples = samples
        self.start = start

    @property
    def main(self) -> WorkbenchScreen:
        return self.get_screen("main")  # type: ignore[return-value]

    def on_mount(self) -> None:
        self.install_screen(WorkbenchScreen(self.document, self.samples, self.start), "main")
        self.push_screen("main")
        self.set_interval(1.0, self._check_disk)
        self.run_worker(_warm_regex_tables, group="warm", thread=True, exit_on_error=False)
        # A 2 MB trace is hundreds of thousands of objects; a cycle collection over them stalls
        # the interface for 100-300 ms mid-typing. Collect only when the user pauses instead.
        gc.freeze()
        gc.disable()
        self.set_interval(2.0, self._collect_when_idle)

    def _collect_when_idle(self) -> None:
        if self.main.idle_for() > 1.5:
            gc.collect()

    def on_unmount(self) -> None:
        gc.unfreeze()
        gc.enable()

    # ----- palette and help ---------------------------------------------------------------
    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("Save schema", "Write the schema to its file (ctrl+s)", self.action_save)
        yield SystemCommand("Save schema as…", "Write the schema to a new file", self.action_save_as)
        yield SystemCommand("Export schema", "As JSON, or into a tokenizer folder (ctrl+e)", self.action_export)
        yield SystemCommand("Next sample", "Open the next raw output (f8)", lambda: self.main.action_sample(1))
        yield SystemCommand("Previous sample", "Open the previous raw output (shift+f8)", lambda: self.main.action_sample(-1))
        yield SystemCommand("Go to first problem", "Jump to the schema's first problem (f9)", self.main.action_first_problem)
        yield SystemCommand("Reload schema from disk", "Discard edits and read the file again", self._ask_reload)
        yield SystemCommand("Help", "Keys and what the panes show (f1)", self.action_help)

    def action_help(self) -> None:
        keys = [(b.key, b.description) for b in self.BINDINGS + WorkbenchScreen.BINDINGS if b.description]
        keys += [("ctrl+p", "command palette"), ("tab / shift+tab", "move between panes")]
        self.push_screen(HelpScreen(keys))

    # ----- never lose work ------------------------------------------------------------------
    def action_save(self) -> None:
        if self.document.path is None:
            self.action_save_as()
        else:
            self._save(None)

    def action_save_as(self) -> None:
        def chosen(name: str | None) -> None:
            if name:
                self._save(Path(name).expanduser())

        self.push_screen(PromptScreen("Save the schema as:", "schema.json"), chosen)

    def _save(self, path: Path | None) -> None:
        try:
            written = self.document.save(self.main.editor.text, path)
        except OSError as exc:
            self.notify(f"Could not save: {exc}", severity="error")
            return
        self.main.saved(written)

    async def action_quit(self) -> None:
        if not self.main.dirty:
            self.exit()
            return

        def answered(discard: bool | None) -> None:
            if discard:
                self.exit()

        self.push_screen(ConfirmScreen("The schema has unsaved edits. Quit and lose them?", "Quit"), answered)

    def _check_disk(self) -> None:
        main = self.main
        sample = main.sample
        try:
            changed = sample.path.stat().st_mtime_ns != sample.stamp
        except OSError:
            changed = False
        if changed:
            try:
                main.reload_sample()
            except InputError as exc:
                self.notify(str(exc), severity="error")
                sample.stamp = sample.path.stat().st_mtime_ns
            else:
                self.notify(f"{sample.name} changed on disk: reloaded")
        if self.document.changed_on_disk() and not isinstance(self.screen, ConfirmScreen):
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

    # ----- export ----------------------------------------------------------------------------
    def action_export(self) -> None:
        def chosen(target: str | None) -> None:
            if target:
                self._export(Path(target).expanduser())

        self.push_screen(PromptScreen("Export to (a .json file, or a tokenizer folder):", "response_schema.json"), chosen)

    def _export(self, target: Path) -> None:
        text, sample = self.main.editor.text, self.main.sample.text

        def run() -> list[str]:
            try:
                schema = parse_schema_text(text, "schema")
            except InputError as exc:
                raise ExportRefused(str(exc)) from None
            if target.is_dir():
                report = export_schema(schema, tokenizer_dir=target)
                lines = [f"Exported into {report.written[0]}"]
                try:
                    result = verify_tokenizer_dir(target, schema, sample)
                    lines += result.lines if result.ok else ["VERIFY FAILED: " + "; ".join(result.lines)]
                except ExportRefused as exc:
                    lines.append(f"not verified: {exc}")
            else:
                report = export_schema(schema, out=target)
                lines = [f"Exported to {report.written[0]}"]
            return lines + [f"{len(report.warnings)} warning(s)" if report.warnings else "", VERSION_NOTE]

        self.run_worker(run, name="export", group="export", thread=True, exclusive=True, exit_on_error=False)

    def on_worker_state_changed(self, event) -> None:
        worker = event.worker
        if worker.group != "export" or not worker.is_finished:
            return
        if worker.error is not None:
            self.notify(f"Export refused, nothing written: {worker.error}", severity="error", timeout=10)
        elif worker.result is not None:
            failed = any(line.startswith("VERIFY FAILED") for line in worker.result)
            self.notify("\n".join(line for line in worker.result if line), severity="error" if failed else "information", timeout=12)


def _warm_regex_tables() -> None:
    """Build the regex backend's character tables before the first parse needs them."""
    from ..engine.regexes import compile_regex_module

    compile_regex_module(r"(\s\S\d\D\w\W\b\B)")
