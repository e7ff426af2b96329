"""Modal questions: the settings screen's (unsaved changes, a file changed on disk, the unencrypted
key file, deleting a stored key) and the search screen's (a search over the budget).

:class:`ChoiceDialog` asks one question with a few buttons and dismisses with the chosen button's
value (``None`` on Escape). The builders below word the questions the screens and forms ask.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from websearch_tui.tui.common.safe import plain

Choice = tuple[str, str, str]
"""``(button label, result value, button variant)``; variants: default, primary, success, warning, error."""


class ChoiceDialog(ModalScreen[str | None]):
    """A question with buttons; dismisses with the chosen value, or ``None`` on Escape.

    Args:
        title: one short line.
        body: plain text (never markup), may span lines.
        choices: the buttons; the primary one (else the first) is focused.
    """

    BINDINGS = [Binding("escape", "dismiss_none", "Cancel", id="dialog-cancel")]

    DEFAULT_CSS = """
    ChoiceDialog { align: center middle; }
    ChoiceDialog > Vertical {
        width: 76; max-width: 95%; height: auto; max-height: 90%;
        border: thick $warning 70%; background: $surface; padding: 1 2;
    }
    ChoiceDialog .dialog-title { text-style: bold; margin: 0 0 1 0; }
    ChoiceDialog .dialog-body { margin: 0 0 1 0; height: auto; }
    ChoiceDialog Horizontal { height: auto; align: right middle; }
    ChoiceDialog Button { margin: 0 0 0 1; }
    """

    def __init__(self, title: str, body: str, choices: Sequence[Choice], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.title_text = title
        self.body = body
        self.choices = list(choices)

    def compose(self) -> ComposeResult:
        """Title, body and the buttons."""
        with Vertical():
            yield Static(plain(self.title_text), classes="dialog-title")
            yield Static(plain(self.body), classes="dialog-body")
            with Horizontal():
                for label, value, variant in self.choices:
                    yield Button(label, variant=variant, id=f"choice-{value}")  # type: ignore[arg-type]

    def on_mount(self) -> None:
        """Focus the recommended (primary) button, else the first one."""
        buttons = list(self.query(Button))
        next((button for button in buttons if button.variant == "primary"), buttons[0]).focus()

    @on(Button.Pressed)
    def _chosen(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss((event.button.id or "").removeprefix("choice-"))

    def action_dismiss_none(self) -> None:
        """Escape: no choice."""
        self.dismiss(None)


def key_file_dialog(path: Path, explanation: str, what: str) -> ChoiceDialog:
    """Ask before ``what`` (``"the API key of Brave Search"``) goes to the unencrypted key file.

    Asked for every key stored there (consent never carries over). Results ``"file"`` or ``"cancel"``.
    """
    body = (
        f"{explanation}\n\nTo store: {what}.\nIt would be written to\n{path}\n"
        "in plain text, with permissions that let only your user read it (0600). "
        "Anyone with access to your account or your backups can read it."
    )
    return ChoiceDialog(
        "Store keys in an unencrypted file readable only by you?",
        body,
        [("Cancel", "cancel", "default"), ("Store in the file", "file", "warning")],
        id="key-file-dialog",
    )


def delete_key_dialog(labels: str, provider: str) -> ChoiceDialog:
    """Ask before the stored ``labels`` (``"Username and Password"``) of ``provider`` (its label) are
    deleted; results ``"delete"`` or ``"cancel"``."""
    return ChoiceDialog(
        f"Delete the stored {labels} of {provider}?",
        "It is removed from the OS keyring and the key file. Environment variables are not touched.",
        [("Cancel", "cancel", "default"), ("Delete", "delete", "error")],
        id="delete-dialog",
    )


def unsaved_dialog(what: Sequence[str], *, quitting: bool = False) -> ChoiceDialog:
    """Ask what to do with unsaved changes when closing the screen (``quitting``: the app);
    results ``"save"``, ``"discard"`` or ``"stay"``."""
    body = "Not saved yet:\n" + "\n".join(f"• {item}" for item in what)
    leave = "quit" if quitting else "close"
    return ChoiceDialog(
        "Quit with unsaved settings?" if quitting else "Close settings with unsaved changes?",
        body,
        [
            ("Keep editing", "stay", "default"),
            (f"Discard and {leave}" if quitting else "Discard", "discard", "error"),
            (f"Save and {leave}", "save", "primary"),
        ],
        id="unsaved-dialog",
    )


def changed_on_disk_dialog(path: Path) -> ChoiceDialog:
    """Ask how to save over a file somebody else changed; results ``"merge"``, ``"overwrite"`` or ``"cancel"``."""
    body = (
        f"{path} changed on disk after this screen opened it, and nothing was written.\n\n"
        "Reload and keep both: read the file again and apply your changes on top of it (recommended).\n"
        "Overwrite: replace the file with this screen's version; the other change is lost."
    )
    return ChoiceDialog(
        "The config file changed on disk",
        body,
        [
            ("Cancel", "cancel", "default"),
            ("Overwrite", "overwrite", "error"),
            ("Reload and keep both", "merge", "primary"),
        ],
        id="changed-dialog",
    )


def budget_dialog(message: str) -> ChoiceDialog:
    """Ask before a search that would pass a ``[budget]`` limit; ``message`` says which and by how much
    (the session's :meth:`BudgetOverrun.message <websearch_tui.session.budget.BudgetOverrun.message>`).
    Results ``"search"`` or ``"cancel"``; Cancel is focused, so Enter does not spend by accident."""
    return ChoiceDialog(
        "This search would go over your budget",
        message,
        [("Cancel", "cancel", "default"), ("Search anyway", "search", "warning")],
        id="budget-dialog",
    )
