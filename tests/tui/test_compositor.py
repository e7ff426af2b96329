"""The span compositor: the same cells as Textual's for any dirty regions, from fewer widgets."""

from __future__ import annotations

import random
import re
from collections import Counter

from rich.cells import cell_len
from textual._compositor import Compositor
from textual.app import App, ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.geometry import Region
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input, Static

from websearch_tui.tui.patches.compositor import SpanCompositor, touched_widgets

SIZE = (120, 40)
TEXT = "\n".join(f"line {n} of a column, with some words to wrap around the edge" for n in range(60))


class Columns(Screen[None]):
    """An input above three scrolling columns of text (like the search screen), drawn by the span
    compositor. The columns have padding, and the first one's text ends early, so parts of them show
    only the column behind the text."""

    DEFAULT_CSS = "VerticalScroll { padding: 0 1; } #text-0 { height: 3; }"

    def __init__(self) -> None:
        super().__init__()
        self._compositor = SpanCompositor()

    def compose(self) -> ComposeResult:
        yield Input("a query", id="query")
        with Horizontal():
            for n in range(3):
                with VerticalScroll(id=f"column-{n}"):
                    yield Static(TEXT, id=f"text-{n}")


class Host(App[None]):
    def on_mount(self) -> None:
        self.push_screen(Columns())


CONTROL = re.compile(r"\x1b\[(\d+);(\d+)H|(\x1b\[[0-9;]*m)|(\x1b\]8;[^\x1b]*\x1b\\)|(\n)|([^\x1b\n])")
"""What a partial update writes: cursor moves, styles (SGR), hyperlinks (OSC 8), line ends, characters."""


def cells(written: str) -> dict[tuple[int, int], tuple[str, str]]:
    """The cells ``written`` sets on a terminal: (x, y) -> (character, the styles and link in force).
    Every span of an update starts with a cursor move."""
    screen: dict[tuple[int, int], tuple[str, str]] = {}
    x = y = 0
    style = ""
    for move_y, move_x, sgr, link, _new_line, char in CONTROL.findall(written):
        if move_y:
            x, y = int(move_x) - 1, int(move_y) - 1
        elif sgr or link:
            style = "" if sgr == "\x1b[0m" else style + sgr + link
        elif char:
            screen[x, y] = (char, style)
            x += cell_len(char)
    return screen


def output(compositor: Compositor, regions: list[Region], *, span: bool) -> tuple[dict, dict]:  # type: ignore[type-arg]
    """The cells a partial update of ``regions`` writes, by ours or by Textual's, and the cells of a
    full update after it (so an update that left the compositor wrong shows)."""
    compositor._dirty_regions.clear()
    compositor._dirty_regions.update(regions)
    compositor._cuts = None  # as after a layout: the update computes them
    update = SpanCompositor.render_partial_update(compositor) if span else Compositor.render_partial_update(compositor)
    assert update is not None
    console = Host().console
    return cells(update.render_segments(console)), cells(compositor.render_full_update().render_segments(console))


def random_regions(rng: random.Random, count: int) -> list[Region]:
    """``count`` small regions anywhere on the screen."""
    width, height = SIZE
    regions = []
    for _ in range(count):
        x, y = rng.randrange(width), rng.randrange(height)
        regions.append(Region(x, y, rng.randint(1, width - x), rng.randint(1, min(6, height - y))))
    return regions


async def test_a_partial_update_writes_the_same_cells_as_textuals() -> None:
    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.notify("a toast over the columns", timeout=60)  # a widget on a layer above the others
        app.screen.query_one("#column-1", VerticalScroll).scroll_to(y=7, animate=False)
        await pilot.pause()
        compositor = app.screen._compositor
        assert isinstance(compositor, SpanCompositor)
        rng = random.Random(7)
        for count in [2, 2, 3, 5, 8, 13] * 5:
            regions = random_regions(rng, count)
            assert output(compositor, regions, span=True) == output(compositor, regions, span=False), regions


async def test_two_changes_far_apart_draw_only_the_widgets_under_them(monkeypatch) -> None:
    drawn: Counter[str] = Counter()
    original = Widget.render_lines

    def render_lines(self: Widget, crop: Region) -> list:  # type: ignore[type-arg]
        drawn[self.id or type(self).__name__] += 1
        return original(self, crop)

    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        query, right = screen.query_one("#query"), screen.query_one("#text-2")
        monkeypatch.setattr(Widget, "render_lines", render_lines)
        query.refresh()  # the echo of a key, at the top left
        right.refresh(Region(0, 30, 10, 1))  # a new line near the bottom of the right column
        await pilot.pause()
        assert drawn["query"] and drawn["text-2"]
        assert not drawn["text-0"] and not drawn["text-1"]  # between them, and not drawn


def test_touched_widgets_keeps_what_shows_in_a_region_in_render_order() -> None:
    a, b, c, behind = Widget(id="a"), Widget(id="b"), Widget(id="c"), Widget(id="behind")
    screen = Region(0, 0, 100, 50)
    widgets = {  # frontmost first
        a: (Region(0, 0, 10, 10), screen),
        b: (Region(50, 0, 10, 10), screen),
        c: (Region(0, 40, 100, 20), Region(0, 0, 100, 45)),  # partly clipped away
        behind: (screen, screen),  # behind all of them (the screen, say)
    }
    assert list(touched_widgets(widgets, [Region(5, 5, 1, 1), Region(0, 44, 1, 1)])) == [a, c]
    assert list(touched_widgets(widgets, [Region(5, 5, 1, 1), Region(0, 46, 1, 1)])) == [a, behind]  # c's clipped part
    assert list(touched_widgets(widgets, [Region(8, 8, 4, 1)])) == [a, behind]  # beyond a's right edge
    assert list(touched_widgets(widgets, [Region(20, 20, 5, 5)])) == [behind]


async def test_a_map_rebuilt_while_drawing_is_not_replaced_by_the_old_one(monkeypatch) -> None:
    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        compositor = app.screen._compositor
        original = Widget.render_lines

        def render_lines(self: Widget, crop: Region) -> list:  # type: ignore[type-arg]
            compositor._full_map_invalidated = True  # as after a scroll: a widget drawn asks for the map
            compositor.full_map  # noqa: B018 - rebuilt, which drops the visible widgets
            return original(self, crop)

        monkeypatch.setattr(Widget, "render_lines", render_lines)
        compositor._dirty_regions.update([Region(0, 0, 5, 1), Region(90, 30, 5, 1)])
        assert SpanCompositor.render_partial_update(compositor) is not None
        assert compositor._visible_widgets is None  # left for the new map to decide, not the old list put back
