"""Pilot tests of the main screen over fake provider streams (no HTTP, no network)."""

from __future__ import annotations

import asyncio
import dataclasses
import re

from textual.widgets import Input

from tests.tui.conftest import burst, submit, until, wait_for_search, workers_done
from websearch_tui.core.catalogue import SPECS
from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import (
    AnswerDelta,
    Citation,
    CitationsFound,
    Metadata,
    Note,
    RelatedQuestions,
    SearchQueries,
    SearchResponse,
    Source,
    SourcesFound,
    Usage,
)
from websearch_tui.core.results import ProviderUpdate, RunStatus
from websearch_tui.engine.engine import Engine
from websearch_tui.tui.common.answer_view import AnswerView
from websearch_tui.tui.search.provider_pane import ProviderPane
from websearch_tui.tui.search.related_list import RelatedList
from websearch_tui.tui.search.source_list import CitationList, SourceList
from websearch_tui.tui.search.status_line import StatusLine


def pane(app, provider_id: str) -> ProviderPane:
    """The pane of ``provider_id`` on the app's screen."""
    return app.screen.query_one(f"#pane-{provider_id}", ProviderPane)


def status_text(app, provider_id: str) -> str:
    """The plain text of a pane's status line."""
    line = pane(app, provider_id).query_one(StatusLine)
    return line.visual.plain


def answer_source(app, provider_id: str) -> str:
    """The Markdown source of a pane's current answer."""
    return pane(app, provider_id).answer.source


def answer_lines(app, provider_id: str) -> str:
    """The text of a pane's answer as rendered, one line per screen line."""
    view = pane(app, provider_id).answer
    return "\n".join(view.render_line(y).text.rstrip() for y in range(view.size.height))


def answer_in_steps(steps: list[asyncio.Event], tokens: int = 10):
    """``tokens`` answer tokens (``tok0 ``, ``tok1 ``, ...) per step, each step once its event is
    set, then one source: the test decides when the answer grows, not the clock."""

    async def stream(request, ctx):
        for step, gate in enumerate(steps):
            await gate.wait()
            for i in range(step * tokens, (step + 1) * tokens):
                yield AnswerDelta(f"tok{i} ")
        yield SourcesFound((Source("https://example.com/a", "Alpha", "first", None, 3 * 86400),))

    return stream


async def full_result(request, ctx):
    yield AnswerDelta(f"Answer about **{request.query}**.")
    yield SourcesFound(
        (
            Source("https://www.example.com/a", "Alpha page", "alpha snippet", None, 86400),
            Source("https://b.example.org/", "Beta page", None, "July 25, 2024"),
        )
    )
    yield CitationsFound((Citation("https://www.example.com/a", "Alpha page", "cited words"),))
    yield RelatedQuestions(("What about beta?",))
    yield SearchQueries(("alpha beta",))
    yield Metadata(model="fake-model", usage=Usage(input_tokens=3, output_tokens=5))
    yield Note("recency filter widened")


async def auth_failure(request, ctx):
    await asyncio.sleep(0.01)
    raise ProviderError(
        "brave", ErrorKind.AUTH, "Brave Search authorization failed (401). Check API key or base URL.", status=401
    )
    yield  # pragma: no cover - makes this an async generator


async def hang(request, ctx):
    yield AnswerDelta("started ")
    await asyncio.Event().wait()


async def drip(request, ctx):
    i = 0
    while True:
        await asyncio.sleep(0.02)
        yield AnswerDelta(f"drip{i} ")
        i += 1


async def test_query_fills_panes(make_app, fake_streams):
    fake_streams["ddgs"] = full_result
    fake_streams["exa"] = full_result
    app = make_app(("ddgs", "exa"))
    async with app.run_test(size=(120, 36)) as pilot:
        await submit(pilot, "rust release")
        await wait_for_search(app)
        for pid in ("ddgs", "exa"):
            assert pane(app, pid).status == "done"
            assert "done" in status_text(app, pid)
            assert "2 sources" in status_text(app, pid)
            assert "Answer about **rust release**." in answer_source(app, pid)
            sources = pane(app, pid).query_one(SourceList)
            assert [source.url for source in sources.sources] == ["https://www.example.com/a", "https://b.example.org/"]
            first, last = (row.plain for row in sources.rows)
            assert "[1] Alpha page" in first and "example.com · 1d ago" in first and "alpha snippet" in first
            assert "July 25, 2024" in last
            assert "cited words" in pane(app, pid).query_one(CitationList).rows[0].plain
            assert pane(app, pid).query_one(RelatedList).questions == ["What about beta?"]
            assert "alpha beta" in pane(app, pid).query_one(".queries").visual.plain
            assert "fake-model" in pane(app, pid).query_one(".meta").visual.plain
            assert "recency filter widened" in pane(app, pid).query_one(".notes").visual.plain
        assert "Finished" in app.screen.query_one("#hint").visual.plain


