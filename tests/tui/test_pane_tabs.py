"""Tabs that say something (issue 29, item 3): each tab shows its pane's status mark and, where every
label fits, its source count; the bar counts the tabs it cuts off; the hint line counts progress with
the CLI's own words."""

from __future__ import annotations

import asyncio
import io
import re

from textual.app import App, ComposeResult
from textual.content import Content
from textual.widgets import Tab, Tabs

from tests.tui.conftest import submit, until, wait_for_search
from tests.tui.test_search_screen import auth_failure, full_result, hang
from websearch_tui.cli.commands.search import Progress
from websearch_tui.core.catalogue import SPECS
from websearch_tui.core.models import SearchRequest
from websearch_tui.core.results import SearchResult
from websearch_tui.session import LiveSearch
from websearch_tui.tui.common.answer_view import AnswerView
from websearch_tui.tui.search.pane_tabs import PaneTabs, overflow_text, tab_label
from websearch_tui.tui.search.source_list import SourceList
from websearch_tui.tui.search.status_tab import StatusTab


def frozen() -> float:
    """A clock that never moves: the spinner shows its frame 500 (``⠋``)."""
    return 100.0


def labels(app) -> dict[str, str]:
    """Tab id (without ``tab-``) -> the tab's label as plain text."""
    return {tab.id.removeprefix("tab-"): tab.label.plain for tab in app.screen.query(Tab) if tab.id}


def overflow(app) -> str:
    """The tab bar's counter of cut-off tabs ("" while none is)."""
    return app.screen.query_one(PaneTabs).overflow


def hint(app) -> str:
    """The hint line under the search bar."""
    return app.screen.query_one("#hint").visual.plain


def test_a_tab_label_is_the_status_mark_the_plain_label_and_the_count():
    assert tab_label("Brave Search", "done", 10).plain == "✓ Brave Search · 10"
    assert tab_label("Brave Search", "done", 10, count=False).plain == "✓ Brave Search"
    assert tab_label("Exa", "failed", 0).plain == "✗ Exa"
    assert tab_label("Exa", "empty").plain == "∅ Exa"
    assert tab_label("Exa", "cancelled").plain == "⊘ Exa"
    assert tab_label("Exa", "streaming", 3, frame=1).plain == "⠙ Exa · 3"
    assert tab_label("Exa", "idle").plain == "Exa"
    assert tab_label("[b]x[/b] $y", "done", 1).plain == "✓ [b]x[/b] $y · 1"  # never read as markup


def test_the_overflow_counter_names_each_side():
    assert overflow_text(0, 0) == ""
    assert overflow_text(0, 5) == "+5 ▶"
    assert overflow_text(3, 0) == "◀ +3"
    assert overflow_text(3, 5) == "◀ +3 · +5 ▶"


async def test_narrow_tabs_show_status_marks_and_counts_when_they_fit(make_app, fake_streams):
    fake_streams["ddgs"] = full_result
    fake_streams["brave"] = auth_failure
    app = make_app(("ddgs", "brave"), clock=frozen)
    async with app.run_test(size=(70, 20)) as pilot:  # two panes do not fit side by side: tabs
        await submit(pilot, "tabs")
        await wait_for_search(app)
        area = app.screen.pane_area
        assert area.mode == "tabs"
        await until(
            pilot,
            lambda: labels(app) == {"ddgs": "✓ DuckDuckGo · 2", "brave": "✗ Brave Search"},
            "the tabs read done with 2 sources and failed",
            detail=lambda: labels(app),
        )
        assert overflow(app) == ""


async def test_a_running_pane_shows_the_spinner_in_its_tab(make_app, fake_streams):
    fake_streams["ddgs"] = full_result
    fake_streams["exa"] = hang
    app = make_app(("ddgs", "exa"), clock=frozen)
    async with app.run_test(size=(70, 20)) as pilot:
        await submit(pilot, "spinning")
        await until(
            pilot,
            lambda: labels(app).get("exa", "").startswith("⠋ Exa"),
            "the Exa tab shows the spinner",
            detail=lambda: labels(app),
        )
        await until(
            pilot,
            lambda: labels(app).get("ddgs") == "✓ DuckDuckGo · 2",
            "the DuckDuckGo tab reads done with 2 sources",
            detail=lambda: labels(app),
        )
        await pilot.press("escape")
        await wait_for_search(app)
        await until(
            pilot, lambda: labels(app).get("exa") == "⊘ Exa", "the Exa tab reads cancelled", detail=lambda: labels(app)
        )


async def test_a_new_label_as_wide_as_the_last_redraws_the_tab_without_a_layout(monkeypatch):
    laid_out: list[str] = []
    real = Tab.update

    def update(tab: Tab, content: object = "") -> None:  # Tab's own relabel: lays the screen out
        laid_out.append(str(content))
        real(tab, content)

    monkeypatch.setattr(Tab, "update", update)

    class Bar(App[None]):
        def compose(self) -> ComposeResult:
            yield Tabs(StatusTab(tab_label("Exa", "streaming", frame=0), id="tab-exa"))

    app = Bar()
    async with app.run_test(size=(40, 5)) as pilot:
        tab = app.query_one(StatusTab)
        laid_out.clear()
        tab.label = tab_label("Exa", "streaming", frame=1)  # the spinner's next frame
        await pilot.pause()
        assert (tab.label.plain, laid_out) == ("⠙ Exa", [])
        assert "⠙ Exa" in "".join(strip.text for strip in tab.render_lines(tab.region.reset_offset))
        tab.label = tab_label("Exa", "done", 3)  # wider: the bar is laid out again
        await pilot.pause()
        assert (tab.label.plain, laid_out) == ("✓ Exa · 3", ["✓ Exa · 3"])
        tab.label = Content("[b]x[/b]")  # plain text either way
        assert tab.label.plain == "[b]x[/b]"


