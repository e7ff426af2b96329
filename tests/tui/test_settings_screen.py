"""Pilot tests of the settings screen: keys in the (in-memory) keyring, config.toml edits through
ConfigEditor, the Test action against the loopback fake server, and the no-keyring path."""

from __future__ import annotations

import asyncio
import re
import stat
import threading
from pathlib import Path

import keyring
import pytest
from keyring.backends.fail import Keyring as FailKeyring
from textual.command import CommandList, CommandPalette
from textual.widgets import Button, Input, OptionList, Select, SelectionList, Switch

from tests.fake_providers import FAKE_KEYS, FakeRequest, FakeServer, error_response
from tests.tui.conftest import burst, until, workers_done
from websearch_tui.core.catalogue import SPECS
from websearch_tui.engine.engine import Engine
from websearch_tui.settings.config import load_config
from websearch_tui.tui.app import WebSearchApp
from websearch_tui.tui.common.dialogs import ChoiceDialog
from websearch_tui.tui.search.screen import SearchScreen
from websearch_tui.tui.settings.check_switch import OFF_TEXT, ON_TEXT, CheckSwitch
from websearch_tui.tui.settings.fields import (
    FLOAT,
    INT,
    LIST,
    FieldSpec,
    format_value,
    general_fields,
    parse_text,
    provider_fields,
)
from websearch_tui.tui.settings.general_form import START_RULE
from websearch_tui.tui.settings.key_row import KeyRow
from websearch_tui.tui.settings.provider_form import ProviderForm
from websearch_tui.tui.settings.screen import SAVED_SECONDS, SettingsScreen
from websearch_tui.tui.settings.setting_row import SettingRow

BRAVE_ENTRY = ("websearch-tui", "brave:api_key")
BRAVE_SEARCH = ("GET", "/brave/res/v1/web/search")
COMMENTED = """\
# my websearch-tui settings
[search]
providers = ["ddgs", "exa"]  # the two I use
# seconds
timeout = 30

[providers.brave]
# a proxy in front of Brave
base_url = "https://proxy.example/brave"
"""


@pytest.fixture
def config_file(tmp_path: Path) -> Path:
    """A commented config.toml in a temporary folder."""
    path = tmp_path / "config.toml"
    path.write_text(COMMENTED, encoding="utf-8")
    return path


def make_settings_app(path: Path) -> WebSearchApp:
    """The real app over ``path``, resolving readiness from env, the keyring and the key file."""
    config = load_config(path)
    return WebSearchApp(config, Engine.from_config(config))


HANG = 30.0
"""Seconds after which a wait fails instead of blocking the suite (generous for a loaded CI machine);
never a measure of how long anything takes."""


async def settle(pilot) -> None:
    """Wait until every worker (statuses, key sources, stores, saves, Tests) has ended, and every
    worker those start, then let the screen catch up. A worker waiting for the user's answer makes
    this fail after :data:`HANG`: wait for the dialog with :func:`dialog_opened` instead."""

    async def all_ended() -> None:
        await pilot.pause()
        while any(not worker.is_finished for worker in pilot.app.workers):
            await workers_done(pilot.app)
            await pilot.pause()

    await asyncio.wait_for(all_ended(), HANG)


async def dialog_opened(pilot, dialog_id: str) -> ChoiceDialog:
    """The dialog ``dialog_id`` once a worker has pushed it and it has mounted (awaits the push on
    the app's screen-change signal; fails after :data:`HANG`)."""
    app = pilot.app
    pushed: asyncio.Future[ChoiceDialog] = asyncio.get_running_loop().create_future()

    def on_screen(screen: object) -> None:
        if isinstance(screen, ChoiceDialog) and screen.id == dialog_id and not pushed.done():
            pushed.set_result(screen)

    app.screen_change_signal.subscribe(app, on_screen, immediate=True)
    try:
        on_screen(app.screen)  # pushed already
        dialog = await asyncio.wait_for(pushed, HANG)
    finally:
        app.screen_change_signal.unsubscribe(app)
    await pilot.pause()
    assert app.screen is dialog
    return dialog


async def open_settings(pilot) -> SettingsScreen:
    """Press F3 and wait for the settings screen to load."""
    await settle(pilot)
    await pilot.press("f3")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, SettingsScreen)
    return screen


async def go_to(pilot, screen: SettingsScreen, entry: str) -> None:
    """Show the form of ``entry`` (a provider id or "general") as if chosen in the list."""
    nav = screen.nav
    nav.highlighted = nav.get_option_index(entry)
    await settle(pilot)
    assert screen.switcher.current == f"form-{entry}"


def key_row(screen: SettingsScreen, provider_id: str, name: str = "api_key") -> KeyRow:
    """The credential row of a provider form."""
    return screen.query_one(f"#key-{provider_id}-{name}", KeyRow)


def text_of(widget) -> str:
    """The plain text a Static shows."""
    return widget.visual.plain


def source_text(row: KeyRow) -> str:
    """The row's "Source: …" line."""
    return text_of(row.query_one(".key-source"))


async def type_key(pilot, row: KeyRow, value: str) -> None:
    """Type ``value`` in the row's masked input and press Enter (stores it, like Save key); the
    caller waits for the store (:func:`settle`) or for the dialog it asks (:func:`dialog_opened`)."""
    row.input.focus()
    row.input.value = value
    await pilot.pause()
    await pilot.press("enter")


def search_screen(app: WebSearchApp) -> SearchScreen:
    """The main screen at the bottom of the stack."""
    screen = app.screen_stack[0]
    assert isinstance(screen, SearchScreen)
    return screen


# --- opening and closing ------------------------------------------------------------------


async def test_opens_with_f3_and_escape_closes(config_file):
    app = make_settings_app(config_file)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await open_settings(pilot)
        assert screen.switcher.current == "form-general"
        assert screen.nav.get_option("general") is not None
        await pilot.press("f3")  # already open: nothing stacks up
        assert len(app.screen_stack) == 2
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, SearchScreen)


def palette_choice(app: WebSearchApp) -> str:
    """The text of the command palette's highlighted choice ("" while it shows none)."""
    if not isinstance(app.screen, CommandPalette):
        return ""
    choices = app.screen.query_one(CommandList)
    if not choices.has_class("--visible") or choices.highlighted is None:
        return ""
    prompt = choices.get_option_at_index(choices.highlighted).prompt
    return getattr(prompt, "plain", str(prompt))


