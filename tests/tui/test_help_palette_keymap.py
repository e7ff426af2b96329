"""Pilot tests of the Help screen (F1), the command palette's commands by name, a ``[keymap]`` from
config.toml, and a theme chosen in the palette being saved."""

from __future__ import annotations

import re
from itertools import pairwise
from pathlib import Path

import pytest
from textual.command import CommandPalette
from textual.widgets import Static

from tests.tui.conftest import until
from tests.tui.test_settings_screen import make_settings_app, palette_choice, settle
from websearch_tui.__main__ import main
from websearch_tui.settings.config import ConfigError, load_config
from websearch_tui.tui.app import binding_table, check_keymap
from websearch_tui.tui.bindings import binding_ids
from websearch_tui.tui.common.provider_selector import ProviderSelector
from websearch_tui.tui.help.screen import HelpScreen
from websearch_tui.tui.search.screen import SearchScreen
from websearch_tui.tui.settings.screen import SettingsScreen

SIZE = (150, 45)


def write_config(tmp_path: Path, text: str) -> Path:
    """A config.toml holding ``text``."""
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def help_text(screen: HelpScreen) -> str:
    """Everything the Help screen shows, as plain text."""
    return "\n".join(static.visual.plain for static in screen.query(Static) if hasattr(static.visual, "plain"))


async def run_palette(pilot, words: str, expected: str) -> None:
    """Open the command palette, type ``words``, wait for ``expected`` to be the highlighted choice, run it."""
    app = pilot.app
    await pilot.press("ctrl+p")
    await until(
        pilot, lambda: isinstance(app.screen, CommandPalette), "the command palette is open", detail=lambda: app.screen
    )
    await pilot.press(*words)
    await until(
        pilot,
        lambda: palette_choice(app).startswith(expected),
        "the palette's first choice is the expected command",
        detail=lambda: palette_choice(app),
    )
    await pilot.press("enter")
    await pilot.pause()


# --- the Help screen ----------------------------------------------------------------------


async def test_f1_opens_the_keys_by_screen_and_esc_f1_or_q_close_it(make_app, fake_streams):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        for closing_key in ("escape", "f1", "q"):
            await pilot.press("f1")
            await until(
                pilot, lambda: isinstance(app.screen, HelpScreen), "the Help screen is open", detail=lambda: app.screen
            )
            text = help_text(app.screen)
            for heading in ("Everywhere", "Search screen", "Panes", "Merged view", "History screen", "Settings"):
                assert f"\n{heading}\n" in f"\n{text}\n"
            assert "Settings — Keys, endpoints, models and defaults" in text  # description — tooltip
            assert "^s" in text and "Write config.toml" in text  # the settings screen's Save, as the footer shows it
            assert "Merged view (m): every source once" in text  # the modes name their current key
            await pilot.press(closing_key)
            await until(
                pilot,
                lambda: isinstance(app.screen, SearchScreen),
                "the search screen is back",
                detail=lambda: app.screen,
            )


async def test_help_lists_every_described_binding_of_the_code(make_app, fake_streams):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f1")
        await until(
            pilot, lambda: isinstance(app.screen, HelpScreen), "the Help screen is open", detail=lambda: app.screen
        )
        text = help_text(app.screen)
        for _, bindings in binding_table():
            for binding in bindings:
                if binding.description:
                    assert binding.description in text, binding


def test_binding_ids_are_unique():
    """A keymap entry changes every binding with its id: two different bindings must never share one."""
    ids = [binding.id for _, bindings in binding_table() for binding in bindings if binding.id]
    assert len(ids) == len(set(ids))
    assert {"help", "quit", "settings", "settings-save", "history-rows-next", "toggle-merged"} <= set(ids)


def test_the_readme_keys_table_names_every_binding_id():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Help, palette and keymap", 1)[1].split("\n## ", 1)[0]
    missing = [binding_id for binding_id in binding_ids(binding_table()) if f"`{binding_id}`" not in section]
    assert missing == []


# --- the keymap ---------------------------------------------------------------------------


