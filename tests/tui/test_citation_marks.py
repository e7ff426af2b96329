"""Checking citations from the search screen (``C``, the palette, ``[verify] auto``) and where the
checks show: each citation's mark and reason, each pane's tally, the merged view, the hint line.
Pages come from a fake ``Session.read_page`` (nothing leaves the machine); the checking itself is
the real ``Session.verify``."""

from __future__ import annotations

import asyncio

import pytest
from textual.widgets import OptionList, Select

from tests.tui.conftest import NO_DEADLINE, fixed_status, submit, until, wait_for_search
from tests.tui.test_help_palette_keymap import run_palette
from tests.tui.test_reader_view import BRIDGE, TIDES, TIDES_TEXT, answering, make_page, open_reader, pane, serve_pages
from tests.tui.test_settings_screen import make_settings_app, open_settings, settle
from websearch_tui.core.checks import Verdict
from websearch_tui.core.models import Citation, Source
from websearch_tui.core.pages import Page, PageError
from websearch_tui.engine.engine import Engine
from websearch_tui.session import Session
from websearch_tui.settings.config import Config, SearchSettings, VerifySettings, load_config
from websearch_tui.tui.app import WebSearchApp
from websearch_tui.tui.search.source_list import CitationList

SIZE = (160, 45)
GONE = "https://gone.example/page"


@pytest.fixture
def pages(monkeypatch: pytest.MonkeyPatch) -> dict[str, Page | PageError]:
    """The pages the fake reader serves (a URL not among them cannot be reached)."""
    return serve_pages(monkeypatch)


def hint(app) -> str:
    """The hint line under the search bar."""
    return str(app.screen.query_one("#hint").visual.plain)


def heading(app, provider_id: str) -> str:
    """The heading above a pane's citations."""
    return str(pane(app, provider_id).query_one(".citations-title").visual.plain)


def citation_rows(app, provider_id: str) -> list[str]:
    """A pane's citations as shown (each row's lines joined by newlines)."""
    return [row.plain for row in pane(app, provider_id).query_one(CitationList).rows]


def install(fake_streams, pages: dict[str, Page | PageError]) -> None:
    """ddgs cites the tides page (quoted word for word) and the bridge page (a number differs); exa
    cites a page that cannot be read."""
    pages[TIDES] = make_page(TIDES, TIDES_TEXT)
    pages[BRIDGE] = make_page(BRIDGE, "# Bridge facts\n\nThe bridge is 3,000 metres long and carries four lanes.\n")
    fake_streams["ddgs"] = answering(
        Source(TIDES, "Tides"),
        citations=(
            Citation(TIDES, "Tides", "The tide rises twice a day, about every 12 hours and 25 minutes."),
            Citation(BRIDGE, "The bridge", "The bridge is 30,000 metres long."),
        ),
    )
    fake_streams["exa"] = answering(
        Source(GONE, "Gone"), citations=(Citation(GONE, "Gone", "Gone pages say nothing."),)
    )


def assert_marked(app) -> None:
    """Every citation carries its mark, the pane headings their tallies."""
    ddgs = citation_rows(app, "ddgs")
    assert ddgs[0].splitlines()[-1] == "    ✓ quoted"
    assert ddgs[1].splitlines()[-1] == "    ✗ not supported: page says 3,000, claim says 30,000"
    unreadable = citation_rows(app, "exa")[0].splitlines()[-1]
    assert unreadable == f"    ? unreadable: network: {GONE} could not be reached; check the address"
    assert heading(app, "ddgs") == "Citations · 1 of 2 citations check out"
    assert heading(app, "exa") == "Citations · 0 of 1 citation checks out"


async def test_C_marks_every_citation_and_says_how_many_check_out(make_app, fake_streams, pages):
    install(fake_streams, pages)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "tides")
        await wait_for_search(app)
        assert heading(app, "ddgs") == "Citations" and "✓" not in "".join(citation_rows(app, "ddgs"))
        pane(app, "ddgs").focus_target()
        await pilot.press("C")
        await until(
            pilot, lambda: hint(app).startswith("Citations checked"), "the check is done", detail=lambda: hint(app)
        )
        assert (
            hint(app) == "Citations checked: 1 of 3 citations check out. v on a citation shows its page at the passage."
        )
        assert_marked(app)
        await pilot.press("m")  # the merged view marks each citing answer's citation
        rows = app.screen.query_one("#merged-rows", OptionList)
        await until(pilot, lambda: rows.option_count == 3, "the merged view lists every page")
        texts = [str(rows.get_option_at_index(i).prompt.plain) for i in range(rows.option_count)]
        assert any("cited by DuckDuckGo [1] ✓ quoted" in text for text in texts)
        assert any("cited by DuckDuckGo [2] ✗ not supported" in text for text in texts)
        assert any("cited by Exa [1] ? unreadable" in text for text in texts)
        rows.highlighted = next(i for i, text in enumerate(texts) if "✗ not supported" in text)
        screen = await open_reader(pilot, "v")  # v on a merged row: at its checked citation's passage
        assert screen.request.url == BRIDGE and screen.request.citation.check.verdict is Verdict.NOT_SUPPORTED
        await until(pilot, lambda: bool(screen.page_view.passage_hits), "the passage is highlighted")


