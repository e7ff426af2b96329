"""The key section of a provider form: :class:`KeySection` and the key actions.

It shows the provider's credentials (one :class:`~websearch_tui.tui.settings.key_row.KeyRow` each,
with where the stored value comes from), a Save key button and one line saying what the last key
action did; a provider that uses an existing login shows that login's state instead, a keyless one
says it needs no key.

Save key (and Enter in a key field) stores the typed keys with
:meth:`KeyStore.store <websearch_tui.secrets.credentials.KeyStore.store>`, whose result says what was
stored where or why not. Without a usable OS keyring the section asks before the unencrypted key
file is written, once per store (consent never carries over). Delete asks, then removes the stored
key (both halves of a Basic pair). After a key was stored or deleted the sources are read again and
:class:`KeySection.KeysChanged` goes to the screen. Every key store call runs in a thread worker of
this section; a worker that fails goes to the app's one funnel (:class:`ReportsFailedWorkers`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Button, Input, Static

from websearch_tui.core.specs import BASIC_AUTH, ProviderSpec
from websearch_tui.secrets.credentials import (
    KeyStore,
    KeyStoreError,
    StoreResult,
    credential_problem,
    key_file_path,
    login_state,
)
from websearch_tui.tui.common.dialogs import delete_key_dialog, key_file_dialog
from websearch_tui.tui.common.safe import plain
from websearch_tui.tui.common.workers import ReportsFailedWorkers
from websearch_tui.tui.settings.key_row import KeyRow
from websearch_tui.tui.settings.setting_row import section

DECLINED = "Not stored: there is no OS keyring, and the key file was declined."
PLACES = {"keyring": "the OS keyring", "file": "the key file"}
"""How the outcome lines name where a key is stored."""


class KeySection(Vertical, ReportsFailedWorkers):
    """The Key / Keys / Login section of one provider's form.

    Args:
        spec: the provider.
        key_store: the app's key store (``session.key_store``).
        typed: text typed earlier for its credentials and not stored, by credential name.
        key_note: a warning shown under the keys (why keys cannot go to an OS keyring); "" for none.
    """

    DEFAULT_CSS = """
    KeySection { height: auto; margin: 1 0; }
    KeySection > .form-section { margin: 0; }
    KeySection > KeyRow, KeySection > .form-actions, KeySection > .keys-status,
    KeySection > .key-store-note, KeySection > .login-state {
        margin: 1 0 0 0;
    }
    KeySection > .form-actions, KeySection > .keys-status { height: auto; }
    KeySection > .key-store-note { height: auto; color: $text-warning; }
    """
    """Spacing as if the section's children were the form's own: the section takes the outer
    margins and its children only top margins (a container does not collapse its children's)."""

    class KeysChanged(Message):
        """A key of ``provider_id`` was stored or deleted (the provider's readiness may have changed).

        Posted to the screen itself rather than bubbled widget by widget: a Save and close removes
        the screen right after storing, and a message still on its way up would be dropped.
        """

        def __init__(self, provider_id: str) -> None:
            super().__init__()
            self.provider_id = provider_id

    def __init__(self, spec: ProviderSpec, key_store: KeyStore, typed: Mapping[str, str], key_note: str) -> None:
        super().__init__()
        self.spec = spec
        self.key_store = key_store
        self._typed = dict(typed)
        self.key_note = key_note

    def compose(self) -> ComposeResult:
        """The heading, then the login state, "No key needed." or the key rows with Save key."""
        spec = self.spec
        if spec.key_need == "login":
            yield section("Login")
            yield Static(plain("checking…"), classes="login-state")
            return
        if spec.key_need == "none":
            yield section("Key")
            yield Static(plain("No key needed."), classes="keys-status")
            return
        yield section("Keys" if len(spec.credentials) > 1 else "Key")
        for credential in spec.credentials:
            yield KeyRow(spec, credential, self._typed.get(credential.name, ""))
        with Horizontal(classes="form-actions"):
            yield Button("Save key", id=f"save-key-{spec.id}", classes="save-key", compact=True)
        yield Static(classes="keys-status").set_styles(display="none")
        if self.key_note:
            yield Static(plain(self.key_note), classes="key-store-note")

    def on_mount(self) -> None:
        """Read where the keys come from (or the login's state)."""
        if self.spec.key_need != "none":
            self.load_sources()

    @property
    def rows(self) -> list[KeyRow]:
        """The credential rows (none for keyless and login providers)."""
        return list(self.query(KeyRow))

    def typed(self) -> dict[str, str]:
        """The text typed and not stored yet, stripped, by credential name (empty fields left out)."""
        return {row.credential.name: row.typed for row in self.rows if row.typed}

    def test_values(self) -> dict[str, str]:
        """The typed values a Test may use: those the environment does not override and that could
        be stored (the Test never sends what Save key would refuse)."""
        return {
            row.credential.name: row.typed
            for row in self.rows
            if row.typed and not row.from_env and credential_problem(row.credential, row.typed) is None
        }

    def show_status(self, text: str, *, error: bool = False) -> None:
        """A one-line outcome of the last key action, under the Save key button."""
        status = self.query_one(".keys-status", Static)
        status.update(plain(text, "$text-error" if error else "$text-success"))
        status.display = True

    @work(group="settings-sources", exclusive=True, exit_on_error=False, description="key sources")
    async def load_sources(self) -> None:
        """Show where each credential comes from, or the state of the login the provider uses.

        Save key is disabled while the environment provides every credential: a stored key would
        not be used (each row's note says why and what to do). When that disables the field holding
        the focus (Enter on the provider's entry focuses its first field before its sources are
        known), the focus moves on to the form's first field still enabled."""
        if self.spec.key_need == "login":
            state = await asyncio.to_thread(login_state, self.spec)
            text = ("Logged in. " if state.ready else "Not logged in. ") + str(state.reason or "")
            self.query_one(".login-state", Static).update(plain(text))
            return
        sources = {source.name: source for source in await asyncio.to_thread(self.key_store.sources, self.spec)}
        focused = self.screen.focused
        had_focus = focused is not None and self in focused.ancestors
        for row in self.rows:
            row.set_source(sources.get(row.credential.name))
        self.query_one(".save-key", Button).disabled = all(row.from_env for row in self.rows)
        if had_focus and self.screen.focused is not focused:  # the focused field was disabled
            self._focus_next_field()

    def _focus_next_field(self) -> None:
        """Focus the first enabled field of the form this section is in (after a field was disabled)."""
        form = self.parent if isinstance(self.parent, Widget) else self
        target = next((widget for widget in form.query("*") if widget.focusable), None)
        if target is not None:
            target.focus()

    # --- Save key ---------------------------------------------------------------------------

    @on(Button.Pressed, ".save-key")
    def _on_save_key(self, event: Button.Pressed) -> None:
        event.stop()
        self.save_keys()

    @on(Input.Submitted, ".key-input")
    def _on_key_submitted(self, event: Input.Submitted) -> None:
        """Enter in a key field stores the typed keys, like Save key."""
        event.stop()
        self.save_keys()

    @work(group="settings-keys", exit_on_error=False, description="store keys")
    async def save_keys(self) -> None:
        """Save key: store the typed keys (:meth:`store_keys`)."""
        await self.store_keys()

    async def store_keys(self) -> bool:
        """Store the typed keys and show the outcome under Save key; True when every one was stored.

        A stored key's field is cleared. Must run in a worker: without a usable OS keyring it waits
        for the user's answer about the key file.
        """
        typed = self.typed()
        result = await asyncio.to_thread(self.key_store.store, self.spec, typed)
        if result.needs_consent and await self._consent_to_key_file(typed, result):
            result = await asyncio.to_thread(self.key_store.store, self.spec, typed, allow_file=True)
        for row in self.rows:
            if row.credential.name in result.stored:
                row.clear()
        if result.stored:
            self._keys_changed()
        problem = DECLINED if result.needs_consent else result.problem
        if problem is not None:
            self.show_status(problem, error=True)
            return False
        where = "the key file (not encrypted)" if "file" in result.stored.values() else PLACES["keyring"]
        self.show_status(f"Stored the {', '.join(self._labels(result.stored))} in {where}.")
        return True

    async def _consent_to_key_file(self, typed: Mapping[str, str], result: StoreResult) -> bool:
        """Ask whether the typed keys may go to the unencrypted key file; True when the user agreed."""
        labels = " and ".join(self._labels(name for name in typed if name not in result.skipped))
        dialog = key_file_dialog(key_file_path(), result.problem or "", f"the {labels} of {self.spec.label}")
        return await self.app.push_screen_wait(dialog) == "file"

    # --- Delete -----------------------------------------------------------------------------

    @on(Button.Pressed, ".key-delete")
    def _on_delete_key(self, event: Button.Pressed) -> None:
        """Delete on a row deletes that credential; a Basic pair goes together."""
        event.stop()
        row = next(node for node in event.button.ancestors if isinstance(node, KeyRow))
        name = row.credential.name
        self.delete_keys(list(BASIC_AUTH) if self.spec.basic_auth and name in BASIC_AUTH else [name])

    @work(group="settings-keys", exit_on_error=False, description="delete keys")
    async def delete_keys(self, names: list[str]) -> None:
        """Ask, then remove the stored credentials ``names`` from the OS keyring and the key file."""
        labels = " and ".join(self._labels(names))
        if await self.app.push_screen_wait(delete_key_dialog(labels, self.spec.label)) != "delete":
            return
        try:
            removed = await asyncio.to_thread(self.key_store.delete, self.spec, names)
        except KeyStoreError as exc:
            self.show_status(str(exc), error=True)
            self.notify(str(exc), severity="error", markup=False)
        else:
            where = " and ".join(PLACES[place] for place in removed)
            self.show_status(f"Deleted the {labels} from {where}." if removed else f"No stored {labels} to delete.")
        self._keys_changed()

    def _labels(self, names: Iterable[str]) -> list[str]:
        """The labels of the credentials ``names``, in the spec's order."""
        wanted = set(names)
        return [credential.label for credential in self.spec.credentials if credential.name in wanted]

    def _keys_changed(self) -> None:
        """Read the sources again and tell the screen (readiness, the main screen)."""
        self.load_sources()
        self.screen.post_message(self.KeysChanged(self.spec.id))
