"""A line widget keeps the lines it drew when only its height changes (the layout of a streaming
answer growing by a step), and draws everything again when the width or a bottom edge asks for it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from textual.app import App, ComposeResult
from textual.containers import Container
from textual.content import Content
from textual.geometry import Region, Size
from textual.strip import Strip

from websearch_tui.tui.common.line_widget import LineWidget, draw_line


class Numbered(LineWidget):
    """``rows`` lines reading ``<label> <y>``; counts the lines it was asked to draw. A new number of
    rows asks for a layout and no repaint, as a streaming answer growing by a step does."""

    DEFAULT_CSS = "Numbered { height: auto; width: 100%; } Numbered.edge { padding-bottom: 1; }"

    def __init__(self, *, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self.label = "line"
        self.rows = 5
        self.drawn: Counter[int] = Counter()

    def grow_to(self, rows: int) -> None:
        self.rows = rows
        self.refresh(layout=True, repaint=False)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self.rows

    def render_line(self, y: int) -> Strip:
        self.drawn[y] += 1
        return draw_line(Content(f"{self.label} {y}"), self.size.width, y, self.visual_style)

    def plain_lines(self) -> Iterable[str]:
        return (f"{self.label} {y}" for y in range(self.rows))


class Host(App[None]):
    CSS = "#box { width: 30; height: auto; }"

    def __init__(self, classes: str | None = None) -> None:
        super().__init__()
        self.classes_of_numbered = classes

    def compose(self) -> ComposeResult:
        with Container(id="box"):
            yield Numbered(classes=self.classes_of_numbered)


def shown(widget: Numbered) -> list[str]:
    """The widget's lines as the compositor gets them (through its style cache)."""
    width, height = widget.outer_size
    return [strip.text.rstrip() for strip in widget.render_lines(Region(0, 0, width, height))]


async def test_a_taller_widget_draws_only_the_lines_it_gains() -> None:
    async with Host().run_test(size=(40, 20)) as pilot:
        widget = pilot.app.query_one(Numbered)
        await pilot.pause()
        assert widget.drawn == Counter(range(5))
        widget.grow_to(9)
        await pilot.pause()
        assert widget.drawn == Counter(range(9))
        assert shown(widget) == [f"line {y}" for y in range(9)]


async def test_lines_a_shorter_widget_hid_are_drawn_afresh_when_it_grows_again() -> None:
    async with Host().run_test(size=(40, 20)) as pilot:
        widget = pilot.app.query_one(Numbered)
        widget.grow_to(9)
        await pilot.pause()
        widget.grow_to(3)
        await pilot.pause()
        widget.label = "new"  # lines 3 on are not on screen: nothing to refresh
        widget.grow_to(6)
        await pilot.pause()
        assert shown(widget) == ["line 0", "line 1", "line 2", "new 3", "new 4", "new 5"]


async def test_a_new_width_draws_every_line_again() -> None:
    async with Host().run_test(size=(40, 20)) as pilot:
        widget = pilot.app.query_one(Numbered)
        await pilot.pause()
        widget.label = "new"
        pilot.app.query_one("#box").styles.width = 20
        widget.grow_to(6)
        await pilot.pause()
        assert widget.outer_size.width == 20
        assert shown(widget) == [f"new {y}" for y in range(6)]


async def test_a_widget_with_a_bottom_edge_draws_every_line_again() -> None:
    async with Host(classes="edge").run_test(size=(40, 20)) as pilot:
        widget = pilot.app.query_one(Numbered)
        await pilot.pause()
        widget.label = "new"
        widget.grow_to(6)
        await pilot.pause()
        assert shown(widget) == [f"new {y}" for y in range(6)] + [""]