async def test_answer_streams_over_time(make_app, fake_streams):
    steps = [asyncio.Event() for _ in range(4)]
    fake_streams["ddgs"] = answer_in_steps(steps)
    app = make_app(("ddgs",))
    async with app.run_test(size=(120, 36)) as pilot:
        await submit(pilot, "stream please")
        steps[0].set()
        await until(
            pilot,
            lambda: "tok9 " in answer_source(app, "ddgs"),
            'the DuckDuckGo pane shows "tok9"',
            detail=lambda: answer_source(app, "ddgs"),
        )
        first = len(answer_source(app, "ddgs"))
        assert pane(app, "ddgs").status == "streaming"  # shown while the rest has not been sent
        steps[1].set()
        await until(
            pilot,
            lambda: "tok19 " in answer_source(app, "ddgs"),
            'the DuckDuckGo pane shows "tok19"',
            detail=lambda: answer_source(app, "ddgs"),
        )
        second = len(answer_source(app, "ddgs"))
        assert 0 < first < second
        assert pane(app, "ddgs").status == "streaming"
        for step in steps[2:]:
            step.set()
        await wait_for_search(app)
        assert answer_source(app, "ddgs").count("tok") == 40
        assert pane(app, "ddgs").status == "done"


async def test_escape_cancels_every_search(make_app, fake_streams):
    fake_streams["ddgs"] = hang
    fake_streams["exa"] = drip
    app = make_app(("ddgs", "exa"))
    async with app.run_test(size=(120, 36)) as pilot:
        await submit(pilot, "cancel me")
        await until(
            pilot,
            lambda: "started" in answer_source(app, "ddgs") and "drip" in answer_source(app, "exa"),
            "both panes show their first text",
            detail=lambda: (answer_source(app, "ddgs"), answer_source(app, "exa")),
        )
        workers = [w for w in app.workers if w.group == "search"]
        assert workers
        await pilot.press("escape")
        await wait_for_search(app)
        assert all(w.is_cancelled for w in workers)
        for pid in ("ddgs", "exa"):
            assert pane(app, pid).status == "cancelled"
            assert "cancelled" in status_text(app, pid)
        lengths = {pid: answer_source(app, pid) for pid in ("ddgs", "exa")}
        await pilot.pause(0.4)
        assert {pid: answer_source(app, pid) for pid in ("ddgs", "exa")} == lengths
        assert "started" in lengths["ddgs"] and "drip" in lengths["exa"]
        assert "Cancelled" in app.screen.query_one("#hint").visual.plain


async def test_new_query_replaces_old_without_leaking(make_app, fake_streams):
    async def by_query(request, ctx):
        for i in range(50):
            await asyncio.sleep(0.01)
            yield AnswerDelta(f"{request.query}-{i} ")

    fake_streams["ddgs"] = by_query
    app = make_app(("ddgs",))
    async with app.run_test(size=(120, 36)) as pilot:
        await submit(pilot, "old")
        await until(
            pilot,
            lambda: "old-" in answer_source(app, "ddgs"),
            "the DuckDuckGo pane shows the first search's text",
            detail=lambda: answer_source(app, "ddgs"),
        )
        await submit(pilot, "new")
        await wait_for_search(app)
        source = answer_source(app, "ddgs")
        assert "old-" not in source
        assert source.count("new-") == 50
        shown = answer_lines(app, "ddgs")
        assert "old-" not in shown and "new-0" in shown


async def test_the_screen_owns_the_one_search_worker_and_panes_only_show_its_updates(make_app, fake_streams):
    fake_streams["ddgs"] = drip
    fake_streams["exa"] = drip
    fake_streams["parallel"] = hang
    app = make_app(("ddgs", "exa", "parallel"))
    async with app.run_test(size=(160, 36)) as pilot:
        await submit(pilot, "first")
        await pilot.pause(0.1)
        first = [w for w in app.workers if w.group == "search"]
        assert len(first) == 1 and first[0].node is app.screen  # not one per pane
        assert not [w for w in app.workers if isinstance(w.node, ProviderPane)]
        late = ProviderUpdate(app.screen.session.live.search_id, "exa", RunStatus.STREAMING, SearchResponse("exa"))
        await submit(pilot, "second")
        await pilot.pause(0.1)
        app.screen._show_update(late)  # an update of the search that was replaced arrives late
        app.screen._show_update(dataclasses.replace(late, event=AnswerDelta("LEAKED ")))
        await pilot.pause(0.1)
        assert "LEAKED" not in answer_source(app, "exa")
        assert first[0].is_cancelled and len([w for w in app.workers if w.group == "search" and w.is_running]) == 1
        await pilot.press("escape")
        await wait_for_search(app)
        assert {pane(app, pid).status for pid in ("ddgs", "exa", "parallel")} == {"cancelled"}


async def test_error_pane_shows_kind_and_message(make_app, fake_streams):
    fake_streams["ddgs"] = full_result
    fake_streams["brave"] = auth_failure
    app = make_app(("ddgs", "brave"))
    async with app.run_test(size=(120, 36)) as pilot:
        await submit(pilot, "anything")
        await wait_for_search(app)
        assert pane(app, "brave").status == "failed"
        assert status_text(app, "brave") == (
            "✗ failed (auth): Brave Search authorization failed (401). Check API key or base URL."
        )
        assert pane(app, "brave").has_class("-failed")
        assert pane(app, "ddgs").status == "done"


