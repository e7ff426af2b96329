"""The pane's lists drawn with the Line API (sources, related questions, citations): they look as the
widgets they replace did, and every key and click on them still acts."""

from __future__ import annotations

import random
from collections.abc import Iterable

from rich.segment import Segment
from rich.style import Style as RichStyle
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.selection import Selection
from textual.widgets import Input, Static

from tests.tui.conftest import submit, wait_for_search, workers_done
from tests.tui.test_merged_view import engine_stream
from tests.tui.test_search_screen import pane
from websearch_tui.core.models import AnswerDelta, RelatedQuestions, Source, SourcesFound
from websearch_tui.tui.common.line_list import LineList, wrapped_height
from websearch_tui.tui.search.merged_view import MergedView
from websearch_tui.tui.search.related_list import RelatedList
from websearch_tui.tui.search.source_list import SourceList, render_source

WORDS = ["a", "bb", "ccc", "word " * 3, "x" * 47, "y" * 61, "中文字符", "emoji😀", "", "  ", "tab\there"]


def random_text(rng: random.Random) -> str:
    """One to three lines of words, long words, wide characters and runs of spaces."""
    return "\n".join(" ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 12))) for _ in range(rng.randint(1, 3)))


def test_wrapped_height_is_the_height_textual_gives() -> None:
    rng = random.Random(3)
    for _ in range(3000):
        content = Content.assemble(Content.styled("[1] ", "bold"), random_text(rng))
        width = rng.randint(1, 70)
        assert wrapped_height(content, width) == content.get_height({}, width), (content.plain, width)


class Side(App[None]):
    """A list of rows beside a Static holding the same rows, one after the other (the old widgets)."""

    CSS = "VerticalScroll { width: 44; } Static { margin: 0 0 1 0; }"

    def __init__(self, rows: list[Content]) -> None:
        super().__init__()
        self.rows = rows

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="new"):
            yield SourceList()
        with VerticalScroll(id="old"):
            yield from (Static(row) for row in self.rows)


def cells(segments: Iterable[Segment]) -> list[tuple[str, object, object, bool]]:
    """Every cell of a line as it looks: its character, background, and the colour and boldness of
    its text (a space shows no text)."""
    shown = []
    for segment in segments:
        style = segment.style or RichStyle()
        for char in segment.text:
            ink = char != " "
            shown.append((char, style.bgcolor, style.color if ink else None, bool(style.bold) and ink))
    return shown


async def test_a_list_draws_each_row_as_a_static_drew_it() -> None:
    sources = [
        Source(f"https://s{i}.example/p", f"Title {i} " + "long " * i, "snippet " * (4 * i), None, 3600)
        for i in range(1, 5)
    ]
    rows = [render_source(i, s) for i, s in enumerate(sources, start=1)]
    app = Side(rows)
    async with app.run_test(size=(100, 60)) as pilot:
        new = app.query_one(SourceList)
        new.set_sources(sources)
        await pilot.pause()
        old_lines = [line for static in app.query(Static) for line in [*static.render_lines(static.size.region), None]]
        new_lines = new.render_lines(new.size.region)  # both as Textual finishes their lines for the screen
        assert len(new_lines) == len(old_lines)
        for drawn, was in zip(new_lines, old_lines, strict=True):
            if was is None:  # the margin between two sources: blank
                assert not drawn.text.strip()
            else:
                assert cells(drawn) == cells(was)


class Listed(App[None]):
    """One related-question list in a scrolling body."""

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield RelatedList()


async def test_the_selection_gives_the_rows_as_shown() -> None:
    app = Listed()
    async with app.run_test(size=(40, 10)) as pilot:
        related = app.query_one(RelatedList)
        related.set_questions(["First question?", "Second one?"])
        await pilot.pause()
        selected = related.get_selection(Selection(None, None))
        assert selected is not None and selected[0] == "→ First question?\n→ Second one?"


def many_sources(count: int):
    """A provider that lists ``count`` sources with long snippets, and two related questions."""

    async def stream(request, ctx):
        yield AnswerDelta("An answer.")
        yield SourcesFound(tuple(Source(f"https://s{i}.example/", f"Source {i}", "words " * 30) for i in range(count)))
        yield RelatedQuestions(("What next?", "And then?"))

    return stream


