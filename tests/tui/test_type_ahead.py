"""Type-ahead: keys and pastes that arrive while the app starts reach the query box, in order."""

from __future__ import annotations

import pytest
from textual import events

from tests.tui.conftest import burst, until
from websearch_tui.core.catalogue import SPECS
from websearch_tui.tui.common import type_ahead as type_ahead_module
from websearch_tui.tui.common.provider_face import ProviderFace
from websearch_tui.tui.common.type_ahead import TypeAhead
from websearch_tui.tui.search.screen import SearchScreen
from websearch_tui.tui.search.search_bar import SelectFace


def test_only_keys_and_pastes_from_the_terminal_are_held_until_released(monkeypatch):
    monkeypatch.setattr(type_ahead_module, "MAX_HELD", 2)
    ahead = TypeAhead()
    forwarded = events.Key("b", "b")
    forwarded._set_forwarded()
    assert not ahead.hold(events.MouseDown(None, 1, 1, 0, 0, 1, False, False, False))
    assert not ahead.hold(forwarded)
    first, paste, dropped = events.Key("a", "a"), events.Paste("pasted"), events.Key("c", "c")
    assert ahead.hold(first) and ahead.hold(paste) and ahead.hold(dropped)  # the third: past MAX_HELD
    assert ahead.holding
    assert ahead.release() == [first, paste]
    assert not ahead.holding and ahead.release() == []
    assert not ahead.hold(events.Key("d", "d"))


def test_a_line_break_typed_in_line_mode_is_enter_at_the_end_and_a_space_inside():
    ahead = TypeAhead()
    for key, character in [("a", "a"), ("ctrl+j", "\n"), ("b", "b"), ("ctrl+j", "\n")]:
        ahead.hold(events.Key(key, character))
    assert [(event.key, event.character) for event in ahead.release()] == [
        ("a", "a"),
        ("space", " "),
        ("b", "b"),
        ("enter", "\r"),
    ]


@pytest.mark.parametrize("keys", [("ctrl+q",), ("a", "ctrl+j", "ctrl+q")])
@pytest.mark.parametrize("providers", [("ddgs", "exa"), tuple(list(SPECS)[:24])])
async def test_quit_typed_while_the_app_starts_closes_it_cleanly(make_app, monkeypatch, keys, providers):
    app = make_app(providers)
    default_screen = app.get_default_screen

    def typed_at_start() -> SearchScreen:
        for key in keys:
            app.post_message(events.Key(key, key if len(key) == 1 else None))
        return default_screen()

    monkeypatch.setattr(app, "get_default_screen", typed_at_start)
    async with app.run_test(size=(100, 30)) as pilot:
        for _ in range(20):  # the screen's start-up work after the first frame meets a closing app
            await pilot.pause()
            if not app.is_running:
                break
    assert not app.is_running and app._exception is None


async def test_what_is_typed_pasted_and_entered_before_the_query_box_has_focus_reaches_it_in_order(
    make_app, monkeypatch
):
    app = make_app()
    default_screen = app.get_default_screen

    def typed_at_start() -> SearchScreen:
        burst(app, "hi")  # the terminal's first read: the app handles it before the screen has mounted
        app.post_message(events.Paste(" there"))
        app.post_message(events.Key("ctrl+j", "\n"))  # Enter, typed while the terminal was in line mode
        return default_screen()

    searched: list[str] = []
    search = SearchScreen.search

    async def searching(screen: SearchScreen, query: str) -> None:
        searched.append(query)
        await search(screen, query)

    monkeypatch.setattr(app, "get_default_screen", typed_at_start)
    monkeypatch.setattr(SearchScreen, "search", searching)
    async with app.run_test() as pilot:
        query = app.screen.query_input
        await until(pilot, lambda: searched == ["hi there"], "what was typed is searched", detail=lambda: searched)
        assert query.value == "hi there" and not app.type_ahead.holding
        await pilot.press("!")
        assert query.value == "hi there!"


@pytest.mark.parametrize("providers", [("ddgs", "exa"), tuple(list(SPECS)[:24])])
@pytest.mark.parametrize(("keys", "stop"), [(("tab", "tab", "tab"), "count"), (("a", "b", "tab"), "mode")])
async def test_what_is_typed_at_start_waits_for_the_real_boxes_and_list_and_tabs_through_them(
    make_app, monkeypatch, providers, keys, stop
):
    app = make_app(providers)
    default_screen = app.get_default_screen
    faces_at_release: list[int] = []
    release = TypeAhead.release

    def typed_at_start() -> SearchScreen:
        for key in keys:
            app.post_message(events.Key(key, key if len(key) == 1 else None))
        return default_screen()

    def counted_release(ahead: TypeAhead) -> list[events.Key | events.Paste]:
        faces_at_release.append(len(app.screen.query(SelectFace)) + len(app.screen.query(ProviderFace)))
        return release(ahead)

    monkeypatch.setattr(app, "get_default_screen", typed_at_start)
    monkeypatch.setattr(TypeAhead, "release", counted_release)
    async with app.run_test(size=(200, 50)) as pilot:
        await until(
            pilot,
            lambda: app.focused is not None and app.focused.id == stop,
            f"the focus is on {stop}",
            detail=lambda: app.focused,
        )
        assert faces_at_release == [0] and app._exception is None  # a Tab among faces skipped the boxes
