"""The Textual application: :class:`WebSearchApp` and the :func:`run_tui` entry point."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import os
import sys
import time
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from textual import constants, events, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.dom import DOMNode
from textual.markup import escape
from textual.screen import Screen
from textual.theme import Theme
from textual.widget import Widget

from websearch_tui.engine.engine import Engine
from websearch_tui.session import Session, StatusResolver
from websearch_tui.tui.common.input_first import InputFirst
from websearch_tui.tui.common.remembered import load_controls
from websearch_tui.tui.common.scroll_bar import use_line_scrollbars
from websearch_tui.tui.common.type_ahead import TypeAhead
from websearch_tui.tui.gc_tuning import collect_after_search, settle_gc
from websearch_tui.tui.patches.timer_ticks import keep_ticks_on_time
from websearch_tui.tui.search.screen import SearchScreen

if TYPE_CHECKING:
    from websearch_tui.settings.config import Config
    from websearch_tui.tui.bindings import BindingTable
    from websearch_tui.tui.settings.screen import SettingsScreen

SETTINGS_MODULE = "websearch_tui.tui.settings.screen"
"""Imported when first needed (the settings screen, the Help screen or the palette's key list), not
for the first paint (about 0.1 s of imports)."""


"""How long opening the history waits for the search just ended to be written."""


def zoom_target(screen: Screen[object]) -> Widget | None:
    """What "Zoom in" fills ``screen`` with: the provider pane or merged view holding the focus, else
    the focused widget when Textual can maximize it (a list), else nothing."""
    from websearch_tui.tui.search.merged_view import MergedView
    from websearch_tui.tui.search.provider_pane import ProviderPane

    focused = screen.focused
    if focused is None:
        return None
    view = next((node for node in focused.ancestors_with_self if isinstance(node, (ProviderPane, MergedView))), None)
    return view if isinstance(view, Widget) else focused if focused.allow_maximize else None


def check_keymap(config: Config) -> list[str]:
    """Refuse a ``[keymap]`` id that no binding of the app has (the CLI checks before it starts the
    app); returns a note for each entry with a key that types a character, which does not act in a
    text field (:func:`~websearch_tui.tui.bindings.typing_key_notes`). Only a keymap that is not
    empty costs anything: the check imports every screen.

    Raises:
        ConfigError: naming the file, the id and the known ids
            (:func:`~websearch_tui.settings.config.check_keymap_ids`).
    """
    if not config.keymap:
        return []
    from websearch_tui.settings.config import check_keymap_ids
    from websearch_tui.tui.bindings import binding_ids, typing_key_notes

    check_keymap_ids(config, binding_ids(binding_table()))
    return typing_key_notes(config.keymap, str(config.path) if config.path else "config")


def binding_table() -> BindingTable:
    """Every binding of the app, grouped by where it acts (a subclass before the class it extends), read
    from the classes' own ``BINDINGS``: the Help screen's sections and the ids a ``[keymap]`` may name.
    The screens are imported when first asked for (the Help screen and the palette ask; the first paint
    does not)."""
    from websearch_tui.tui.bindings import own_bindings
    from websearch_tui.tui.common.dialogs import ChoiceDialog
    from websearch_tui.tui.common.link_dialog import LinkDialog
    from websearch_tui.tui.common.provider_selector import ProviderSelector
    from websearch_tui.tui.help.screen import HelpScreen
    from websearch_tui.tui.history.rows import HistoryRows
    from websearch_tui.tui.history.screen import HistoryScreen, HistoryTable
    from websearch_tui.tui.reader.screen import ReaderScreen
    from websearch_tui.tui.search.export import ExportDialog
    from websearch_tui.tui.search.merged_view import MergedView
    from websearch_tui.tui.search.provider_pane import ProviderPane
    from websearch_tui.tui.search.query_input import QueryInput
    from websearch_tui.tui.search.related_list import RelatedList
    from websearch_tui.tui.search.source_list import CitationList, SourceList
    from websearch_tui.tui.settings.screen import SettingsScreen
    from websearch_tui.tui.stats.screen import StatsScreen

    groups: list[tuple[str, tuple[type[DOMNode], ...]]] = [
        ("Everywhere", (WebSearchApp, App)),
        ("Search screen", (SearchScreen, QueryInput)),
        ("Provider list", (ProviderSelector,)),
        ("Panes", (ProviderPane, SourceList, CitationList, RelatedList)),
        ("Merged view", (MergedView,)),
        ("Reader view", (ReaderScreen,)),
        ("History screen", (HistoryScreen, HistoryTable, HistoryRows)),
        ("Settings", (SettingsScreen,)),
        ("Statistics screen", (StatsScreen,)),
        ("Help and dialogs", (HelpScreen, ExportDialog, ChoiceDialog, LinkDialog)),
    ]
    table = [(title, [binding for owner in owners for binding in own_bindings(owner)]) for title, owners in groups]
    table[0][1].append(
        Binding(
            WebSearchApp.COMMAND_PALETTE_BINDING,
            "command_palette",
            "Command palette",
            tooltip="Find any command by name: provider, export, copy, history, settings, cancel, zoom, theme, help",
        )
    )
    return table


def save_theme(path: Path, theme: str) -> bool:
    """Write ``[ui] theme = theme`` to the config file at ``path`` (comments kept); False when it was
    already so. Blocking: call it in a thread.

    Raises:
        ConfigError: the file cannot be read, parsed, validated or written.
    """
    from websearch_tui.settings.edit import ConfigEditor

    editor = ConfigEditor.load(path)
    editor.set("ui", "theme", theme)
    if not editor.dirty:
        return False
    editor.save()
    return True


class WebSearchApp(App[int]):
    """Search many web providers at once and compare their answers side by side.

    Args:
        config: loaded settings (default selection, mode, result count, recency, provider tables).
        engine: the engine that runs providers; the app's :class:`~websearch_tui.session.Session`
            holds it and closes it on exit.
        status_resolver: blocking ``(spec, settings) -> status`` for the search screen's provider list
            (default: the session's readiness, from the key store); always called in a thread.
        clock: monotonic clock for elapsed times and the spinner (tests pass a frozen one).
        tune_gc: call :func:`settle_gc` once the first screen is shown, and
            :func:`collect_after_search` each time a search has ended (the real app does; tests
            leave their process alone).
    """

    CSS_PATH = "app.tcss"
    TITLE = "websearch-tui"

    BINDINGS = [
        Binding("f1", "help", "Help", id="help", tooltip="Every key by screen, and the modes"),
        Binding("ctrl+q", "quit", "Quit", priority=True, id="quit", tooltip="Cancel searches and quit"),
        Binding("q", "quit", "Quit", show=False, id="quit-q", tooltip="Quit (outside text fields)"),
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True, id="quit-ctrl-c", tooltip="Quit"),
        Binding("f3", "open_settings", "Settings", id="settings", tooltip="Keys, endpoints, models and defaults"),
        Binding("f6", "open_stats", "Stats", id="stats", tooltip="Outcomes, latency, sources and spend per provider"),
    ]

    def __init__(
        self,
        config: Config,
        engine: Engine,
        *,
        status_resolver: StatusResolver | None = None,
        clock: Callable[[], float] | None = None,
        tune_gc: bool = False,
    ) -> None:
        super().__init__()
        use_line_scrollbars()  # a pane's scrollbar is drawn again at each step of a streaming answer
        keep_ticks_on_time()  # the frame after a long one comes on schedule, not a period late
        self.session = Session(config, engine)
        self.status_resolver = status_resolver
        self.clock = clock or time.monotonic
        self._theme_lock = asyncio.Lock()
        self._tune_gc = tune_gc
        self._typing = False
        self.input_first = InputFirst()
        """Holds the panes' next text while a key typed waits for its echo (see :mod:`.input_first`)."""
        self.type_ahead = TypeAhead()
        """Holds what is typed before the query box has focus, for it (see :mod:`.type_ahead`)."""

    @property
    def config(self) -> Config:
        """The settings in use (the session's)."""
        return self.session.config

    @property
    def engine(self) -> Engine:
        """The session's engine (for tests and the benchmarks; the screens go through the session)."""
        return self.session.engine

    def get_default_screen(self) -> Screen[None]:
        """The search screen is the app's base screen (with the controls last used with this config file)."""
        return SearchScreen(
            self.session,
            status_resolver=self.status_resolver,
            clock=self.clock,
            remembered=load_controls(config_file=self.config_file),
            on_search_end=collect_after_search if self._tune_gc else None,
        )

    def on_mount(self) -> None:
        """Use the configured keymap and theme (an unknown name keeps Textual's default); save a theme
        chosen later; show history notices; settle the garbage collector after the first paint when
        asked to."""
        self.set_keymap(self.config.keymap)
        self._apply_theme(self.config.ui.theme)
        self.theme_changed_signal.subscribe(self, self._on_theme_changed)
        self.session.history_notices(self._history_notice)
        if self._tune_gc:
            self.call_after_refresh(settle_gc)

    def _history_notice(self, message: str) -> None:
        """A notice from the history's writer thread (a damaged file moved aside, searches not recorded)."""
        if self.is_running:
            self.call_from_thread(self.notify, message, title="History", severity="warning", markup=False, timeout=10)

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """Textual's palette commands plus "Settings", "Statistics" and, on the search screen, "Merged sources",
        "History", "Export", "Copy answer", "Check citations", "Tops / Ends", "Back", "Forward", "Private
        search", "Retry failed providers" and one "Preset: <name>" per ``[presets]`` entry; then
        :meth:`_commands_by_name`."""
        yield from super().get_system_commands(screen)
        yield SystemCommand(
            "Settings", "Provider keys, endpoints, models and search defaults (F3)", self.action_open_settings
        )
        yield SystemCommand(
            "Statistics",
            "Per provider: outcomes, latency, unique sources, citations and spend; searches and spend per day (F6)",
            self.action_open_stats,
        )
        if isinstance(screen, SearchScreen):
            yield SystemCommand(
                "Merged sources",
                "Show or hide every source once, ranked, with who found it and which answers cite it (m)",
                screen.action_toggle_merged,
            )
            yield from self._search_commands(screen)
            yield from self._main_screen_commands(screen)
        yield from self._commands_by_name(screen)

    def _commands_by_name(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """What newcomers type in the palette: "help", "zoom", and on the search screen "cancel" and
        each provider's name (toggling it in the selection)."""
        from websearch_tui.tui.bindings import keys_by_id  # with the palette, not for the first frame

        keys = keys_by_id(binding_table(), self.config.keymap, self.get_key_display)
        yield SystemCommand(
            "Help: keys and modes", f"Every key by screen, with your keymap ({keys['help']})", self.action_help
        )
        yield from _zoom_commands(screen)
        if not isinstance(screen, SearchScreen):
            return
        yield SystemCommand(
            "Cancel search", f"Stop every provider still searching ({keys['search-cancel']})", screen.action_cancel
        )
        selector = screen.selector
        selected = set(selector.selected)
        for spec in selector.specs.values():
            state = "selected: unselect it" if spec.id in selected else "not selected: add it"
            yield SystemCommand(
                f"Provider: {spec.label}",
                f"Toggle in the selection ({state})",
                functools.partial(selector.toggle, spec.id),
            )

    def _search_commands(self, screen: SearchScreen) -> Iterable[SystemCommand]:
        yield SystemCommand(
            "History", "Every search you ran: filter, reopen offline, re-run, delete (F4)", screen.action_open_history
        )
        yield SystemCommand("Export results", "Save what is on screen as Markdown or JSON (e)", screen.action_export)
        yield SystemCommand("Copy answer", "Copy the focused pane's answer to the clipboard", screen.action_copy_answer)
        yield SystemCommand(
            "Check citations",
            "Read every cited page and mark each citation ✓ quoted, ✓ supported, ✗ not supported or ? unreadable (C)",
            screen.action_check_citations,
        )
        yield SystemCommand(
            "Tops / Ends",
            "Every pane to its top, to compare the answers' openings; again: every pane back to its end (t)",
            screen.action_tops_ends,
        )
        yield SystemCommand(
            "Back", "The previous search of this session, as it ended ([ or Alt+Left)", screen.action_back
        )
        yield SystemCommand(
            "Forward", "The next search of this session, as it ended (] or Alt+Right)", screen.action_forward
        )
        state = "off" if self.session.private else "on"
        yield SystemCommand(
            f"Private search: turn {state}",
            "While on, searches are not recorded in the history (F5)",
            screen.action_toggle_private,
        )

    # --- main screen: retrying and provider presets (one block, apart from the other palette commands) ---

    @staticmethod
    def _main_screen_commands(screen: SearchScreen) -> Iterable[SystemCommand]:
        """ "Retry failed providers", and one "Preset: <name>" command per ``[presets]`` entry (select
        exactly its providers)."""
        yield SystemCommand(
            "Retry failed providers",
            "Run the providers that failed again, same query and controls; the other panes stay as they are (R)",
            screen.action_retry_failed,
        )
        selector = screen.selector
        for name, ids in selector.presets.items():
            labels = ", ".join(selector.specs[pid].label for pid in ids) or "no enabled provider"
            yield SystemCommand(
                f"Preset: {escape(name)}",  # the palette reads names as markup; a name comes from the config
                f"Select {escape(labels)} (p in the provider list)",
                partial(selector.apply_preset, name),
            )

    # --- end of the main screen's retry and preset commands ---

    async def on_event(self, event: events.Event) -> None:
        """Note, while the App checks its priority bindings for a key, whether the focused widget
        takes that key as typing (a letter in the query box): then no binding acts on it
        (:meth:`check_action`), so a ``[keymap]`` that gives Quit a letter does not quit mid-word.

        A key from the terminal also holds the streaming panes' next text until the screen has
        been drawn after the key's handler (:attr:`input_first`). A key or paste that arrives before
        the search screen is ready waits for it (:attr:`type_ahead`, :meth:`on_search_screen_started`)."""
        if self.type_ahead.hold(event):
            return
        key = event if isinstance(event, events.Key) and not event.is_forwarded else None
        if key is not None:
            self.input_first.key_received()
        self._typing = key is not None and self._types_text(key)
        try:
            await super().on_event(event)
        finally:
            self._typing = False
            if key is not None:  # queued after the key in its target's queue
                (self.focused or self.screen).call_after_refresh(self._after_key)

    async def on_search_screen_started(self, event: SearchScreen.Started) -> None:
        """The search screen is ready for keys (its real boxes and list are in place): hand it what was
        typed before, in order (see :mod:`~websearch_tui.tui.common.type_ahead`)."""
        if self.type_ahead.holding:
            for held in self.type_ahead.release():
                await self.on_event(held)

    def _after_key(self) -> None:
        """The key's target has handled it: end its hold once the screen has been drawn again.

        Textual may run the target's after-refresh callback before the screen has taken the
        target's repaint (the screen's idle can come first), so the echo is a second after-refresh
        away, asked from the screen, whose queue holds that repaint by now."""
        self.screen.call_after_refresh(self.input_first.echoed)

    def _types_text(self, key: events.Key) -> bool:
        """True when the focused widget takes ``key`` as text (an input, a text area)."""
        focused = self.focused
        return focused is not None and focused.check_consume_key(key.key, key.character)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """No action for a key typed into a text field (see :meth:`on_event`); hide "Settings" while
        the settings screen is open."""
        if self._typing:
            return False
        if action == "open_settings" and self._settings_screen() is not None:
            return False
        return True

    def _settings_screen(self) -> SettingsScreen | None:
        """The open settings screen, if any (none before its module was first imported)."""
        module = sys.modules.get(SETTINGS_MODULE)
        if module is None:
            return None
        return next((s for s in self.screen_stack if isinstance(s, module.SettingsScreen)), None)

    @property
    def config_file(self) -> Path:
        """The config file the settings screen and a chosen theme are saved to (it may not exist yet)."""
        from websearch_tui.settings.config import config_path

        return self.config.path or config_path()

    def action_open_settings(self) -> None:
        """Open the settings screen (once; pressing F3 on it does nothing)."""
        if not self.check_action("open_settings", ()):
            return
        from websearch_tui.tui.settings.screen import SettingsScreen

        self.push_screen(SettingsScreen(self.session, self.config_file), self._after_settings)

    def action_open_stats(self) -> None:
        """Open the Stats screen (F6, palette "Statistics"), reading the history again; the same key
        closes it. The screen is built once and kept (installed) for the next opening."""
        from websearch_tui.tui.stats.screen import StatsScreen  # first used here, not at start-up

        if isinstance(self.screen, StatsScreen):
            self.screen.dismiss(None)
            return
        if not self.is_screen_installed(StatsScreen.NAME):
            self.install_screen(StatsScreen(self.session.history), StatsScreen.NAME)
        screen = self.get_screen(StatsScreen.NAME)
        assert isinstance(screen, StatsScreen)
        screen.reload_when_shown()
        self.push_screen(screen)

    def action_help(self) -> None:
        """Open the Help screen (F1); the same key closes it again."""
        from websearch_tui.tui.bindings import help_sections, keys_by_id
        from websearch_tui.tui.help.screen import HelpScreen

        if isinstance(self.screen, HelpScreen):
            self.screen.dismiss(None)
        else:
            table = binding_table()
            sections = help_sections(table, self.config.keymap, self.get_key_display)
            self.push_screen(HelpScreen(sections, keys_by_id(table, self.config.keymap, self.get_key_display)))

    def _after_settings(self, quit_app: bool | None) -> None:
        """The settings screen closed; it answers True when the user chose to quit (Ctrl+C)."""
        if quit_app:
            self.quit_now()

    def on_settings_screen_saved(self, event: SettingsScreen.Saved) -> None:
        """Settings were saved: use them (handler named by Textual's convention, so the settings
        screen's module is not imported before the screen is first opened)."""
        self.apply_config(event.config)

    def on_settings_screen_keys_changed(self, event: SettingsScreen.KeysChanged) -> None:
        """A key was stored or deleted: resolve every provider's readiness again."""
        self._search_screens(lambda screen: screen.refresh_statuses())

    def apply_config(self, config: Config) -> None:
        """Use ``config`` from now on: engine settings, default selection, timeout, theme, keymap,
        main screen.

        The theme changes only when the configured one did (unset: Textual's default).
        """
        previous = self.config
        self.session.use_config(config)
        if config.ui.theme != previous.ui.theme:
            self._apply_theme(config.ui.theme)
        if config.keymap != previous.keymap:
            self._apply_keymap(config)
        self._search_screens(lambda screen: screen.apply_config(config))

    def search_themes(self) -> None:
        """The palette's theme list (Ctrl+P → Theme), the theme in use marked "(in use)"."""
        from textual.command import CommandPalette

        from websearch_tui.tui.settings.themes import MarkedThemeProvider

        self.push_screen(CommandPalette(providers=[MarkedThemeProvider], placeholder="Search for themes…"))

    def _apply_theme(self, theme: str | None) -> None:
        """Use ``theme``; unset means the App's default (``textual-dark`` unless $TEXTUAL_THEME says
        otherwise); an unknown name changes nothing."""
        wanted = theme or constants.DEFAULT_THEME
        if wanted in self.available_themes and wanted != self.theme:
            self.theme = wanted

    def _apply_keymap(self, config: Config) -> None:
        """Use the keymap of a config saved while the app runs (an unknown id is named in a warning)."""
        from websearch_tui.settings.config import ConfigError

        try:
            check_keymap(config)
        except ConfigError as exc:
            self.notify(str(exc), title="Keymap", severity="warning", markup=False, timeout=10)
        self.set_keymap(config.keymap)

    def _on_theme_changed(self, theme: Theme) -> None:
        """A theme was chosen (the command palette's "Theme"): save it, unless it is the one the config
        already gives (the theme applied at start-up or after a settings save)."""
        if theme.name != (self.config.ui.theme or constants.DEFAULT_THEME):
            self._save_theme(theme.name)

    @work(group="theme", exit_on_error=False, description="saving the theme")
    async def _save_theme(self, theme: str) -> None:
        """Write ``[ui] theme`` to the config file in a thread (one save at a time, in the order
        chosen); a file that cannot be written is named in an error notice."""
        from websearch_tui.settings.config import ConfigError

        path = self.config_file
        async with self._theme_lock:
            try:
                saved = await asyncio.to_thread(save_theme, path, theme)
            except ConfigError as exc:
                self.notify(f"Theme not saved: {exc}", title="Theme", severity="error", markup=False, timeout=10)
                return
        self.session.config = dataclasses.replace(self.config, ui=dataclasses.replace(self.config.ui, theme=theme))
        if saved:
            self.notify(f"Theme {theme} saved to {path}", title="Theme", markup=False, timeout=3)

    def _search_screens(self, action: Callable[[SearchScreen], object]) -> None:
        for screen in self.screen_stack:
            if isinstance(screen, SearchScreen):
                action(screen)

    async def action_quit(self) -> None:
        """Quit (Ctrl+Q or Ctrl+C anywhere, q outside text fields): an open settings screen with unsaved
        changes or typed keys asks first; otherwise cancel every worker and exit with status 0 at once."""
        settings = self._settings_screen()
        if settings is not None and settings.ask_before_quit():
            return
        self.quit_now()

    def quit_now(self) -> None:
        """Cancel every worker, then exit with status 0 (no questions)."""
        self.workers.cancel_all()
        self.exit(0)

    async def on_unmount(self) -> None:
        """Close the engine's HTTP connections, write what the history still holds, close its file."""
        await self.session.aclose()


def _zoom_commands(screen: Screen[object]) -> Iterable[SystemCommand]:
    """The palette's zoom: "Zoom out" while something fills the screen, else "Zoom in" when something
    can (:func:`zoom_target`)."""
    if screen.maximized is not None:
        yield SystemCommand("Zoom out", "Back to the whole screen (Esc)", screen.minimize)
        return
    target = zoom_target(screen)
    if target is not None:
        yield SystemCommand(
            "Zoom in (maximize)",
            "The focused pane or list fills the screen; Esc restores it",
            functools.partial(setattr, screen, "maximized", target),
        )


def run_tui(config_path: str | os.PathLike[str] | Config | None = None) -> int:
    """Run the app; returns the process exit status.

    ``config_path`` is a config file path (``None``: the default location), or an already loaded
    :class:`~websearch_tui.settings.config.Config`. Raises ``ConfigError`` for a bad file.
    """
    from websearch_tui.settings.config import Config, load_config

    config = config_path if isinstance(config_path, Config) else load_config(config_path)
    engine = Engine.from_config(config)
    app = WebSearchApp(config, engine, tune_gc=True)
    result = app.run()
    if app.return_code not in (None, 0):
        return app.return_code
    return result if isinstance(result, int) else 0