async def test_markup_and_escapes_render_verbatim(make_app, fake_streams):
    hostile = "[bold red]x[/] [link=javascript:alert(1)]y[/link] [/"

    async def nasty(request, ctx):
        yield AnswerDelta("Answer \x1b]52;c;SGVsbG8=\x07with [b]markup[/b] \x1b[2J")
        yield SourcesFound((Source("https://example.com/x", hostile + " \x1b[31mred", hostile),))
        yield RelatedQuestions((hostile,))
        yield Note(hostile + "\x1b[0m")
        raise ProviderError("ddgs", ErrorKind.SERVER, hostile + " \x1b[31m boom")

    fake_streams["ddgs"] = nasty
    app = make_app(("ddgs",))
    async with app.run_test(size=(120, 36)) as pilot:
        await submit(pilot, "inject")
        await wait_for_search(app)
        item = pane(app, "ddgs").query_one(SourceList).rows[0].plain
        assert hostile + " red" in item
        assert "\x1b" not in item
        assert pane(app, "ddgs").query_one(RelatedList).questions == [hostile]
        assert hostile in pane(app, "ddgs").query_one(".notes").visual.plain
        status = status_text(app, "ddgs")
        assert status.startswith("✗ failed (server): " + hostile)
        assert "\x1b" not in status
        answer = answer_source(app, "ddgs")
        assert "\x1b" not in answer and "52;c" not in answer
        assert "[b]markup[/b]" in answer
        screenshot = app.export_screenshot()
        assert "\x1b" not in screenshot


async def test_related_question_starts_new_search(make_app, fake_streams):
    queries: list[str] = []

    async def recording(request, ctx):
        queries.append(request.query)
        async for event in full_result(request, ctx):
            yield event

    fake_streams["ddgs"] = recording
    app = make_app(("ddgs",))
    async with app.run_test(size=(120, 36)) as pilot:
        await submit(pilot, "first question")
        await wait_for_search(app)
        related = pane(app, "ddgs").query_one(RelatedList)
        related.focus()
        await pilot.press("enter")
        await wait_for_search(app)
        assert queries == ["first question", "What about beta?"]
        assert app.screen.query_one("#query", Input).value == "What about beta?"
        assert "Answer about **What about beta?**." in answer_source(app, "ddgs")
        await pilot.click(RelatedList)
        await wait_for_search(app)
        assert queries[-1] == "What about beta?" and len(queries) == 3


async def test_empty_query_shows_hint_only(make_app, fake_streams):
    fake_streams["ddgs"] = full_result
    app = make_app(("ddgs",))
    async with app.run_test(size=(120, 36)) as pilot:
        await submit(pilot, "   ")
        assert app.screen.query_one("#hint").visual.plain == "Type a question, then press Enter."
        assert pane(app, "ddgs").status == "idle"
        assert not [w for w in app.workers if w.group == "search"]


async def test_history_up_down(make_app, fake_streams):
    fake_streams["ddgs"] = full_result
    app = make_app(("ddgs",))
    async with app.run_test(size=(120, 36)) as pilot:
        query = app.screen.query_one("#query", Input)
        for text in ("one", "two", "three"):
            await submit(pilot, text)
            await wait_for_search(app)
        query.focus()
        query.value = "draft"
        await pilot.press("up")
        assert query.value == "three"
        await pilot.press("up", "up")
        assert query.value == "one"
        await pilot.press("up")
        assert query.value == "one"
        await pilot.press("down")
        assert query.value == "two"
        await pilot.press("down", "down")
        assert query.value == "draft"


async def test_open_and_copy_only_http(make_app, fake_streams, monkeypatch):
    async def sources(request, ctx):
        yield SourcesFound(
            (
                Source("https://example.com/ok", "Fine"),
                Source("javascript:alert(1)", "Evil"),
            )
        )

    fake_streams["ddgs"] = sources
    app = make_app(("ddgs",))
    opened: list[str] = []
    copied: list[str] = []
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        monkeypatch.setattr("webbrowser.open", lambda url, *a, **kw: opened.append(url) or True)
        monkeypatch.setattr(app, "copy_to_clipboard", lambda text: copied.append(text))
        await submit(pilot, "links")
        await wait_for_search(app)
        sources = pane(app, "ddgs").query_one(SourceList)
        sources.focus()
        await pilot.press("o", "c")
        await workers_done(app)  # the browser is started in a thread
        assert opened == ["https://example.com/ok"] and copied == ["https://example.com/ok"]
        await pilot.press("down")
        assert app.screen.focused is sources and sources.selected == Source("javascript:alert(1)", "Evil")
        await pilot.press("o", "c")
        await pilot.pause()
        assert opened == ["https://example.com/ok"] and copied == ["https://example.com/ok"]
        messages = [n.message for n in app._notifications]
        assert any("Refused to open" in m for m in messages)
        assert any("Refused to copy" in m for m in messages)


