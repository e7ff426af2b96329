"""The search bar at narrow widths and what a new selection does to the results on screen (issue 29,
items 5 and 6): the boxes compact so a question fits, the footer keeps History and Help with a pane
focused, a preset chosen after a search keeps its panes until the next search, and "Retry failed" is
offered only while a failed pane is on screen."""

from __future__ import annotations

from textual.widgets import Select, Tab
from textual.widgets._footer import FooterKey
from textual.widgets._select import SelectCurrent

from tests.tui.conftest import submit, until, wait_for_search
from tests.tui.test_search_screen import auth_failure, full_result, pane

QUESTION = "how does python asyncio work with threads"  # 41 characters


def shown(app) -> list[str]:
    """The provider ids of the panes on screen."""
    return [p.provider_id for p in app.screen.pane_area.panes]


def footer_keys(app) -> dict[str, FooterKey]:
    """The footer's keys by description (the palette's key as ``palette``)."""
    return {key.description: key for key in app.screen.query(FooterKey)}


def box_label(app, name: str) -> str:
    """What the search bar's ``name`` box shows."""
    return app.screen.query_one(f"#{name}", Select).query_one(SelectCurrent).query_one("#label").visual.plain


def hint(app) -> str:
    """The hint line under the search bar."""
    return app.screen.query_one("#hint").visual.plain


async def test_at_80_columns_the_boxes_compact_and_a_41_character_question_fits(make_app, fake_streams):
    app = make_app(("ddgs", "exa"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        query = screen.query_input
        query.value = QUESTION
        await pilot.pause()
        assert query.content_region.width > len(QUESTION)  # the whole question and the cursor
        assert box_label(app, "recency") == "any"
        assert box_label(app, "count") == "5"
        screen.query_one("#recency", Select).value = "week"
        await pilot.pause()
        remembered = screen._remembered
        await pilot.resize_terminal(140, 36)  # wide again: the full labels, the same values
        await until(
            pilot,
            lambda: box_label(app, "recency") == "past week",
            'the recency box reads "past week"',
            detail=lambda: box_label(app, "recency"),
        )
        assert box_label(app, "count") == "5 results"
        assert screen.query_one("#recency", Select).value == "week"
        assert screen._remembered == remembered  # relabelling is not a change of the controls
        await pilot.resize_terminal(80, 24)
        await until(
            pilot,
            lambda: box_label(app, "recency") == "week",
            'the recency box reads "week"',
            detail=lambda: box_label(app, "recency"),
        )


async def test_the_footer_keeps_history_and_help_with_a_pane_focused_at_80x24(make_app, fake_streams):
    fake_streams["ddgs"] = full_result
    fake_streams["exa"] = full_result
    app = make_app(("ddgs", "exa"))
    async with app.run_test(size=(80, 24)) as pilot:
        await submit(pilot, QUESTION)
        await wait_for_search(app)
        pane(app, "ddgs").focus_target()
        await pilot.pause()
        keys = footer_keys(app)
        palette = keys["palette"]
        for description in ("Quit", "Help", "Settings", "History"):
            key = keys[description]
            assert key.region.width and key.region.right <= palette.region.x, description  # wholly visible
        assert "Zoom" in keys  # the pane's own keys follow


async def test_a_preset_chosen_after_a_search_keeps_the_results_until_the_next_search(make_app, fake_streams):
    for pid in ("ddgs", "exa", "brave", "tavily"):
        fake_streams[pid] = full_result
    app = make_app(("ddgs", "exa"), presets={"paid": ("brave", "tavily")})
    async with app.run_test(size=(160, 40)) as pilot:
        await submit(pilot, "keep these")
        await wait_for_search(app)
        assert shown(app) == ["ddgs", "exa"]
        selector = app.screen.selector
        selector.focus()
        await pilot.press("p")
        await until(
            pilot,
            lambda: set(selector.selected) == {"brave", "tavily"},
            "Brave Search and Tavily are the selection",
            detail=lambda: selector.selected,
        )
        await pilot.pause()
        assert shown(app) == ["ddgs", "exa"]  # the results stay
        assert all(pane(app, pid).status == "done" for pid in ("ddgs", "exa"))
        assert "keep these" in pane(app, "ddgs").answer.source
        await until(
            pilot,
            lambda: hint(app).startswith("Next search: Brave Search, Tavily"),
            "the hint names Brave Search and Tavily as the next search",
            detail=lambda: hint(app),
        )
        await submit(pilot, "now the preset")
        await wait_for_search(app)
        assert shown(app) == ["brave", "tavily"]


async def test_before_any_search_the_panes_follow_the_selection(make_app, fake_streams):
    app = make_app(("ddgs", "exa"))
    async with app.run_test(size=(160, 40)) as pilot:
        app.screen.selector.select("brave")
        await until(
            pilot,
            lambda: shown(app) == ["ddgs", "exa", "brave"],
            "the panes are DuckDuckGo, Exa and Brave Search",
            detail=lambda: shown(app),
        )
        await until(
            pilot, lambda: len(app.screen.query(Tab)) == 3, "there are three tabs"
        )  # done: the tabs follow the panes


async def test_retry_failed_is_offered_only_while_a_failed_pane_is_on_screen(make_app, fake_streams):
    fake_streams["ddgs"] = full_result
    fake_streams["brave"] = auth_failure
    app = make_app(("ddgs", "brave"))
    async with app.run_test(size=(160, 40)) as pilot:
        await submit(pilot, "one fails")
        await wait_for_search(app)
        pane(app, "ddgs").focus_target()
        await pilot.pause()
        await until(
            pilot,
            lambda: "Retry failed" in footer_keys(app),
            '"Retry failed" is in the footer',
            detail=lambda: list(footer_keys(app)),
        )
        fake_streams["brave"] = full_result  # the key works now
        await pilot.press("R")
        await wait_for_search(app)
        await until(
            pilot,
            lambda: pane(app, "brave").status == "done",
            "the Brave Search pane is done",
            detail=lambda: pane(app, "brave").status,
        )
        await until(
            pilot,
            lambda: "Retry failed" not in footer_keys(app),
            '"Retry failed" has left the footer',
            detail=lambda: list(footer_keys(app)),
        )
        fake_streams["brave"] = auth_failure  # fails again in a new search, then a new search without failures
        await submit(pilot, "fails again")
        await wait_for_search(app)
        pane(app, "ddgs").focus_target()
        await until(
            pilot,
            lambda: "Retry failed" in footer_keys(app),
            '"Retry failed" is in the footer',
            detail=lambda: list(footer_keys(app)),
        )
        app.screen.selector.deselect("brave")  # the failed pane stays on screen: retrying it still works
        await pilot.pause()
        assert "Retry failed" in footer_keys(app)
        await submit(pilot, "no failure now")
        await wait_for_search(app)
        pane(app, "ddgs").focus_target()
        await pilot.pause()
        assert shown(app) == ["ddgs"]
        await until(
            pilot,
            lambda: "Retry failed" not in footer_keys(app),
            '"Retry failed" has left the footer',
            detail=lambda: list(footer_keys(app)),
        )