async def test_a_keymap_from_the_config_changes_which_key_opens_settings(tmp_path):
    path = write_config(tmp_path, '[keymap]\nsettings = "f6"\nhelp = "f10"\n')
    app = make_settings_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f3")  # the default key no longer opens it
        await pilot.pause()
        assert isinstance(app.screen, SearchScreen)
        await pilot.press("f6")
        await until(
            pilot,
            lambda: isinstance(app.screen, SettingsScreen),
            "the Settings screen is open",
            detail=lambda: app.screen,
        )
        await settle(pilot)
        await pilot.press("f10")
        await until(
            pilot, lambda: isinstance(app.screen, HelpScreen), "the Help screen is open", detail=lambda: app.screen
        )
        text = help_text(app.screen)
        assert "f6  " in text and "f3  " not in text  # Help shows the keys the keymap gave
        assert "Settings (f6):" in text
        await pilot.press("f10")  # the same key closes it
        await until(
            pilot,
            lambda: isinstance(app.screen, SettingsScreen),
            "the Settings screen is back",
            detail=lambda: app.screen,
        )


async def test_a_letter_given_to_quit_types_in_the_query_box_and_quits_elsewhere(tmp_path):
    app = make_settings_app(write_config(tmp_path, '[keymap]\nquit = "h"\n'))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("h", "i")  # a text field takes letters as text, whatever the keymap says
        await pilot.pause()
        assert app.screen.query_input.value == "hi" and app.return_code is None
        app.screen.query_one(ProviderSelector).focus()
        await pilot.press("h")  # outside text fields the letter is the Quit key
        await until(pilot, lambda: app.return_code is not None, "the app quits", detail=lambda: app.return_code)


def test_config_validate_says_a_letter_does_not_act_in_text_fields(tmp_path, capsys):
    path = write_config(tmp_path, '[keymap]\nquit = "h"\nsettings = "f6"\nhelp = "question_mark,f10"\n')
    assert main(["config", "validate", "--config", str(path)]) == 0
    out, err = capsys.readouterr()
    assert out == f"OK: {path}\n"
    assert err.splitlines() == [
        f'websearch-tui: warning: {path}: [keymap] quit = "h": in a text field (the query box, a filter) h enters '
        "text instead of acting; to act there too, add a key with ctrl or alt, or a function key, after a comma",
        f'websearch-tui: warning: {path}: [keymap] help = "question_mark,f10": in a text field (the query box, '
        "a filter) question_mark enters text instead of acting; f10 still acts there",
    ]


def test_an_unknown_keymap_id_names_the_file_the_id_and_the_known_ids(tmp_path):
    path = write_config(tmp_path, '[keymap]\nsetings = "f6"\n')
    with pytest.raises(ConfigError) as caught:
        check_keymap(load_config(path))
    message = str(caught.value)
    assert message.startswith(f"{path}: [keymap] 'setings' is not a binding id (did you mean 'settings'?)")
    assert all(binding_id in message for binding_id in binding_ids(binding_table()))


def test_an_empty_keymap_needs_no_check(tmp_path):
    check_keymap(load_config(write_config(tmp_path, "[keymap]\n")))


# --- the command palette --------------------------------------------------------------------


async def test_palette_finds_help_cancel_and_providers(make_app, fake_streams):
    app = make_app(("ddgs", "exa"))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, SearchScreen)
        await run_palette(pilot, "brave", "Provider: Brave Search")
        await until(
            pilot,
            lambda: "brave" in screen.selector.selected,
            "Brave Search is selected",
            detail=lambda: screen.selector.selected,
        )
        await until(pilot, lambda: screen.pane_area.pane("brave") is not None, "a Brave Search pane is shown")
        await run_palette(pilot, "provider duck", "Provider: DuckDuckGo")
        await until(
            pilot,
            lambda: "ddgs" not in screen.selector.selected,
            "DuckDuckGo is no longer selected",
            detail=lambda: screen.selector.selected,
        )
        await run_palette(pilot, "cancel", "Cancel search")
        assert app.screen is screen
        await run_palette(pilot, "help", "Help: keys and modes")
        await until(
            pilot, lambda: isinstance(app.screen, HelpScreen), "the Help screen is open", detail=lambda: app.screen
        )