async def test_markdown_links_checked(make_app, fake_streams, monkeypatch):
    fake_streams["ddgs"] = full_result
    app = make_app(("ddgs",))
    opened: list[str] = []
    async with app.run_test(size=(120, 36)) as pilot:
        monkeypatch.setattr("webbrowser.open", lambda url, *a, **kw: opened.append(url) or True)
        await submit(pilot, "links")
        await wait_for_search(app)
        view = pane(app, "ddgs").answer
        view.post_message(AnswerView.LinkClicked(view, "javascript:alert(1)"))
        view.post_message(AnswerView.LinkClicked(view, "https://example.com/x"))
        await pilot.pause()
        await workers_done(app)
        assert opened == ["https://example.com/x"]


async def test_without_a_browser_the_link_is_shown_to_select_and_copy_says_what_it_did(
    make_app, fake_streams, monkeypatch
):
    fake_streams["ddgs"] = full_result
    app = make_app(("ddgs",))
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        monkeypatch.setattr("webbrowser.open", lambda url, *a, **kw: False)  # no browser on this machine

        def no_clipboard(text: str) -> None:
            raise RuntimeError("no copy/paste mechanism")

        monkeypatch.setattr("pyperclip.copy", no_clipboard)
        await submit(pilot, "links")
        await wait_for_search(app)
        pane(app, "ddgs").focus_target()
        await pilot.press("o")
        await workers_done(app)
        await pilot.pause()
        from textual.widgets import TextArea

        from websearch_tui.tui.common.link_dialog import LinkDialog

        assert isinstance(app.screen, LinkDialog)
        assert app.screen.query_one(TextArea).selected_text == "https://www.example.com/a"
        await pilot.press("escape")
        await pilot.press("c")
        await workers_done(app)
        await pilot.pause()
        messages = [n.message for n in app._notifications]
        assert not any(m.startswith("Opened") for m in messages)
        assert any(m.startswith("Asked the terminal to copy https://www.example.com/a (OSC 52") for m in messages)
        copied: list[str] = []
        monkeypatch.setattr("pyperclip.copy", copied.append)
        await pilot.press("c")
        await workers_done(app)
        await pilot.pause()
        assert copied == ["https://www.example.com/a"]
        assert "Copied https://www.example.com/a to the clipboard." in [n.message for n in app._notifications]


async def test_tab_moves_between_panes(make_app, fake_streams):
    fake_streams["ddgs"] = full_result
    fake_streams["exa"] = full_result
    app = make_app(("ddgs", "exa"))
    async with app.run_test(size=(160, 36)) as pilot:
        await submit(pilot, "tabbing")
        await wait_for_search(app)
        app.screen.query_one("#providers").focus()
        await pilot.press("tab")
        assert pane(app, "ddgs") in app.screen.focused.ancestors
        await pilot.press("tab")
        assert pane(app, "exa") in app.screen.focused.ancestors
        await pilot.press("shift+tab")
        assert pane(app, "ddgs") in app.screen.focused.ancestors
        await pilot.press("slash")
        assert app.screen.focused is app.screen.query_one("#query")


async def test_layout_adapts_to_width(make_app, fake_streams):
    app = make_app(("ddgs", "exa", "parallel", "brave"))
    async with app.run_test(size=(210, 40)) as pilot:  # 4 panes of >= 40 columns beside the provider list
        await pilot.pause()
        area = app.screen.pane_area
        assert area.mode == "columns"
        await pilot.resize_terminal(130, 40)  # two columns of two rows
        await pilot.pause()
        assert area.mode == "grid"
        await pilot.resize_terminal(70, 40)
        await pilot.pause()
        assert area.mode == "tabs"
        visible = [p for p in area.panes if p.display and not p.has_class("-hidden-tab")]
        assert len(visible) == 1


async def test_auto_mode_routes_to_tried_provider(make_app, fake_streams):
    fake_streams["ddgs"] = auth_failure
    fake_streams["exa"] = full_result
    fake_streams["parallel"] = full_result
    app = make_app(("ddgs", "exa", "parallel"), mode="auto")
    async with app.run_test(size=(160, 36)) as pilot:
        await submit(pilot, "auto question")
        await wait_for_search(app)
        assert pane(app, "ddgs").status == "failed"
        assert pane(app, "exa").status == "done"
        assert pane(app, "parallel").status == "skipped"
        assert "answered by Exa" in app.screen.query_one("#hint").visual.plain


async def test_provider_toggle_and_statuses(make_app, fake_streams):
    app = make_app(("ddgs", "exa"))
    async with app.run_test(size=(160, 36)) as pilot:
        selector = app.screen.selector
        await until(
            pilot,
            lambda: len(selector.statuses) == len(SPECS),
            "every provider's readiness is known",
            detail=lambda: len(selector.statuses),
        )  # the readiness worker's thread
        assert selector.statuses["brave"] == "needs key"
        assert selector.statuses["ddgs"] == "keyless"
        shown = lambda: [p.provider_id for p in app.screen.pane_area.panes]  # noqa: E731
        selector.select("brave")
        await until(
            pilot, lambda: len(shown()) == 3, "three panes are shown", detail=lambda: shown()
        )  # the panes are mounted after the message
        assert shown() == ["ddgs", "exa", "brave"]
        selector.deselect_all()
        await until(pilot, lambda: shown() == [], "no pane is shown", detail=lambda: shown())
        await submit(pilot, "nothing selected")
        assert "Select at least one provider" in app.screen.query_one("#hint").visual.plain


