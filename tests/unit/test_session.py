"""The session layer without any front end: search, progress, cancel, retry-merge, the trail, reopen,
private mode, readiness and the history access (in-process provider fakes, no HTTP, no Textual)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import pytest

from tests.unit.test_engine import answering, failing, hanging, install
from websearch_tui.core.catalogue import SPECS
from websearch_tui.core.errors import ErrorKind
from websearch_tui.core.models import AnswerDelta, SearchRequest
from websearch_tui.core.results import ProviderUpdate, RunStatus
from websearch_tui.core.specs import ProviderSettings, ProviderSpec
from websearch_tui.engine.engine import Engine
from websearch_tui.history import HistoryError, HistoryRecorder, HistoryStore, UnknownEntry
from websearch_tui.providers.base import ProviderContext
from websearch_tui.session import HistoryAccess, NothingToRetry, Session
from websearch_tui.session.session import merge_outcomes, recency_notice, rerun_request
from websearch_tui.settings.config import parse_config

QUERY = "what is new in rust"


def make_session(
    tmp_path: Path, *, recorder: HistoryRecorder | None = None, default: tuple[str, ...] = ("brave",), **kwargs
) -> Session:
    config = parse_config({"history": {"path": str(tmp_path / "history.sqlite3")}}, tmp_path / "config.toml")
    return Session(config, Engine(recorder=recorder, default_providers=default), **kwargs)


def request(*providers: str, recency: str | None = None) -> SearchRequest:
    return SearchRequest(query=QUERY, providers=providers, recency=recency)


async def test_a_search_counts_its_progress_and_lands_on_the_trail(monkeypatch, tmp_path) -> None:
    install(monkeypatch, {"brave": answering("one two"), "tavily": failing(ErrorKind.AUTH, "bad key")})
    session = make_session(tmp_path)
    seen: list[str] = []

    live = session.begin(request("brave", "tavily"))
    assert session.shown is not None and session.shown.result is live.result
    assert live.progress_text() == "0/2 done · waiting for Brave Search, Tavily"

    def on_update(update: ProviderUpdate) -> None:
        seen.append(live.progress_text())

    result = await session.run(live, on_update)
    assert [o.status for o in result.outcomes] == [RunStatus.DONE, RunStatus.FAILED]
    assert live.done == {"brave", "tavily"} and live.ended and not session.searching
    assert seen[-1] == "2/2 done"
    assert any(text.startswith("1/2 done · waiting for ") for text in seen)
    assert session.failed() == ["tavily"]


async def test_retry_runs_only_the_failed_providers_and_merges_their_outcomes_in_place(monkeypatch, tmp_path) -> None:
    fakes = {
        "brave": answering("first answer"),
        "tavily": failing(ErrorKind.RATE_LIMIT, "slow down"),
        "exa": failing(ErrorKind.NETWORK, "down"),
    }
    install(monkeypatch, fakes)
    session = make_session(tmp_path)
    first = await session.search(request("brave", "tavily", "exa"))
    assert session.failed() == ["tavily", "exa"]

    fakes["tavily"] = answering("second answer", "https://example.com/b")
    ran: list[str] = []
    live = session.begin_retry()
    assert live.into is first and live.result.providers == ("tavily", "exa")
    assert live.result.request.query == QUERY and live.search_id != first.search_id
    assert live.result.retry_of is not None and [o.provider for o in live.result.retry_of] == ["brave"]
    shown = await session.run(live, lambda u: ran.append(u.provider))

    assert shown is first
    assert set(ran) == {"tavily", "exa"}  # brave was not asked again
    assert [(o.provider, o.status) for o in first.outcomes] == [
        ("brave", RunStatus.DONE),
        ("tavily", RunStatus.DONE),
        ("exa", RunStatus.FAILED),
    ]
    assert session.failed() == ["exa"]
    assert session.trail.position == (1, 1)  # a retry is not a new step of the trail


async def test_retry_says_why_there_is_nothing_to_retry(monkeypatch, tmp_path) -> None:
    install(monkeypatch, {"brave": answering("fine")})
    session = make_session(tmp_path)
    with pytest.raises(NothingToRetry, match="no provider on screen failed"):
        session.begin_retry()
    await session.search(request("brave"))
    with pytest.raises(NothingToRetry, match="no provider on screen failed"):
        session.begin_retry()


async def test_retry_waits_for_the_running_search(monkeypatch, tmp_path) -> None:
    closed: list[str] = []
    install(monkeypatch, {"brave": failing(ErrorKind.SERVER, "500"), "exa": hanging(closed)})
    session = make_session(tmp_path)
    await session.search(request("brave"))
    live = session.begin(request("exa"))
    session.trail.back()  # the failed search on screen again, while the new one still runs
    task = asyncio.create_task(session.run(live))
    await asyncio.sleep(0.05)
    with pytest.raises(NothingToRetry, match="wait for the search to end"):
        session.begin_retry()
    assert session.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert closed == ["exa"] and not session.searching


async def test_cancel_ends_unfinished_runs_cancelled_and_reports_whether_anything_ran(monkeypatch, tmp_path) -> None:
    closed: list[str] = []
    install(monkeypatch, {"brave": answering("done"), "exa": hanging(closed)})
    session = make_session(tmp_path)
    assert not session.cancel()  # nothing runs yet
    live = session.begin(request("brave", "exa"))
    task = asyncio.create_task(session.run(live))
    while "brave" not in live.done:
        await asyncio.sleep(0.01)
    assert session.searching and session.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert [(o.provider, o.status) for o in live.result.outcomes] == [
        ("brave", RunStatus.DONE),
        ("exa", RunStatus.CANCELLED),
    ]
    assert closed == ["exa"] and not session.cancel()


async def test_the_trail_goes_back_and_forward_and_a_new_search_drops_what_was_ahead(monkeypatch, tmp_path) -> None:
    install(monkeypatch, {"brave": answering("a")})
    session = make_session(tmp_path)
    results = [await session.search(SearchRequest(query=f"question {n}", providers=("brave",))) for n in range(3)]
    assert session.back() is not None and session.back() is not None
    assert session.shown is not None and session.shown.result is results[0]
    assert session.back() is None  # the first: nothing moves
    assert session.forward() is not None and session.shown.result is results[1]
    newest = await session.search(SearchRequest(query="another", providers=("brave",)))
    assert session.trail.position == (3, 3) and session.shown.result is newest
    assert session.forward() is None


async def test_private_mode_and_record_false_keep_searches_out_of_the_history(monkeypatch, tmp_path) -> None:
    install(monkeypatch, {"brave": answering("a")})
    path = tmp_path / "history.sqlite3"
    session = make_session(tmp_path, recorder=HistoryRecorder(path, max_entries=None))
    await session.search(SearchRequest(query="recorded", providers=("brave",)))
    assert session.toggle_private() is True
    await session.search(SearchRequest(query="private", providers=("brave",)))
    assert session.toggle_private() is False
    await session.search(SearchRequest(query="one call kept out", providers=("brave",)), record=False)
    entries = await asyncio.to_thread(session.history.entries)
    assert [entry.query for entry in entries] == ["recorded"]  # opening flushed the writer first
    await session.aclose()


async def test_reopen_from_the_history_and_run_it_again(monkeypatch, tmp_path) -> None:
    install(monkeypatch, {"brave": answering("a"), "exa": answering("b", "https://example.com/e")})
    path = tmp_path / "history.sqlite3"
    session = make_session(tmp_path, recorder=HistoryRecorder(path, max_entries=None), default=("brave", "exa"))
    ran = await session.search(SearchRequest(query=QUERY, providers=()))
    assert ran.providers == ("brave", "exa")  # the default selection ran
    [entry] = await asyncio.to_thread(session.history.entries)
    stored = await asyncio.to_thread(session.history.get, entry.id)

    shown = session.reopen(stored)
    assert shown.from_history and session.shown is shown and session.live is None
    assert shown.result.request.query == QUERY and shown.result.request.providers == ()
    again = rerun_request(shown.result)
    assert again.providers == ran.providers and again.query == QUERY
    await session.aclose()


def test_history_access_reads_without_creating_the_file_and_names_what_is_wrong(tmp_path) -> None:
    path = tmp_path / "history.sqlite3"
    access = HistoryAccess(path)
    assert access.entries() == [] and access.count() == 0 and access.clear() == 0
    assert not path.exists()
    with pytest.raises(UnknownEntry, match=r"no search with id 7: the history file .* does not exist yet"):
        access.get(7)
    with pytest.raises(HistoryError, match="nothing to search for in '\\*\\*': give at least one word"):
        access.search("**")
    assert access.store() is not None and path.exists()  # the History screen creates it
    off = HistoryAccess(path, enabled=False)
    with pytest.raises(HistoryError, match=r"the history is off \(\[history\] enabled = false"):
        off.entries()
    access.close()


def test_history_access_waits_for_the_recorder_before_reading(tmp_path) -> None:
    path = tmp_path / "history.sqlite3"
    HistoryStore(path).close()

    class SlowRecorder:
        flushed: list[float | None] = []

        def record(self, result, started_at) -> None: ...

        def flush(self, timeout: float | None = None) -> bool:
            self.flushed.append(timeout)
            return True

        def close(self) -> None: ...

    recorder = SlowRecorder()
    access = HistoryAccess(path, recorder=recorder, flush_seconds=1.5)
    access.entries()
    access.count()
    assert recorder.flushed == [1.5, 1.5]
    access.close()


def test_readiness_asks_every_provider_and_a_broken_resolver_says_unknown(tmp_path) -> None:
    def resolver(spec: ProviderSpec, settings: ProviderSettings) -> str:
        if spec.id == "brave":
            raise RuntimeError("keyring locked")
        return "keyless" if spec.keyless else "needs key"

    session = make_session(tmp_path)
    statuses = session.readiness(resolver=resolver)
    assert statuses.keys() == SPECS.keys() and statuses["brave"] == "unknown"
    assert statuses["ddgs"] == "keyless" and statuses["tavily"] == "needs key"
    assert session.readiness(["exa"], resolver=resolver) == {"exa": "keyless"}
    assert session.readiness(["ddgs"]) == {"ddgs": "keyless"}  # the key store's own answer


def test_merge_keeps_the_search_order_and_takes_a_winner_from_the_retry() -> None:
    from websearch_tui.core.models import SearchResponse, Source
    from websearch_tui.core.results import ProviderOutcome, SearchResult

    into = SearchResult(request=request("brave", "exa", "tavily"), mode="compare", providers=("brave", "exa", "tavily"))
    into.outcomes = [ProviderOutcome("brave", RunStatus.EMPTY, SearchResponse("brave"))]
    retried = SearchResult(
        request=request("exa", "tavily"), mode="compare", providers=("exa", "tavily"), winner="tavily"
    )
    found = SearchResponse("tavily", sources=(Source(url="https://example.com", title="t"),))
    retried.outcomes = [
        ProviderOutcome("tavily", RunStatus.DONE, found),
        ProviderOutcome("exa", RunStatus.DONE, SearchResponse("exa", answer="x")),
    ]
    merge_outcomes(into, retried)
    assert [o.provider for o in into.outcomes] == ["brave", "exa", "tavily"]
    assert into.winner == "tavily" and into.error is None


def test_recency_notice_names_who_ignores_it_and_who_only_prompts() -> None:
    from websearch_tui.core.catalogue import SPECS

    assert recency_notice([SPECS["brave"]], None) is None
    assert recency_notice([SPECS["brave"]], "week") == "Recency 'week' applies to every selected provider."
    notice = recency_notice([SPECS["brave"], SPECS["jina"], SPECS["openai"]], "day")
    assert notice is not None and notice.startswith("Recency 'day' is ")
    assert "(results are not date-filtered)." in notice


async def test_a_cancelled_retry_still_merges_what_it_reached(monkeypatch, tmp_path) -> None:
    closed: list[str] = []
    fakes = {"brave": failing(ErrorKind.SERVER, "500"), "exa": failing(ErrorKind.SERVER, "502")}
    install(monkeypatch, fakes)
    session = make_session(tmp_path)
    first = await session.search(request("brave", "exa"))

    async def partial(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[object]:
        yield AnswerDelta("now fine")

    fakes["brave"], fakes["exa"] = partial, hanging(closed)
    live = session.begin_retry()
    task = asyncio.create_task(session.run(live))
    while "brave" not in live.done:
        await asyncio.sleep(0.01)
    session.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert [(o.provider, o.status) for o in first.outcomes] == [("brave", RunStatus.DONE), ("exa", RunStatus.CANCELLED)]
    assert datetime.now(timezone.utc) >= live.result.created_at


@dataclass(frozen=True)
class FakePage:
    """What the citation check reads of a page (the reader's Page has more)."""

    text: str
    final_url: str
    retrieved_at: str = "2026-12-02T10:00:00Z"
    content_sha256: str = "ab" * 32


async def test_verify_reads_each_cited_page_once_and_attaches_a_check_to_every_citation(tmp_path) -> None:
    from websearch_tui.core.checks import Verdict
    from websearch_tui.core.models import Citation, SearchResponse
    from websearch_tui.core.pages import PageError, PageReason
    from websearch_tui.core.results import ProviderOutcome, SearchResult

    pages = {
        "https://example.com/rust": "Rust 1.80 was released on 25 July 2024. It adds LazyCell and LazyLock.",
        "https://example.com/moved": "The population of the town was 3,000 in 2019.",
    }
    reads: list[str] = []

    async def read(url: str) -> FakePage:
        reads.append(url)
        if url not in pages:
            raise PageError(PageReason.HTTP_STATUS, f"{url} answered 404 Not Found", url=url, status=404)
        return FakePage(pages[url], url)

    first = SearchResponse(
        "perplexity",
        answer="Rust 1.80 was released on 25 July 2024 [1]. The town had 30,000 people in 2019 [2].",
        citations=[Citation("https://example.com/rust", "Rust"), Citation("https://example.com/moved", "Town")],
    )
    second = SearchResponse(
        "gemini",
        answer="It adds LazyCell and LazyLock [1]; see also the tracker [2].",
        citations=[Citation("https://example.com/rust", "Rust"), Citation("https://example.com/gone", "Gone")],
    )
    result = SearchResult(request("perplexity", "gemini"), "compare", providers=("perplexity", "gemini"))
    result.outcomes = [
        ProviderOutcome("perplexity", RunStatus.DONE, first),
        ProviderOutcome("gemini", RunStatus.DONE, second),
    ]
    checked: list[str] = []
    await make_session(tmp_path).verify(result, read=read, on_checked=checked.append)

    assert sorted(reads) == ["https://example.com/gone", "https://example.com/moved", "https://example.com/rust"]
    assert sorted(checked) == ["gemini", "perplexity"]
    verdicts = [[c.check.verdict if c.check else None for c in r.citations] for r in (first, second)]
    assert verdicts[0][0] in (Verdict.QUOTED, Verdict.SUPPORTED)
    assert verdicts[0][1] is Verdict.NOT_SUPPORTED  # 30,000 against the page's 3,000
    assert verdicts[1][1] is Verdict.UNREADABLE
    gone = second.citations[1].check
    assert gone is not None and gone.reason is not None and "404" in gone.reason
    assert first.check_tally() == (1, 2) and second.check_tally() == (1, 2)
    assert SearchResponse("x").check_tally() is None


async def test_run_with_verify_checks_then_records_the_search_with_its_checks(monkeypatch, tmp_path) -> None:
    from websearch_tui.core.checks import Verdict
    from websearch_tui.core.models import Citation, CitationsFound

    async def cited(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[object]:
        yield AnswerDelta("Rust 1.80 was released on 25 July 2024 [1].")
        yield CitationsFound((Citation("https://example.com/rust", "Rust"),))

    install(monkeypatch, {"perplexity": cited})
    path = tmp_path / "history.sqlite3"
    session = make_session(tmp_path, recorder=HistoryRecorder(path, max_entries=None))

    async def read(self: Session, url: str) -> FakePage:
        return FakePage("Rust 1.80 was released on 25 July 2024. It adds LazyCell.", url)

    monkeypatch.setattr(Session, "read_page", read)
    heard: list[str | None] = []
    live = session.begin(request("perplexity"))
    result = await session.run(live, verify=True, on_checked=heard.append)
    assert heard == [None, "perplexity"] and live.checking == {"perplexity"}
    assert live.progress_text() == "Checking citations: 1/1 providers"
    [citation] = result.outcomes[0].response.citations
    assert citation.check is not None and citation.check.verdict is Verdict.QUOTED
    [entry] = await asyncio.to_thread(session.history.entries)
    stored = await asyncio.to_thread(session.history.get, entry.id)
    assert stored.result.outcomes[0].response.citations[0].check == citation.check  # recorded once, checked
    await session.aclose()


async def test_the_history_object_follows_a_new_history_path(monkeypatch, tmp_path) -> None:
    """An open History screen holds ``session.history.store``: after Settings changes ``[history]
    path`` it reads the new file, and the old one is released."""
    monkeypatch.delenv("WEBSEARCH_TUI_HISTORY")  # the config's path decides here
    session = make_session(tmp_path)
    store = session.history.store
    old = store()
    assert old.path == tmp_path / "history.sqlite3"
    moved = parse_config({"history": {"path": str(tmp_path / "moved.sqlite3")}}, tmp_path / "config.toml")
    session.use_config(moved)
    assert store().path == tmp_path / "moved.sqlite3"
    with pytest.raises(Exception, match="closed"):
        old.count()
    await session.aclose()


async def test_searches_that_are_not_remembered_leave_the_live_search_alone(monkeypatch, tmp_path) -> None:
    """The MCP server runs several calls at once on one session: none of them becomes the search on
    screen or a step of the trail, and cancelling the live search still works while they end."""
    closed: list[str] = []
    install(monkeypatch, {"brave": answering("a"), "exa": hanging(closed)})
    session = make_session(tmp_path)
    live = session.begin(request("exa"))
    running = asyncio.create_task(session.run(live))
    while not session.searching:
        await asyncio.sleep(0.01)
    other = await session.search(request("brave"), remember=False)
    assert other.outcomes[0].status is RunStatus.DONE
    assert session.live is live and session.searching and session.trail.position == (1, 1)
    assert session.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running
    assert closed == ["exa"] and not session.searching


def test_running_a_past_search_again_drops_providers_this_version_does_not_know() -> None:
    from websearch_tui.core.results import SearchResult

    past = SearchResult(request("brave", "gone"), "compare", providers=("brave", "gone"))
    assert rerun_request(past).providers == ("brave",)


async def test_verify_records_nothing_for_a_search_without_providers(tmp_path) -> None:
    recorded: list[object] = []

    class Recorder:
        def record(self, result, started_at) -> None:
            recorded.append(result)

        def flush(self, timeout=None) -> bool:
            return True

        def close(self) -> None: ...

    config = parse_config({"history": {"path": str(tmp_path / "h.sqlite3")}}, tmp_path / "config.toml")
    session = Session(config, Engine(recorder=Recorder(), default_providers=()))
    result = await session.search(SearchRequest(query=QUERY), verify=True)
    assert result.providers == () and recorded == []


# --- pages kept in the history (Session.read_page) ---------------------------------------------


class CountingReader:
    """A page reader that reads nothing from the network: ``read(url)`` returns the test page for
    ``url`` read now (or raises ``error``), and records every URL asked for."""

    def __init__(self, text: str | None = None) -> None:
        self.reads: list[str] = []
        self.text = text
        self.error: Exception | None = None

    async def read(self, url: str):
        from tests.unit.test_history_pages import make_page
        from websearch_tui.core.pages import utc_now

        self.reads.append(url)
        if self.error is not None:
            raise self.error
        changes = {"text": self.text, "word_count": len(self.text.split())} if self.text else {}
        return make_page(url, final_url=url, retrieved_at=utc_now(), **changes)

    async def aclose(self) -> None: ...


class NoNetwork(CountingReader):
    """A page reader that fails the test when it is used."""

    async def read(self, url: str):
        raise AssertionError(f"the network was used for {url}")


def use_reader(monkeypatch: pytest.MonkeyPatch, reader: CountingReader) -> None:
    monkeypatch.setattr(Session, "reader", property(lambda self: reader))


def page_session(tmp_path: Path, **reader_table: object) -> Session:
    table = {"history": {"path": str(tmp_path / "history.sqlite3")}, "reader": reader_table}
    return Session(parse_config(table, tmp_path / "config.toml"), Engine(default_providers=()))


def keep(tmp_path: Path, page) -> None:
    """Put ``page`` in the history file, as an earlier session would have."""
    store = HistoryStore(tmp_path / "history.sqlite3")
    store.add_page(page)
    store.close()


async def test_a_page_read_is_kept_and_read_back_offline_until_max_age(monkeypatch, tmp_path) -> None:
    import dataclasses
    from datetime import timedelta

    reader = CountingReader()
    use_reader(monkeypatch, reader)
    session = page_session(tmp_path, max_age=3600)
    url = "https://example.com/tides"

    first = await session.read_page(url)
    assert reader.reads == [url] and not first.from_history
    again = await session.read_page(url)
    assert reader.reads == [url] and again.from_history  # from the history: no network
    assert again == dataclasses.replace(first, from_history=True)

    older = dataclasses.replace(
        first, title="read 59 minutes ago", retrieved_at=first.retrieved_at - timedelta(minutes=59)
    )
    keep(tmp_path, older)
    kept = await session.read_page(url)
    assert kept.title == "read 59 minutes ago" and kept.from_history and len(reader.reads) == 1

    keep(tmp_path, dataclasses.replace(older, title="stale", retrieved_at=first.retrieved_at - timedelta(hours=2)))
    fresh = await session.read_page(url)  # older than max_age: read again, and kept in its place
    assert len(reader.reads) == 2 and not fresh.from_history and fresh.title == "Tides of Brittany"
    assert (await session.read_page(url)).retrieved_at == fresh.retrieved_at and len(reader.reads) == 2

    await session.read_page(url, fresh=True)  # fresh: the kept copy is not used
    assert len(reader.reads) == 3
    await session.aclose()


async def test_max_age_zero_reads_every_time(monkeypatch, tmp_path) -> None:
    reader = CountingReader()
    use_reader(monkeypatch, reader)
    session = page_session(tmp_path, max_age=0)
    for _ in range(2):
        assert not (await session.read_page("https://example.com/a")).from_history
    assert len(reader.reads) == 2
    await session.aclose()


async def test_private_mode_neither_reads_nor_writes_kept_pages(monkeypatch, tmp_path) -> None:
    from tests.unit.test_history_pages import make_page
    from websearch_tui.core.pages import utc_now

    kept = make_page("https://example.com/kept", title="kept before", retrieved_at=utc_now())
    keep(tmp_path, kept)
    reader = CountingReader()
    use_reader(monkeypatch, reader)
    session = page_session(tmp_path)
    assert session.keeps_pages and session.toggle_private() and not session.keeps_pages

    page = await session.read_page(kept.url)  # read from the network although a copy is kept
    assert reader.reads == [kept.url] and not page.from_history and page.title == "Tides of Brittany"
    await session.read_page("https://example.com/private")
    store = HistoryStore(tmp_path / "history.sqlite3")
    assert store.page_count() == 1 and store.page("https://example.com/private") is None
    stored = store.page(kept.url)
    assert stored is not None and stored.title == "kept before"  # not replaced either
    store.close()

    session.toggle_private()
    assert (await session.read_page(kept.url)).from_history and len(reader.reads) == 2
    await session.aclose()


async def test_with_the_history_off_pages_are_read_and_no_file_is_made(monkeypatch, tmp_path) -> None:
    reader = CountingReader()
    use_reader(monkeypatch, reader)
    path = tmp_path / "off.sqlite3"
    monkeypatch.setenv("WEBSEARCH_TUI_HISTORY", str(path))
    config = parse_config({"history": {"enabled": False}}, tmp_path / "config.toml")
    session = Session(config, Engine(default_providers=()))
    for _ in range(2):
        await session.read_page("https://example.com/a")
    assert len(reader.reads) == 2 and not session.keeps_pages and not path.exists()
    await session.aclose()


async def test_a_stale_copy_is_used_when_the_network_fails_but_not_for_other_failures(monkeypatch, tmp_path) -> None:
    from datetime import timedelta

    from tests.unit.test_history_pages import make_page
    from websearch_tui.core.pages import PageError, PageReason, utc_now

    url = "https://example.com/tides"
    keep(tmp_path, make_page(url, retrieved_at=utc_now() - timedelta(days=30)))
    reader = CountingReader()
    use_reader(monkeypatch, reader)
    session = page_session(tmp_path)

    for reason in (PageReason.NETWORK, PageReason.TIMEOUT):
        reader.error = PageError(reason, "example.com could not be reached")
        page = await session.read_page(url)
        assert page.from_history and page.title == "Tides of Brittany"
    reader.error = PageError(PageReason.NETWORK, "example.com could not be reached")
    with pytest.raises(PageError, match="could not be reached"):
        await session.read_page(url, fresh=True)
    reader.error = PageError(PageReason.HTTP_STATUS, "example.com answered HTTP 404", status=404)
    with pytest.raises(PageError, match="404"):  # the page is gone: the old copy does not hide that
        await session.read_page(url)
    await session.aclose()


async def test_a_reopened_search_checks_its_citations_with_no_network(monkeypatch, tmp_path) -> None:
    import dataclasses

    from websearch_tui.core.checks import Verdict
    from websearch_tui.core.models import Citation, CitationsFound

    async def cited(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[object]:
        yield AnswerDelta("Rust 1.80 was released on 25 July 2024 [1]. It adds LazyLock [2].")
        yield CitationsFound(
            (Citation("https://example.com/rust", "Rust"), Citation("https://example.com/lazy", "LazyLock"))
        )

    install(monkeypatch, {"perplexity": cited})
    path = tmp_path / "history.sqlite3"
    reader = CountingReader("Rust 1.80 was released on 25 July 2024. It adds LazyCell and LazyLock.")
    use_reader(monkeypatch, reader)
    first = make_session(tmp_path, recorder=HistoryRecorder(path, max_entries=None))
    ran = await first.search(request("perplexity"), verify=True)
    assert sorted(reader.reads) == ["https://example.com/lazy", "https://example.com/rust"]
    checked = [c.check for c in ran.outcomes[0].response.citations]
    await first.aclose()

    use_reader(monkeypatch, NoNetwork())  # a later session, offline
    later = make_session(tmp_path)
    [entry] = await asyncio.to_thread(later.history.entries)
    shown = later.reopen(await asyncio.to_thread(later.history.get, entry.id))
    response = shown.result.outcomes[0].response
    response.citations = [dataclasses.replace(c, check=None) for c in response.citations]
    await later.verify(shown.result)
    again = [c.check for c in response.citations]
    assert [check.verdict if check else None for check in again] == [Verdict.QUOTED, Verdict.SUPPORTED]
    assert again == checked  # the same pages: the same verdicts, passages, addresses, times and digests
    await later.aclose()


async def test_a_kept_copy_of_a_host_no_longer_allowed_is_not_shown(monkeypatch, tmp_path) -> None:
    from tests.unit.test_history_pages import make_page
    from websearch_tui.core.pages import PageError, PageReason, utc_now

    url = "http://127.0.0.1:8080/intranet"
    keep(tmp_path, make_page(url, final_url=url, title="internal", retrieved_at=utc_now()))
    reader = CountingReader()
    reader.error = PageError(PageReason.BLOCKED, "blocked: 127.0.0.1 is a loopback address")
    use_reader(monkeypatch, reader)
    allowed = page_session(tmp_path, allow_private=["127.0.0.1"])
    assert (await allowed.read_page(url)).title == "internal" and reader.reads == []
    await allowed.aclose()

    strict = page_session(tmp_path)  # [reader] allow_private no longer lists it: the guard decides again
    with pytest.raises(PageError, match="loopback"):
        await strict.read_page(url)
    reader.error = PageError(PageReason.NETWORK, "down")  # nor is it the offline fallback
    with pytest.raises(PageError, match="down"):
        await strict.read_page(url)
    redirected = make_page("https://example.com/r", final_url="http://[::1]/x", retrieved_at=utc_now())
    keep(tmp_path, redirected)
    with pytest.raises(PageError, match="down"):  # a public URL whose content came from a loopback address
        await strict.read_page(redirected.url)
    assert len(reader.reads) == 3
    await strict.aclose()


async def test_a_kept_page_is_found_by_the_url_as_the_reader_normalises_it(monkeypatch, tmp_path) -> None:
    from tests.unit.test_history_pages import make_page
    from websearch_tui.core.pages import utc_now

    keep(tmp_path, make_page("https://example.com/a%20b", retrieved_at=utc_now()))
    use_reader(monkeypatch, NoNetwork())
    session = page_session(tmp_path)
    assert (await session.read_page("https://EXAMPLE.com/a b")).from_history
    await session.aclose()
