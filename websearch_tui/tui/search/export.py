"""Exporting what the search screen shows: a Markdown report or the JSON document of ``search --format
json``, written to a path the user confirms by the rule of ``search -o``
(:func:`~websearch_tui.core.files.write_output`: a file is replaced atomically, through its symbolic
links, so a link stays and its target gets the report; a FIFO or a device is written in place).

:class:`ExportDialog` asks for the format and the path (default: in the current directory, named
after the query and the search's time, see :func:`default_export_path`); it refuses to replace an
existing file until Save is pressed a second time, and dismisses with the path written or ``None``.
A failed write is shown in the dialog, which stays open (nothing typed is lost).
"""

from __future__ import annotations

import asyncio
import re
from datetime import datetime
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Select, Static

from websearch_tui.core.files import special_file, write_output
from websearch_tui.core.results import SearchResult
from websearch_tui.core.text import single_line
from websearch_tui.formats.json_document import to_json
from websearch_tui.formats.markdown import to_markdown
from websearch_tui.tui.common.safe_input import SafeInput
from websearch_tui.tui.common.screen import AppModalScreen

EXPORT_FORMATS = {"markdown": ".md", "json": ".json"}
"""Export format -> file suffix."""
_UNSAFE = re.compile(r"[^\w]+")


def export_text(result: SearchResult, export_format: str) -> str:
    """The file's text: :func:`~websearch_tui.formats.markdown.to_markdown` or the JSON document exactly as
    ``search --format json`` prints it (with its final newline)."""
    return to_markdown(result) if export_format == "markdown" else to_json(result) + "\n"


def default_export_path(query: str, started_at: datetime, export_format: str, folder: Path | None = None) -> Path:
    """``<folder or cwd>/<query words, joined by "-", at most 50 characters>-<YYYYmmdd-HHMMSS local>.<suffix>``
    (``search`` when the query has no letter or digit)."""
    stem = _UNSAFE.sub("-", query.lower()).strip("-_")[:50].strip("-_") or "search"
    stamp = started_at.astimezone().strftime("%Y%m%d-%H%M%S")
    return (folder or Path.cwd()) / f"{stem}-{stamp}{EXPORT_FORMATS[export_format]}"


class ExportDialog(AppModalScreen[Path | None]):
    """Choose the format and confirm the path; Save writes the file (:func:`~websearch_tui.core.files.write_output`).

    Args:
        result: what to export.
        started_at: when that search started (for the default file name).
    """

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="export-cancel")]

    DEFAULT_CSS = """
    ExportDialog { align: center middle; }
    ExportDialog > Vertical {
        width: 90; max-width: 95%; height: auto; border: thick $primary 70%; background: $surface; padding: 1 2;
    }
    ExportDialog .dialog-title { text-style: bold; margin: 0 0 1 0; }
    ExportDialog #export-message { height: auto; margin: 1 0 0 0; }
    ExportDialog #export-message.-error { color: $text-error; }
    ExportDialog Horizontal { height: auto; align: right middle; margin: 1 0 0 0; }
    ExportDialog Button { margin: 0 0 0 1; }
    """

    def __init__(self, result: SearchResult, started_at: datetime) -> None:
        super().__init__()
        self.result = result
        self.started_at = started_at
        self._default = default_export_path(result.request.query, started_at, "markdown")
        self._confirmed: Path | None = None

    def compose(self) -> ComposeResult:
        """Title, format, path, a message line and the buttons."""
        with Vertical():
            yield Static("Export the results on screen", classes="dialog-title", markup=False)
            yield Select(
                [("Markdown report", "markdown"), ("JSON (as search --format json)", "json")],
                value="markdown",
                allow_blank=False,
                id="export-format",
            )
            yield SafeInput(str(self._default), id="export-path")
            yield Static("Enter or Save writes the file; Esc cancels.", id="export-message", markup=False)
            with Horizontal():
                yield Button("Cancel", id="export-cancel-button")
                yield Button("Save", variant="primary", id="export-save")

    def on_mount(self) -> None:
        """Focus the path, its end."""
        self.path_input.focus()
        self.path_input.cursor_position = len(self.path_input.value)

    @property
    def path_input(self) -> Input:
        """The path box."""
        return self.query_one("#export-path", Input)

    @property
    def export_format(self) -> str:
        """``"markdown"`` or ``"json"``."""
        value = self.query_one("#export-format", Select).value
        return value if isinstance(value, str) else "markdown"

    def say(self, text: str, *, error: bool = False) -> None:
        """Show one plain line under the path (:func:`~websearch_tui.core.text.single_line`:
        a path may hold escape sequences, e.g. from the current directory's name)."""
        message = self.query_one("#export-message", Static)
        message.update(single_line(text))
        message.set_class(error, "-error")

    @on(Select.Changed, "#export-format")
    def _on_format(self) -> None:
        """A path the user has not edited follows the format's suffix."""
        if self.path_input.value == str(self._default):
            self._default = default_export_path(self.result.request.query, self.started_at, self.export_format)
            self.path_input.value = str(self._default)
        self._confirmed = None

    @on(Input.Changed, "#export-path")
    def _on_path(self) -> None:
        self._confirmed = None

    @on(Input.Submitted, "#export-path")
    @on(Button.Pressed, "#export-save")
    def action_save(self) -> None:
        """Write the file; an existing one is replaced only when Save is pressed again."""
        typed = self.path_input.value.strip()
        if not typed:
            self.say("Type the path of the file to write.", error=True)
            return
        path = Path(typed).expanduser()
        path = path if path.is_absolute() else Path.cwd() / path
        if path.is_dir():
            self.say(f"{path} is a folder; add a file name.", error=True)
            return
        if path.exists() and not special_file(path) and self._confirmed != path:
            self._confirmed = path
            self.say(f"{path.name} exists. Press Save again to replace it.", error=True)
            return
        self._write(path)

    @work(exclusive=True, group="export", exit_on_error=False, description="export")
    async def _write(self, path: Path) -> None:
        data = export_text(self.result, self.export_format).encode("utf-8")
        try:
            await asyncio.to_thread(write_output, path, data, wait_for_reader=False)
        except OSError as exc:
            self.say(f"Cannot write {path}: {exc.strerror or exc}. Nothing was written.", error=True)
            return
        self.dismiss(path)

    @on(Button.Pressed, "#export-cancel-button")
    def action_cancel(self) -> None:
        """Close without writing."""
        self.dismiss(None)