async def test_quit_closes_engine(make_app, fake_streams):
    fake_streams["ddgs"] = hang
    app = make_app(("ddgs",))
    closed: list[bool] = []
    original = app.engine.aclose

    async def aclose() -> None:
        closed.append(True)
        await original()

    app.engine.aclose = aclose
    async with app.run_test(size=(120, 36)) as pilot:
        await submit(pilot, "hang")
        await pilot.pause(0.1)
        app.screen.query_one("#pane-ddgs .pane-body").focus()
        await pilot.press("q")
        await pilot.pause()
    assert closed == [True]
    assert app.return_code == 0


async def test_ctrl_c_quits_while_searching(make_app, fake_streams):
    fake_streams["ddgs"] = hang
    app = make_app(("ddgs",))
    async with app.run_test(size=(120, 36)) as pilot:
        await submit(pilot, "hang")
        await pilot.pause(0.1)
        await pilot.press("ctrl+c")
        await pilot.pause()
    assert app.return_code == 0
    assert not [w for w in app.workers if not w.is_finished]


PARAGRAPHS_PER_BURST = 30


def answer_in_bursts(bursts: list[asyncio.Event]):
    """Sources first, then :data:`PARAGRAPHS_PER_BURST` paragraphs per burst; each burst waits for
    its event (then hangs)."""

    async def stream(request, ctx):
        yield SourcesFound(tuple(Source(f"https://s{i}.example/", f"Source {i}", "snippet " * 8) for i in range(8)))
        paragraph = 0
        for gate in bursts:
            await gate.wait()
            for _ in range(PARAGRAPHS_PER_BURST):
                yield AnswerDelta(f"Paragraph {paragraph} of the answer.\n\n")
                paragraph += 1
        await asyncio.Event().wait()

    return stream


def answer_bottom(p: ProviderPane) -> int:
    """Line of the answer text's end inside the pane body (blank lines reserved below it excluded)."""
    return p.answer.virtual_region.y + p.answer.text_height


def watch_follows(p: ProviderPane) -> list[tuple[int, int, float]]:
    """Record, after each run of the pane's follow step, what it saw: the answer's rendered height in
    lines, the line of its end and the body's scroll position."""
    seen: list[tuple[int, int, float]] = []
    follow = p._follow

    def recorded(grow: int | None = None) -> None:
        follow(grow)
        seen.append((p.answer.text_height, answer_bottom(p), p.body.scroll_y))

    p._follow = recorded  # type: ignore[method-assign]  # the pane schedules self._follow after each refresh
    return seen


async def settle(pilot, follows: list[tuple[int, int, float]], paragraphs: int) -> None:
    """Wait until ``paragraphs`` one-line paragraphs are rendered and the pane's follow step has run
    twice on that same layout: it has then acted on the answer's end."""
    await until(
        pilot,
        lambda: len(follows) >= 2 and follows[-1] == follows[-2] and follows[-1][0] >= 2 * paragraphs - 1,
        f"{paragraphs} paragraphs are rendered and followed",
        detail=lambda: follows[-2:],
    )


async def test_pane_follows_the_answer_not_the_sources(make_app, fake_streams):
    bursts = [asyncio.Event(), asyncio.Event()]
    fake_streams["ddgs"] = answer_in_bursts(bursts)
    app = make_app(("ddgs",))
    async with app.run_test(size=(100, 30)) as pilot:
        await submit(pilot, "long answer")
        p = pane(app, "ddgs")
        follows = watch_follows(p)
        for count, burst in enumerate(bursts, start=1):
            burst.set()
            await settle(pilot, follows, count * PARAGRAPHS_PER_BURST)
            body = p.body
            assert p.status == "streaming"
            assert body.scroll_y > 0  # the answer outgrew the pane and the view moved with it
            bottom = answer_bottom(p)
            assert body.scroll_y <= bottom <= body.scroll_y + body.scrollable_content_region.height
            assert body.scroll_y < body.max_scroll_y  # not stuck at the sources below the answer


async def test_scrolling_up_stops_following(make_app, fake_streams):
    bursts = [asyncio.Event(), asyncio.Event()]
    fake_streams["ddgs"] = answer_in_bursts(bursts)
    app = make_app(("ddgs",))
    async with app.run_test(size=(100, 30)) as pilot:
        await submit(pilot, "long answer")
        p = pane(app, "ddgs")
        follows = watch_follows(p)
        bursts[0].set()
        await settle(pilot, follows, PARAGRAPHS_PER_BURST)
        assert p.body.scroll_y > 0  # it followed the first burst
        p.body.scroll_to(y=0, animate=False, immediate=True)  # the user scrolls up
        await pilot.pause()
        bursts[1].set()
        await settle(pilot, follows, 2 * PARAGRAPHS_PER_BURST)  # the follow step ran on the longer answer
        assert p.status == "streaming"
        assert p.body.scroll_y == 0  # and left the view where the user put it
        assert answer_bottom(p) > p.body.scrollable_content_region.height  # though the answer's end is out of view


