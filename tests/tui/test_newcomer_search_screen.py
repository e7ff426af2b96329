"""Pilot tests of the main screen for someone new to it: the provider list's keys and presets, marks
that do not depend on colour, keys that do what the footer says, zoom, time limits, retrying."""

from __future__ import annotations

import asyncio

import pytest
from textual.widgets import Select
from textual.widgets._footer import FooterKey
from textual.widgets._select import SelectCurrent

from tests.tui.conftest import submit, until, wait_for_search
from tests.tui.test_search_screen import full_result, status_text
from websearch_tui.core.catalogue import SPECS
from websearch_tui.core.models import AnswerDelta
from websearch_tui.tui.common.marked_list import SELECTED_MARK, UNSELECTED_MARK
from websearch_tui.tui.search.search_bar import (
    COMPACT_COUNT_OPTIONS,
    COMPACT_RECENCY_OPTIONS,
    COUNT_OPTIONS,
    MODE_OPTIONS,
    RECENCY_OPTIONS,
)


def shown(app) -> list[str]:
    """The provider ids that have a pane, in order."""
    return [p.provider_id for p in app.screen.pane_area.panes]


SIX = ("ddgs", "exa", "parallel", "brave", "tavily", "perplexity")


def footer(app) -> list[str]:
    """The footer's keys that are on screen (not cut off at the right), as drawn: ``"^q Quit"``."""
    width = app.size.width
    return [key.render().plain for key in app.screen.query(FooterKey) if key.region.right <= width]


def command_shown(app) -> str:
    """The first command the open command palette offers (empty while it has none)."""
    commands = app.screen.query("CommandList")
    if not commands or not commands.first().option_count:
        return ""
    return str(commands.first().get_option_at_index(0).prompt)


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
        await until(pilot, lambda: shown(app) == [], "no provider is shown", detail=lambda: shown(app))
        assert selector.selected == []
        selector.highlighted = selector.get_option_index("brave")
        await pilot.press("o")
        await until(pilot, lambda: shown(app) == ["brave"], "only Brave Search is shown", detail=lambda: shown(app))
        await pilot.press("a")
        await until(pilot, lambda: len(shown(app)) == len(SPECS), "every provider is shown", detail=lambda: shown(app))
        assert set(selector.selected) == set(SPECS)
        selector.highlighted = selector.get_option_index("exa")
        await pilot.press("o")
        await until(pilot, lambda: shown(app) == ["exa"], "only Exa is shown", detail=lambda: shown(app))


async def test_presets_from_the_p_key_and_from_the_palette(make_app, fake_streams):
    presets = {"quick": ("brave", "tavily", "exa"), "free": ("ddgs",)}
    app = make_app(("ddgs", "exa"), presets=presets)
    async with app.run_test(size=(160, 40)) as pilot:
        selector = app.screen.selector
        selector.focus()
        await pilot.press("p")
        await until(
            pilot,
            lambda: set(shown(app)) == {"brave", "tavily", "exa"},
            "the preset's providers are shown",
            detail=lambda: shown(app),
        )
        assert "Preset quick: Brave Search, Tavily, Exa." in [n.message for n in app._notifications]
        await pilot.press("p")
        await until(pilot, lambda: shown(app) == ["ddgs"], "only DuckDuckGo is shown", detail=lambda: shown(app))
        await pilot.press("p")  # then the built-in ones
        scholar = ["openalex", "arxiv", "semantic_scholar", "wikipedia"]
        await until(pilot, lambda: shown(app) == scholar, "the scholar preset is shown", detail=lambda: shown(app))
        await pilot.press("p", "p")  # community, then round again
        await until(
            pilot,
            lambda: set(shown(app)) == {"brave", "tavily", "exa"},
            "the preset's providers are shown",
            detail=lambda: shown(app),
        )
        selector.select_only(["ddgs"])
        await until(pilot, lambda: shown(app) == ["ddgs"], "only DuckDuckGo is shown", detail=lambda: shown(app))
        await pilot.press("ctrl+p")
        await until(pilot, lambda: app.screen.query("CommandInput"), "the command palette's input is shown")
        await pilot.press(*"Preset: quick")
        await pilot.pause()
        await until(
            pilot,
            lambda: "Preset: quick" in str(app.screen.query_one("CommandList").get_option_at_index(0).prompt),
            'the palette\'s first choice is "Preset: quick"',
        )
        await pilot.press("enter")
        await until(
            pilot,
            lambda: set(shown(app)) == {"brave", "tavily", "exa"},
            "the preset's providers are shown",
            detail=lambda: shown(app),
        )