async def test_the_hint_counts_providers_while_checking_and_esc_stops(make_app, fake_streams, pages, monkeypatch):
    install(fake_streams, pages)
    gate = asyncio.Event()
    reads: list[str] = []
    read_page = Session.read_page

    async def held(self: Session, url: str) -> Page:
        reads.append(url)
        if url == GONE:
            await gate.wait()  # exa's page never comes until the test says so
        return await read_page(self, url)

    monkeypatch.setattr(Session, "read_page", held)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "tides")
        await wait_for_search(app)
        pane(app, "ddgs").focus_target()
        await pilot.press("C")
        await until(
            pilot,
            lambda: hint(app) == "Checking citations: 1/2 providers",
            "ddgs is checked, exa is not",
            detail=lambda: hint(app),
        )
        assert heading(app, "ddgs") == "Citations · 1 of 2 citations check out"
        assert heading(app, "exa") == "Citations · checking against their pages…"
        assert app.screen.checking
        await pilot.press("escape")
        await until(pilot, lambda: not app.screen.checking, "the check is stopped")
        assert hint(app) == "Citation check stopped; the citations checked so far keep their marks."
        assert heading(app, "exa") == "Citations" and heading(app, "ddgs") == "Citations · 1 of 2 citations check out"
        assert sorted(reads) == sorted([TIDES, BRIDGE, GONE])


async def test_check_citations_from_the_palette(make_app, fake_streams, pages):
    install(fake_streams, pages)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "tides")
        await wait_for_search(app)
        await run_palette(pilot, "check cit", "Check citations")
        await until(
            pilot, lambda: hint(app).startswith("Citations checked"), "the check is done", detail=lambda: hint(app)
        )
        assert_marked(app)


async def test_C_says_why_when_there_is_nothing_to_check(make_app, fake_streams, pages):
    fake_streams["ddgs"] = answering(Source(TIDES, "Tides"))
    fake_streams["exa"] = answering(Source(BRIDGE, "Bridge"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("tab")  # out of the query box, where C is typed
        await pilot.press("C")
        await submit(pilot, "tides")
        await wait_for_search(app)
        pane(app, "ddgs").focus_target()
        await pilot.press("C")
        await pilot.pause()
        said = [n.message for n in app._notifications]
        assert "Nothing to check yet: search first." in said
        assert "No answer on screen cites a page: nothing to check." in said


def make_verifying_app() -> WebSearchApp:
    """The app over the fake providers ddgs and exa with ``[verify] auto = true``."""
    search = SearchSettings(providers=("ddgs", "exa"), max_results=5, timeout=NO_DEADLINE)
    config = Config(search=search, verify=VerifySettings(auto=True))
    engine = Engine(default_providers=("ddgs", "exa"), timeout=NO_DEADLINE)
    return WebSearchApp(config, engine, status_resolver=fixed_status)


async def test_verify_auto_checks_every_citation_after_the_search(fake_streams, pages):
    install(fake_streams, pages)
    app = make_verifying_app()
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "tides")
        await wait_for_search(app)  # the search worker checks the citations before it ends
        assert_marked(app)
        assert hint(app).endswith(" · 1 of 3 citations check out"), hint(app)
        assert not app.screen.checking
        checks = [c.check for o in app.session.shown.result.outcomes for c in o.response.citations]
        assert all(check is not None for check in checks)


@pytest.mark.parametrize("key", ["v", "enter"])
async def test_v_or_enter_on_a_checked_citation_opens_the_reader_at_it(make_app, fake_streams, pages, key):
    install(fake_streams, pages)
    app = make_verifying_app()
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "tides")
        await wait_for_search(app)
        citations = pane(app, "ddgs").query_one(CitationList)
        citations.focus_row(1)
        await pilot.pause()
        screen = await open_reader(pilot, key)
        assert screen.request.citation is citations.selected
        assert str(screen.query_one("#reader-check").visual.plain).startswith("✗ not supported: page says 3,000")
        await until(pilot, lambda: bool(screen.page_view.passage_hits), "the passage is highlighted")


async def test_check_citations_after_every_search_is_a_general_setting(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("[search]\nproviders = ['ddgs']\n", encoding="utf-8")
    app = make_settings_app(path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_settings(pilot)
        field = screen.query_one("#f-verify-auto", Select)
        assert field.value is Select.NULL  # the default: off
        field.value = True
        await pilot.pause()
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.config.verify.auto is True
        assert app.screen_stack[0].config.verify.auto is True  # the search screen checks after its next search
    assert load_config(path).verify.auto is True
    assert "[verify]\nauto = true\n" in path.read_text(encoding="utf-8")
