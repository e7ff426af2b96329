"""The reader view (``v``): a source's or a citation's page read inside the app, over a fake reader
(``Session.read_page`` monkeypatched: nothing leaves the machine)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime, timezone

import pytest
from textual.widgets import Input

from tests.tui.conftest import submit, until, wait_for_search
from websearch_tui.core.checks import Verdict
from websearch_tui.core.models import AnswerDelta, Citation, CitationsFound, Source, SourcesFound
from websearch_tui.core.pages import Page, PageError, PageReason
from websearch_tui.session import Session
from websearch_tui.tui.reader.screen import PART_CHARS, ReaderScreen
from websearch_tui.tui.search.provider_pane import ProviderPane
from websearch_tui.tui.search.screen import SearchScreen
from websearch_tui.tui.search.source_list import CitationList, SourceList

SIZE = (140, 40)
TIDES = "https://tides.example/guide"
BRIDGE = "https://bridge.example/facts"
TIDES_TEXT = (
    "# How tides work\n\n"
    "The tide rises **twice** a day, about every 12 hours and 25 minutes.\n\n"
    "## Why\n\n"
    "The Moon pulls the water toward it. The Sun does too, but less.\n"
)


def make_page(url: str, text: str, **facts: object) -> Page:
    """A page as the reader returns it, with made-up facts (``facts`` override them)."""
    fields: dict[str, object] = {
        "url": url,
        "final_url": url,
        "status": 200,
        "title": "How tides work",
        "site": "Tide Guide",
        "author": "A. Writer",
        "published_date": "2024-05-01",
        "text": text,
        "word_count": len(text.split()),
        "truncated": False,
        "retrieved_at": datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc),
        "content_sha256": "0" * 64,
        "content_type": "text/html",
    }
    fields.update(facts)
    return Page(**fields)  # type: ignore[arg-type]


def serve_pages(monkeypatch: pytest.MonkeyPatch) -> dict[str, Page | PageError]:
    """URL -> the page ``Session.read_page`` returns for it (or the error it raises; a URL not in it
    cannot be reached), ``Session.read_page`` patched to read from it."""
    table: dict[str, Page | PageError] = {}

    async def read_page(self: Session, url: str) -> Page:
        await asyncio.sleep(0)
        found = table.get(url)
        if found is None:
            raise PageError(PageReason.NETWORK, f"{url} could not be reached; check the address", url=url)
        if isinstance(found, PageError):
            raise found
        return found

    monkeypatch.setattr(Session, "read_page", read_page)
    return table


@pytest.fixture
def pages(monkeypatch: pytest.MonkeyPatch) -> dict[str, Page | PageError]:
    """The pages the fake reader serves (:func:`serve_pages`)."""
    return serve_pages(monkeypatch)


def answering(*sources: Source, citations: tuple[Citation, ...] = ()) -> Callable[..., object]:
    """A provider that answers, lists ``sources`` and cites ``citations``."""

    async def stream(request, ctx):
        yield AnswerDelta("Tides come twice a day [1].")
        yield SourcesFound(sources)
        if citations:
            yield CitationsFound(citations)

    return stream


def pane(app, provider_id: str) -> ProviderPane:
    return app.screen.query_one(f"#pane-{provider_id}", ProviderPane)


def page_text(screen: ReaderScreen) -> str:
    """The page as the reader view shows it, one line per screen line."""
    return "\n".join(line.rstrip() for line in screen.page_view.plain_lines())


def header_text(screen: ReaderScreen) -> str:
    """The header's lines (title, site · author · date, URL, the check), as shown."""
    return "\n".join(str(static.visual.plain) for static in screen.query("#reader-head Static") if static.display)


async def open_reader(pilot, key: str = "v") -> ReaderScreen:
    """Press ``key`` and wait until the reader view is open and done reading."""
    app = pilot.app
    await pilot.press(key)
    await until(
        pilot, lambda: isinstance(app.screen, ReaderScreen), "the reader view is open", detail=lambda: app.screen
    )
    screen = app.screen
    await until(
        pilot,
        lambda: screen.page is not None or screen.error is not None,
        "the page is read",
        detail=lambda: screen.status_text,
    )
    await pilot.pause()
    return screen