async def test_with_every_provider_at_80x24_the_bar_counts_the_tabs_it_cuts_off(make_app, fake_streams):
    ids = tuple(SPECS)
    for pid in ids:
        fake_streams[pid] = full_result
    fake_streams["brave"] = auth_failure
    app = make_app(ids, clock=frozen)
    async with app.run_test(size=(80, 24)) as pilot:
        await submit(pilot, "every provider")
        await wait_for_search(app)
        area = app.screen.pane_area
        assert area.mode == "tabs"
        shown = labels(app)
        assert shown["ddgs"] == "✓ DuckDuckGo"  # 24 labels with counts do not fit: marks only
        assert shown["brave"] == "✗ Brave Search"
        await until(
            pilot,
            lambda: re.fullmatch(r"\+\d+ ▶", overflow(app)) is not None,
            'the tab bar says "+N ▶"',
            detail=lambda: overflow(app),
        )
        cut = int(overflow(app)[1:-2])
        assert 10 < cut < len(ids)
        area.activate(ids[-1])  # the last tab scrolls into view: now the others are cut off on the left
        await until(
            pilot,
            lambda: re.fullmatch(r"◀ \+\d+", overflow(app)) is not None,
            'the tab bar says "◀ +N"',
            detail=lambda: overflow(app),
        )


async def test_the_hint_line_counts_progress_as_the_cli_does(make_app, fake_streams):
    gate = asyncio.Event()

    async def late(request, ctx):
        await gate.wait()
        async for event in full_result(request, ctx):
            yield event

    fake_streams["ddgs"] = full_result
    fake_streams["exa"] = late
    fake_streams["parallel"] = full_result
    app = make_app(("ddgs", "exa", "parallel"))
    async with app.run_test(size=(160, 36)) as pilot:
        await submit(pilot, "progress")
        await until(
            pilot,
            lambda: hint(app) == "2/3 done · waiting for Exa",
            'the hint says "2/3 done · waiting for Exa"',
            detail=lambda: hint(app),
        )
        gate.set()
        await wait_for_search(app)
        await until(
            pilot,
            lambda: hint(app) == "Finished — 3 done. · Cost $0",  # keyless: nothing spent
            'the hint says "Finished — 3 done. · Cost $0"',
            detail=lambda: hint(app),
        )


def test_the_cli_progress_line_is_the_shared_wording():
    result = SearchResult(SearchRequest("q"), "compare", 1, ("a", "b", "c"), {"a": "Alpha", "b": "Beta", "c": "Gamma"})
    assert result.progress_text(set()) == "0/3 done · waiting for Alpha, Beta, Gamma"
    assert result.progress_text({"b"}) == "1/3 done · waiting for Alpha, Gamma"
    assert result.progress_text({"a", "b", "c"}) == "3/3 done"
    progress = Progress(LiveSearch(result), io.StringIO(), width=200)
    assert progress.text() == result.progress_text(set())


async def test_a_pane_behind_a_tab_is_built_when_its_tab_is_first_shown(make_app, fake_streams):
    """Issue 28 (first paint): a pane behind a tab mounts nothing until its tab is first shown; its run
    reaches it meanwhile, and once shown it draws the answer and the sources it got."""
    fake_streams["ddgs"] = full_result
    fake_streams["brave"] = full_result
    app = make_app(("ddgs", "brave"), clock=frozen)
    async with app.run_test(size=(70, 20)) as pilot:  # two panes do not fit side by side: tabs
        area = app.screen.pane_area
        await until(
            pilot, lambda: area.mode == "tabs" and area.pane("ddgs").query(AnswerView), "the tab shown is built"
        )
        brave = area.pane("brave")
        assert not brave.children
        await submit(pilot, "lazy")
        await wait_for_search(app)
        assert brave.status == "done" and not brave.children
        area.activate("brave")
        await until(
            pilot,
            lambda: brave.answer.is_mounted and "Answer about lazy." in list(brave.answer.plain_lines()),
            "the tab shown at last draws its answer",
            detail=lambda: brave.children,
        )
        assert [source.title for source in brave.query_one(SourceList).sources] == ["Alpha page", "Beta page"]


async def test_a_search_over_the_same_panes_keeps_their_tabs(make_app, fake_streams):
    """Issue 28 (memory): the tabs are made again only when the panes change, not at every search
    (each search used to make a new tab per pane and leave the old ones in Textual's query caches)."""
    fake_streams["ddgs"] = full_result
    fake_streams["brave"] = auth_failure
    app = make_app(("ddgs", "brave"), clock=frozen)
    async with app.run_test(size=(70, 20)) as pilot:
        await submit(pilot, "first")
        await wait_for_search(app)
        tabs = list(app.screen.query(Tab))
        await submit(pilot, "second")
        await wait_for_search(app)
        assert [tab.id for tab in tabs] == ["tab-ddgs", "tab-brave"]
        assert all(a is b for a, b in zip(app.screen.query(Tab), tabs, strict=True))
        await until(pilot, lambda: labels(app)["brave"] == "✗ Brave Search", "the kept tab shows the new status")