async def test_opens_from_the_command_palette(config_file):
    app = make_settings_app(config_file)
    async with app.run_test(size=(150, 45)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await until(
            pilot,
            lambda: isinstance(app.screen, CommandPalette),
            "the command palette is open",
            detail=lambda: app.screen,
        )
        await pilot.press(*"settings")
        await until(
            pilot,
            lambda: palette_choice(app).startswith("Settings"),
            'the palette\'s first choice is "Settings"',
            detail=lambda: palette_choice(app),
        )  # its search is async
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, SettingsScreen)


async def test_list_groups_providers_by_kind_with_status(config_file):
    app = make_settings_app(config_file)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await open_settings(pilot)
        ids = [option.id for option in screen.nav.options]
        assert ids[:2] == ["general", "group-conventional"]
        assert ids.index("group-conventional") < ids.index("brave") < ids.index("group-agent")
        assert ids.index("group-agent") < ids.index("tavily") < ids.index("group-model") < ids.index("grok")
        assert screen.nav.get_option("group-agent").disabled
        prompts = {pid: str(screen.nav.get_option(pid).prompt) for pid in ("ddgs", "brave", "searxng")}
        assert prompts["ddgs"].endswith("keyless")
        assert prompts["brave"].endswith("needs key")
        assert prompts["searxng"].endswith("needs URL")


async def test_escape_with_unsaved_changes_asks_and_discard_keeps_the_file(config_file):
    app = make_settings_app(config_file)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await open_settings(pilot)
        screen.query_one("#f-search-timeout", Input).value = "45"
        await pilot.pause()
        await pilot.press("escape")
        await dialog_opened(pilot, "unsaved-dialog")
        await pilot.click("#choice-stay")
        await pilot.pause()
        assert app.screen is screen
        await pilot.press("escape")
        await dialog_opened(pilot, "unsaved-dialog")
        await pilot.click("#choice-discard")
        await pilot.pause()
        assert isinstance(app.screen, SearchScreen)
    assert config_file.read_text(encoding="utf-8") == COMMENTED


async def test_save_and_close_from_the_question(config_file):
    app = make_settings_app(config_file)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await open_settings(pilot)
        await pilot.press("down", "enter")  # DuckDuckGo's form, focus on its first field
        await settle(pilot)
        assert screen.switcher.current == "form-ddgs"
        assert app.focused is screen.query_one("#f-providers-ddgs-enabled", Switch)
        await pilot.press("space")  # switch DuckDuckGo off
        await pilot.press("escape")
        await dialog_opened(pilot, "unsaved-dialog")
        await pilot.click("#choice-save")
        await settle(pilot)
        assert isinstance(app.screen, SearchScreen)
        assert search_screen(app).selector.statuses["ddgs"] == "disabled"
    assert config_file.read_text(encoding="utf-8") == COMMENTED + "\n[providers.ddgs]\nenabled = false\n"


async def test_ctrl_c_asks_first_when_something_is_unsaved(config_file):
    app = make_settings_app(config_file)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await open_settings(pilot)
        screen.query_one("#f-search-timeout", Input).value = "45"
        await pilot.pause()
        await pilot.press("ctrl+c")
        dialog = await dialog_opened(pilot, "unsaved-dialog")
        assert text_of(dialog.query_one(".dialog-title")) == "Quit with unsaved settings?"
        assert "changes to config.toml" in text_of(dialog.query_one(".dialog-body"))
        await pilot.press("ctrl+c")  # the question is open: it must be answered, not skipped
        await pilot.pause()
        assert app.screen is dialog and app.return_code is None
        await pilot.click("#choice-stay")
        await pilot.pause()
        assert app.screen is screen and app.return_code is None

        await pilot.press("ctrl+c")
        await dialog_opened(pilot, "unsaved-dialog")
        await pilot.click("#choice-discard")
        await settle(pilot)
        assert app.return_code == 0
    assert config_file.read_text(encoding="utf-8") == COMMENTED


async def test_ctrl_c_asks_about_a_typed_key_and_can_save_it_then_quit(config_file, memory_keyring):
    app = make_settings_app(config_file)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await open_settings(pilot)
        await go_to(pilot, screen, "brave")
        key_row(screen, "brave").input.value = "quit-typed-key-42"
        await pilot.pause()
        await pilot.press("ctrl+c")
        await dialog_opened(pilot, "unsaved-dialog")
        assert app.return_code is None
        assert "the typed API key of Brave Search" in text_of(app.screen.query_one(".dialog-body"))
        await pilot.click("#choice-save")
        await settle(pilot)
        assert app.return_code == 0
    assert memory_keyring.entries[BRAVE_ENTRY] == "quit-typed-key-42"


async def test_ctrl_c_quits_at_once_when_nothing_is_unsaved(config_file):
    app = make_settings_app(config_file)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await open_settings(pilot)
        screen.query_one("#f-search-timeout", Input).value = "45"
        await pilot.pause()
        screen.query_one("#f-search-timeout", Input).value = "30"  # back to the file's value
        await pilot.pause()
        await pilot.press("ctrl+c")
        await settle(pilot)
        assert app.return_code == 0


# --- keys -----------------------------------------------------------------------------------


async def test_saving_a_key_stores_it_in_the_keyring_and_the_main_screen_shows_ready(config_file, memory_keyring):
    app = make_settings_app(config_file)
    async with app.run_test(size=(150, 45)) as pilot:
        await settle(pilot)
        assert search_screen(app).selector.statuses["brave"] == "needs key"
        screen = await open_settings(pilot)
        await go_to(pilot, screen, "brave")
        row = key_row(screen, "brave")
        assert source_text(row) == "Source: not set"
        await type_key(pilot, row, "  brave-key-0123456789  ")
        await settle(pilot)
        assert memory_keyring.entries[BRAVE_ENTRY] == "brave-key-0123456789"
        assert source_text(row) == "Source: keyring"
        assert row.input.value == ""
        assert "Stored the API key in the OS keyring" in text_of(
            screen.provider_form("brave").query_one(".keys-status")
        )
        assert str(screen.nav.get_option("brave").prompt).endswith("ready")
        assert search_screen(app).selector.statuses["brave"] == "ready"  # without a restart
        assert "brave-key-0123456789" not in config_file.read_text(encoding="utf-8")

        await pilot.click(row.query_one(".key-delete"))
        await dialog_opened(pilot, "delete-dialog")
        await pilot.click("#choice-delete")
        await settle(pilot)
        assert BRAVE_ENTRY not in memory_keyring.entries
        assert source_text(row) == "Source: not set"
        assert search_screen(app).selector.statuses["brave"] == "needs key"