async def test_hint_names_providers_that_ignore_recency_before_sending(make_app, fake_streams):
    from textual.widgets import Select

    app = make_app(("ddgs", "jina", "kimi"))
    async with app.run_test(size=(160, 36)) as pilot:
        await pilot.pause()
        app.screen.query_one("#recency", Select).value = "week"
        await pilot.pause()
        hint = app.screen.query_one("#hint").visual.plain
        assert "Recency 'week' is ignored by Jina Search, Kimi Code Search" in hint
        assert "DuckDuckGo" not in hint
        app.screen.selector.deselect("jina")
        app.screen.selector.deselect("kimi")
        await pilot.pause()
        assert "applies to every selected provider" in app.screen.query_one("#hint").visual.plain


async def test_selector_lists_every_registered_provider_with_kind(make_app, fake_streams):
    from websearch_tui.core.catalogue import SPECS

    app = make_app(("ddgs",))
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        selector = app.screen.selector
        assert [selector.get_option_at_index(i).value for i in range(selector.option_count)] == list(SPECS)
        prompts = [selector.get_option_at_index(i).prompt.plain for i in range(selector.option_count)]
        assert any("Z.AI Web Search" in p and "agent" in p for p in prompts)
        assert any("Perplexity " in p and "model" in p for p in prompts)
        assert any("DuckDuckGo" in p and "web" in p for p in prompts)


async def test_keys_still_work_after_searching_a_related_question(make_app, fake_streams):
    """Choosing a related question rebuilds the pane that held focus; focus must not be left detached."""
    fake_streams["ddgs"] = full_result
    app = make_app(("ddgs",))
    async with app.run_test(size=(120, 36)) as pilot:
        await submit(pilot, "first question")
        await wait_for_search(app)
        pane(app, "ddgs").query_one(RelatedList).focus()
        await pilot.press("enter")
        await wait_for_search(app)
        assert app.focused is not None and app.focused.is_attached
        selector = app.screen.selector
        await pilot.press("f2")
        await pilot.pause()
        assert selector.has_class("-hidden")


async def test_provider_list_makes_room_when_panes_would_not_sit_side_by_side(make_app, fake_streams):
    fake_streams["ddgs"] = full_result
    fake_streams["exa"] = full_result
    app = make_app(("ddgs", "exa"))
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert not app.screen.selector.has_class("-hidden")
        assert app.screen.pane_area.mode == "grid"  # 2 x 40 columns do not fit beside the list
        await submit(pilot, "q")
        await wait_for_search(app)
        assert app.screen.selector.has_class("-hidden")
        assert app.screen.pane_area.mode == "columns"
    app = make_app(("ddgs", "exa"))
    async with app.run_test(size=(200, 36)) as pilot:  # room enough: the list stays
        await submit(pilot, "q")
        await wait_for_search(app)
        assert not app.screen.selector.has_class("-hidden")


async def test_retry_wait_is_shown_until_the_retry_is_sent(tmp_path, monkeypatch):
    """Over real HTTP: Brave answers 429 (Retry-After: 1) once; while the shared HTTP layer waits,
    the pane says so, and once the retry goes out the run finishes normally."""
    from tests.fake_providers import FAKE_KEYS, FakeServer
    from tests.tui.conftest import fixed_status
    from websearch_tui.settings.config import load_config
    from websearch_tui.tui.app import WebSearchApp

    gate = asyncio.Event()
    waits: list[float] = []

    async def held(delay: float) -> None:
        waits.append(delay)
        await gate.wait()

    monkeypatch.setenv("BRAVE_API_KEY", FAKE_KEYS["BRAVE_API_KEY"])
    with FakeServer() as server:
        server.fail("brave", 429, retry_after=1, times=1)
        config = load_config(server.write_config(tmp_path / "config.toml", providers=["brave"]))
        engine = Engine.from_config(config)
        engine.sleep = held  # the engine's runs wait with it: the retry wait lasts until the gate opens
        app = WebSearchApp(config, engine, status_resolver=fixed_status, clock=lambda: 100.0)
        async with app.run_test(size=(120, 36)) as pilot:  # the pane's clock stands still: the wait reads 2s
            await submit(pilot, "rust release")
            await until(
                pilot,
                lambda: waits and "retrying" in status_text(app, "brave"),
                "the Brave Search pane says retrying",
                detail=lambda: (waits, status_text(app, "brave")),
            )
            shown = status_text(app, "brave")
            assert waits == [2.0]  # the server's 1 s plus 1 s padding
            assert re.search(r"retrying in 2s \(429\)", shown), shown
            assert pane(app, "brave").status == "running"
            assert len(server.requests_to("/brave/res/v1/web/search")) == 1  # the retry is not sent yet
            gate.set()
            await wait_for_search(app, timeout=10)
            assert pane(app, "brave").status == "done"
            assert "retrying" not in status_text(app, "brave") and "done" in status_text(app, "brave")
            assert len(server.requests_to("/brave/res/v1/web/search")) == 2


