"""One credential in a provider's key section: :class:`KeyRow` (masked input, source, Delete).

The row never shows or reads a stored value: it shows where the value comes from
(:class:`~websearch_tui.secrets.credentials.CredentialSource`) and holds only the text typed and not yet
stored. Text that could not be stored is refused at the field with the key store's reason.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.validation import ValidationResult, Validator
from textual.widgets import Button, Input, Static

from websearch_tui.core.specs import CredentialSpec, ProviderSpec
from websearch_tui.secrets.credentials import CredentialSource, credential_problem
from websearch_tui.tui.common.safe import plain
from websearch_tui.tui.common.safe_input import SafeInput
from websearch_tui.tui.settings.setting_row import first_failure


class CredentialValidator(Validator):
    """Refuses credential text that could not be stored (control characters, ``:`` in a username)."""

    def __init__(self, credential: CredentialSpec) -> None:
        super().__init__()
        self.credential = credential

    def validate(self, value: str) -> ValidationResult:
        """Failure with the reason from :func:`credential_problem`."""
        problem = credential_problem(self.credential, value)
        return self.failure(problem) if problem else self.success()


class KeyRow(Vertical):
    """One credential: a masked Input for a new value, where the stored one comes from, a Delete button.

    ``typed`` is the text typed and not yet stored; the stored value is never read into the widget.
    """

    DEFAULT_CSS = """
    KeyRow { height: auto; margin: 0 0 1 0; }
    KeyRow > Horizontal { height: auto; }
    KeyRow .setting-label { width: 22; padding: 0 1 0 0; }
    KeyRow Input { width: 1fr; max-width: 60; min-width: 16; }
    KeyRow Button { margin: 0 0 0 1; min-width: 10; }
    KeyRow .key-source { padding: 0 0 0 22; height: auto; color: $text-muted; }
    KeyRow.-invalid .key-source { color: $text-error; }
    KeyRow .key-note { padding: 0 0 0 22; height: auto; color: $text-warning; }
    """

    class Typed(Message):
        """The typed text changed; ``problem`` says why it cannot be stored (``None``: it can)."""

        def __init__(self, row: KeyRow, problem: str | None) -> None:
            super().__init__()
            self.row = row
            self.problem = problem

        @property
        def control(self) -> KeyRow:
            """The row that changed."""
            return self.row

    def __init__(self, spec: ProviderSpec, credential: CredentialSpec, typed: str = "") -> None:
        super().__init__(id=f"key-{spec.id}-{credential.name}")
        self.spec = spec
        self.credential = credential
        self._typed = typed
        self.source: CredentialSource | None = None

    def compose(self) -> ComposeResult:
        """Label, masked input, Delete button; then the source line and the environment note."""
        secret = self.credential.secret
        with Horizontal():
            yield Static(plain(self.credential.label), classes="setting-label")
            yield SafeInput(
                self._typed,
                placeholder="paste a new key" if secret else "type a new value",
                password=secret,
                validators=[CredentialValidator(self.credential)],
                valid_empty=True,
                select_on_focus=False,  # Tab into a typed key puts the cursor at its end, selecting nothing
                compact=True,
                classes="key-input",
            )
            yield Button("Delete", variant="error", compact=True, classes="key-delete", disabled=True)
        yield Static(plain("Source: checking…"), classes="key-source")
        yield Static(classes="key-note").set_styles(display="none")

    @property
    def input(self) -> Input:
        """The masked input."""
        return self.query_one(".key-input", Input)

    @property
    def typed(self) -> str:
        """The typed value, stripped ("" when nothing was typed)."""
        return self.input.value.strip()

    @property
    def from_env(self) -> bool:
        """True when the environment provides this credential (the screen cannot change it)."""
        return self.source is not None and self.source.where == "env"

    @property
    def stored(self) -> bool:
        """True when a value is stored in the keyring or the key file."""
        return self.source is not None and self.source.where in ("keyring", "file")

    def set_source(self, source: CredentialSource | None) -> None:
        """Show where the credential comes from (``None``: not set).

        An environment variable wins over stored keys, so the input and Delete are disabled then,
        with a note saying why.
        """
        self.source = source
        described = source.describe() if source is not None else "not set"
        self.query_one(".key-source", Static).update(plain(f"Source: {described}"))
        env = self.from_env
        self.input.disabled = env
        self.input.placeholder = f"set by {described}" if env else self.input.placeholder
        self.query_one(".key-delete", Button).disabled = env or not self.stored
        note = (
            f"The environment variable {source.env_var} takes precedence over stored keys, so this key cannot be "
            "changed here. Unset it in your shell to manage the key from this screen."
            if source is not None and env
            else ""
        )
        note_line = self.query_one(".key-note", Static)
        note_line.update(plain(note))
        note_line.display = bool(note)

    def clear(self) -> None:
        """Forget the typed value (after it was stored)."""
        self.input.value = ""

    @on(Input.Changed)
    def _on_input(self, event: Input.Changed) -> None:
        event.stop()
        problem = first_failure(event.validation_result)
        self.set_class(problem is not None, "-invalid")
        if problem:
            self.query_one(".key-source", Static).update(plain(problem))
        elif self.source is not None:
            self.set_source(self.source)
        self.post_message(self.Typed(self, problem))