async def test_save_and_close_stores_the_typed_key(config_file, memory_keyring):
    app = make_settings_app(config_file)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await open_settings(pilot)
        await go_to(pilot, screen, "brave")
        key_row(screen, "brave").input.value = "save-and-close-key"
        await pilot.pause()
        await pilot.press("escape")
        dialog = await dialog_opened(pilot, "unsaved-dialog")
        assert "the typed API key of Brave Search" in text_of(dialog.query_one(".dialog-body"))
        await pilot.click("#choice-save")
        await settle(pilot)
        assert isinstance(app.screen, SearchScreen)
        assert memory_keyring.entries[BRAVE_ENTRY] == "save-and-close-key"
        assert search_screen(app).selector.statuses["brave"] == "ready"
    assert config_file.read_text(encoding="utf-8") == COMMENTED  # keys never go in config.toml


async def test_save_and_close_without_a_keyring_asks_and_stays_when_declined(config_file, tmp_path, monkeypatch):
    key_file = tmp_path / "keys.toml"
    monkeypatch.setenv("WEBSEARCH_TUI_KEY_FILE", str(key_file))
    keyring.set_keyring(FailKeyring())
    app = make_settings_app(config_file)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await open_settings(pilot)
        await go_to(pilot, screen, "brave")
        key_row(screen, "brave").input.value = "declined-close-key"
        await pilot.pause()
        await go_to(pilot, screen, "general")
        await pilot.press("escape")
        await dialog_opened(pilot, "unsaved-dialog")
        await pilot.click("#choice-save")
        dialog = await dialog_opened(pilot, "key-file-dialog")
        assert "the API key of Brave Search" in text_of(dialog.query_one(".dialog-body"))
        await pilot.click("#choice-cancel")
        await settle(pilot)
        assert app.screen is screen  # not closed: the key would be lost
        assert screen.switcher.current == "form-brave"  # the form that says why
        assert "key file was declined" in text_of(screen.provider_form("brave").query_one(".keys-status"))
        assert key_row(screen, "brave").input.value == "declined-close-key"
        assert not key_file.exists()

        await pilot.press("escape")  # asked again; this time the key file is accepted
        await dialog_opened(pilot, "unsaved-dialog")
        await pilot.click("#choice-save")
        await dialog_opened(pilot, "key-file-dialog")
        await pilot.click("#choice-file")
        await settle(pilot)
        assert isinstance(app.screen, SearchScreen)
        assert 'api_key = "declined-close-key"' in key_file.read_text(encoding="utf-8")


async def test_env_key_is_shown_and_cannot_be_overwritten(config_file, memory_keyring, monkeypatch):
    monkeypatch.setenv("BRAVE_API_KEY", "env-brave-key-42")
    app = make_settings_app(config_file)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await open_settings(pilot)
        await go_to(pilot, screen, "brave")
        row = key_row(screen, "brave")
        assert source_text(row) == "Source: env BRAVE_API_KEY"
        assert row.input.disabled
        assert row.query_one(".key-delete").disabled
        note = text_of(row.query_one(".key-note"))
        assert "BRAVE_API_KEY takes precedence" in note and "Unset it" in note
        assert screen.query_one("#save-key-brave", Button).disabled  # a stored key would not be used
        await pilot.click("#save-key-brave")
        await settle(pilot)
        assert memory_keyring.entries == {}
        assert not screen.provider_form("brave").query_one(".keys-status").display  # nothing happened
        await go_to(pilot, screen, "tavily")  # no environment variable: Save key works
        assert not screen.query_one("#save-key-tavily", Button).disabled
        assert "env-brave-key-42" not in app.export_screenshot()


async def test_tab_from_the_list_goes_to_the_first_field_and_typing_lands_there(config_file, memory_keyring):
    app = make_settings_app(config_file)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await open_settings(pilot)
        await pilot.press("tab")
        assert app.focused is screen.query_one("#f-search-providers")  # General's first field, not its scroller
        await go_to(pilot, screen, "brave")
        screen.nav.focus()
        await pilot.press("tab", *"sk-1")
        row = key_row(screen, "brave")
        assert app.focused is row.input
        assert row.input.value == "sk-1"


async def test_tabbing_back_into_a_field_keeps_its_text(config_file, memory_keyring):
    app = make_settings_app(config_file)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await open_settings(pilot)
        await go_to(pilot, screen, "brave")
        row = key_row(screen, "brave")
        row.input.focus()
        await pilot.press(*"sk-0123456789abcd")  # a 17-character key
        await pilot.press("tab")
        assert app.focused is not row.input
        await pilot.press("shift+tab", "x")
        assert app.focused is row.input
        assert row.input.value == "sk-0123456789abcdx"  # the cursor was at the end; nothing was selected
        timeout = screen.query_one("#f-search-timeout", Input)
        await go_to(pilot, screen, "general")
        timeout.focus()
        await pilot.press("shift+tab", "tab", "5")
        assert timeout.value == "305"


async def test_typed_key_never_reaches_the_screen_or_the_config_file(config_file, memory_keyring):
    secret = "sk-typed-SECRET-987654"
    app = make_settings_app(config_file)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await open_settings(pilot)
        await go_to(pilot, screen, "brave")
        row = key_row(screen, "brave")
        row.input.value = secret
        assert app.engine._pacer(SPECS["brave"]).interval == 1.0
        screen.query_one("#f-providers-brave-min_interval", Input).value = "2"
        await pilot.pause()  # the edit reaches the document before Ctrl+S
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.engine._pacer(SPECS["brave"]).interval == 2  # pacing applies without a restart
        assert secret not in app.export_screenshot()
        assert "•" * len(secret) in app.export_screenshot()
        await pilot.press("escape")  # the typed key is not stored: closing asks about it
        await dialog_opened(pilot, "unsaved-dialog")
        assert "API key of Brave Search" in text_of(app.screen.query_one(".dialog-body"))
        assert secret not in app.export_screenshot()
    assert memory_keyring.entries == {}
    text = config_file.read_text(encoding="utf-8")
    assert "min_interval = 2" in text and secret not in text


