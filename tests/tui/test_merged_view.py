"""The merged view: every source once, ranked by agreement and citations, live, with provenance."""

from __future__ import annotations

import asyncio

from textual.widgets import Input, OptionList

from tests.tui.conftest import submit, until, wait_for_search, workers_done
from websearch_tui.core.catalogue import SPECS
from websearch_tui.core.merge import merge_responses
from websearch_tui.core.models import AnswerDelta, Citation, CitationsFound, SearchResponse, Source, SourcesFound
from websearch_tui.tui.search.merged_view import MergedView, row_content
from websearch_tui.tui.search.pane_area import PaneArea
from websearch_tui.tui.search.provider_pane import ProviderPane
from websearch_tui.tui.search.source_list import SourceList

ASYNCIO = "https://docs.python.org/3/library/asyncio.html"


def engine_stream(*sources: Source, cited: tuple[str, ...] = (), gate: asyncio.Event | None = None):
    """A provider that answers, lists ``sources`` and cites ``cited`` (after ``gate``, when given)."""

    async def stream(request, ctx):
        yield AnswerDelta("An answer.")
        if gate is not None:
            await gate.wait()
        yield SourcesFound(sources)
        if cited:
            yield CitationsFound(tuple(Citation(url, f"cited {url}") for url in cited))

    return stream


def rows_text(app) -> list[str]:
    """The plain text of every row of the merged view."""
    options = app.screen.query_one("#merged-rows", OptionList)
    return [options.get_option_at_index(i).prompt.plain for i in range(options.option_count)]


def test_a_row_says_how_many_indexes_its_finders_draw_on() -> None:
    found = [SearchResponse(pid, sources=[Source(ASYNCIO, "asyncio")]) for pid in ("perplexity_search", "perplexity")]
    row = merge_responses(found)[0]
    lines = row_content(1, row, lambda pid: SPECS[pid].label).plain.splitlines()
    assert lines[1].strip() == "docs.python.org · found by 2 (1 index) · Perplexity, Perplexity Search"


def install_agreeing(fake_streams, gate: asyncio.Event | None = None) -> None:
    """ddgs and exa both find the asyncio docs (spelled differently); parallel cites it."""
    fake_streams["ddgs"] = engine_stream(
        Source("https://ddgs.example/only", "Only DDG"), Source(ASYNCIO + "#top", "asyncio docs")
    )
    fake_streams["exa"] = engine_stream(Source(ASYNCIO + "?utm_source=exa", "asyncio — Asynchronous I/O"), gate=gate)
    fake_streams["parallel"] = engine_stream(Source("https://p.example", "P"), cited=(ASYNCIO,))


async def test_m_shows_every_source_once_ranked_with_who_found_and_cited_it(make_app, fake_streams):
    install_agreeing(fake_streams)
    app = make_app(("ddgs", "exa", "parallel"))
    async with app.run_test(size=(200, 50)) as pilot:
        await submit(pilot, "asyncio")
        await wait_for_search(app)
        app.screen.query_one(ProviderPane).focus_target()  # `m` is typed text in the query box
        await pilot.press("m")
        await pilot.pause()
        view = app.screen.query_one(MergedView)
        assert view.display and view.has_focus_within
        rows = rows_text(app)
        assert len(rows) == 3
        assert rows[0].startswith("[1] asyncio — Asynchronous I/O")
        assert "docs.python.org · found by 2 · Exa, DuckDuckGo" in rows[0]
        assert "cited by Parallel [1]" in rows[0]
        assert "found by 1 · DuckDuckGo" in rows[1] or "found by 1 · Parallel" in rows[1]
        summary = app.screen.query_one("#merged-summary").visual.plain
        assert summary == "3 sources · 1 found by several providers · 1 cited"
        await pilot.press("m")
        await pilot.pause()
        assert not app.screen.query_one(PaneArea).merged_shown