async def search_tides(pilot, fake_streams, citations: tuple[Citation, ...] = ()) -> None:
    """Search once; ddgs lists the tides and bridge pages (and cites ``citations``)."""
    fake_streams["ddgs"] = answering(
        Source(TIDES, "Tides [provider title]"), Source(BRIDGE, "The bridge"), citations=citations
    )
    fake_streams["exa"] = answering(Source("https://other.example", "Other"))
    await submit(pilot, "tides")
    await wait_for_search(pilot.app)


async def test_v_on_a_source_shows_the_page_with_its_title_site_author_date_and_url(make_app, fake_streams, pages):
    pages[TIDES] = make_page(TIDES, TIDES_TEXT, final_url=TIDES + "?from=redirect")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await search_tides(pilot, fake_streams)
        pane(app, "ddgs").focus_target()
        screen = await open_reader(pilot)
        head = header_text(screen)
        assert "How tides work" in head
        assert "Tide Guide · A. Writer · 2024-05-01" in head
        assert TIDES + "?from=redirect" in head
        text = page_text(screen)
        assert "How tides work" in text and "The tide rises twice a day" in text and "**" not in text
        assert screen.status_text == f"{screen.page.word_count:,} words · {len(TIDES_TEXT):,} characters."


async def test_reading_shows_the_url_first_and_a_failure_shows_the_readers_reason(make_app, fake_streams, pages):
    gate = asyncio.Event()
    message = "tides.example answered HTTP 404: the page does not exist; check the URL"

    async def slow_failure(self: Session, url: str) -> Page:
        await gate.wait()
        raise PageError(PageReason.HTTP_STATUS, message, url=url, status=404)

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await search_tides(pilot, fake_streams)
        pane(app, "ddgs").focus_target()
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(Session, "read_page", slow_failure)
            await pilot.press("v")
            await until(pilot, lambda: isinstance(app.screen, ReaderScreen), "the reader view is open")
            screen = app.screen
            assert screen.status_text == f"Reading {TIDES}…"
            gate.set()
            await until(
                pilot, lambda: screen.error is not None, "the failure is shown", detail=lambda: screen.status_text
            )
        assert screen.status_text == f"Could not read the page (http status): {message}"
        assert screen.query_one("#reader-status").has_class("-error")
        assert page_text(screen) == ""


async def test_a_long_page_says_how_much_is_shown_and_pgdn_at_the_end_shows_more(make_app, fake_streams, pages):
    paragraph = "Tides rise and fall along the coast of every sea. " * 4
    text = "\n\n".join(f"Paragraph {n}. {paragraph}" for n in range(900))
    pages[TIDES] = make_page(TIDES, text, truncated=True)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await search_tides(pilot, fake_streams)
        pane(app, "ddgs").focus_target()
        screen = await open_reader(pilot)
        shown = screen.status_text.split("Showing the first ", 1)[1].split(" of ", 1)[0]
        assert PART_CHARS // 2 <= int(shown.replace(",", "")) <= PART_CHARS
        assert f"of {len(text):,} characters; PgDn at the end (or m) shows more." in screen.status_text
        assert "only its start was read" in screen.status_text  # the reader's own cut is said too
        last = page_text(screen).strip().splitlines()[-1]
        assert last.endswith("sea.")  # cut at a paragraph break
        await pilot.press("end")
        await until(pilot, lambda: screen.body.scroll_y >= screen.body.max_scroll_y > 0, "the view is at its end")
        await pilot.press("pagedown")
        await until(pilot, lambda: f"Showing the first {shown} " not in screen.status_text, "the next part is shown")
        assert "Paragraph 400." in page_text(screen) or "Showing the first" in screen.status_text
        while screen.more:
            await pilot.press("m")
            await pilot.pause()
        assert screen.status_text.startswith(f"{screen.page.word_count:,} words · {len(text):,} characters.")
        assert f"Paragraph 899. {paragraph.strip()}" in " ".join(page_text(screen).split())