async def test_searxng_basic_auth_is_checked_at_the_field_and_deleted_together(config_file, memory_keyring):
    """The field rules and the pair's Delete; the pair's store rules are KeyStore unit tests."""
    app = make_settings_app(config_file)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await open_settings(pilot)
        await go_to(pilot, screen, "searxng")
        username = key_row(screen, "searxng", "username")
        assert not username.input.password  # a user name is not a secret
        assert key_row(screen, "searxng", "password").input.password
        username.input.value = "ann:admin"
        await pilot.pause()
        assert username.has_class("-invalid")
        assert "must not contain ':'" in source_text(username)
        username.input.value = "ann"
        await pilot.pause()
        assert not username.has_class("-invalid")
        key_row(screen, "searxng", "password").input.value = "pw-123456"
        await type_key(pilot, username, "ann")  # Enter in one field stores every typed value of the form
        await settle(pilot)
        assert memory_keyring.entries[("websearch-tui", "searxng:username")] == "ann"
        assert memory_keyring.entries[("websearch-tui", "searxng:password")] == "pw-123456"
        await pilot.click(username.query_one(".key-delete"))  # a Basic pair is deleted together
        await dialog_opened(pilot, "delete-dialog")
        await pilot.click("#choice-delete")
        await settle(pilot)
        assert memory_keyring.entries == {}


async def test_without_a_keyring_the_key_file_needs_confirmation(config_file, tmp_path, monkeypatch):
    key_file = tmp_path / "keys" / "keys.toml"
    monkeypatch.setenv("WEBSEARCH_TUI_KEY_FILE", str(key_file))
    keyring.set_keyring(FailKeyring())
    app = make_settings_app(config_file)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await open_settings(pilot)
        banner = screen.query_one("#keystore")
        assert text_of(banner).startswith("No usable OS keyring") and banner.region.height == 1
        await go_to(pilot, screen, "brave")
        note = text_of(screen.provider_form("brave").query_one(".key-store-note"))
        assert note.startswith("No usable OS keyring was found") and str(key_file) in note
        row = key_row(screen, "brave")
        await type_key(pilot, row, "file-key-123456")
        dialog = await dialog_opened(pilot, "key-file-dialog")
        assert text_of(dialog.query_one(".dialog-title")) == "Store keys in an unencrypted file readable only by you?"
        assert str(key_file) in text_of(dialog.query_one(".dialog-body"))
        await pilot.click("#choice-cancel")
        await settle(pilot)
        assert not key_file.exists()
        assert "declined" in text_of(screen.provider_form("brave").query_one(".keys-status"))

        await type_key(pilot, row, "file-key-123456")
        await dialog_opened(pilot, "key-file-dialog")
        await pilot.click("#choice-file")
        await settle(pilot)
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
        assert 'api_key = "file-key-123456"' in key_file.read_text(encoding="utf-8")
        assert source_text(row) == "Source: key file (not encrypted)"
        assert search_screen(app).selector.statuses["brave"] == "ready"
        assert "file-key-123456" not in config_file.read_text(encoding="utf-8")

        await go_to(pilot, screen, "tavily")  # consent does not carry over to the next key
        await type_key(pilot, key_row(screen, "tavily"), "tavily-file-key-1")
        dialog = await dialog_opened(pilot, "key-file-dialog")
        assert "the API key of Tavily" in text_of(dialog.query_one(".dialog-body"))
        await pilot.click("#choice-cancel")
        await settle(pilot)
        assert "tavily" not in key_file.read_text(encoding="utf-8")


async def test_a_failing_key_worker_is_reported_not_silent(config_file, memory_keyring, monkeypatch):
    app = make_settings_app(config_file)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await open_settings(pilot)
        await go_to(pilot, screen, "brave")
        said: list[tuple[str, str]] = []
        monkeypatch.setattr(app, "notify", lambda message, **kw: said.append((message, kw.get("severity", ""))))

        def broken(*args, **kwargs):
            raise RuntimeError("key store bug")

        monkeypatch.setattr(app.engine.key_store, "store", broken)
        await type_key(pilot, key_row(screen, "brave"), "brave-bug-key-1")
        await settle(pilot)
        assert said == [
            ("Internal error in store keys: RuntimeError: key store bug (details in the log file)", "error")
        ]
        assert app.screen is screen  # the app keeps running
    assert memory_keyring.entries == {}


# --- the Test action ------------------------------------------------------------------------


@pytest.fixture
def fake_server():
    with FakeServer() as server:
        yield server


def brave_accepting(server: FakeServer, good_key: str):
    """Brave's search route, answering 401 unless the subscription token is ``good_key``."""
    default = server.handler(*BRAVE_SEARCH)

    def handler(request: FakeRequest):
        if request.header("x-subscription-token") != good_key:
            return error_response("/brave", 401)
        return default(request)

    return handler


async def test_test_action_against_the_fake_server(tmp_path, fake_server, memory_keyring):
    path = tmp_path / "config.toml"
    path.write_text(f'[providers.brave]\nbase_url = "{fake_server.url("brave")}"\n', encoding="utf-8")
    good = FAKE_KEYS["BRAVE_API_KEY"]
    fake_server.set(*BRAVE_SEARCH, brave_accepting(fake_server, good))
    app = make_settings_app(path)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await open_settings(pilot)
        await go_to(pilot, screen, "brave")
        form = screen.provider_form("brave")
        result = form.query_one(".test-result")

        key_row(screen, "brave").input.value = "wrong-key-0000"
        await click_test(pilot, "brave")
        await settle(pilot)
        assert text_of(result).startswith("Failed (auth): ")
        assert "authorization failed (401)" in text_of(result)
        assert "wrong-key-0000" not in app.export_screenshot()

        key_row(screen, "brave").input.value = good
        await click_test(pilot, "brave")
        await settle(pilot)
        assert re.fullmatch(r"OK \d+\.\d\d s · \d+ sources?", text_of(result)), text_of(result)
        assert fake_server.last_request(BRAVE_SEARCH[1]).query["q"] == "test"
        assert memory_keyring.entries == {}  # tested, never stored
        assert key_row(screen, "brave").input.value == good


def retry_reported(app: WebSearchApp, monkeypatch: pytest.MonkeyPatch) -> asyncio.Event:
    """An event set when the engine has reported a retry wait to a Test (after the form was told)."""
    reported = asyncio.Event()
    probe = app.engine.probe

    async def watched(*args, on_update, **kwargs):
        def forward(update) -> None:
            on_update(update)
            if update.retry is not None:
                reported.set()

        return await probe(*args, on_update=forward, **kwargs)

    monkeypatch.setattr(app.engine, "probe", watched)
    return reported


