"""A link the app could not hand to a browser or a clipboard, shown so it can be selected and copied by hand."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static, TextArea

from websearch_tui.tui.common.safe import plain


class LinkDialog(ModalScreen[None]):
    """``reason`` above the link (an http(s) URL, already checked) in a read-only text area where
    it can be selected; Escape or Close dismisses it."""

    BINDINGS = [Binding("escape", "dismiss", "Close", id="link-close")]

    DEFAULT_CSS = """
    LinkDialog { align: center middle; }
    LinkDialog > Vertical {
        width: 90; max-width: 95%; height: auto; border: thick $accent 70%; background: $surface; padding: 1 2;
    }
    LinkDialog .dialog-body { margin: 0 0 1 0; height: auto; }
    LinkDialog TextArea { height: 4; margin: 0 0 1 0; }
    LinkDialog Horizontal { height: auto; align: right middle; }
    """

    def __init__(self, reason: str, url: str) -> None:
        super().__init__(id="link-dialog")
        self.reason = reason
        self.url = url

    def compose(self) -> ComposeResult:
        """The reason, the selectable link, a Close button."""
        with Vertical():
            yield Static(plain(self.reason), classes="dialog-body")
            yield TextArea(self.url, read_only=True, soft_wrap=True, show_line_numbers=False, id="link-text")
            with Horizontal():
                yield Button("Close", variant="primary", id="link-close-button")

    def on_mount(self) -> None:
        """Select the whole link, ready to copy with the terminal's own selection or shortcut."""
        area = self.query_one(TextArea)
        area.focus()
        area.select_all()

    @on(Button.Pressed, "#link-close-button")
    def _close(self) -> None:
        self.dismiss(None)