async def test_a_click_puts_the_cursor_on_a_source_and_o_opens_it(make_app, fake_streams, monkeypatch):
    fake_streams["ddgs"] = many_sources(3)
    app = make_app(("ddgs",))
    opened: list[str] = []
    async with app.run_test(size=(120, 40)) as pilot:
        monkeypatch.setattr("webbrowser.open", lambda url, *a, **kw: opened.append(url) or True)
        await submit(pilot, "clicks")
        await wait_for_search(app)
        sources = pane(app, "ddgs").query_one(SourceList)
        second = sources.row_region(1).y
        await pilot.click(SourceList, offset=(3, second + 1))
        assert app.focused is sources and sources.cursor == 1
        await pilot.press("o")
        await workers_done(app)
        assert opened == ["https://s1.example/"]
        await pilot.click(SourceList, offset=(3, second - 1))  # the blank line between two sources
        assert sources.cursor == 1


async def test_up_and_down_stop_at_the_ends_and_keep_the_cursor_in_view(make_app, fake_streams):
    fake_streams["ddgs"] = many_sources(12)
    app = make_app(("ddgs",))
    async with app.run_test(size=(120, 30)) as pilot:
        await submit(pilot, "many")
        await wait_for_search(app)
        pane(app, "ddgs").focus_target()
        await pilot.pause()
        sources = pane(app, "ddgs").query_one(SourceList)
        assert app.focused is sources and sources.cursor == 0
        await pilot.press("up")
        assert sources.cursor == 0
        for _ in range(15):
            await pilot.press("down")
        await pilot.pause(0.5)  # the scroll to a row is animated, as Textual's scroll to a focused widget
        assert sources.cursor == 11 and in_view(sources, 11)


def in_view(sources: SourceList, index: int) -> bool:
    """True when row ``index`` of ``sources`` is all inside the view of the pane body around it."""
    body = sources.parent
    assert isinstance(body, VerticalScroll)
    row = sources.row_region(index).translate(sources.virtual_region.offset)
    top = body.scroll_offset.y
    return top <= row.y and row.bottom <= top + body.scrollable_content_region.height


async def test_the_merged_views_enter_shows_the_source_in_its_pane(make_app, fake_streams):
    far = Source("https://far.example/page", "Far", "the one")
    around = [Source(f"https://d{i}.example/", f"D {i}", "words " * 30) for i in range(12)]
    fake_streams["ddgs"] = engine_stream(*around[:6], far, *around[6:])
    fake_streams["exa"] = engine_stream(Source("https://e.example/", "E"))
    app = make_app(("ddgs", "exa"))
    async with app.run_test(size=(160, 36)) as pilot:
        await submit(pilot, "jump")
        await wait_for_search(app)
        pane(app, "ddgs").focus_target()
        await pilot.press("m")
        await pilot.pause()
        view = app.screen.query_one(MergedView)
        view.query_one("#merged-filter", Input).value = "far.example"
        await pilot.pause()
        view.focus_rows()
        await pilot.press("enter")
        await pilot.pause(0.5)  # the scroll to the row is animated
        sources = pane(app, "ddgs").query_one(SourceList)
        assert app.focused is sources and sources.selected == far and in_view(sources, 6)


def background(widget: LineList, y: int) -> object:
    """The background colour line ``y`` of ``widget`` starts with."""
    style = next(iter(widget.render_line(y))).style
    return style.bgcolor if style is not None else None


async def test_the_related_row_under_the_mouse_is_highlighted(make_app, fake_streams):
    fake_streams["ddgs"] = many_sources(1)
    app = make_app(("ddgs",))
    async with app.run_test(size=(120, 40)) as pilot:
        await submit(pilot, "hover")
        await wait_for_search(app)
        related = pane(app, "ddgs").query_one(RelatedList)
        plain_background = background(related, 1)
        await pilot.hover(RelatedList, offset=(4, 1))
        assert background(related, 1) != plain_background and background(related, 0) == plain_background
        await pilot.hover("#query")
        assert background(related, 1) == plain_background


async def test_a_list_that_empties_gives_its_focus_to_the_body_around_it() -> None:
    app = Listed()
    async with app.run_test(size=(40, 10)) as pilot:
        related = app.query_one(RelatedList)
        related.set_questions(["First question?"])
        await pilot.pause()
        related.focus()
        await pilot.pause()
        related.set_questions([])
        await pilot.pause()
        assert app.focused is app.query_one(VerticalScroll) and not related.display