def brave_test_app(tmp_path: Path, server: FakeServer) -> WebSearchApp:
    """The app over a config that points Brave at the fake server, which accepts only Brave's fake key."""
    path = tmp_path / "config.toml"
    path.write_text(f'[providers.brave]\nbase_url = "{server.url("brave")}"\n', encoding="utf-8")
    server.set(*BRAVE_SEARCH, brave_accepting(server, FAKE_KEYS["BRAVE_API_KEY"]))
    return make_settings_app(path)


async def click_test(pilot, provider_id: str) -> None:
    """Click the form's Test button once it can take a click: a Textual button ignores clicks while
    its press effect (0.2 s) still shows, so a second click that comes sooner (two pilot clicks on a
    warm, idle machine are about 0.1 s apart) would silently do nothing."""
    button = pilot.app.screen.query_one(f"#test-{provider_id}", Button)
    await until(pilot, lambda: not button.has_class("-active"), "the button is no longer active")
    await pilot.click(button)


def running_tests(app: WebSearchApp) -> list:
    """The Test workers still running."""
    return [worker for worker in app.workers if worker.group.startswith("settings-test") and not worker.is_finished]


async def test_a_new_test_cancels_the_old_one_whose_result_never_shows(tmp_path, fake_server):
    hanging = "hanging-key-0000"
    app = brave_test_app(tmp_path, fake_server)
    fake_server.hang(BRAVE_SEARCH, 5, when=lambda request: request.header("x-subscription-token") == hanging)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await open_settings(pilot)
        await go_to(pilot, screen, "brave")
        result = screen.provider_form("brave").query_one(".test-result")
        key_row(screen, "brave").input.value = hanging  # held 5 s, then refused (401)
        await click_test(pilot, "brave")
        await pilot.pause()
        assert len(running_tests(app)) == 1
        key_row(screen, "brave").input.value = FAKE_KEYS["BRAVE_API_KEY"]
        await click_test(pilot, "brave")
        await settle(pilot)  # until every worker ended: an old run still going would end as "Failed (auth)"
        assert text_of(result).startswith("OK "), text_of(result)
        assert running_tests(app) == []


async def test_leaving_the_form_or_escape_cancels_a_running_test(tmp_path, fake_server):
    app = brave_test_app(tmp_path, fake_server)
    fake_server.hang(BRAVE_SEARCH, 30)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await open_settings(pilot)
        await go_to(pilot, screen, "brave")
        result = screen.provider_form("brave").query_one(".test-result")
        key_row(screen, "brave").input.value = FAKE_KEYS["BRAVE_API_KEY"]
        await click_test(pilot, "brave")
        await pilot.pause()
        assert text_of(result) == "Searching “test”…"
        await go_to(pilot, screen, "general")
        assert text_of(result) == "Test cancelled."
        assert running_tests(app) == []

        await go_to(pilot, screen, "brave")
        await click_test(pilot, "brave")
        await pilot.pause()
        await pilot.press("escape")  # cancels the test, does not close the screen
        await settle(pilot)
        assert app.screen is screen
        assert text_of(result) == "Test cancelled."
        assert running_tests(app) == []
        await pilot.press("escape")  # nothing runs now: Escape closes (asking about the typed key)
        await dialog_opened(pilot, "unsaved-dialog")


async def test_the_test_line_shows_a_retry_wait(tmp_path, fake_server, monkeypatch):
    app = brave_test_app(tmp_path, fake_server)
    fake_server.fail(BRAVE_SEARCH, 429, retry_after=30)
    retrying = retry_reported(app, monkeypatch)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await open_settings(pilot)
        await go_to(pilot, screen, "brave")
        key_row(screen, "brave").input.value = FAKE_KEYS["BRAVE_API_KEY"]
        await click_test(pilot, "brave")
        result = screen.provider_form("brave").query_one(".test-result")
        await asyncio.wait_for(retrying.wait(), HANG)
        text = text_of(result)
        assert re.fullmatch(r"Searching “test”… retrying in \d+s \(429\)…", text), text
        await pilot.press("escape")
        await settle(pilot)
        assert text_of(result) == "Test cancelled."


async def test_test_action_uses_pending_settings(tmp_path, fake_server, memory_keyring):
    path = tmp_path / "config.toml"
    path.write_text("", encoding="utf-8")
    memory_keyring.set_password(*BRAVE_ENTRY, FAKE_KEYS["BRAVE_API_KEY"])
    app = make_settings_app(path)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await open_settings(pilot)
        await go_to(pilot, screen, "brave")
        screen.query_one("#f-providers-brave-base_url", Input).value = fake_server.url("brave")
        await pilot.pause()
        await click_test(pilot, "brave")
        await settle(pilot)
        assert text_of(screen.provider_form("brave").query_one(".test-result")).startswith("OK ")
    assert path.read_text(encoding="utf-8") == ""  # tested, not saved


# --- config edits ---------------------------------------------------------------------------


async def test_invalid_base_url_is_refused_at_the_field(config_file):
    app = make_settings_app(config_file)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await open_settings(pilot)
        await go_to(pilot, screen, "brave")
        field = screen.query_one("#f-providers-brave-base_url", Input)
        field.focus()
        field.value = ""
        await pilot.press(*"ftp://quux")  # typed: "q" goes into the field, it does not close the screen
        await pilot.pause()
        assert app.screen is screen and field.value == "ftp://quux"
        row = next(node for node in field.ancestors if isinstance(node, SettingRow))
        assert row.has_class("-invalid")
        assert "Base URL must be an http(s) URL" in text_of(row.query_one(".setting-help"))
        assert screen.editor.get("providers.brave", "base_url") != "ftp://quux"  # never in the document
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert config_file.read_text(encoding="utf-8") == COMMENTED
        field.value = "https://other.example"
        await pilot.pause()
        assert not row.has_class("-invalid")
        await pilot.press("ctrl+s")
        await settle(pilot)
    assert config_file.read_text(encoding="utf-8") == COMMENTED.replace(
        "https://proxy.example/brave", "https://other.example"
    )


