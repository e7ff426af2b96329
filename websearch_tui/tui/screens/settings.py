"""The settings screen: provider keys, endpoints, models, options and search defaults, saved to config.toml.

Left, "General" and every provider grouped by kind with its status (ready / needs key / keyless /
disabled); right, the chosen entry's form. Values are checked at the field with
``ConfigEditor.check`` and kept in a :class:`~websearch_tui.config_edit.ConfigEditor` until
Ctrl+S writes them (only the changed keys' text changes; comments survive). A file changed on disk
meanwhile is detected on save, and the user chooses between keeping both changes and overwriting.

Keys never go in config.toml: "Save key" (and "Save and close") stores typed keys in the OS
keyring (:meth:`websearch_tui.credentials.KeyStore.store`), or, without a usable keyring and only
after the user confirms a modal for that key, in the unencrypted key file. Every keyring and file
call runs in a thread. "Test" runs one search (query ``test``, one result) on a one-off
:class:`~websearch_tui.search.engine.Engine` with the form's pending settings and the stored or
typed key; a typed key is used for the test but stored only by "Save key". One Test runs per
provider: a new one, leaving the form, or Escape cancels it, and a cancelled run never shows.

Closing (Escape, q) or quitting (Ctrl+C, through :meth:`SettingsScreen.ask_before_quit`) with
unsaved changes or typed keys asks first. The screen's result is True when the user chose to quit
the app. Below 100 columns the screen switches to a compact layout (class ``-narrow``).

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
from textual.widget import Widget
from textual.widgets import Button, ContentSwitcher, Footer, Input, OptionList, SelectionList, Static
from textual.worker import Worker, get_current_worker

from websearch_tui.config import Config, ConfigError, parse_config
from websearch_tui.core.results import ProviderOutcome, ProviderUpdate, RunStatus
from websearch_tui.core.specs import BASIC_AUTH
from websearch_tui.credentials import credential_problem
from websearch_tui.providers import SPECS
from websearch_tui.search.engine import Engine
from websearch_tui.tui.safe import plain
from websearch_tui.tui.screens.base import AppScreen
from websearch_tui.tui.widgets.settings_dialogs import (
    ChoiceDialog,
    changed_on_disk_dialog,
    key_file_dialog,
    unsaved_dialog,
)
from websearch_tui.tui.widgets.settings_fields import general_fields, labelled, provider_fields
from websearch_tui.tui.widgets.settings_form import (
    TEST_QUERY,
    GeneralForm,
    KeyRow,
    ProviderForm,
    SettingRow,
    field_reason,
)
from websearch_tui.tui.widgets.settings_nav import GENERAL, SettingsNav

if TYPE_CHECKING:
    from websearch_tui.config_edit import ConfigEditor
    from websearch_tui.credentials import BackendInfo

SAVE_HINT = "Ctrl+S saves · Esc closes"
FORM_DELAY = 0.08
"""Seconds the highlight must rest on a provider before its form is built (a form takes ~0.1-0.3 s)."""


def describe_outcome(outcome: ProviderOutcome) -> tuple[str, bool]:
    """``("OK 0.42 s · 3 sources", True)``, or the failure as ``("Failed (auth): <message>", False)``."""
    seconds = outcome.elapsed_ms / 1000
    if outcome.status is RunStatus.DONE:
        count = len(outcome.response.sources)
        return f"OK {seconds:.2f} s · {count} source{'s' if count != 1 else ''}", True
    if outcome.error is not None:
        return f"Failed ({outcome.error.kind.value}): {outcome.error.message}", False
    return f"Reached in {seconds:.2f} s, but no results for “{TEST_QUERY}”.", False


class SettingsScreen(AppScreen[bool]):
    """Edit config.toml and provider keys; Ctrl+S saves, Escape closes (asking about unsaved changes).

    Dismisses with True when the user chose to quit the app (Ctrl+C), else False.

    Args:
        config: the settings in use (the status tags start from them).
        path: the config file to edit (it may not exist yet).
        engine: the app's engine, which runs the Test (:meth:`Engine.probe`).
    """

    BINDINGS = [
        Binding("escape", "close", "Close", id="settings-close", tooltip="Close settings (or cancel a running Test)"),
        Binding("q", "close", "Close", show=False, id="settings-close-q"),
        Binding("ctrl+s", "save", "Save", id="settings-save", tooltip="Write config.toml"),
    ]

    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    """Below 100 columns: a narrower provider list, label column and form padding."""

    DEFAULT_CSS = """
    SettingsScreen { layout: vertical; }
    SettingsScreen #settings-title, SettingsScreen #keystore {
        height: 1; padding: 0 1; text-wrap: nowrap; text-overflow: ellipsis;
    }
    SettingsScreen #settings-title { background: $boost; }
    SettingsScreen #keystore.-warning { color: $text-warning; }
    SettingsScreen #settings-main { height: 1fr; }
    SettingsScreen #settings-forms { width: 1fr; height: 1fr; }
    SettingsScreen #form-loading { padding: 1 2; color: $text-muted; }
    SettingsScreen.-narrow #settings-nav { width: 33; padding: 0; scrollbar-size-vertical: 1; }
    SettingsScreen.-narrow ProviderForm, SettingsScreen.-narrow GeneralForm {
        padding: 0 1; scrollbar-size-vertical: 1;
    }
    SettingsScreen.-narrow .setting-label { width: 17; }
    SettingsScreen.-narrow SettingRow .setting-help, SettingsScreen.-narrow KeyRow .key-source,
    SettingsScreen.-narrow KeyRow .key-note {
        padding: 0 0 0 17;
    }
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

    def __init__(self, config: Config, path: Path, engine: Engine) -> None:
        super().__init__()
        self.config = config
        self.path = path
        self.engine = engine
        self.editor: ConfigEditor | None = None
        self.backend: BackendInfo | None = None
        self._saved_text = ""
        self._invalid: dict[tuple[str, str], str] = {}
        self._typed: dict[tuple[str, str], str] = {}
        self._key_note = ""
        self._tests: dict[str, Worker[None]] = {}
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
        """One line above the list; the full explanation goes in each provider's key section."""
        line = self.query_one("#keystore", Static)
        if backend.usable:
            text = f"Keys are stored in the OS keyring ({backend.name}); never in config.toml."
        else:
            text = "No usable OS keyring: keys cannot be stored securely (see a provider's Key section)."
        if problem:
            text += " The key file is ignored (see a provider's Key section)."
        self._key_note = " ".join(part for part in ("" if backend.usable else backend.message, problem or "") if part)
        line.set_class(not backend.usable or problem is not None, "-warning")
        line.update(plain(text))

    def _update_title(self) -> None:
        state = ""
        if self._invalid:
            state = f" · {len(self._invalid)} invalid value{'s' if len(self._invalid) != 1 else ''}"
        elif self.unsaved_config:
            state = " · unsaved changes"
        elif self.unsaved_keys:
            state = " · typed key not stored"
        self.query_one("#settings-title", Static).update(plain(f"Settings{state} · {SAVE_HINT} · {self.path}"))

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
        """Show the form of ``entry`` (``"general"`` or a provider id), building it on first use.

        Leaving a provider's form cancels its running Test.
        """
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
            left = (self.switcher.current or "").removeprefix("form-")
            if left != entry:
                self.cancel_test(left)
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
        return ProviderForm(spec, fields, values, editor.check, typed, self._key_note)

    def provider_form(self, provider_id: str) -> ProviderForm:
        """The (already built) form of ``provider_id``."""
        return self.switcher.query_one(f"#form-{provider_id}", ProviderForm)

    def _built_form(self, provider_id: str) -> ProviderForm | None:
        """The form of ``provider_id`` when it is built, else None."""
        forms = self.switcher.query(f"#form-{provider_id}")
        return next((form for form in forms if isinstance(form, ProviderForm)), None)

    async def _reveal(self, provider_id: str) -> None:
        """Highlight ``provider_id`` in the list and show its form."""
        self.nav.highlighted = self.nav.get_option_index(provider_id)
        await self._show_form(provider_id)

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
        names = {(spec.id, c.name): f"{c.label} of {spec.label}" for spec in SPECS.values() for c in spec.credentials}
        return [names[key] for key, value in self._typed.items() if value and key in names]

    def pending_changes(self) -> list[str]:
        """What closing now would lose, one plain line each (empty: nothing)."""
        pending = []
        if self.unsaved_config or self._invalid:
            pending.append(f"changes to {self.path.name}" + (" (some values are invalid)" if self._invalid else ""))
        return pending + [f"the typed {label}" for label in self.unsaved_keys]

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
                reason = field_reason(field, str(exc))
                event.row.show_reason(reason)
        if reason is None:
            self._invalid.pop(place, None)
        else:
            self._invalid[place] = labelled(field.label, reason)
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
        config = self.pending_config()
        key_store = self.engine.key_store

        def resolve_all() -> dict[str, str]:
            statuses = {}
            for pid in provider_ids:
                try:
                    statuses[pid] = key_store.status(SPECS[pid], config.settings_for(pid))
                except Exception:  # readiness is informative only
                    statuses[pid] = "unknown"
            return statuses

        for pid, status in (await asyncio.to_thread(resolve_all)).items():
            self.nav.set_status(pid, status)

    @work(group="settings-sources", exit_on_error=False, description="key sources")
    async def _load_sources(self, provider_id: str) -> None:
        """Show where each credential of ``provider_id`` comes from (and a login provider's state)."""
        from websearch_tui.credentials import login_state

        spec = SPECS[provider_id]
        form = self.provider_form(provider_id)
        if spec.key_need == "login":
            state = await asyncio.to_thread(login_state, spec)
            form.show_login(("Logged in. " if state.ready else "Not logged in. ") + str(state.reason or ""))
            return
        sources = {source.name: source for source in await asyncio.to_thread(self.engine.key_store.sources, spec)}
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
        self._update_title()

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
        """Store the keys typed in ``form`` (Save key, Enter in a key field); see :meth:`store_keys`."""
        self._store_keys_worker(form.spec.id)

    @work(group="settings-keys", exit_on_error=False, description="store keys")
    async def _store_keys_worker(self, provider_id: str) -> None:
        await self.store_keys(provider_id)

    async def store_keys(self, provider_id: str) -> str | None:
        """Store the keys typed for ``provider_id`` (:meth:`KeyStore.store`); None when all were
        stored, else the problem.

        Without a usable OS keyring each store asks before writing the unencrypted key file. The
        outcome is also shown under the provider's Save key button when its form is built. Must run
        in a worker (it may wait for the user's answer).
        """
        from websearch_tui.credentials import key_file_path

        spec = SPECS[provider_id]
        key_store = self.engine.key_store
        typed = {name: value for (pid, name), value in self._typed.items() if pid == provider_id}
        result = await asyncio.to_thread(key_store.store, spec, typed)
        if result.needs_consent:
            names = [c.name for c in spec.credentials if c.name in typed and c.name not in result.skipped]
            labels = " and ".join(c.label for c in spec.credentials if c.name in names)
            dialog = key_file_dialog(key_file_path(), result.problem or "", f"the {labels} of {spec.label}")
            if await self.app.push_screen_wait(dialog) == "file":
                result = await asyncio.to_thread(key_store.store, spec, typed, allow_file=True)
        for name in result.stored:
            self._forget_typed(provider_id, name)
        if result.stored:
            self._keys_changed(provider_id)
        problem = result.problem
        if result.needs_consent:
            problem = "Not stored: there is no OS keyring, and the key file was declined."
        form = self._built_form(provider_id)
        if problem is not None:
            if form is not None:
                form.show_keys_status(problem, error=True)
            return problem
        if form is not None:
            where = "the key file (not encrypted)" if "file" in result.stored.values() else "the OS keyring"
            stored = ", ".join(c.label for c in spec.credentials if c.name in result.stored)
            form.show_keys_status(f"Stored the {stored} in {where}.")
        return None

    def _forget_typed(self, provider_id: str, name: str) -> None:
        self._typed.pop((provider_id, name), None)
        form = self._built_form(provider_id)
        for row in form.key_rows if form is not None else ():
            if row.credential.name == name:
                row.clear()
        self._update_title()

    async def _store_all_typed(self) -> bool:
        """Store every typed key (Save and close); on a problem show that provider's form and return False."""
        for provider_id in list(dict.fromkeys(pid for pid, _ in self._typed)):
            if await self.store_keys(provider_id) is not None:
                await self._reveal(provider_id)
                self.notify(
                    f"Settings stay open: the typed key of {SPECS[provider_id].label} was not stored "
                    "(the reason is in its Key section).",
                    severity="error",
                    markup=False,
                    timeout=10,
                )
                return False
        return True

    @on(Button.Pressed, ".key-delete")
    def _on_delete_key(self, event: Button.Pressed) -> None:
        event.stop()
        row = next(node for node in event.button.ancestors if isinstance(node, KeyRow))
        names = [row.credential.name]
        if row.credential.name in BASIC_AUTH and row.spec.basic_auth:
            names = list(BASIC_AUTH)
        self._delete_keys(row.spec.id, names)

    @work(group="settings-keys", exit_on_error=False, description="delete keys")
    async def _delete_keys(self, provider_id: str, names: list[str]) -> None:
        from websearch_tui.credentials import KeyStoreError

        spec = SPECS[provider_id]
        form = self.provider_form(provider_id)
        labels = " and ".join(c.label for c in spec.credentials if c.name in names)
        question = ChoiceDialog(
            f"Delete the stored {labels} of {spec.label}?",
            "It is removed from the OS keyring and the key file. Environment variables are not touched.",
            [("Cancel", "cancel", "default"), ("Delete", "delete", "error")],
            id="delete-dialog",
        )
        if await self.app.push_screen_wait(question) != "delete":
            return
        try:
            removed = await asyncio.to_thread(self.engine.key_store.delete, spec, names)
        except KeyStoreError as exc:
            form.show_keys_status(str(exc), error=True)
            self.notify(str(exc), severity="error", markup=False)
        else:
            where = " and ".join("the key file" if r == "file" else "the OS keyring" for r in removed)
            form.show_keys_status(
                f"Deleted the {labels} from {where}." if removed else f"No stored {labels} to delete."
            )
        self._keys_changed(provider_id)

    def _keys_changed(self, provider_id: str) -> None:
        if self._built_form(provider_id) is not None:
            self._load_sources(provider_id)
        self._refresh_statuses([provider_id])
        self.post_message(self.KeysChanged(provider_id))

    def _form_of(self, widget: Widget) -> ProviderForm:
        return next(node for node in widget.ancestors_with_self if isinstance(node, ProviderForm))

    # --- test -----------------------------------------------------------------------------

    @on(Button.Pressed, ".test-button")
    def _on_test(self, event: Button.Pressed) -> None:
        """Start a Test of the form's provider; a Test still running for it is cancelled."""
        event.stop()
        form = self._form_of(event.button)
        typed = {
            row.credential.name: row.typed
            for row in form.key_rows
            if row.typed and not row.from_env and credential_problem(row.credential, row.typed) is None
        }
        form.show_searching()
        provider_id = form.spec.id
        self._tests[provider_id] = self.run_worker(
            self._run_test(provider_id, typed),
            group=f"settings-test-{provider_id}",
            exclusive=True,
            exit_on_error=False,
            description="provider test",
        )

    async def _run_test(self, provider_id: str, typed: dict[str, str]) -> None:
        """Probe ``provider_id``; only the newest Test of that provider may show its progress and result."""
        worker = get_current_worker()

        def current_form() -> ProviderForm | None:
            return self._built_form(provider_id) if self._tests.get(provider_id) is worker else None

        def on_update(update: ProviderUpdate) -> None:
            form = current_form()
            if form is None:
                return
            if update.retry is not None:
                form.show_retry(update.retry.delay, update.retry.reason)
            elif update.event is None and update.status in (RunStatus.RUNNING, RunStatus.STREAMING):
                form.show_searching()

        config = self.pending_config()
        outcome = await self.engine.probe(
            provider_id,
            config.settings_for(provider_id),
            typed=typed,
            timeout=config.search.timeout,
            max_body_bytes=int(config.search.max_body_mib * 1024 * 1024),
            on_update=on_update,
        )
        form = current_form()
        if form is not None:
            del self._tests[provider_id]
            text, ok = describe_outcome(outcome)
            form.show_test(text, ok=ok)

    def cancel_test(self, provider_id: str) -> bool:
        """Cancel the running Test of ``provider_id`` (its form says "Test cancelled."); True if one ran."""
        worker = self._tests.pop(provider_id, None)
        if worker is None or worker.is_finished:
            return False
        worker.cancel()
        form = self._built_form(provider_id)
        if form is not None:
            form.show_test("Test cancelled.", ok=None)
        return True

    # --- save and close -------------------------------------------------------------------

    def action_save(self) -> None:
        """Write config.toml (refused while a field holds an invalid value)."""
        if self.editor is None or not self._valid():
            return
        self._save_worker()

    def _valid(self) -> bool:
        """False (after saying which value to fix) while a field holds an invalid value."""
        if self._invalid:
            first = next(iter(self._invalid.values()))
            self.notify(f"Not saved. Fix first: {first}", severity="error", markup=False)
        return not self._invalid

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
        """Escape / q: cancel a running Test if there is one; else close, asking first about unsaved
        changes or typed keys (save and close, discard, keep editing)."""
        cancelled = [provider_id for provider_id in list(self._tests) if self.cancel_test(provider_id)]
        if cancelled:
            return
        pending = self.pending_changes()
        if not pending:
            self.dismiss(False)
            return
        self._ask_leave(pending, quitting=False)

    def ask_before_quit(self) -> bool:
        """Ctrl+C: True when the app must not quit yet because this screen asks about unsaved changes
        or typed keys first (its answer "discard" or "save" then dismisses the screen with True)."""
        pending = self.pending_changes()
        if not pending:
            return False
        if self.app.screen is not self:  # a dialog is open over this screen
            self.notify("Answer or close the open dialog first (Esc): there are unsaved settings.", markup=False)
            return True
        self._ask_leave(pending, quitting=True)
        return True

    @work(group="settings-save", exclusive=True, exit_on_error=False, description="close settings")
    async def _ask_leave(self, pending: list[str], quitting: bool) -> None:
        choice = await self.app.push_screen_wait(unsaved_dialog(pending, quitting=quitting))
        if choice == "save" and not await self._save_all():
            return
        if choice in ("save", "discard"):
            self._typed.clear()
            self.dismiss(quitting)

    async def _save_all(self) -> bool:
        """Store the typed keys and save the document (Save and close); True when nothing is left unsaved."""
        if not self._valid() or not await self._store_all_typed():
            return False
        return not self.unsaved_config or await self.save()
