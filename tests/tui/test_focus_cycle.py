"""Tab and Shift+Tab on the search screen: a burst of them (one read of the terminal) moves a stop each."""

from __future__ import annotations

from textual import events
from textual.widget import Widget

from tests.tui.conftest import until


def stop_of(widget: Widget | None) -> str:
    """The id of the focus stop ``widget`` is in (a pane's id for a widget inside a pane)."""
    assert widget is not None
    return next(node.id for node in widget.ancestors_with_self if node.id)


async def test_each_tab_of_a_burst_moves_the_focus_one_stop_on_from_the_last(make_app):
    app = make_app(("ddgs", "exa", "parallel"))  # stops: query, mode, recency, count, providers, 3 panes
    async with app.run_test(size=(200, 50)) as pilot:
        await until(pilot, lambda: len(app.screen.query("ProviderPane")) == 3, "the panes are mounted")
        for key, count, expected in [("tab", 3, "count"), ("tab", 6, "pane-exa"), ("shift+tab", 2, "pane-exa")]:
            app.screen.set_focus(app.screen.query_input)
            for _ in range(count):  # every key is posted before the first is handled
                app.post_message(events.Key(key, None))
            await until(
                pilot,
                lambda expected=expected: stop_of(app.focused) == expected,
                f"{count} x {key} reach {expected}",
                detail=lambda: stop_of(app.focused),
            )
            await pilot.pause()  # every focus asked for has been given
            assert stop_of(app.focused) == expected  # and it stays there


async def test_a_tab_after_the_focus_moved_elsewhere_goes_on_from_there(make_app):
    app = make_app(("ddgs", "exa"))
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.press("tab")
        await until(pilot, lambda: stop_of(app.focused) == "mode", "Tab moved to the mode box")
        app.screen.query_input.focus()  # as a click does
        await until(pilot, lambda: stop_of(app.focused) == "query", "the query box has the focus again")
        await pilot.press("tab")
        await until(
            pilot,
            lambda: stop_of(app.focused) == "mode",
            "Tab goes on from the query box",
            detail=lambda: stop_of(app.focused),
        )