async def test_save_keeps_comments_and_changes_only_the_edited_line(config_file):
    app = make_settings_app(config_file)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await open_settings(pilot)
        screen.query_one("#f-search-timeout", Input).value = "45"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.engine.timeout == 45
        assert app.config.search.timeout == 45
    assert config_file.read_text(encoding="utf-8") == COMMENTED.replace("timeout = 30\n", "timeout = 45\n")


async def test_disabling_a_provider_updates_the_main_screen(config_file):
    app = make_settings_app(config_file)
    async with app.run_test(size=(150, 45)) as pilot:
        await settle(pilot)
        assert search_screen(app).selector.selected == ["ddgs", "exa"]
        screen = await open_settings(pilot)
        await go_to(pilot, screen, "exa")
        screen.query_one("#f-providers-exa-enabled", Switch).value = False
        await pilot.pause()
        assert "unsaved changes" in text_of(screen.query_one("#settings-title"))
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert str(screen.nav.get_option("exa").prompt).endswith("disabled")
        assert app.engine.default_providers == ("ddgs",)
        await pilot.press("escape")
        await settle(pilot)
        main = search_screen(app)
        assert app.screen is main
        assert main.selector.selected == ["ddgs"]
        assert main.selector.statuses["exa"] == "disabled"
        assert [pane.provider_id for pane in main.pane_area.panes] == ["ddgs"]
    assert "[providers.exa]\nenabled = false\n" in config_file.read_text(encoding="utf-8")


async def test_a_re_enabled_provider_is_selected_again(config_file):
    app = make_settings_app(config_file)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await open_settings(pilot)
        await go_to(pilot, screen, "exa")
        switch = screen.query_one("#f-providers-exa-enabled", Switch)
        switch.value = False
        await pilot.pause()  # the edit reaches the document before Ctrl+S
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert search_screen(app).selector.selected == ["ddgs"]
        switch.value = True
        await pilot.pause()  # the edit reaches the document before Ctrl+S
        await pilot.press("ctrl+s")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        main = search_screen(app)
        assert sorted(main.selector.selected) == ["ddgs", "exa"]  # as on a fresh start
        assert [pane.provider_id for pane in main.pane_area.panes] == ["ddgs", "exa"]
        assert main.build_request("q").providers == ("ddgs", "exa")


async def test_switching_a_provider_off_and_on_keeps_its_enabled_line(config_file):
    original = COMMENTED + "\n[providers.exa]\nenabled = true  # keep me\n"
    config_file.write_text(original, encoding="utf-8")
    app = make_settings_app(config_file)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await open_settings(pilot)
        await go_to(pilot, screen, "exa")
        switch = screen.query_one("#f-providers-exa-enabled", Switch)
        switch.value = False
        await pilot.pause()  # the edit reaches the document before Ctrl+S
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "enabled = false  # keep me" in config_file.read_text(encoding="utf-8")
        await pilot.press("escape")  # a later visit builds the form from the saved file
        await settle(pilot)
        screen = await open_settings(pilot)
        await go_to(pilot, screen, "exa")
        screen.query_one("#f-providers-exa-enabled", Switch).value = True
        await pilot.pause()  # the edit reaches the document before Ctrl+S
        await pilot.press("ctrl+s")
        await settle(pilot)
    assert config_file.read_text(encoding="utf-8") == original


async def test_the_enabled_help_line_follows_the_switch(config_file):
    app = make_settings_app(config_file)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await open_settings(pilot)
        await go_to(pilot, screen, "exa")
        switch = screen.query_one("#f-providers-exa-enabled", Switch)
        row = next(node for node in switch.ancestors if isinstance(node, SettingRow))
        assert text_of(row.query_one(".setting-help")) == "on: searched when selected"
        switch.value = False
        await pilot.pause()
        assert text_of(row.query_one(".setting-help")) == "off: never searched, even when selected"


async def test_refused_save_names_the_field_once(config_file, monkeypatch):
    app = make_settings_app(config_file)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await open_settings(pilot)
        await go_to(pilot, screen, "brave")
        said: list[str] = []
        monkeypatch.setattr(screen, "notify", lambda message, **_: said.append(message))
        screen.query_one("#f-providers-brave-min_interval", Input).value = "soon"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert said == ["Not saved. Fix first: Pacing must be a number, got 'soon'"]
    assert config_file.read_text(encoding="utf-8") == COMMENTED


async def test_theme_back_to_default_applies_at_once(config_file):
    app = make_settings_app(config_file)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await open_settings(pilot)
        theme = screen.query_one("#f-ui-theme", Select)
        theme.value = "textual-light"
        await pilot.pause()  # the edit reaches the document before Ctrl+S
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.theme == "textual-light"
        theme.clear()
        await pilot.pause()  # the edit reaches the document before Ctrl+S
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert load_config(config_file).ui.theme is None
        assert app.theme == "textual-dark"


async def test_general_settings_are_saved_and_applied(config_file):
    app = make_settings_app(config_file)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await open_settings(pilot)
        screen.query_one("#f-search-mode", Select).value = "auto"
        screen.query_one("#f-search-max_results", Input).value = "7"
        screen.query_one("#f-ui-theme", Select).value = "textual-light"
        providers = screen.query_one("#f-search-providers")
        providers.select("brave")
        await pilot.pause()
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.theme == "textual-light"
        assert app.engine.default_providers == ("ddgs", "exa", "brave")
        await pilot.press("escape")
        await settle(pilot)
        main = search_screen(app)
        assert main.query_one("#mode", Select).value == "auto"
        assert main.query_one("#count", Select).value == 7
        assert main.selector.selected == ["ddgs", "exa", "brave"]
    config = load_config(config_file)
    assert (config.search.mode, config.search.max_results, config.ui.theme) == ("auto", 7, "textual-light")
    assert config.search.providers == ("ddgs", "exa", "brave")
    assert "# the two I use" in config_file.read_text(encoding="utf-8")