async def test_palette_zoom_fills_the_screen_with_the_focused_pane_and_restores_it(make_app, fake_streams):
    app = make_app(("ddgs", "exa"))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        pane = screen.pane_area.pane("exa")
        pane.focus_target()
        await pilot.pause()
        await run_palette(pilot, "zoom", "Zoom in")
        await until(pilot, lambda: screen.maximized is pane, "the pane is maximized", detail=lambda: screen.maximized)
        await run_palette(pilot, "zoom", "Zoom out")
        await until(pilot, lambda: screen.maximized is None, "nothing is maximized", detail=lambda: screen.maximized)
        pane.focus_target()
        await pilot.pause()
        await run_palette(pilot, "maximize", "Zoom in (maximize)")  # Textual's own Maximize cannot zoom a pane
        await until(pilot, lambda: screen.maximized is pane, "the pane is maximized", detail=lambda: screen.maximized)
        await pilot.press("escape")
        await until(pilot, lambda: screen.maximized is None, "nothing is maximized", detail=lambda: screen.maximized)
        screen.selector.focus()
        await pilot.pause()
        await run_palette(pilot, "zoom", "Zoom in")
        await until(
            pilot,
            lambda: screen.maximized is screen.selector,
            "the provider list is maximized",
            detail=lambda: screen.maximized,
        )


# --- the theme ------------------------------------------------------------------------------

COMMENTED_UI = '# my settings\n[ui]\ntheme = ""  # Textual\'s default\n'


async def choose_theme(pilot, name: str) -> None:
    """Pick ``name`` with the palette's own "Theme" command."""
    await run_palette(pilot, "theme", "Theme")
    await pilot.press(*name)
    await until(
        pilot,
        lambda: palette_choice(pilot.app) == name,
        "the palette's first choice is the theme",
        detail=lambda: palette_choice(pilot.app),
    )
    await pilot.press("enter")


async def test_a_theme_chosen_in_the_palette_is_saved_and_used_after_a_restart(tmp_path):
    path = write_config(tmp_path, COMMENTED_UI)
    app = make_settings_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await choose_theme(pilot, "nord")
        await until(
            pilot,
            lambda: load_config(path).ui.theme == "nord",
            "the config file holds the nord theme",
            detail=lambda: load_config(path).ui.theme,
        )
        await settle(pilot)
        assert app.config.ui.theme == "nord"
    assert path.read_text(encoding="utf-8") == '# my settings\n[ui]\ntheme = "nord"  # Textual\'s default\n'
    written = path.stat().st_ino  # a save replaces the file (a new inode)
    restarted = make_settings_app(path)
    async with restarted.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert restarted.theme == "nord"
    assert path.stat().st_ino == written  # the theme applied at start-up is not saved again


async def test_a_theme_that_cannot_be_saved_is_a_notice_not_a_crash(tmp_path, monkeypatch):
    path = write_config(tmp_path, COMMENTED_UI)
    path.chmod(0o400)
    app = make_settings_app(path)
    said: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        monkeypatch.setattr(app, "notify", lambda message, **_: said.append(message))
        await choose_theme(pilot, "nord")
        await until(pilot, lambda: bool(said), "a notice was shown")
        assert app.is_running and app.theme == "nord"
    assert said[0].startswith(f"Theme not saved: {path}: the file is read-only")
    assert path.read_text(encoding="utf-8") == COMMENTED_UI


async def test_help_keeps_keys_apart_says_how_a_pane_scrolls_and_what_tab_visits(make_app, fake_streams):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f1")
        await until(
            pilot, lambda: isinstance(app.screen, HelpScreen), "the Help screen is open", detail=lambda: app.screen
        )
        text = help_text(app.screen)
        lines = text.splitlines()
        shift_tab = next(line for line in lines if line.startswith("shift+tab"))
        assert re.match(r"shift\+tab {2,}Previous field or pane", shift_tab), shift_tab  # never "shift+tabPrev"
        keys = app.screen.query(".help-keys").first(Static).visual
        assert all(not span_text.startswith(" ") for span_text in _runs(keys))  # no run begins with the gap
        tab = next(line for line in lines if line.startswith("tab "))
        assert "Next field or pane" in tab and "provider list" in tab  # Tab visits more than the panes
        panes = text[text.index("\nPanes\n") : text.index("\nMerged view\n")]
        for words in ("Scroll a line", "pgup / pgdn", "Scroll a page", "home / end"):
            assert words in panes, words


def _runs(content) -> list[str]:
    """The text of each styled run of ``content`` and of the unstyled text between them, by line."""
    runs = []
    for line in content.split("\n"):
        edges = sorted({0, len(line.plain), *(p for s in line.spans for p in (s.start, s.end))})
        runs += [line.plain[a:b] for a, b in pairwise(edges) if line.plain[a:b]]
    return runs