async def test_dropped_results_are_noted_in_the_pane(make_app, fake_streams):
    async def some_without_url(request, ctx):
        yield SourcesFound((Source("https://example.com/a", "Alpha"),), dropped=2)

    fake_streams["ddgs"] = some_without_url
    app = make_app(("ddgs",))
    async with app.run_test(size=(120, 36)) as pilot:
        await submit(pilot, "anything")
        await wait_for_search(app)
        assert pane(app, "ddgs").status == "done"
        notes = pane(app, "ddgs").query_one(".notes")
        assert notes.display and "2 results without a usable URL were dropped." in notes.visual.plain


async def test_pasted_escapes_and_line_breaks_never_reach_a_text_field(make_app, fake_streams):
    from textual import events

    fake_streams["ddgs"] = full_result
    app = make_app(("ddgs",))
    async with app.run_test(size=(120, 36)) as pilot:
        query = app.screen.query_one("#query")
        query.focus()
        query.post_message(events.Paste("abc \x1b[31mred\x1b[0m end\x1bc\x07\u202e"))
        await pilot.pause()
        assert query.value == "abc red end"
        query.value = ""
        await pilot.press("x")
        query.post_message(events.Paste("line one\nline two"))  # every line of a paste, breaks as spaces
        await pilot.pause()
        assert query.value == "xline one line two"
        query.insert_text_at_cursor("\ttab\rreturn\x00nul")
        assert query.value == "xline one line two tab returnnul"  # tab and CR become spaces, NUL is dropped


async def test_keys_typed_in_one_burst_while_panes_stream_are_applied_in_order(make_app, fake_streams):
    fake_streams["ddgs"] = drip
    fake_streams["exa"] = drip
    app = make_app(("ddgs", "exa"))
    async with app.run_test(size=(160, 36)) as pilot:
        await submit(pilot, "first")
        assert pane(app, "ddgs").status in ("running", "streaming")
        query = app.screen.query_one("#query", Input)
        query.value = ""
        burst(app, "asyncio tutorial for beginers", *["backspace"] * 4, "ners with examples")
        expected = "asyncio tutorial for beginers with examples"
        await until(
            pilot,
            lambda: len(query.value) >= len(expected),
            "every typed key reached the query box",
            detail=lambda: query.value,
        )
        assert query.value == expected
        query.value = ""
        burst(app, "world", "home", "hello ", "end", "!", "left", "left", "right", "X")
        await until(
            pilot,
            lambda: len(query.value) >= len("hello worldX!"),
            "every typed key reached the query box",
            detail=lambda: query.value,
        )
        assert query.value == "hello worldX!"
        assert pane(app, "ddgs").status in ("running", "streaming")  # still streaming all along


async def test_a_start_chooses_the_layout_once_the_pane_area_has_a_size(make_app, monkeypatch):
    """Choosing for a zero-size area picks tabs, then columns on the first resize: every pane is
    restyled twice before the first paint."""
    from websearch_tui.tui.search import pane_area

    chosen: list[tuple[int, int, int]] = []
    real = pane_area.choose_layout
    monkeypatch.setattr(pane_area, "choose_layout", lambda *args: chosen.append(args) or real(*args))
    app = make_app(("ddgs", "exa", "parallel"))
    async with app.run_test(size=(240, 60)) as pilot:
        await pilot.pause()
        assert app.screen.pane_area.mode == "columns"
        assert chosen and all(width > 0 for _, width, _ in chosen), chosen
        assert not any(real(*args)[0] == "tabs" for args in chosen)


def test_settle_gc_collects_freezes_and_turns_a_paused_collector_back_on() -> None:
    import gc

    from websearch_tui.tui.gc_tuning import GC_THRESHOLDS, pause_gc, settle_gc

    thresholds = gc.get_threshold()
    pause_gc()  # as the launcher does while the app starts
    try:
        settle_gc()
        assert gc.isenabled()
        assert gc.get_threshold() == GC_THRESHOLDS
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)
        gc.enable()


