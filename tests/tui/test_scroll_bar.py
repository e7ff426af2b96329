"""Scrollbars drawn as lines look exactly as Textual's own (every cell, colour and mouse action)."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.containers import ScrollableContainer
from textual.geometry import Region
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.strip import Strip
from textual.widgets import Static

from websearch_tui.tui.common.scroll_bar import LineScrollBarRender


class Scrolling(App[None]):
    CSS = "#box { width: 30; height: 12; scrollbar-size: 2 1; } #text { width: 60; }"

    def compose(self) -> ComposeResult:
        with ScrollableContainer(id="box"):
            yield Static("\n".join(f"line {n} " * 8 for n in range(40)), id="text")


def cells(strips: list[Strip]) -> list[list[tuple[str, object]]]:
    """Each line as (character, style) per cell, however the segments are split."""
    return [[(char, segment.style) for segment in strip for char in segment.text] for strip in strips]


def drawn(bar: ScrollBar, renderer: type[ScrollBarRender]) -> list[list[tuple[str, object]]]:
    bar.renderer = renderer
    bar.refresh()
    return cells(bar.render_lines(Region(0, 0, *bar.outer_size)))


@pytest.mark.parametrize("scroll", [(0, 0), (7, 5), (30, 28), (0, 100)])
async def test_scrollbars_drawn_as_lines_match_textuals(scroll: tuple[int, int]) -> None:
    async with Scrolling().run_test(size=(50, 20)) as pilot:
        box = pilot.app.query_one("#box", ScrollableContainer)
        box.scroll_to(*scroll, animate=False)
        await pilot.pause()
        for bar in (box.vertical_scrollbar, box.horizontal_scrollbar):
            assert bar.display and bar.outer_size
            theirs = drawn(bar, ScrollBarRender)
            assert drawn(bar, LineScrollBarRender) == theirs
            bar.mouse_over = True  # the hover colours
            assert drawn(bar, LineScrollBarRender) == drawn(bar, ScrollBarRender)
            bar.mouse_over = False
            assert any("grab" in str(style.meta) for line in theirs for _, style in line)


async def test_a_bar_with_nothing_to_scroll_matches_textuals() -> None:
    async with Scrolling().run_test(size=(50, 20)) as pilot:
        bar = pilot.app.query_one("#box", ScrollableContainer).vertical_scrollbar
        await pilot.pause()
        bar.window_virtual_size = bar.window_size
        assert drawn(bar, LineScrollBarRender) == drawn(bar, ScrollBarRender)


def test_a_bar_with_no_room_draws_nothing() -> None:
    from textual.style import Style

    bar = LineScrollBarRender(virtual_size=100, window_size=10, position=5, vertical=False)
    assert bar.render_strips(0, 1, Style(), None) == []  # type: ignore[arg-type]
    assert bar.render_strips(10, 0, Style(), None) == []  # type: ignore[arg-type]