async def test_p_without_presets_of_one_s_own_steps_through_the_built_in_ones(make_app, fake_streams):
    app = make_app(("ddgs",))
    async with app.run_test(size=(160, 40)) as pilot:
        app.screen.selector.focus()
        await pilot.press("p")
        scholar = ["openalex", "arxiv", "semantic_scholar", "wikipedia"]
        await until(pilot, lambda: shown(app) == scholar, "the scholar preset is shown", detail=lambda: shown(app))
        assert "Preset scholar: OpenAlex, arXiv, Semantic Scholar, Wikipedia." in [
            n.message for n in app._notifications
        ]
        await pilot.press("p")
        await until(
            pilot, lambda: shown(app) == ["ddgs", "hackernews"], "the community preset", detail=lambda: shown(app)
        )


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


async def test_at_80x24_the_footer_shows_quit_and_settings_and_only_keys_that_work(make_app, fake_streams):
    for pid in SIX:
        fake_streams[pid] = full_result
    app = make_app(SIX)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.screen.focused is app.screen.query_input
        keys = footer(app)
        assert {"^q Quit", "f3 Settings", "f2 Providers", "f4 History", "^p palette"} <= set(keys), keys
        assert not any(key.startswith(("/ ", "m ", "q ", "esc ")) for key in keys), (
            keys
        )  # typed here / nothing to cancel
        await submit(pilot, "winter sun")
        await wait_for_search(app)
        app.screen.pane_area.panes[0].focus_target()
        await pilot.pause()
        keys = footer(app)
        assert {"^q Quit", "f3 Settings", "z Zoom", "o Open", "c Copy URL"} <= set(keys), keys
        app.screen.set_focus(None)
        await pilot.pause()
        assert {"/ Query", "m Merged"} <= set(footer(app))


async def test_q_types_in_the_query_box_and_ctrl_q_quits_from_it(make_app, fake_streams):
    app = make_app(("ddgs",))
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await pilot.press("q", "slash")
        assert app.screen.query_input.value == "q/"
        assert app.is_running
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert app.return_code == 0


async def test_escape_is_offered_while_a_search_runs(make_app, fake_streams):
    from tests.tui.test_search_screen import hang

    fake_streams["ddgs"] = hang
    app = make_app(("ddgs",))
    async with app.run_test(size=(120, 36)) as pilot:
        await submit(pilot, "hang")
        await until(
            pilot, lambda: "esc Cancel" in footer(app), '"esc Cancel" is in the footer', detail=lambda: footer(app)
        )
        await pilot.press("escape")
        await wait_for_search(app)
        await until(
            pilot,
            lambda: "esc Cancel" not in footer(app),
            '"esc Cancel" has left the footer',
            detail=lambda: footer(app),
        )


@pytest.mark.parametrize(
    ("size", "compact"), [((80, 24), True), ((120, 36), False)], ids=["80 columns: short labels", "120 columns"]
)
async def test_every_control_option_fits_on_one_line(make_app, fake_streams, size, compact):
    app = make_app(("ddgs",))
    recency = COMPACT_RECENCY_OPTIONS if compact else RECENCY_OPTIONS
    count = COMPACT_COUNT_OPTIONS if compact else COUNT_OPTIONS
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        for name, options in {"mode": MODE_OPTIONS, "recency": recency, "count": count}.items():
            select = app.screen.query_one(f"#{name}", Select)
            for label, value in options:
                select.value = value
                await pilot.pause()
                shown_label = select.query_one(SelectCurrent).query_one("#label")
                assert (shown_label.size.height, select.outer_size.height) == (1, 3), label
                assert shown_label.render().plain == label
        if compact:  # the controls take no more than they need: a 41-character question fits
            assert app.screen.query_input.outer_size.width >= 46


