"""The settings screen: provider keys, endpoints, models, options and search defaults, saved to config.toml.

Left, "General" and every provider grouped by kind with its status (ready / needs key / keyless /
disabled); right, the chosen entry's form, built the first time it is shown
(:class:`~websearch_tui.tui.settings.forms.SettingsForms`). Values are checked at
the field with ``ConfigEditor.check`` and kept in a :class:`~websearch_tui.settings.edit.ConfigEditor`
until Ctrl+S writes them (only the changed keys' text changes; comments survive). A file changed on
disk meanwhile is detected on save, and the user chooses between keeping both changes and
overwriting.

The screen keeps the navigation, the document and saving. Each provider's form owns its keys and
its Test (:class:`~websearch_tui.tui.settings.provider_form.ProviderForm`): "Save key" stores typed
keys through the session's key store (``session.key_store``), never in config.toml; "Test" runs one
search on the app's engine (:meth:`SettingsScreen.probe`) with the form's pending settings and its
stored or typed keys. Leaving a form or Escape cancels its running Test.

Closing (Escape, q) or quitting (Ctrl+C, through :meth:`SettingsScreen.ask_before_quit`) with
unsaved changes or typed keys asks first; "Save and close" stores the typed keys and saves. The
screen's result is True when the user chose to quit the app. Below 100 columns the screen switches
to a compact layout (class ``-narrow``).

The screen posts :class:`SettingsScreen.Saved` after a save and :class:`SettingsScreen.KeysChanged`
after a form stored or deleted a key; the app applies them to its engine and main screen.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import tomlkit
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.css.query import NoMatches
from textual.message import Message
from textual.theme import Theme
from textual.widgets import OptionList, Select, SelectionList, Static

from websearch_tui.core.catalogue import SPECS
from websearch_tui.core.results import OnUpdate, ProviderOutcome
from websearch_tui.session import Session
from websearch_tui.settings.config import Config, ConfigError, parse_config
from websearch_tui.tui.common.dialogs import changed_on_disk_dialog, unsaved_dialog
from websearch_tui.tui.common.keys_footer import KeysFooter
from websearch_tui.tui.common.safe import plain
from websearch_tui.tui.common.screen import AppScreen
from websearch_tui.tui.settings.fields import general_fields, labelled, provider_fields
from websearch_tui.tui.settings.forms import LOADING, SettingsForms
from websearch_tui.tui.settings.general_form import GeneralForm
from websearch_tui.tui.settings.key_row import KeyRow
from websearch_tui.tui.settings.key_section import KeySection
from websearch_tui.tui.settings.nav import GENERAL, SettingsNav
from websearch_tui.tui.settings.provider_form import ProviderForm
from websearch_tui.tui.settings.setting_row import SettingRow, field_reason

if TYPE_CHECKING:
    from websearch_tui.secrets.credentials import BackendInfo
    from websearch_tui.settings.edit import ConfigEditor

SAVE_HINT = "Ctrl+S saves · Esc closes"
SAVED_SECONDS = 6.0
"""How long the "Saved <file>" notice stays (the title line says "saved at <time>" until the next change)."""


class SettingsScreen(AppScreen[bool]):
    """Edit config.toml and provider keys; Ctrl+S saves, Escape closes (asking about unsaved changes).

    Dismisses with True when the user chose to quit the app (Ctrl+C), else False.

    Args:
        session: the application: its settings in use (the status tags start from them), its key
            store (reading and writing keys), readiness and :meth:`Session.probe` (the Test).
        path: the config file to edit (it may not exist yet).
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

    def __init__(self, session: Session, path: Path) -> None:
        super().__init__()
        self.session = session
        self.config = session.config  # as last saved here; edits are in the editor until Save
        self.path = path
        self.editor: ConfigEditor | None = None
        self._saved_text = ""
        self._invalid: dict[tuple[str, str], str] = {}
        self._key_note = ""
        self._saved_at = ""

    # --- composition ----------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        """Title line, key store line, the provider list and the form area, footer."""
        yield Static(plain(f"Settings · {self.path}"), id="settings-title")
        yield Static(plain("Checking the OS keyring…"), id="keystore")
        with Horizontal(id="settings-main"):
            yield SettingsNav(list(SPECS.values()), id="settings-nav")
            with SettingsForms(build=self._build_form, id="settings-forms"):
                yield Static(plain("Loading…"), id=LOADING)
        yield KeysFooter()

    def on_mount(self) -> None:
        """Load the config file, the keyring backend and the provider statuses off the event loop;
        follow the theme in use (the palette's Theme may change it while the screen is open)."""
        self.nav.focus()
        self._load()
        self.app.theme_changed_signal.subscribe(self, self._on_app_theme)

    def _on_app_theme(self, theme: Theme) -> None:
        """Mark the theme now in use in the Theme field (its value, the document's, stays)."""
        if self.editor is None:
            return
        try:
            select = self.query_one("#f-ui-theme", Select)
        except NoMatches:  # the General form is not built yet: it will be with this theme
            return
        themes = sorted(self.app.available_themes)
        field = next(f for f in general_fields(themes, theme.name, self.editor.get("ui", "theme")) if f.key == "theme")
        value = select.value
        with select.prevent(Select.Changed):
            select.set_options(field.choices)
            select.value = value
        select.prompt = field.placeholder

    @property
    def nav(self) -> SettingsNav:
        """The provider list."""
        return self.query_one("#settings-nav", SettingsNav)

    @property
    def switcher(self) -> SettingsForms:
        """The form area."""
        return self.query_one("#settings-forms", SettingsForms)

    @work(group="settings-load", exclusive=True, exit_on_error=False, description="load settings")
    async def _load(self) -> None:
        from websearch_tui.secrets import credentials
        from websearch_tui.settings.edit import ConfigEditor

        try:
            self.editor = await asyncio.to_thread(ConfigEditor.load, self.path)
        except ConfigError as exc:
            self.query_one(f"#{LOADING}", Static).update(plain(f"Cannot edit the settings: {exc}", "$text-error"))
            return
        self._saved_text = self.editor.text()
        backend = await asyncio.to_thread(credentials.backend_info)
        problem = await asyncio.to_thread(credentials.key_file_problem)
        self._show_backend(backend, problem)
        await self.switcher.show(GENERAL)
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
        elif self._saved_at:
            state = f" · saved at {self._saved_at}"
        self.query_one("#settings-title", Static).update(plain(f"Settings{state} · {SAVE_HINT} · {self.path}"))

    # --- navigation -----------------------------------------------------------------------

    @on(OptionList.OptionHighlighted, "#settings-nav")
    async def _on_highlight(self, event: OptionList.OptionHighlighted) -> None:
        if self.editor is not None and event.option.id:
            await self.switcher.want(event.option.id)

    @on(OptionList.OptionSelected, "#settings-nav")
    async def _on_select(self, event: OptionList.OptionSelected) -> None:
        """Enter on an entry moves into its form."""
        if self.editor is None or not event.option.id:
            return
        await self.switcher.show(event.option.id)
        form = self.switcher.visible_content
        if form is not None:
            target = next((widget for widget in form.query("*") if widget.focusable), form)
            target.focus()

    def _build_form(self, entry: str, typed: Mapping[str, str] | None) -> GeneralForm | ProviderForm:
        """The form of ``entry`` from the document now (``typed``: keys typed earlier, not stored)."""
        editor = self._require_editor()
        if entry == GENERAL:
            fields = general_fields(sorted(self.app.available_themes), self.app.theme, editor.get("ui", "theme"))
            configured = editor.get("search", "providers")
            selected = configured if isinstance(configured, list) else list(self.config.search.providers)
            values = {(f.table, f.key): editor.get(f.table, f.key) for f in fields}
            return GeneralForm(fields, values, list(SPECS.values()), selected, editor.check)
        spec = SPECS[entry]
        provider = provider_fields(spec)
        return ProviderForm(
            spec,
            provider,
            {f.key: editor.get(f.table, f.key) for f in provider},
            editor.check,
            key_store=self.session.key_store,
            probe=self.probe,
            typed=typed,
            key_note=self._key_note,
        )

    def provider_form(self, provider_id: str) -> ProviderForm:
        """The (already built) form of ``provider_id``."""
        return self.switcher.query_one(f"#form-{provider_id}", ProviderForm)

    async def _reveal(self, provider_id: str) -> None:
        """Highlight ``provider_id`` in the list and show its form."""
        self.nav.highlighted = self.nav.get_option_index(provider_id)
        await self.switcher.show(provider_id)

    def _require_editor(self) -> ConfigEditor:
        if self.editor is None:
            raise RuntimeError("settings are not loaded yet")
        return self.editor

    # --- the document ---------------------------------------------------------------------

    @property
    def unsaved_config(self) -> bool:
        """True when the document differs from what was loaded or last saved."""
        return self.editor is not None and self.editor.dirty and self.editor.text() != self._saved_text

    @property
    def unsaved_keys(self) -> list[str]:
        """Labels of typed keys that were not stored (``"API key of Brave Search"``)."""
        return [
            f"{credential.label} of {form.spec.label}"
            for form in self.switcher.provider_forms()
            for credential in form.spec.credentials
            if credential.name in form.typed_keys()
        ]

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
    def _on_default_providers(self, event: SelectionList.SelectedChanged[str]) -> None:
        event.stop()
        form = self.switcher.query_one("#form-general", GeneralForm)
        try:
            self._require_editor().set("search", "providers", form.default_providers())
        except ConfigError as exc:
            self.notify(str(exc), severity="error", markup=False)
        self._update_title()

    # --- what the forms report ------------------------------------------------------------

    @on(KeyRow.Typed)
    def _on_key_typed(self, event: KeyRow.Typed) -> None:
        event.stop()
        self._update_title()

    @on(KeySection.KeysChanged)
    def _on_keys_changed(self, event: KeySection.KeysChanged) -> None:
        """A form stored or deleted a key: its status here, then the app (the main screen's list).

        Posted to the app directly: after a Save and close this screen is already being removed.
        """
        event.stop()
        self._refresh_statuses([event.provider_id])
        self.app.post_message(self.KeysChanged(event.provider_id))

    @work(group="settings-status", exit_on_error=False, description="provider statuses")
    async def _refresh_statuses(self, provider_ids: list[str]) -> None:
        statuses = await asyncio.to_thread(self.session.readiness, provider_ids, config=self.pending_config())
        for pid, status in statuses.items():
            self.nav.set_status(pid, status)

    async def probe(self, provider_id: str, typed: Mapping[str, str], on_update: OnUpdate) -> ProviderOutcome:
        """One Test of ``provider_id`` on the app's engine with the settings as edited (saved or not),
        its stored keys overlaid with ``typed`` (never stored by a Test); see :meth:`Session.probe`."""
        return await self.session.probe(provider_id, self.pending_config(), typed=typed, on_update=on_update)

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
        from websearch_tui.settings.edit import ConfigChangedOnDisk

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
                    self._invalid.clear()
                    await self.switcher.rebuild()
                config = await asyncio.to_thread(editor.save, overwrite=True)
        except ConfigError as exc:
            self.notify(f"Not saved: {exc}", severity="error", markup=False, timeout=10)
            return False
        self.config = config
        self._saved_text = editor.text()
        self._saved_at = time.strftime("%H:%M:%S")
        self._update_title()
        self.post_message(self.Saved(config))
        self.notify(f"Saved {editor.path}", markup=False, timeout=SAVED_SECONDS)
        return True

    def action_close(self) -> None:
        """Escape / q: cancel a running Test if there is one; else close, asking first about unsaved
        changes or typed keys (save and close, discard, keep editing)."""
        cancelled = [form for form in self.switcher.provider_forms() if form.cancel_test()]
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
            self.dismiss(quitting)

    async def _save_all(self) -> bool:
        """Store the typed keys and save the document (Save and close); True when nothing is left unsaved."""
        if not self._valid() or not await self._store_all_typed():
            return False
        return not self.unsaved_config or await self.save()

    async def _store_all_typed(self) -> bool:
        """Store every form's typed keys (Save and close); on a problem show that form and return False."""
        for form in self.switcher.provider_forms():
            if form.typed_keys() and not await form.store_keys():
                await self._reveal(form.spec.id)
                self.notify(
                    f"Settings stay open: the typed key of {form.spec.label} was not stored "
                    "(the reason is in its Key section).",
                    severity="error",
                    markup=False,
                    timeout=10,
                )
                return False
        return True