async def test_find_moves_to_the_match_and_n_to_the_next(make_app, fake_streams, pages):
    filler = "\n\n".join(f"Line {n} of filler about the sea." for n in range(120))
    text = f"{filler}\n\nThe lighthouse keeper logs every tide.\n\n{filler}\n\nA second lighthouse stands north."
    pages[TIDES] = make_page(TIDES, text)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await search_tides(pilot, fake_streams)
        pane(app, "ddgs").focus_target()
        screen = await open_reader(pilot)
        assert screen.body.scroll_y == 0
        await pilot.press("slash")
        assert isinstance(app.focused, Input) and app.focused.id == "reader-find"
        await pilot.press(*"lighthouse")
        view = screen.page_view

        def in_view(index: int) -> bool:
            line = view.virtual_region.y + view.matches[index].line
            top = screen.body.scroll_y
            return top <= line < top + screen.body.scrollable_content_region.height

        await until(pilot, lambda: view.current == 0 and in_view(0), "the first match is in view")
        assert str(screen.query_one("#reader-found").visual.plain) == "1 of 2"
        first_top = screen.body.scroll_y
        assert first_top > 0
        await pilot.press("enter")
        await until(pilot, lambda: view.current == 1 and in_view(1), "Enter moves to the second match")
        assert screen.body.scroll_y > first_top
        await pilot.press("escape")  # closes the find box, not the reader
        assert isinstance(app.screen, ReaderScreen) and screen.body.has_focus
        await pilot.press("n")
        await until(pilot, lambda: view.current == 0 and in_view(0), "n wraps around to the first match")
        line = view.plain_lines()
        row = list(line)[view.matches[0].line]
        assert row[view.matches[0].start : view.matches[0].end] == "lighthouse"


async def test_find_reaches_a_match_in_the_part_not_shown_yet(make_app, fake_streams, pages):
    paragraph = "Waves roll in from the open ocean all day long. " * 4
    text = "\n\n".join(paragraph for _ in range(600)) + "\n\nThe harbour master keeps a ledger."
    pages[TIDES] = make_page(TIDES, text)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await search_tides(pilot, fake_streams)
        pane(app, "ddgs").focus_target()
        screen = await open_reader(pilot)
        assert screen.more
        await pilot.press("slash", *"ledger")
        await until(pilot, lambda: "no match" in str(screen.query_one("#reader-found").visual.plain), "no match yet")
        await pilot.press("enter")
        view = screen.page_view
        await until(pilot, lambda: view.current is not None, "the match beyond the first part is current")
        assert not screen.more and "harbour master" in page_text(screen)


async def test_esc_returns_to_the_same_pane_and_source(make_app, fake_streams, pages):
    pages[BRIDGE] = make_page(BRIDGE, "The bridge is 3,000 metres long.", title="Bridge facts")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await search_tides(pilot, fake_streams)
        sources = pane(app, "ddgs").query_one(SourceList)
        sources.focus_row(1)
        await pilot.pause()
        screen = await open_reader(pilot)
        assert "Bridge facts" in header_text(screen)
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, SearchScreen), "the search screen is back")
        await until(
            pilot, lambda: app.focused is sources, "the source list has the focus again", detail=lambda: app.focused
        )
        assert sources.cursor == 1


async def test_c_copies_the_passage_in_view_with_the_url(make_app, fake_streams, pages):
    pages[TIDES] = make_page(TIDES, TIDES_TEXT)
    app = make_app()
    copied: list[str] = []
    app.copy_to_clipboard = copied.append  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await search_tides(pilot, fake_streams)
        pane(app, "ddgs").focus_target()
        await open_reader(pilot)
        await pilot.press("c")
        await until(pilot, lambda: copied, "something is copied")
        assert "The tide rises twice a day" in copied[0]
        assert copied[0].endswith(f"\n\n{TIDES}")