async def test_provider_list_steps_aside_when_the_panes_are_cramped(make_app, fake_streams):
    for pid in SIX:
        fake_streams[pid] = full_result
    app = make_app(SIX)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        selector = app.screen.selector
        assert selector.display and not selector.has_class("-hidden")  # shown to choose providers
        assert app.screen.pane_area.mode == "tabs"  # tabs with the list or without: the kind does not change
        await submit(pilot, "winter sun")
        await wait_for_search(app)
        assert selector.has_class("-hidden")
        assert app.screen.pane_area.size.width == 80
        await pilot.press("f2")
        assert not selector.has_class("-hidden") and selector.has_focus
    app = make_app(SIX)
    async with app.run_test(size=(200, 50)) as pilot:  # a 3 x 2 grid of 52 columns beside the list: roomy
        await submit(pilot, "winter sun")
        await wait_for_search(app)
        assert not app.screen.selector.has_class("-hidden")
        assert app.screen.pane_area.mode == "grid"


async def test_z_zooms_the_focused_pane_and_back(make_app, fake_streams):
    for pid in SIX:
        fake_streams[pid] = full_result
    app = make_app(SIX)
    async with app.run_test(size=(200, 50)) as pilot:
        await submit(pilot, "zoom")
        await wait_for_search(app)
        target = app.screen.pane_area.panes[1]
        target.focus_target()
        await pilot.press("z")
        await until(
            pilot, lambda: app.screen.maximized is target, "the pane is maximized", detail=lambda: app.screen.maximized
        )
        await until(
            pilot,
            lambda: target.outer_size.width == 200,
            "the maximized pane is 200 columns wide",
            detail=lambda: target.outer_size,
        )
        await pilot.press("z")
        await until(
            pilot, lambda: app.screen.maximized is None, "nothing is maximized", detail=lambda: app.screen.maximized
        )
        await pilot.press("z")
        await until(
            pilot, lambda: app.screen.maximized is target, "the pane is maximized", detail=lambda: app.screen.maximized
        )
        await pilot.press("escape")  # Esc puts a zoomed pane back too
        await until(
            pilot, lambda: app.screen.maximized is None, "nothing is maximized", detail=lambda: app.screen.maximized
        )
        app.screen.query_input.focus()
        await pilot.press("z")
        assert app.screen.maximized is None and app.screen.query_input.value.endswith("z")


async def test_the_first_up_skips_the_query_already_in_the_box(make_app, fake_streams):
    fake_streams["ddgs"] = full_result
    app = make_app(("ddgs",))
    async with app.run_test(size=(120, 36)) as pilot:
        query = app.screen.query_input
        for text in ("one", "two", "two", "three"):
            await submit(pilot, text)
            await wait_for_search(app)
        query.focus()
        query.value = "three"  # as after searching it
        await pilot.press("up")
        assert query.value == "two"
        await pilot.press("up")
        assert query.value == "one"
        await pilot.press("up")
        assert query.value == "one"
        await pilot.press("down")
        assert query.value == "two"
        await pilot.press("down")
        assert query.value == "three"
        await pilot.press("down")
        assert query.value == "three"  # the draft: what was in the box
        query.value = "one"
        await pilot.press("up")
        assert query.value == "three"


async def test_a_running_provider_shows_its_time_limit(make_app, fake_streams):
    async def silent(request, ctx):
        await asyncio.Event().wait()
        yield AnswerDelta("never")  # pragma: no cover - the test cancels first

    fake_streams["ddgs"] = silent
    now = [100.0]
    app = make_app(("ddgs",), timeout=60, clock=lambda: now[0])
    async with app.run_test(size=(120, 36)) as pilot:
        await submit(pilot, "limits")
        await until(
            pilot,
            lambda: "searching" in status_text(app, "ddgs"),
            "the DuckDuckGo pane says searching",
            detail=lambda: status_text(app, "ddgs"),
        )
        now[0] = 106.0
        await until(
            pilot,
            lambda: "searching · 6.0s / 60s" in status_text(app, "ddgs"),
            'the DuckDuckGo pane says "searching · 6.0s / 60s"',
            detail=lambda: status_text(app, "ddgs"),
        )
        await pilot.press("escape")
        await wait_for_search(app)
        assert "/ 60s" not in status_text(app, "ddgs")  # an ended run shows only how long it took