async def test_external_edit_is_detected_and_nothing_is_lost(config_file):
    app = make_settings_app(config_file)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await open_settings(pilot)
        screen.query_one("#f-search-timeout", Input).value = "45"
        await pilot.pause()
        external = COMMENTED.replace("[providers.brave]\n", '[providers.brave]\ncountry = "DE"  # added elsewhere\n')
        config_file.write_text(external, encoding="utf-8")

        await pilot.press("ctrl+s")
        await dialog_opened(pilot, "changed-dialog")
        await pilot.click("#choice-cancel")
        await settle(pilot)
        assert config_file.read_text(encoding="utf-8") == external
        assert screen.unsaved_config

        await pilot.press("ctrl+s")
        await dialog_opened(pilot, "changed-dialog")
        await pilot.click("#choice-merge")
        await settle(pilot)
        assert not screen.unsaved_config
        assert screen.switcher.current == "form-general"
        assert screen.query_one("#f-search-timeout", Input).value == "45"
    assert config_file.read_text(encoding="utf-8") == external.replace("timeout = 30\n", "timeout = 45\n")


async def test_grok_search_mode_is_a_choice(config_file):
    app = make_settings_app(config_file)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await open_settings(pilot)
        await go_to(pilot, screen, "grok")
        select = screen.query_one("#f-providers-grok-search_mode", Select)
        assert [value for _, value in select._options if value is not Select.NULL] == ["web", "x", "both"]
        select.value = "x"
        await pilot.pause()
        assert screen.editor.get("providers.grok", "search_mode") == "x"
        assert isinstance(screen.provider_form("grok"), ProviderForm)


# --- small terminals ------------------------------------------------------------------------


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_screen_fits_small_and_large_terminals(config_file, tmp_path, monkeypatch, size):
    monkeypatch.setenv("WEBSEARCH_TUI_KEY_FILE", str(tmp_path / "keys.toml"))
    keyring.set_keyring(FailKeyring())  # the longest warning
    app = make_settings_app(config_file)
    async with app.run_test(size=size) as pilot:
        screen = await open_settings(pilot)
        assert screen.query_one("#keystore").region.height == 1
        assert screen.nav.region.width <= (33 if size[0] < 100 else 38)
        for provider_id, name in (("brave", "api_key"), ("searxng", "username"), ("searxng", "password")):
            await go_to(pilot, screen, provider_id)
            row = key_row(screen, provider_id, name)
            assert row.input.region.width >= 16
            assert row.query_one(".key-source").region.height == 1  # "Source: not set" on one line
            assert row.region.right <= screen.switcher.region.right
        for field in screen.provider_form("searxng").query(Input):
            assert field.region.width >= 16 or not field.region.width  # folded under Advanced: not laid out


# --- the field model ------------------------------------------------------------------------


def test_parse_and_format_values():
    count = FieldSpec("search", "max_results", "Results", INT)
    timeout = FieldSpec("search", "timeout", "Timeout", FLOAT)
    models = FieldSpec("providers.openai", "models", "Models", LIST)
    assert parse_text(count, " 7 ") == 7
    assert parse_text(count, "") is None
    with pytest.raises(ValueError, match="Results must be a whole number"):
        parse_text(count, "seven")
    assert parse_text(timeout, "2.5") == 2.5
    assert parse_text(timeout, "30") == 30 and isinstance(parse_text(timeout, "30.0"), int)
    assert parse_text(models, "a, b,,c ") == ["a", "b", "c"]
    assert format_value(["a", "b"]) == "a, b"
    assert format_value(1.5) == "1.5" and format_value(None) == ""


def test_provider_fields_cover_the_spec():
    keys = [field.key for field in provider_fields(SPECS["searxng"])]
    assert keys[:2] == ["enabled", "base_url"]
    assert {"categories", "language", "engines", "safesearch", "min_interval"} <= set(keys)
    grok = {field.key: field for field in provider_fields(SPECS["grok"])}
    assert [value for _, value in grok["search_mode"].choices] == ["web", "x", "both"]
    assert grok["model"].placeholder == SPECS["grok"].default_model


async def test_the_title_says_when_a_typed_key_is_not_stored(config_file, memory_keyring):
    app = make_settings_app(config_file)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await open_settings(pilot)
        await go_to(pilot, screen, "brave")
        title = screen.query_one("#settings-title")
        assert "typed key not stored" not in text_of(title)
        key_input = screen.query_one(KeyRow).query_one(Input)
        key_input.focus()
        key_input.value = "brave-title-0041"
        await pilot.pause()
        assert "typed key not stored" in text_of(title)
        await pilot.press("enter")  # Enter in the key field stores it
        await settle(pilot)
        assert "typed key not stored" not in text_of(title)
        assert memory_keyring.entries[("websearch-tui", "brave:api_key")] == "brave-title-0041"


async def test_a_value_typed_in_one_burst_with_backspaces_is_saved_as_typed(config_file):
    app = make_settings_app(config_file)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await open_settings(pilot)
        field = screen.query_one("#f-search-timeout", Input)
        field.focus()
        await pilot.pause()
        burst(app, "end", "backspace", "backspace", "25", "backspace", "backspace", "5")
        await pilot.pause(0.3)
        assert field.value == "5"
        await pilot.press("ctrl+s")
        await settle(pilot)
    assert "timeout = 5" in config_file.read_text(encoding="utf-8")