async def test_each_pane_marks_a_source_other_providers_found_too(make_app, fake_streams):
    install_agreeing(fake_streams)
    app = make_app(("ddgs", "exa", "parallel"))
    async with app.run_test(size=(200, 50)) as pilot:
        await submit(pilot, "asyncio")
        await wait_for_search(app)

        def ddgs() -> list[str]:
            return [row.plain.splitlines()[0] for row in app.screen.query_one("#pane-ddgs").query_one(SourceList).rows]

        await until(
            pilot,
            lambda: any("+" in line for line in ddgs()),
            'the DuckDuckGo source rows show a "+N" badge',
            detail=lambda: ddgs(),
        )  # badges follow at the next refresh tick
        assert ddgs() == ["[1] Only DDG", "[2] asyncio docs +1"]  # exa found it too; a citation is not a finding


async def test_the_view_fills_in_while_providers_report(make_app, fake_streams):
    gate = asyncio.Event()
    install_agreeing(fake_streams, gate)
    app = make_app(("ddgs", "exa", "parallel"))
    async with app.run_test(size=(200, 50)) as pilot:
        await submit(pilot, "asyncio")
        app.screen.query_one("#pane-ddgs", ProviderPane).focus_target()
        await pilot.press("m")
        await until(
            pilot, lambda: len(rows_text(app)) == 3, "the merged view shows three rows", detail=lambda: rows_text(app)
        )  # ddgs and parallel; exa waits
        assert "found by 1 · DuckDuckGo" in next(r for r in rows_text(app) if "asyncio docs" in r)
        gate.set()
        await wait_for_search(app)
        await until(
            pilot,
            lambda: "found by 2" in rows_text(app)[0],
            'the first merged row is "found by 2"',
            detail=lambda: rows_text(app),
        )  # the view follows at its next refresh tick
        assert "found by 2 · Exa, DuckDuckGo" in rows_text(app)[0]


async def test_enter_shows_the_source_in_the_best_ranking_pane_and_the_filter_narrows(make_app, fake_streams):
    install_agreeing(fake_streams)
    app = make_app(("ddgs", "exa", "parallel"))
    async with app.run_test(size=(200, 50)) as pilot:
        await submit(pilot, "asyncio")
        await wait_for_search(app)
        app.screen.query_one(ProviderPane).focus_target()
        await pilot.press("m")
        await pilot.pause()
        await pilot.press("enter")  # the first row: exa ranked it 1, ddgs 2
        await pilot.pause()
        focused = app.focused
        assert isinstance(focused, SourceList) and focused.selected and focused.selected.url.startswith(ASYNCIO)
        assert app.screen.query_one("#pane-exa") in focused.ancestors
        view = app.screen.query_one(MergedView)
        view.query_one("#merged-filter", Input).value = "p.example"
        await pilot.pause()
        assert [row.link for row in view.rows] == ["https://p.example"]
        assert app.screen.query_one("#merged-summary").visual.plain.startswith("1 of 3 sources")


async def test_open_and_copy_act_on_the_highlighted_row(make_app, fake_streams, monkeypatch):
    install_agreeing(fake_streams)
    app = make_app(("ddgs", "exa", "parallel"))
    opened: list[str] = []
    copied: list[str] = []
    async with app.run_test(size=(200, 50)) as pilot:
        monkeypatch.setattr("webbrowser.open", lambda url, *a, **kw: opened.append(url) or True)
        monkeypatch.setattr(app, "copy_to_clipboard", copied.append)
        await submit(pilot, "asyncio")
        await wait_for_search(app)
        app.screen.query_one(ProviderPane).focus_target()
        await pilot.press("m")
        await pilot.pause()
        await pilot.press("down", "o", "c")
        await workers_done(app)
        await pilot.pause()
        second = app.screen.query_one(MergedView).rows[1].link
        assert opened == [second] and copied == [second]


async def test_in_tabs_mode_the_merged_view_is_a_tab(make_app, fake_streams):
    install_agreeing(fake_streams)
    app = make_app(("ddgs", "exa", "parallel"))
    async with app.run_test(size=(70, 30)) as pilot:
        await submit(pilot, "asyncio")
        await wait_for_search(app)
        app.screen.query_one("#pane-ddgs", ProviderPane).focus_target()
        await pilot.press("m")
        await pilot.pause()
        area = app.screen.query_one(PaneArea)
        assert area.mode == "tabs"
        assert [tab.id for tab in area.query("Tab")][-1] == "tab-merged"
        assert app.screen.query_one(MergedView).display
        assert all(pane.has_class("-hidden-tab") for pane in area.panes)