async def test_retry_runs_only_the_failed_providers_again_in_their_panes(make_app, fake_streams):
    from tests.tui.test_search_screen import auth_failure

    calls: list[str] = []

    def counted(provider_id: str, first, then):
        async def stream(request, ctx):
            calls.append(provider_id)
            source = first if calls.count(provider_id) == 1 else then
            async for event in source(request, ctx):
                yield event

        return stream

    fake_streams["ddgs"] = counted("ddgs", full_result, full_result)
    fake_streams["brave"] = counted("brave", auth_failure, full_result)  # fails once, then answers
    fake_streams["exa"] = counted("exa", auth_failure, auth_failure)  # fails every time
    app = make_app(("ddgs", "brave", "exa"))
    async with app.run_test(size=(200, 40)) as pilot:
        screen = app.screen
        await submit(pilot, "flaky")
        await wait_for_search(app)
        assert [p.status for p in screen.pane_area.panes] == ["done", "failed", "failed"]
        ddgs_answer = screen.pane_area.pane("ddgs").answer.source
        assert "R Retry failed" not in footer(app)  # the query box has focus: R would be typed
        screen.pane_area.pane("ddgs").focus_target()
        await until(
            pilot,
            lambda: "R Retry failed" in footer(app),
            '"R Retry failed" is in the footer',
            detail=lambda: footer(app),
        )
        await pilot.press("R")
        await wait_for_search(app)
        assert sorted(calls) == ["brave", "brave", "ddgs", "exa", "exa"]
        assert [p.status for p in screen.pane_area.panes] == ["done", "done", "failed"]
        assert "Answer about **flaky**." in screen.pane_area.pane("brave").answer.source
        assert screen.pane_area.pane("ddgs").answer.source == ddgs_answer
        shown = screen.shown_result()
        assert [(o.provider, o.status.value) for o in shown.result.outcomes] == [
            ("ddgs", "done"),
            ("brave", "done"),
            ("exa", "failed"),
        ]
        assert "2 done, 1 failed" in screen.query_one("#hint").visual.plain
        await pilot.press("ctrl+p")
        await until(pilot, lambda: app.screen.query("CommandInput"), "the command palette's input is shown")
        await pilot.press(*"Retry failed")
        await until(
            pilot,
            lambda: "Retry failed providers" in command_shown(app),
            'the palette offers "Retry failed providers"',
            detail=lambda: command_shown(app),
        )
        await pilot.press("enter")
        await until(pilot, lambda: calls.count("exa") == 3, "Exa has been called three times", detail=lambda: calls)
        await wait_for_search(app)
        assert calls.count("exa") == 3 and calls.count("brave") == 2  # only the one still failing


async def test_retry_with_nothing_failed_says_so(make_app, fake_streams):
    fake_streams["ddgs"] = full_result
    app = make_app(("ddgs",))
    nothing = "Nothing to retry now: no provider on screen failed."
    async with app.run_test(size=(120, 36)) as pilot:
        await app.screen.action_retry_failed()  # before any search
        await until(
            pilot,
            lambda: [n.message for n in app._notifications] == [nothing],
            "the one notice says there is nothing to retry",
            detail=lambda: [n.message for n in app._notifications],
        )
        app.clear_notifications()
        await submit(pilot, "fine")
        await wait_for_search(app)
        app.screen.set_focus(None)
        await pilot.pause()
        assert "R Retry failed" not in footer(app)  # not offered: nothing failed
        await app.screen.action_retry_failed()  # as from the palette
        await until(
            pilot,
            lambda: [n.message for n in app._notifications] == [nothing],
            "the one notice says there is nothing to retry",
            detail=lambda: [n.message for n in app._notifications],
        )


async def test_a_preset_name_is_shown_literally_in_the_palette(make_app, fake_streams):
    """The palette reads command names as markup; a preset's name comes from the config file."""
    app = make_app(("ddgs", "exa"), presets={"[b]fast[/]": ("brave",)})
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.press("ctrl+p")
        await until(pilot, lambda: app.screen.query("CommandInput"), "the command palette's input is shown")
        await pilot.press(*"fast")

        def first() -> str:
            options = app.screen.query("CommandList")
            return (
                str(options.first().get_option_at_index(0).prompt) if options and options.first().option_count else ""
            )

        await until(
            pilot, lambda: "Preset: " in first(), "the palette's first choice is a preset", detail=lambda: first()
        )
        assert "[b]fast[/]" in first()
        await pilot.press("enter")
        await until(pilot, lambda: shown(app) == ["brave"], "only Brave Search is shown", detail=lambda: shown(app))
