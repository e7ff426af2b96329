"""The settings screen: provider keys, endpoints, models, options and search defaults, saved to config.toml.

Left, "General" and every provider grouped by kind with its status (ready / needs key / keyless /
disabled); right, the chosen entry's form. Values are checked at the field with
``ConfigEditor.check`` and kept in a :class:`~websearch_tui.config_edit.ConfigEditor` until
Ctrl+S writes them (only the changed keys' text changes; comments survive). A file changed on disk
meanwhile is detected on save, and the user chooses between keeping both changes and overwriting.

Keys never go in config.toml: "Save key" stores typed keys in the OS keyring
(:func:`websearch_tui.credentials.store_secret`), or, without a usable keyring and only after
the user confirms a modal, in the unencrypted key file. Every keyring and file call runs in a
thread. "Test" runs one search (query ``test``, one result) on a one-off
:class:`~websearch_tui.core.engine.Engine` with the form's pending settings and the stored or
typed key; a typed key is used for the test but stored only by "Save key".

The screen posts :class:`SettingsScreen.Saved` after a save and :class:`SettingsScreen.KeysChanged`
after a key was stored or deleted; the app applies them to its engine and main screen.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

import tomlkit
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, ContentSwitcher, Footer, Input, OptionList, SelectionList, Static

from websearch_tui.config import Config, ConfigError, parse_config
from websearch_tui.core.engine import Engine, ProviderOutcome, RunStatus
from websearch_tui.core.errors import register_secret
from websearch_tui.core.models import SearchRequest
from websearch_tui.providers import SPECS
from websearch_tui.providers.base import ProviderSettings, ProviderSpec
from websearch_tui.tui.safe import plain
from websearch_tui.tui.widgets.settings_dialogs import (
    ChoiceDialog,
    changed_on_disk_dialog,
    key_file_dialog,
    unsaved_dialog,
)
from websearch_tui.tui.widgets.settings_fields import (
    BASIC_AUTH,
    basic_auth_problem,
    credential_label,
    credential_problem,
    general_fields,
    provider_fields,
)
from websearch_tui.tui.widgets.settings_form import GeneralForm, KeyRow, ProviderForm, SettingRow
from websearch_tui.tui.widgets.settings_nav import GENERAL, SettingsNav

if TYPE_CHECKING:
    from websearch_tui.config_edit import ConfigEditor
    from websearch_tui.credentials import BackendInfo

TEST_QUERY = "test"
SAVE_HINT = "Ctrl+S saves · Esc closes"
FORM_DELAY = 0.08
"""Seconds the highlight must rest on a provider before its form is built (a form takes ~0.1-0.3 s)."""


async def probe_provider(
    provider_id: str, settings: ProviderSettings, typed: dict[str, str], *, timeout: float
) -> ProviderOutcome:
    """Run one small search (query ``test``, one result) against ``provider_id`` and return its outcome.

    Uses a one-off :class:`Engine` with ``settings`` (the form's pending table) and the stored
    credentials (env, keyring, key file) overlaid with ``typed`` (name -> value, typed but not
    stored; registered for redaction first). ``timeout`` is the deadline in seconds. Never raises
    for a provider failure: it is in ``outcome.error``.
    """
    from websearch_tui.credentials import resolve

    for value in typed.values():
        register_secret(value)

    def credentials(spec: ProviderSpec) -> dict[str, str]:
        return {**resolve(spec), **typed}

    engine = Engine(
        settings={provider_id: settings},
        default_providers=(provider_id,),
        timeout=timeout,
        resolve_credentials=credentials,
    )
    request = SearchRequest(query=TEST_QUERY, providers=(provider_id,), max_results=1)
    try:
        return await engine.run_provider(provider_id, request)
    finally:
        await engine.aclose()


def describe_outcome(outcome: ProviderOutcome) -> tuple[str, bool]:
    """``("OK 0.42 s · 3 sources", True)``, or the failure as ``("Failed (auth): <message>", False)``."""
    seconds = outcome.elapsed_ms / 1000
    if outcome.status is RunStatus.DONE:
        count = len(outcome.response.sources)
        return f"OK {seconds:.2f} s · {count} source{'s' if count != 1 else ''}", True
    if outcome.error is not None:
        return f"Failed ({outcome.error.kind.value}): {outcome.error.message}", False
    return f"Reached in {seconds:.2f} s, but no results for “{TEST_QUERY}”.", False


class SettingsScreen(Screen[None]):
    """Edit config.toml and provider keys; Ctrl+S saves, Escape closes (asking about unsaved changes).

    Args:
        config: the settings in use (the status tags start from them).
        path: the config file to edit (it may not exist yet).
    """

    BINDINGS = [
        Binding("escape", "close", "Close", id="settings-close", tooltip="Close settings"),
        Binding("q", "close", "Close", show=False, id="settings-close-q"),
        Binding("ctrl+s", "save", "Save", id="settings-save", tooltip="Write config.toml"),
    ]

    DEFAULT_CSS = """
    SettingsScreen { layout: vertical; }
    SettingsScreen #settings-title { height: 1; padding: 0 1; background: $boost; }
    SettingsScreen #keystore { height: auto; padding: 0 1; }
    SettingsScreen #keystore.-warning { color: $text-warning; }
    SettingsScreen #settings-main { height: 1fr; }
    SettingsScreen #settings-forms { width: 1fr; height: 1fr; }
    SettingsScreen #form-loading { padding: 1 2; color: $text-muted; }
    """

    class Saved(Message):
        """The config file was written; ``config`` is the new validated configuration."""

        def __init__(self, config: Config) -> None:
            super().__init__()
            self.config = config

    class KeysChanged(Message):
        """A key of ``provider_id`` was stored or deleted (provider readiness may have changed)."""

        def __init__(self, provider_id: str) -> None:
            super().__init__()
            self.provider_id = provider_id

    def __init__(self, config: Config, path: Path) -> None:
        super().__init__()
        self.config = config
        self.path = path
        self.editor: ConfigEditor | None = None
        self.backend: BackendInfo | None = None
        self._saved_text = ""
        self._invalid: dict[tuple[str, str], str] = {}
        self._typed: dict[tuple[str, str], str] = {}
        self._allow_file = False
        self._wanted = GENERAL
        self._building: set[str] = set()

    # --- composition ----------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        """Title line, key store line, the provider list and the form area, footer."""
        yield Static(plain(f"Settings · {self.path}"), id="settings-title")
        yield Static(plain("Checking the OS keyring…"), id="keystore")
        with Horizontal(id="settings-main"):
            yield SettingsNav(list(SPECS.values()), id="settings-nav")
            with ContentSwitcher(id="settings-forms", initial="form-loading"):
                yield Static(plain("Loading…"), id="form-loading")
        yield Footer()

    def on_mount(self) -> None:
        """Load the config file, the keyring backend and the provider statuses off the event loop."""
        self.nav.focus()
        self._load()

    @property
    def nav(self) -> SettingsNav:
        """The provider list."""
        return self.query_one("#settings-nav", SettingsNav)

    @property
    def switcher(self) -> ContentSwitcher:
        """The form area."""
        return self.query_one("#settings-forms", ContentSwitcher)

    @work(group="settings-load", exclusive=True, exit_on_error=False, description="load settings")
    async def _load(self) -> None:
        from websearch_tui import credentials
        from websearch_tui.config_edit import ConfigEditor

        try:
            self.editor = await asyncio.to_thread(ConfigEditor.load, self.path)
        except ConfigError as exc:
            self.query_one("#form-loading", Static).update(plain(f"Cannot edit the settings: {exc}", "$text-error"))
            return
        self._saved_text = self.editor.text()
        self.backend = await asyncio.to_thread(credentials.backend_info)
        problem = await asyncio.to_thread(credentials.key_file_problem)
        self._show_backend(self.backend, problem)
        await self._show_form(GENERAL)
        self.nav.highlighted = 0
        self._update_title()
        self._refresh_statuses(list(SPECS))

    def _show_backend(self, backend: BackendInfo, problem: str | None) -> None:
        line = self.query_one("#keystore", Static)
        if backend.usable:
            text = f"Keys are stored in the OS keyring ({backend.name}); never in config.toml."
        else:
            text = backend.message
        line.set_class(not backend.usable or problem is not None, "-warning")
        line.update(plain(f"{text} {problem}" if problem else text))

    def _update_title(self) -> None:
        state = ""
        if self._invalid:
            state = f" · {len(self._invalid)} invalid value{'s' if len(self._invalid) != 1 else ''}"
        elif self.unsaved_config:
            state = " · unsaved changes"
        self.query_one("#settings-title", Static).update(plain(f"Settings · {self.path}{state} · {SAVE_HINT}"))

    # --- forms ----------------------------------------------------------------------------

    @on(OptionList.OptionHighlighted, "#settings-nav")
    async def _on_highlight(self, event: OptionList.OptionHighlighted) -> None:
        entry = event.option.id
        if self.editor is None or not entry:
            return
        self._wanted = entry
        if self.switcher.query(f"#form-{entry}"):
            await self._show_form(entry)
        else:
            self._show_soon(entry)

    @work(group="settings-form", exit_on_error=False, description="show a form")
    async def _show_soon(self, entry: str) -> None:
        """Build ``entry``'s form unless the highlight moves on first (holding ↓ builds only the last)."""
        await asyncio.sleep(FORM_DELAY)
        if self._wanted == entry:
            await self._show_form(entry)

    @on(OptionList.OptionSelected, "#settings-nav")
    async def _on_select(self, event: OptionList.OptionSelected) -> None:
        """Enter on an entry moves into its form."""
        if self.editor is None or not event.option.id:
            return
        await self._show_form(event.option.id)
        form = self.switcher.visible_content
        if form is not None:
            target = next((widget for widget in form.query("*") if widget.focusable), form)
            target.focus()

    async def _show_form(self, entry: str) -> None:
        """Show the form of ``entry`` (``"general"`` or a provider id), building it on first use."""
        self._wanted = entry
        form_id = f"form-{entry}"
        if not self.switcher.query(f"#{form_id}"):
            if entry in self._building:
                return
            self._building.add(entry)
            try:
                await self.switcher.add_content(self._build_form(entry), id=form_id)
            finally:
                self._building.discard(entry)
            if entry in SPECS:
                self._load_sources(entry)
        if self._wanted == entry:
            self.switcher.current = form_id

    def _build_form(self, entry: str) -> Widget:
        editor = self._require_editor()
        if entry == GENERAL:
            fields = general_fields(sorted(self.app.available_themes))
            values = {(f.table, f.key): editor.get(f.table, f.key) for f in fields}
            configured = editor.get("search", "providers")
            selected = configured if isinstance(configured, list) else list(self.config.search.providers)
            return GeneralForm(fields, values, list(SPECS.values()), selected, editor.check)
        spec = SPECS[entry]
        fields = provider_fields(spec)
        values = {f.key: editor.get(f.table, f.key) for f in fields}
        typed = {name: value for (pid, name), value in self._typed.items() if pid == entry}
        return ProviderForm(spec, fields, values, editor.check, typed)

    def provider_form(self, provider_id: str) -> ProviderForm:
        """The (already built) form of ``provider_id``."""
        return self.switcher.query_one(f"#form-{provider_id}", ProviderForm)

    async def _rebuild_forms(self) -> None:
        """Drop every built form (after the document was reloaded) and show the current entry again."""
        current = (self.switcher.current or "form-general").removeprefix("form-")
        self.switcher.current = "form-loading"
        self._invalid.clear()
        for form in list(self.switcher.query("GeneralForm, ProviderForm")):
            await form.remove()
        await self._show_form(current)

    def _require_editor(self) -> ConfigEditor:
        if self.editor is None:
            raise RuntimeError("settings are not loaded yet")
        return self.editor

    # --- config values --------------------------------------------------------------------

    @property
    def unsaved_config(self) -> bool:
        """True when the document differs from what was loaded or last saved."""
        return self.editor is not None and self.editor.dirty and self.editor.text() != self._saved_text

    @property
    def unsaved_keys(self) -> list[str]:
        """Labels of typed keys that were not stored (``"API key of Brave Search"``)."""
        names = {
            (spec.id, c.name): f"{credential_label(c)} of {spec.label}"
            for spec in SPECS.values()
            for c in spec.credentials
        }
        return [names[key] for key, value in self._typed.items() if value and key in names]

    def pending_config(self) -> Config:
        """The configuration the document describes now (unsaved edits included)."""
        if self.editor is None:
            return self.config
        try:
            return parse_config(tomlkit.parse(self.editor.text()).unwrap(), self.path)
        except (ConfigError, ValueError):
            return self.config

    @on(SettingRow.Edited)
    def _on_edited(self, event: SettingRow.Edited) -> None:
        event.stop()
        field = event.row.field
        place = (field.table, field.key)
        reason = event.reason
        editor = self._require_editor()
        before = editor.get(field.table, field.key)
        if reason is None:
            try:
                editor.set(field.table, field.key, event.value)
            except ConfigError as exc:
                reason = str(exc)
                event.row.show_reason(reason)
        if reason is None:
            self._invalid.pop(place, None)
        else:
            self._invalid[place] = f"{field.label}: {reason}"
        self._update_title()
        provider_id = field.table.removeprefix("providers.")
        changed = editor.get(field.table, field.key) != before
        if changed and provider_id in SPECS and field.key in ("enabled", "base_url"):
            self._refresh_statuses([provider_id])

    @on(SelectionList.SelectedChanged, "#f-search-providers")
    def _on_default_providers(self, event: SelectionList.SelectedChanged) -> None:
        event.stop()
        form = self.switcher.query_one("#form-general", GeneralForm)
        try:
            self._require_editor().set("search", "providers", form.default_providers())
        except ConfigError as exc:
            self.notify(str(exc), severity="error", markup=False)
        self._update_title()

    # --- statuses and key sources (blocking lookups in threads) ---------------------------

    @work(group="settings-status", exit_on_error=False, description="provider statuses")
    async def _refresh_statuses(self, provider_ids: list[str]) -> None:
        from websearch_tui.credentials import lookup, provider_status

        config = self.pending_config()

        def resolve_all() -> dict[str, str]:
            statuses = {}
            for pid in provider_ids:
                spec = SPECS[pid]
                try:
                    values, _ = lookup(spec)
                    statuses[pid] = provider_status(spec, config.settings_for(pid), values)
                except Exception:  # readiness is informative only
                    statuses[pid] = "unknown"
            return statuses

        for pid, status in (await asyncio.to_thread(resolve_all)).items():
            self.nav.set_status(pid, status)

    @work(group="settings-sources", exit_on_error=False, description="key sources")
    async def _load_sources(self, provider_id: str) -> None:
        """Show where each credential of ``provider_id`` comes from (and a login provider's state)."""
        from websearch_tui.credentials import credential_sources, login_state

        spec = SPECS[provider_id]
        form = self.provider_form(provider_id)
        if spec.login:
            state = await asyncio.to_thread(login_state, spec)
            form.show_login(("Logged in. " if state.ready else "Not logged in. ") + str(state.reason or ""))
            return
        sources = {source.name: source for source in await asyncio.to_thread(credential_sources, spec)}
        for row in form.key_rows:
            row.set_source(sources.get(row.credential.name))

    # --- keys -----------------------------------------------------------------------------

    @on(KeyRow.Typed)
    def _on_key_typed(self, event: KeyRow.Typed) -> None:
        event.stop()
        row = event.row
        place = (row.spec.id, row.credential.name)
        if row.typed:
            self._typed[place] = row.typed
        else:
            self._typed.pop(place, None)

    @on(Button.Pressed, ".save-key")
    def _on_save_key(self, event: Button.Pressed) -> None:
        event.stop()
        self.save_keys(self._form_of(event.button))

    @on(Input.Submitted, ".key-input")
    def _on_key_submitted(self, event: Input.Submitted) -> None:
        """Enter in a key field stores the typed keys, like Save key."""
        event.stop()
        self.save_keys(self._form_of(event.input))

    def save_keys(self, form: ProviderForm) -> None:
        """Store the keys typed in ``form`` (checked first: control characters, Basic auth pairs)."""
        rows = [row for row in form.key_rows if row.typed and not row.from_env]
        problems = [credential_problem(row.credential, row.typed) for row in rows]
        problem = next((p for p in problems if p), None)
        if not rows:
            problem = "Type a key first; nothing was stored."
        elif problem is None and _has_basic_pair(form.spec):
            stored = {row.credential.name for row in form.key_rows if row.stored or row.from_env}
            problem = basic_auth_problem(stored, {row.credential.name: row.typed for row in rows})
        if problem:
            form.show_keys_status(f"{problem}; nothing was stored." if problem[-1] != "." else problem, error=True)
            return
        self._store_keys(form.spec.id, {row.credential.name: row.typed for row in rows})

    @work(group="settings-keys", exit_on_error=False, description="store keys")
    async def _store_keys(self, provider_id: str, typed: dict[str, str]) -> None:
        from websearch_tui.credentials import KeyStoreError, NoKeyringError, key_file_path, store_secret

        form = self.provider_form(provider_id)
        places: list[str] = []
        try:
            for name, value in typed.items():
                try:
                    places.append(
                        await asyncio.to_thread(store_secret, provider_id, name, value, allow_file=self._allow_file)
                    )
                except NoKeyringError as exc:
                    if await self.app.push_screen_wait(key_file_dialog(key_file_path(), str(exc))) != "file":
                        form.show_keys_status("Not stored: no OS keyring, and the key file was declined.", error=True)
                        return
                    self._allow_file = True
                    places.append(await asyncio.to_thread(store_secret, provider_id, name, value, allow_file=True))
                self._forget_typed(form, name)
        except KeyStoreError as exc:
            form.show_keys_status(str(exc), error=True)
            self.notify(str(exc), severity="error", markup=False)
        finally:
            if places:
                await self._keys_changed(provider_id)
        if places and len(places) == len(typed):
            where = "the key file (not encrypted)" if "file" in places else "the OS keyring"
            stored = ", ".join(credential_label(c) for c in SPECS[provider_id].credentials if c.name in typed)
            form.show_keys_status(f"Stored the {stored} in {where}.")

    def _forget_typed(self, form: ProviderForm, name: str) -> None:
        self._typed.pop((form.spec.id, name), None)
        for row in form.key_rows:
            if row.credential.name == name:
                row.clear()

    @on(Button.Pressed, ".key-delete")
    def _on_delete_key(self, event: Button.Pressed) -> None:
        event.stop()
        row = next(node for node in event.button.ancestors if isinstance(node, KeyRow))
        names = [row.credential.name]
        if row.credential.name in BASIC_AUTH and _has_basic_pair(row.spec):
            names = list(BASIC_AUTH)
        self._delete_keys(row.spec.id, names)

    @work(group="settings-keys", exit_on_error=False, description="delete keys")
    async def _delete_keys(self, provider_id: str, names: list[str]) -> None:
        from websearch_tui.credentials import KeyStoreError, delete_secret

        spec = SPECS[provider_id]
        form = self.provider_form(provider_id)
        labels = " and ".join(credential_label(c) for c in spec.credentials if c.name in names)
        question = ChoiceDialog(
            f"Delete the stored {labels} of {spec.label}?",
            "It is removed from the OS keyring and the key file. Environment variables are not touched.",
            [("Cancel", "cancel", "default"), ("Delete", "delete", "error")],
            id="delete-dialog",
        )
        if await self.app.push_screen_wait(question) != "delete":
            return
        removed: list[str] = []
        try:
            for name in names:
                removed += await asyncio.to_thread(delete_secret, provider_id, name)
        except KeyStoreError as exc:
            form.show_keys_status(str(exc), error=True)
            self.notify(str(exc), severity="error", markup=False)
        else:
            where = " and ".join(dict.fromkeys("the key file" if r == "file" else "the OS keyring" for r in removed))
            form.show_keys_status(
                f"Deleted the {labels} from {where}." if removed else f"No stored {labels} to delete."
            )
        await self._keys_changed(provider_id)

    async def _keys_changed(self, provider_id: str) -> None:
        self._load_sources(provider_id)
        self._refresh_statuses([provider_id])
        self.post_message(self.KeysChanged(provider_id))

    def _form_of(self, widget: Widget) -> ProviderForm:
        return next(node for node in widget.ancestors_with_self if isinstance(node, ProviderForm))

    # --- test -----------------------------------------------------------------------------

    @on(Button.Pressed, ".test-button")
    def _on_test(self, event: Button.Pressed) -> None:
        event.stop()
        form = self._form_of(event.button)
        typed = {
            row.credential.name: row.typed
            for row in form.key_rows
            if row.typed and not row.from_env and credential_problem(row.credential, row.typed) is None
        }
        form.show_test(f"Searching “{TEST_QUERY}”…", ok=None)
        self._run_test(form.spec.id, typed)

    @work(group="settings-test", exit_on_error=False, description="provider test")
    async def _run_test(self, provider_id: str, typed: dict[str, str]) -> None:
        config = self.pending_config()
        outcome = await probe_provider(
            provider_id, config.settings_for(provider_id), typed, timeout=config.search.timeout
        )
        text, ok = describe_outcome(outcome)
        self.provider_form(provider_id).show_test(text, ok=ok)

    # --- save and close -------------------------------------------------------------------

    def action_save(self) -> None:
        """Write config.toml (refused while a field holds an invalid value)."""
        if self.editor is None:
            return
        if self._invalid:
            first = next(iter(self._invalid.values()))
            self.notify(f"Not saved. Fix first: {first}", severity="error", markup=False)
            return
        self._save_worker()

    @work(group="settings-save", exclusive=True, exit_on_error=False, description="save settings")
    async def _save_worker(self) -> None:
        await self.save()

    async def save(self) -> bool:
        """Save the document; on a file changed on disk ask to keep both or overwrite. True when written.

        Must run in a worker (it may wait for the user's answer).
        """
        from websearch_tui.config_edit import ConfigChangedOnDisk

        editor = self._require_editor()
        try:
            try:
                config = await asyncio.to_thread(editor.save)
            except ConfigChangedOnDisk:
                choice = await self.app.push_screen_wait(changed_on_disk_dialog(editor.path))
                if choice not in ("merge", "overwrite"):
                    self.notify("Not saved; your changes are still here.", markup=False)
                    return False
                if choice == "merge":
                    for refused in await asyncio.to_thread(editor.rebase):
                        self.notify(f"Not applied: {refused}", severity="warning", markup=False, timeout=10)
                    await self._rebuild_forms()
                config = await asyncio.to_thread(editor.save, overwrite=True)
        except ConfigError as exc:
            self.notify(f"Not saved: {exc}", severity="error", markup=False, timeout=10)
            return False
        self.config = config
        self._saved_text = editor.text()
        self._update_title()
        self.post_message(self.Saved(config))
        self.notify(f"Saved {editor.path}", markup=False, timeout=3)
        return True

    def action_close(self) -> None:
        """Close; with unsaved changes or typed keys, ask first (save and close, discard, keep editing)."""
        pending = []
        if self.unsaved_config or self._invalid:
            pending.append(f"changes to {self.path.name}" + (" (some values are invalid)" if self._invalid else ""))
        pending += [f"the typed {label} (press Save key to store it)" for label in self.unsaved_keys]
        if not pending:
            self.dismiss()
            return
        self._ask_close(pending)

    @work(group="settings-save", exclusive=True, exit_on_error=False, description="close settings")
    async def _ask_close(self, pending: list[str]) -> None:
        choice = await self.app.push_screen_wait(unsaved_dialog(pending))
        if choice == "discard":
            self._typed.clear()
            self.dismiss()
        elif choice == "save":
            if self._invalid:
                first = next(iter(self._invalid.values()))
                self.notify(f"Not saved. Fix first: {first}", severity="error", markup=False)
                return
            if await self.save():
                self.dismiss()


def _has_basic_pair(spec: ProviderSpec) -> bool:
    names = {credential.name for credential in spec.credentials}
    return all(name in names for name in BASIC_AUTH)
