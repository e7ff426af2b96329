"""Pilot tests of the main screen for someone new to it: the provider list's keys and presets, marks
that do not depend on colour, keys that do what the footer says, zoom, time limits, retrying."""

from __future__ import annotations

from tests.tui.conftest import until
from websearch_tui.providers import SPECS
from websearch_tui.tui.widgets.provider_selector import SELECTED_MARK, UNSELECTED_MARK


def shown(app) -> list[str]:
    """The provider ids that have a pane, in order."""
    return [p.provider_id for p in app.screen.pane_area.panes]


def selector_row(app, provider_id: str) -> str:
    """The text of ``provider_id``'s row in the provider list, as drawn (check box included)."""
    selector = app.screen.selector
    index = selector.get_option_index(provider_id)
    return selector.render_line(index - selector.scroll_offset.y).text


async def test_provider_list_keys_select_all_none_and_only_the_highlighted(make_app, fake_streams):
    app = make_app(("ddgs", "exa"))
    async with app.run_test(size=(160, 40)) as pilot:
        selector = app.screen.selector
        selector.focus()
        assert "a all · n none · o only · p preset" in str(selector.border_subtitle)
        await pilot.press("n")
        assert await until(pilot, lambda: shown(app) == []), shown(app)
        assert selector.selected == []
        selector.highlighted = selector.get_option_index("brave")
        await pilot.press("o")
        assert await until(pilot, lambda: shown(app) == ["brave"]), shown(app)
        await pilot.press("a")
        assert await until(pilot, lambda: len(shown(app)) == len(SPECS)), shown(app)
        assert set(selector.selected) == set(SPECS)
        selector.highlighted = selector.get_option_index("exa")
        await pilot.press("o")
        assert await until(pilot, lambda: shown(app) == ["exa"]), shown(app)


async def test_presets_from_the_p_key_and_from_the_palette(make_app, fake_streams):
    presets = {"quick": ("brave", "tavily", "exa"), "free": ("ddgs",)}
    app = make_app(("ddgs", "exa"), presets=presets)
    async with app.run_test(size=(160, 40)) as pilot:
        selector = app.screen.selector
        selector.focus()
        await pilot.press("p")
        assert await until(pilot, lambda: set(shown(app)) == {"brave", "tavily", "exa"}), shown(app)
        assert "Preset quick: Brave Search, Tavily, Exa." in [n.message for n in app._notifications]
        await pilot.press("p")
        assert await until(pilot, lambda: shown(app) == ["ddgs"]), shown(app)
        await pilot.press("p")  # round again
        assert await until(pilot, lambda: set(shown(app)) == {"brave", "tavily", "exa"}), shown(app)
        selector.select_only(["ddgs"])
        assert await until(pilot, lambda: shown(app) == ["ddgs"]), shown(app)
        await pilot.press("ctrl+p")
        assert await until(pilot, lambda: app.screen.query("CommandInput"))
        await pilot.press(*"Preset: quick")
        await pilot.pause()
        assert await until(
            pilot, lambda: "Preset: quick" in str(app.screen.query_one("CommandList").get_option_at_index(0).prompt)
        )
        await pilot.press("enter")
        assert await until(pilot, lambda: set(shown(app)) == {"brave", "tavily", "exa"}), shown(app)


async def test_p_without_presets_says_how_to_add_one(make_app, fake_streams):
    app = make_app(("ddgs",))
    async with app.run_test(size=(160, 40)) as pilot:
        app.screen.selector.focus()
        await pilot.press("p")
        assert await until(pilot, lambda: any("[presets]" in n.message for n in app._notifications))
        assert shown(app) == ["ddgs"]


async def test_selected_and_unselected_rows_differ_in_text_with_no_color(make_app, fake_streams, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(("ddgs", "exa"))
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        assert app.no_color
        assert SELECTED_MARK in selector_row(app, "ddgs")
        brave = selector_row(app, "brave")
        assert SELECTED_MARK not in brave and "X" not in brave.split("Brave")[0]
        assert selector_row(app, "ddgs")[:4] != brave[:4]
        assert brave[:4].strip("▐▌ ") == UNSELECTED_MARK.strip()
        app.screen.selector.select("brave")
        await pilot.pause()
        assert SELECTED_MARK in selector_row(app, "brave")