async def test_a_checked_citation_opens_at_its_passage(make_app, fake_streams, pages):
    before = "\n\n".join(f"Note {n}: the coast has many coves and beaches." for n in range(300))
    after = "\n\n".join(f"Remark {n}: ferries cross the bay each hour." for n in range(300))
    text = f"# Bridge facts\n\n{before}\n\nThe bridge is 3,000 metres long and carries four lanes.\n\n{after}"
    pages[BRIDGE] = make_page(BRIDGE, text, title="Bridge facts")
    citation = Citation(BRIDGE, "The bridge", "The bridge is 30,000 metres long.")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await search_tides(pilot, fake_streams, citations=(citation,))
        citations = pane(app, "ddgs").query_one(CitationList)
        pane(app, "ddgs").focus_target()
        await pilot.press("C")  # the session checks it against the page
        await until(pilot, lambda: citations.selected.check is not None, "the citation is checked")
        check = citations.selected.check
        assert check.verdict is Verdict.NOT_SUPPORTED and "The bridge is 3,000 metres long" in check.passage
        await pilot.press("i")  # to the citations
        assert app.focused is citations
        screen = await open_reader(pilot, "enter")
        head = header_text(screen)
        assert f"✗ not supported: {check.reason}" in head and "3,000" in check.reason
        assert "Cited for: “The bridge is 30,000 metres long.”" in head
        view = screen.page_view
        await until(pilot, lambda: bool(view.passage_hits), "the passage is found")
        lines = list(view.plain_lines())
        marked = " ".join(lines[hit.line][hit.start : hit.end] for hit in view.passage_hits)
        assert "The bridge is 3,000 metres long and carries four lanes." in marked
        hit = next(hit for hit in view.passage_hits if "The bridge" in lines[hit.line][hit.start : hit.end])

        def passage_in_view() -> bool:
            y = view.virtual_region.y + hit.line
            return screen.body.scroll_y <= y < screen.body.scroll_y + screen.body.scrollable_content_region.height

        await until(pilot, passage_in_view, "the passage is scrolled into view", detail=lambda: screen.body.scroll_y)
        assert screen.body.scroll_y > 0
        assert "The cited passage is highlighted." in screen.status_text
        marked_bg = screen.page_view.get_component_rich_style("page--passage").bgcolor
        drawn = screen.page_view.render_line(hit.line)
        assert [seg.text for seg in drawn if seg.style is not None and seg.style.bgcolor == marked_bg] != []
        assert "The bridge" in "".join(seg.text for seg in drawn if seg.style and seg.style.bgcolor == marked_bg)


async def test_hostile_page_text_shows_literally_and_clean(make_app, fake_streams, pages):
    hostile = (
        "Markup [b]x[/b] and [link=https://evil.example]click[/link] stay text.\n\n"
        "Escapes \x1b[31mred\x1b[0m and \x1b]8;;https://evil.example\x07link\x1b]8;;\x07 and bidi \u202eevil\u202c end."
    )
    pages[TIDES] = make_page(
        TIDES, hostile, title="[b]Title[/b] \x1b[2J\u202e", site="Site [i]x[/i]", author="\x1b]0;pwned\x07Someone"
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await search_tides(pilot, fake_streams)
        pane(app, "ddgs").focus_target()
        screen = await open_reader(pilot)
        text = page_text(screen)
        head = header_text(screen)
        assert "Markup [b]x[/b] and [link=https://evil.example]click[/link] stay text." in " ".join(text.split())
        assert "[b]Title[/b]" in head and "Site [i]x[/i]" in head
        for shown in (text, head, screen.status_text):
            assert "\x1b" not in shown and "\u202e" not in shown and "\u202c" not in shown and "\x07" not in shown
        strips = [screen.page_view.render_line(y) for y in range(screen.page_view.size.height)]
        assert all("\x1b" not in strip.text for strip in strips)
        assert "red" in text and "link" in text and "evil end." in " ".join(text.split())