async def test_default_providers_differ_in_their_mark_not_only_in_colour(config_file, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_settings_app(config_file)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await open_settings(pilot)
        providers = screen.query_one("#f-search-providers", SelectionList)
        await pilot.pause()
        rows = {}
        for y in range(providers.size.height):
            text = providers.render_line(y).text
            for label in ("DuckDuckGo", "Brave Search"):
                if label in text:
                    rows[label] = text.split(label)[0]
        assert "✓" in rows["DuckDuckGo"] and "X" not in rows["DuckDuckGo"]  # selected by default
        assert "✓" not in rows["Brave Search"] and "X" not in rows["Brave Search"]


# --- issue 29: the start rule, focus after Enter, the Enabled switch, the theme, the Saved notice ---


def main_controls(app: WebSearchApp) -> tuple[list[str], object, object, object]:
    """The main screen's selected providers, mode, recency and count."""
    main = search_screen(app)
    values = [main.query_one(f"#{name}", Select).value for name in ("mode", "recency", "count")]
    return ([spec.id for spec in main.selected_specs()], *values)


async def test_the_start_uses_what_was_last_used_with_the_same_config_file(config_file, tmp_path):
    test_config = tmp_path / "test.toml"
    test_config.write_text('[search]\nproviders = ["tavily"]\nmode = "auto"\n', encoding="utf-8")
    app = make_settings_app(config_file)
    async with app.run_test(size=(150, 45)) as pilot:
        await pilot.pause()  # the boxes are Selects once the first frame is drawn
        assert main_controls(app) == (["ddgs", "exa"], "compare", "any", 10)  # nothing remembered: the config's
        main = search_screen(app)
        main.selector.deselect("exa")
        main.selector.select("brave")
        main.query_one("#recency", Select).value = "week"
        await settle(pilot)
        screen = await open_settings(pilot)  # the settings say the same rule
        assert text_of(screen.query_one("#start-rule")) == START_RULE
        assert "last used with it" in START_RULE and "nothing is remembered for this config file" in START_RULE
    app = make_settings_app(test_config)  # a session against another config file: its own defaults
    async with app.run_test(size=(150, 45)) as pilot:
        await settle(pilot)
        assert main_controls(app) == (["tavily"], "auto", "any", 10)
        search_screen(app).query_one("#count", Select).value = 3
        await settle(pilot)
    app = make_settings_app(config_file)  # the first config file is as it was left
    async with app.run_test(size=(150, 45)) as pilot:
        await settle(pilot)
        assert main_controls(app) == (["ddgs", "brave"], "compare", "week", 10)
    app = make_settings_app(test_config)
    async with app.run_test(size=(150, 45)) as pilot:
        await settle(pilot)
        assert main_controls(app) == (["tavily"], "auto", "any", 3)


async def test_enter_on_an_env_key_entry_focuses_the_first_field_left_enabled(config_file, monkeypatch):
    monkeypatch.setenv("BRAVE_API_KEY", "env-brave-key-42")
    app = make_settings_app(config_file)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_settings(pilot)
        key_store = app.engine.key_store
        read_sources = key_store.sources
        known = threading.Event()

        def late_sources(spec):  # the sources arrive after Enter focused the form's first field
            known.wait(HANG)
            return read_sources(spec)

        monkeypatch.setattr(key_store, "sources", late_sources)
        screen.nav.highlighted = screen.nav.get_option_index("brave")
        await pilot.press("enter")
        await pilot.pause()
        assert app.focused is key_row(screen, "brave").input  # the key field, until its source is known
        known.set()
        await settle(pilot)
        assert app.focused is screen.query_one("#f-providers-brave-enabled", Switch)
        assert "BRAVE_API_KEY takes precedence" in text_of(key_row(screen, "brave").query_one(".key-note"))
        assert (
            screen.query_one("#f-providers-brave-enabled").region.bottom <= screen.provider_form("brave").region.bottom
        )


async def test_the_enabled_switch_says_on_or_off_in_text(config_file, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_settings_app(config_file)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await open_settings(pilot)
        await go_to(pilot, screen, "exa")
        switch = screen.query_one("#f-providers-exa-enabled", Switch)
        assert isinstance(switch, CheckSwitch)
        assert switch.render_line(0).text.strip() == ON_TEXT == "[✓] on"
        switch.focus()
        await pilot.press("space")
        await pilot.pause()
        assert switch.render_line(0).text.strip() == OFF_TEXT == "[ ] off"
        assert not switch.value and screen.unsaved_config


async def test_the_theme_field_and_the_palette_name_and_mark_the_theme_in_use(config_file):
    app = make_settings_app(config_file)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await open_settings(pilot)
        theme = screen.query_one("#f-ui-theme", Select)
        assert app.theme == "textual-dark" and theme.is_blank()
        assert text_of(theme.query_one("#label")) == "textual-dark in use; the file sets none"  # not "default"
        theme.focus()
        await pilot.press("enter")  # open the choices
        await pilot.pause()
        overlay = theme.query_one(OptionList)  # the choices
        prompts = [str(getattr(option.prompt, "plain", option.prompt)) for option in overlay.options]
        assert "textual-dark (in use)" in prompts and "textual-light" in prompts
        assert [p for p in prompts if p.endswith("(in use)")] == ["textual-dark (in use)"]
        await pilot.press("escape")
        await settle(pilot)
        app.search_themes()  # Ctrl+P → Theme
        await until(
            pilot,
            lambda: isinstance(app.screen, CommandPalette),
            "the command palette is open",
            detail=lambda: app.screen,
        )
        await pilot.press(*"textual-d")
        await until(
            pilot,
            lambda: palette_choice(app) == "textual-dark (in use)",
            'the palette\'s first choice is "textual-dark (in use)"',
            detail=lambda: palette_choice(app),
        )


def test_a_theme_the_app_lacks_is_named_in_the_theme_field():
    fields = general_fields(["nord", "textual-dark"], "textual-dark", "solarized-ugly")
    theme = next(field for field in fields if field.key == "theme")
    assert theme.placeholder == "textual-dark in use; the file's 'solarized-ugly' is not a theme"
    odd = next(f for f in general_fields(["nord"], "nord", "[b]x[/") if f.key == "theme")  # shown as markup
    assert odd.placeholder == "nord in use; the file's theme is unknown"
    assert theme.choices == (("nord", "nord"), ("textual-dark (in use)", "textual-dark"))
    assert next(f for f in general_fields(["nord"], "nord", "Nord") if f.key == "theme").placeholder.endswith("none")


async def test_saved_stays_readable_and_the_title_says_so_until_the_next_change(config_file):
    app = make_settings_app(config_file)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await open_settings(pilot)
        screen.query_one("#f-search-timeout", Input).value = "25"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await settle(pilot)
        saved = [n for n in app._notifications if n.message.startswith("Saved ")]
        assert len(saved) == 1 and saved[0].timeout == SAVED_SECONDS >= 6
        title = text_of(screen.query_one("#settings-title"))
        assert re.search(r"Settings · saved at \d\d:\d\d:\d\d · Ctrl\+S saves", title)
        screen.query_one("#f-search-timeout", Input).value = "26"
        await pilot.pause()
        assert "· unsaved changes ·" in text_of(screen.query_one("#settings-title"))


async def test_a_theme_chosen_while_the_settings_are_open_is_marked_in_the_theme_field(config_file):
    app = make_settings_app(config_file)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await open_settings(pilot)
        theme = screen.query_one("#f-ui-theme", Select)
        app.theme = "textual-light"  # the palette's Theme, over the settings
        await settle(pilot)
        marked = [
            str(option.prompt) for option in theme.query_one(OptionList).options if "(in use)" in str(option.prompt)
        ]
        assert marked == ["textual-light (in use)"]
        assert theme.is_blank() and not screen.unsaved_config  # the document keeps its value
        assert text_of(theme.query_one("#label")) == "textual-light in use; the file sets none"
