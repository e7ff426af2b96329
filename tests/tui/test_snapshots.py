"""Layout snapshots of the main screen (deterministic: frozen clock, fake streams, fixed size)."""

from __future__ import annotations

from textual.widgets import Input

from tests.tui.conftest import submit, wait_for_search, workers_done
from tests.tui.test_search_screen import auth_failure, full_result


def frozen() -> float:
    """A clock that never moves, so elapsed times read 0.0s and spinners do not turn."""
    return 100.0


async def _no_blink(pilot) -> None:
    """Wait for the screen to mount and its readiness worker to finish; stop the cursor blinking."""
    for _ in range(100):
        if pilot.app.screen.query("#query"):
            break
        await pilot.pause(0.02)
    pilot.app.screen.query_one("#query", Input).cursor_blink = False
    await workers_done(pilot.app)
    await pilot.pause()


def test_idle_screen(snap_compare, make_app, fake_streams):
    app = make_app(("ddgs", "exa", "parallel"), clock=frozen)
    assert snap_compare(app, terminal_size=(120, 36), run_before=_no_blink)


def test_after_search(snap_compare, make_app, fake_streams):
    fake_streams["ddgs"] = full_result
    fake_streams["brave"] = auth_failure

    async def run(pilot) -> None:
        await _no_blink(pilot)
        await submit(pilot, "rust release")
        await wait_for_search(pilot.app)
        pilot.app.screen.query_one("#pane-ddgs").focus_target()
        await pilot.pause()

    app = make_app(("ddgs", "brave"), clock=frozen)
    assert snap_compare(app, terminal_size=(120, 36), run_before=run)


def test_narrow_uses_tabs(snap_compare, make_app, fake_streams):
    for pid in ("ddgs", "exa", "parallel"):
        fake_streams[pid] = full_result

    async def run(pilot) -> None:
        await _no_blink(pilot)
        await submit(pilot, "narrow")
        await wait_for_search(pilot.app)
        pilot.app.clear_notifications()  # "Provider list hidden ...": it stepped aside on its own
        await pilot.pause()

    app = make_app(("ddgs", "exa", "parallel"), clock=frozen)
    assert snap_compare(app, terminal_size=(70, 30), run_before=run)


async def _settings_on_brave(pilot) -> None:
    """Open the settings screen and show Brave's form."""
    await _no_blink(pilot)
    await pilot.press("f3")
    await _settled(pilot)
    nav = pilot.app.screen.nav
    nav.highlighted = nav.get_option_index("brave")
    await _settled(pilot)


def test_settings_screen(snap_compare, make_app, fake_streams, memory_keyring, monkeypatch):
    """The settings screen on Brave's form, with its key in the (in-memory) keyring."""
    monkeypatch.setenv("WEBSEARCH_TUI_CONFIG", "/nonexistent/websearch-tui/config.toml")  # read-only, fixed title
    memory_keyring.set_password("websearch-tui", "brave:api_key", "snapshot-brave-key")
    app = make_app(("ddgs", "exa"), clock=frozen)
    assert snap_compare(app, terminal_size=(130, 40), run_before=_settings_on_brave)


def test_settings_screen_small_terminal(snap_compare, make_app, fake_streams, memory_keyring, monkeypatch):
    """The compact layout at 80x24: narrower list and labels, one-line key store banner, usable inputs."""
    monkeypatch.setenv("WEBSEARCH_TUI_CONFIG", "/nonexistent/websearch-tui/config.toml")
    app = make_app(("ddgs", "exa"), clock=frozen)
    assert snap_compare(app, terminal_size=(80, 24), run_before=_settings_on_brave)


async def _settled(pilot) -> None:
    """Wait for every worker (file and keyring reads in threads) to finish."""
    await pilot.pause()
    await workers_done(pilot.app)
    await pilot.pause()