async def test_once_a_search_has_ended_no_line_drawn_for_the_search_before_is_left_alive(fake_streams):
    """With the app's collector tuned, a redrawn line (a Textual strip, in a reference cycle with its
    caches) is freed only by a full collection, which waits for a million allocations: lines of
    several searches piled up (issue 28). The collector is off between the two searches here, so
    only the collection at the search's end can free the first search's lines."""
    import gc

    from textual.strip import Strip

    from tests.tui.conftest import fixed_status
    from websearch_tui.settings.config import Config, SearchSettings
    from websearch_tui.tui.app import WebSearchApp

    async def by_query(request, ctx):
        yield AnswerDelta(" ".join(f"{request.query}{i}" for i in range(40)))
        yield SourcesFound((Source(url="https://www.example.com/a", title=f"{request.query} page"),))

    fake_streams["ddgs"] = by_query
    config = Config(search=SearchSettings(providers=("ddgs",), max_results=5, timeout=600))
    app = WebSearchApp(
        config, Engine(default_providers=("ddgs",), timeout=600), status_resolver=fixed_status, tune_gc=True
    )
    thresholds = gc.get_threshold()
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            await submit(pilot, "zebra")
            await wait_for_search(app)
            await pilot.pause()
            assert "zebra3" in answer_lines(app, "ddgs")
            gc.disable()
            await submit(pilot, "okapi")
            await wait_for_search(app)
            assert "okapi3" in answer_lines(app, "ddgs")
            left = [o.text for o in gc.get_objects() if type(o) is Strip and "zebra" in o.text]
            assert not left, left[:3]
    finally:
        gc.enable()
        gc.unfreeze()
        gc.set_threshold(*thresholds)


async def test_a_typed_key_repaints_the_query_box_without_a_layout_and_long_text_still_scrolls(make_app):
    """A layout of the whole screen per echoed key made every echo a slow frame while panes stream."""
    from textual.widget import Widget

    app = make_app(("ddgs",))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        query = app.screen.query_one("#query", Input)
        layouts: list[str] = []
        real = Widget.refresh

        def counting(self, *regions, layout=False, **kwargs):
            if layout:
                layouts.append(type(self).__name__)
            return real(self, *regions, layout=layout, **kwargs)

        Widget.refresh = counting
        try:
            text = "a question much longer than the query box is wide, typed key by key until the end"
            for char in text:
                await pilot.press("space" if char == " " else char)
            await pilot.pause()
        finally:
            Widget.refresh = real
        assert query.value == text
        assert "QueryInput" not in layouts, layouts
        assert query.scroll_x > 0  # the end of the text is in view
        assert "the end" in "".join(segment.text for segment in query.render_line(0))


async def flood(request, ctx):
    """An answer that grows by a line every 10 ms, for as long as the search runs."""
    for i in range(100_000):
        await asyncio.sleep(0.01)
        yield AnswerDelta(f"line {i} of a long answer that keeps on growing\n\n")


async def test_a_tick_that_lays_out_an_answer_draws_that_pane_alone_and_panes_take_turns(make_app, fake_streams):
    """One frame draws the rectangle around all its changes: a layout tick that also drew the other
    panes' new lines covered the whole pane area."""
    fake_streams["ddgs"] = flood
    fake_streams["exa"] = flood
    app = make_app(("ddgs", "exa"))
    async with app.run_test(size=(100, 30)) as pilot:
        area = app.screen.pane_area
        ticks: list[tuple[int, str, bool]] = []
        for each in area.panes:
            real = each.tick

            def tick(*, relayout: bool = True, pane=each, real=real) -> bool:
                laid_out = real(relayout=relayout)
                ticks.append((area._ticks, pane.provider_id, laid_out))
                return laid_out

            each.tick = tick
        await submit(pilot, "q")
        laid_out = lambda: {pid for _, pid, laid in ticks if laid}  # noqa: E731
        await until(
            pilot,
            lambda: laid_out() == {"ddgs", "exa"} and len(ticks) > 40,
            "both panes are laid out and have ticked 40 times",
            detail=lambda: (laid_out(), len(ticks)),
        )
        for number in {n for n, _, laid in ticks if laid}:
            assert [pid for n, pid, _ in ticks if n == number] in (["ddgs"], ["exa"]), ticks
        assert any(sum(1 for n, _, _ in ticks if n == number) == 2 for number, _, _ in ticks)  # the others: all at once
        assert pane(app, "ddgs").status == "streaming" and pane(app, "exa").status == "streaming"


async def test_hiding_the_focused_provider_list_does_not_leave_the_query_selected(make_app, fake_streams):
    """F2 on the focused list, then ``/`` and Enter: the query must stay, not become a search for "/"."""
    fake_streams["ddgs"] = full_result
    app = make_app(("ddgs",))
    async with app.run_test(size=(200, 40)) as pilot:
        await submit(pilot, "first question")
        await wait_for_search(app)
        app.screen.selector.focus()
        await pilot.press("f2")
        await pilot.pause()
        assert app.screen.selector.has_class("-hidden")
        assert app.focused is not app.screen.query_input  # the panes, not the query with its text selected
        await pilot.press("slash")
        await pilot.pause()
        assert app.focused is app.screen.query_input
        assert app.screen.query_input.value == "first question"


async def test_a_pasted_question_of_several_lines_is_one_line(make_app, fake_streams):
    """Textual's Input keeps only a paste's first line; the query box keeps all of it, line breaks as
    spaces and escapes removed."""
    from textual import events

    app = make_app(("ddgs",))
    async with app.run_test(size=(120, 30)) as pilot:
        box = app.screen.query_input
        box.focus()
        await pilot.pause()
        box.post_message(events.Paste("\x1b]0;pwned\x07\x1b[31mred\r\nsecond line\nthird"))
        await pilot.pause()
        assert box.value == "red second line third"
        assert box.cursor_position == len(box.value)
