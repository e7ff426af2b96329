"""Engine behaviour with provider streams replaced by in-process fakes (no HTTP)."""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import AsyncIterator, Callable

import httpx
import pytest

from websearch_tui.core.errors import NO_PROVIDER_MESSAGE, ErrorKind, ProviderError, register_secret
from websearch_tui.core.models import AnswerDelta, Note, SearchRequest, Source, SourcesFound
from websearch_tui.core.results import ProviderUpdate, RetryWait, RunStatus
from websearch_tui.core.specs import Capabilities, ProviderSpec
from websearch_tui.engine import engine as engine_module
from websearch_tui.engine.engine import Engine, lookup_resolver
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.transport import http
from websearch_tui.secrets.credentials import CredentialSource

Fake = Callable[[SearchRequest, ProviderContext], AsyncIterator[object]]


def install(monkeypatch: pytest.MonkeyPatch, fakes: dict[str, Fake]) -> None:
    """Make the engine run ``fakes[provider_id]`` instead of the real provider module."""
    monkeypatch.setattr(engine_module, "load_stream", lambda provider_id: fakes[provider_id])


def answering(text: str, url: str = "https://example.com/a") -> Fake:
    async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[object]:
        for token in text.split(" "):
            yield AnswerDelta(token + " ")
        yield SourcesFound((Source(url=url, title="A"),))

    return stream


def failing(kind: ErrorKind, message: str) -> Fake:
    async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[object]:
        raise ProviderError(ctx.spec.id, kind, message)
        yield  # pragma: no cover

    return stream


def empty() -> Fake:
    async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[object]:
        return
        yield  # pragma: no cover

    return stream


def hanging(closed: list[str]) -> Fake:
    async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[object]:
        try:
            yield AnswerDelta("partial ")
            await asyncio.Event().wait()
        finally:
            closed.append(ctx.spec.id)

    return stream


def request(*providers: str, mode: str = "compare") -> SearchRequest:
    return SearchRequest(query="what is new in rust", providers=providers, mode=mode)


def statuses(updates: list[ProviderUpdate], provider_id: str | None = None) -> list[RunStatus]:
    """The status of every update that reports a status change (no event, no retry wait)."""
    return [u.status for u in updates if u.event is None and u.retry is None and provider_id in (None, u.provider)]


async def test_compare_runs_providers_concurrently(monkeypatch: pytest.MonkeyPatch) -> None:
    ids = ("brave", "tavily", "exa")
    started: set[str] = set()
    all_started = asyncio.Event()

    def barrier(answer: str) -> Fake:
        async def stream(req: SearchRequest, ctx: ProviderContext) -> AsyncIterator[object]:
            started.add(ctx.spec.id)
            if len(started) == len(ids):
                all_started.set()
            await asyncio.wait_for(all_started.wait(), 5)  # sequential runs would time out here
            yield AnswerDelta(answer)

        return stream

    install(monkeypatch, {pid: barrier(pid) for pid in ids})
    engine = Engine()
    result = await engine.search(request(*ids))
    assert [o.provider for o in result.outcomes] == list(ids)
    assert all(o.status is RunStatus.DONE for o in result.outcomes)
    assert [o.response.answer for o in result.outcomes] == list(ids)


async def test_compare_isolates_failures(monkeypatch: pytest.MonkeyPatch) -> None:
    async def buggy(req: SearchRequest, ctx: ProviderContext) -> AsyncIterator[object]:
        yield AnswerDelta("half an answer")
        raise KeyError("choices")

    install(
        monkeypatch,
        {
            "brave": failing(ErrorKind.AUTH, "Brave Search authorization failed (401)."),
            "tavily": buggy,
            "exa": answering("ok"),
        },
    )
    result = await Engine().search(request("brave", "tavily", "exa"))
    brave, tavily, exa = result.outcomes
    assert brave.status is RunStatus.FAILED and brave.error.kind is ErrorKind.AUTH
    assert tavily.status is RunStatus.FAILED and tavily.error.kind is ErrorKind.PROTOCOL
    assert "Unexpected error in Tavily: KeyError" in tavily.error.message
    assert tavily.response.answer == "half an answer"  # partial content is kept
    assert exa.status is RunStatus.DONE and exa.response.sources[0].url == "https://example.com/a"
    assert result.ok and result.error is None


async def test_deadline_fails_only_the_slow_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    closed: list[str] = []
    install(monkeypatch, {"brave": hanging(closed), "exa": answering("fast")})
    result = await Engine(timeout=0.2).search(request("brave", "exa"))
    brave, exa = result.outcomes
    assert brave.status is RunStatus.FAILED and brave.error.kind is ErrorKind.TIMEOUT
    assert brave.error.message == "Brave Search did not finish within 0.2 s."
    assert brave.response.answer == "partial "
    assert closed == ["brave"]
    assert exa.status is RunStatus.DONE


async def test_cancel_stops_every_run_and_leaves_no_task(monkeypatch: pytest.MonkeyPatch) -> None:
    closed: list[str] = []
    install(monkeypatch, {pid: hanging(closed) for pid in ("brave", "tavily", "exa")})
    updates: list[ProviderUpdate] = []
    before = asyncio.all_tasks()
    task = asyncio.create_task(Engine().search(request("brave", "tavily", "exa"), updates.append))
    while sum(u.event is not None for u in updates) < 3:
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert sorted(closed) == ["brave", "exa", "tavily"]
    assert {u.provider for u in updates if u.status is RunStatus.CANCELLED} == {"brave", "tavily", "exa"}
    assert RunStatus.FAILED not in statuses(updates)
    await asyncio.sleep(0)
    assert asyncio.all_tasks() - before == set()


async def test_a_cancel_before_any_run_started_still_reports_every_provider_cancelled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    closed: list[str] = []
    install(monkeypatch, {pid: hanging(closed) for pid in ("brave", "tavily", "exa")})
    updates: list[ProviderUpdate] = []
    engine = Engine()
    result = engine.prepare(request("brave", "tavily", "exa"))
    task = asyncio.create_task(engine.search(result.request, updates.append, result=result))
    await asyncio.sleep(0)  # the search has created its runs; none of them has started
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    ids = ("brave", "tavily", "exa")
    assert [(u.provider, u.status) for u in updates] == [(pid, RunStatus.QUEUED) for pid in ids] + [
        (pid, RunStatus.CANCELLED) for pid in ids
    ]
    assert {u.search_id for u in updates} == {result.search_id}
    assert [(o.provider, o.status) for o in result.outcomes] == [
        (pid, RunStatus.CANCELLED) for pid in ("brave", "tavily", "exa")
    ]


async def test_status_updates_and_timing(monkeypatch: pytest.MonkeyPatch) -> None:
    install(monkeypatch, {"exa": answering("one two")})
    updates: list[ProviderUpdate] = []
    outcome = (await Engine().search(request("exa"), updates.append)).outcomes[0]
    assert statuses(updates) == [RunStatus.QUEUED, RunStatus.RUNNING, RunStatus.STREAMING, RunStatus.DONE]
    assert [u.event for u in updates if u.event is not None][0] == AnswerDelta("one ")
    assert updates[-1].response is outcome.response  # the engine's reduced state, not a copy to fold again
    assert outcome.first_event_ms is not None and outcome.elapsed_ms >= outcome.first_event_ms
    assert outcome.response.elapsed_ms == outcome.elapsed_ms


async def test_empty_response_is_empty_in_compare(monkeypatch: pytest.MonkeyPatch) -> None:
    install(monkeypatch, {"exa": empty()})
    result = await Engine().search(request("exa"))
    assert result.outcomes[0].status is RunStatus.EMPTY
    assert result.outcomes[0].error is None
    assert not result.ok
    assert result.error == "Exa returned no renderable search content."


async def test_auto_falls_back_until_content(monkeypatch: pytest.MonkeyPatch) -> None:
    install(
        monkeypatch,
        {
            "exa": empty(),
            "brave": failing(ErrorKind.SERVER, "Brave Search API error (503): down"),
            "tavily": answering("yes"),
        },
    )
    updates: list[ProviderUpdate] = []
    result = await Engine().search(request("exa", "brave", "tavily", "parallel", mode="auto"), updates.append)
    assert result.winner == "tavily"
    assert [o.provider for o in result.outcomes] == ["exa", "brave", "tavily"]  # parallel never ran
    assert statuses(updates, "parallel") == [RunStatus.QUEUED, RunStatus.SKIPPED]
    assert result.statuses()["parallel"] is RunStatus.SKIPPED
    assert result.summary().text() == "Finished — answered by Tavily — 1 done, 2 failed, 1 skipped."
    assert result.outcomes[0].error.kind is ErrorKind.EMPTY
    assert result.outcomes[0].error.message == "Exa returned no renderable search content."
    assert result.outcomes[0].error.status == 204


async def test_auto_all_failed_message_lists_every_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    install(monkeypatch, {"brave": failing(ErrorKind.RATE_LIMIT, "slow down"), "exa": empty()})
    result = await Engine().search(request("brave", "exa", mode="auto"))
    assert not result.ok and result.winner is None
    assert result.error == (
        "All web search providers failed: brave: slow down; exa: Exa returned no renderable search content."
    )


async def test_auto_single_failure_keeps_its_message(monkeypatch: pytest.MonkeyPatch) -> None:
    install(monkeypatch, {"brave": failing(ErrorKind.AUTH, "Brave Search authorization failed (401).")})
    result = await Engine().search(request("brave", mode="auto"))
    assert result.error == "Brave Search authorization failed (401)."


async def test_auto_cancel_is_a_cancel_not_a_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    closed: list[str] = []
    install(monkeypatch, {"brave": hanging(closed), "exa": answering("never")})
    updates: list[ProviderUpdate] = []
    engine = Engine()
    result = engine.prepare(request("brave", "exa", mode="auto"))
    task = asyncio.create_task(engine.search(result.request, updates.append, result=result))
    while not any(u.event is not None for u in updates):
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert closed == ["brave"]
    assert statuses(updates, "exa") == [RunStatus.QUEUED, RunStatus.CANCELLED]  # never ran; not a failure
    assert [(o.provider, o.status) for o in result.outcomes] == [
        ("brave", RunStatus.CANCELLED),
        ("exa", RunStatus.CANCELLED),
    ]
    assert result.summary().text() == "Cancelled — 2 cancelled."


async def test_no_provider_selected() -> None:
    result = await Engine(default_providers=()).search(request())
    assert result.error == NO_PROVIDER_MESSAGE and not result.ok


async def test_default_selection_and_credentials_reach_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, object] = {}

    async def spy(req: SearchRequest, ctx: ProviderContext) -> AsyncIterator[object]:
        seen["key"] = ctx.api_key
        seen["remaining"] = ctx.remaining()
        yield AnswerDelta("x")

    install(monkeypatch, {"brave": spy})
    engine = Engine(default_providers=("brave",), timeout=7, resolve_credentials=lambda spec: {"api_key": "k-123"})
    result = await engine.search(SearchRequest(query="q"))
    assert result.outcomes[0].provider == "brave"
    assert seen["key"] == "k-123"
    assert 0 < seen["remaining"] <= 7


async def test_secret_never_reaches_error_message(monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-test-SECRET-0123456789"
    register_secret(secret)
    install(monkeypatch, {"brave": failing(ErrorKind.BAD_REQUEST, f"bad key {secret} in request")})
    result = await Engine().search(request("brave"))
    message = result.outcomes[0].error.message
    assert secret not in message and "***" in message


async def test_unexpected_errors_are_logged_redacted(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    import logging

    from websearch_tui.core.logs import RedactingFormatter

    secret = "sk-logged-SECRET-987654"
    register_secret(secret)

    async def buggy(req: SearchRequest, ctx: ProviderContext) -> AsyncIterator[object]:
        raise ValueError(f"parser choked near {secret}")
        yield  # pragma: no cover

    install(monkeypatch, {"exa": buggy})
    handler = logging.FileHandler(tmp_path / "log.txt")
    handler.setFormatter(RedactingFormatter("%(message)s"))
    logger = logging.getLogger("websearch_tui")
    logger.addHandler(handler)
    try:
        result = await Engine().search(request("exa"))
    finally:
        logger.removeHandler(handler)
        handler.close()
    assert result.outcomes[0].error.message == "Unexpected error in Exa: ValueError: parser choked near ***"
    logged = (tmp_path / "log.txt").read_text()
    assert "unexpected error in provider exa" in logged and "Traceback" in logged
    assert secret not in logged


async def test_unknown_provider_is_refused_before_anything_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[str] = []

    async def spy(req: SearchRequest, ctx: ProviderContext) -> AsyncIterator[object]:
        started.append(ctx.spec.id)
        yield AnswerDelta("x")

    install(monkeypatch, {"brave": spy})
    with pytest.raises(ValueError, match="unknown provider"):
        await Engine().search(request("brave", "bravo"))
    assert started == []


async def test_a_failing_update_callback_does_not_break_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    install(monkeypatch, {"brave": answering("a b"), "exa": answering("c")})

    def broken(update: ProviderUpdate) -> None:
        raise RuntimeError("UI bug")

    result = await Engine().search(request("brave", "exa"), broken)
    assert [o.status for o in result.outcomes] == [RunStatus.DONE, RunStatus.DONE]


async def test_auto_reports_an_empty_answer_as_a_failure_to_observers(monkeypatch: pytest.MonkeyPatch) -> None:
    install(monkeypatch, {"exa": empty(), "brave": answering("yes")})
    finals: dict[str, ProviderUpdate] = {}

    def watch(update: ProviderUpdate) -> None:
        if update.final:
            finals[update.provider] = update

    result = await Engine().search(request("exa", "brave", mode="auto"), watch)
    assert result.winner == "brave"
    assert finals["exa"].status is RunStatus.FAILED
    assert finals["exa"].error.message == "Exa returned no renderable search content."
    assert finals["brave"].status is RunStatus.DONE


async def test_searches_are_paced_per_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    from websearch_tui.core.specs import ProviderSettings

    waits: list[tuple[str, float]] = []

    class RecordingPacer:
        def __init__(self, interval: float, **clock_and_sleep: object) -> None:
            self.interval = interval

        async def wait(self, ctx: ProviderContext, on_wait: object = None) -> None:
            waits.append((ctx.spec.id, self.interval))

    monkeypatch.setattr(engine_module, "Pacer", RecordingPacer)
    install(monkeypatch, {"brave": answering("a"), "tavily": answering("b"), "exa": answering("c")})
    engine = Engine(
        settings={"tavily": ProviderSettings(min_interval=2.5), "brave": ProviderSettings(min_interval=0.0)}
    )
    await engine.search(request("brave", "tavily", "exa"))
    await engine.search(request("exa"))
    # config wins (brave 0, tavily 2.5); otherwise the spec default (Exa asks for 1 s between requests)
    assert sorted(waits) == [("brave", 0.0), ("exa", 1.0), ("exa", 1.0), ("tavily", 2.5)]
    assert len(engine._pacers) == 3  # one pacer per provider, reused across searches


async def test_a_run_held_back_by_pacing_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    install(monkeypatch, {"exa": answering("a")})
    slept: list[float] = []

    async def sleep(delay: float) -> None:
        slept.append(delay)

    engine = Engine(clock=lambda: 50.0, sleep=sleep)  # the clock stands still: the second search waits
    first = (await engine.search(request("exa"))).outcomes[0]
    updates: list[ProviderUpdate] = []
    second = (await engine.search(request("exa"), updates.append)).outcomes[0]
    note = "Held back 1.0 s: Exa is paced to one request every 1 s in this process ([providers.exa] min_interval)."
    assert slept == [1.0]
    assert note not in first.response.notes and note in second.response.notes
    assert [(u.paced, u.event) for u in updates if u.paced is not None] == [(1.0, Note(note))]


async def test_an_outcome_says_how_long_it_waited_for_pacing(monkeypatch: pytest.MonkeyPatch) -> None:
    install(monkeypatch, {"exa": answering("a")})
    now = [50.0]

    async def sleep(delay: float) -> None:
        now[0] += delay

    engine = Engine(clock=lambda: now[0], sleep=sleep)
    first = (await engine.search(request("exa"))).outcomes[0]
    second = (await engine.search(request("exa"))).outcomes[0]  # the clock stood still: it waits 1 s
    assert (first.paced_ms, second.paced_ms) == (0, 1000)
    assert second.elapsed_ms == 1000  # the run's time includes the wait; statistics take it out


async def test_engine_notes_recency_a_provider_cannot_honour(monkeypatch: pytest.MonkeyPatch) -> None:
    install(monkeypatch, {"brave": answering("a"), "ddgs": answering("b")})
    brave_spec = engine_module.SPECS["brave"]
    monkeypatch.setitem(
        engine_module.SPECS, "brave", dataclasses.replace(brave_spec, capabilities=Capabilities(count=True))
    )
    result = await Engine().search(SearchRequest(query="q", providers=("brave", "ddgs"), recency="week"))
    brave, ddgs = result.outcomes
    assert brave.response.notes == ["Recency is not supported by Brave Search; results are not filtered by date."]
    assert ddgs.response.notes == []  # DuckDuckGo filters by date natively
    result = await Engine().search(SearchRequest(query="q", providers=("brave",)))
    assert result.outcomes[0].response.notes == []  # no recency asked, nothing to say


async def test_a_models_list_is_used_round_robin(monkeypatch: pytest.MonkeyPatch) -> None:
    from websearch_tui.core.specs import ProviderSettings

    asked: list[str | None] = []

    async def spy(req: SearchRequest, ctx: ProviderContext) -> AsyncIterator[object]:
        asked.append(ctx.model())
        yield AnswerDelta("x")

    install(monkeypatch, {"perplexity": spy, "brave": spy})
    engine = Engine(settings={"perplexity": ProviderSettings(models=("sonar-pro", "sonar"))})
    for _ in range(3):
        await engine.search(request("perplexity"))
    assert asked == ["sonar-pro", "sonar", "sonar-pro"]
    await engine.search(request("brave"))
    assert asked[-1] is None  # no models configured: the provider's default applies


async def test_prompt_only_recency_and_kept_cited_sources_are_noted(monkeypatch: pytest.MonkeyPatch) -> None:
    async def cites_three(req: SearchRequest, ctx: ProviderContext) -> AsyncIterator[object]:
        yield SourcesFound(tuple(Source(f"https://s{i}.example/", f"S{i}") for i in range(3)))
        yield AnswerDelta("answer [1][2][3]")

    install(monkeypatch, {"anthropic": cites_three})
    result = await Engine().search(SearchRequest(query="q", providers=("anthropic",), recency="week", max_results=1))
    assert result.outcomes[0].response.notes == [
        "Anthropic is asked in the prompt to use only the past week; it has no date filter, so older pages may still be cited.",
        "Kept 3 sources (limit 1) because the answer cites them.",
    ]


# --- retries, credential sources, body cap, dropped sources ----------------------------------


def http_engine(handler: Callable[[httpx.Request], httpx.Response], **kwargs: object) -> Engine:
    """An engine whose shared client answers every request with ``handler`` (no network)."""
    return Engine(client=httpx.AsyncClient(transport=httpx.MockTransport(handler)), **kwargs)


async def brave_json(req: SearchRequest, ctx: ProviderContext) -> AsyncIterator[object]:
    """A provider that makes one JSON request through the shared HTTP layer."""
    data = (await http.send(ctx, http.HttpRequest("GET", "https://brave.example/s"))).json()
    yield AnswerDelta(data["answer"])


async def test_retry_waits_reach_observers_then_the_run_resumes(monkeypatch: pytest.MonkeyPatch) -> None:
    updates: list[object] = []

    async def no_wait(delay: float) -> None:
        updates.append(("slept", delay))

    install(monkeypatch, {"brave": brave_json})
    replies = iter([httpx.Response(429, headers={"Retry-After": "1"}), httpx.Response(200, json={"answer": "ok"})])
    engine = http_engine(lambda r: next(replies), sleep=no_wait)
    outcome = (await engine.search(request("brave"), updates.append)).outcomes[0]
    assert outcome.status is RunStatus.DONE
    seen = [u if isinstance(u, tuple) else (u.status, u.retry) for u in updates]
    assert seen[1:5] == [
        (RunStatus.RUNNING, None),
        (RunStatus.RUNNING, RetryWait(2.0, "429", 1)),
        ("slept", 2.0),
        (RunStatus.RUNNING, None),  # the retry is sent: back to the normal running status
    ]


async def test_a_retry_after_the_first_event_resumes_as_streaming(monkeypatch: pytest.MonkeyPatch) -> None:
    async def two_requests(req: SearchRequest, ctx: ProviderContext) -> AsyncIterator[object]:
        yield AnswerDelta("first ")
        async for item in brave_json(req, ctx):
            yield item

    install(monkeypatch, {"brave": two_requests})
    replies = iter([httpx.Response(503), httpx.Response(200, json={"answer": "second"})])
    updates: list[ProviderUpdate] = []
    engine = http_engine(lambda r: next(replies), sleep=lambda delay: asyncio.sleep(0), rng=random.Random(1))
    await engine.search(request("brave"), updates.append)
    waits = [u for u in updates if u.retry is not None]
    assert len(waits) == 1 and waits[0].retry.reason == "503" and 0.5 <= waits[0].retry.delay <= 1.0
    after = updates[updates.index(waits[0]) + 1]
    assert (after.status, after.retry, after.event) == (RunStatus.STREAMING, None, None)


async def test_each_provider_keeps_its_state_for_the_engines_lifetime() -> None:
    """DuckDuckGo's cool-down lives in the state the engine keeps for it: a second search of the
    same engine fails fast without a request, a new engine's search is sent."""
    from websearch_tui.core.specs import ProviderSettings

    pages: list[httpx.Request] = []

    def rate_limited(page: httpx.Request) -> httpx.Response:
        pages.append(page)
        return httpx.Response(202, text="")

    settings = {"ddgs": ProviderSettings(base_url="http://ddg.test", min_interval=0.0)}
    engine = http_engine(rate_limited, settings=settings)
    first = (await engine.search(request("ddgs"))).outcomes[0]
    again = (await engine.search(request("ddgs"))).outcomes[0]
    assert first.error is not None and again.error is not None and "cooling down" in again.error.message
    assert len(pages) == 1
    await http_engine(rate_limited, settings=settings).search(request("ddgs"))
    assert len(pages) == 2


def lookup_from(records: list[CredentialSource], values: dict[str, str]) -> Callable[[ProviderSpec], object]:
    """A ``KeyStore.lookup`` stand-in that reports fixed values and sources."""
    return lambda spec: (values, records)


@pytest.mark.parametrize(
    ("record", "sentence"),
    [
        (CredentialSource("api_key", "env", "BRAVE_API_KEY"), "The key came from env BRAVE_API_KEY."),
        (
            CredentialSource("api_key", "keyring"),
            "The key came from the OS keyring (service websearch-tui, user brave:api_key).",
        ),
        (CredentialSource("api_key", "file"), "The key came from the key file."),
    ],
)
async def test_auth_failure_names_where_the_key_came_from(
    monkeypatch: pytest.MonkeyPatch, record: CredentialSource, sentence: str
) -> None:
    install(monkeypatch, {"brave": brave_json})
    resolver = lookup_resolver(lookup_from([record], {"api_key": "k-1234"}))
    engine = http_engine(lambda r: httpx.Response(401, json={"error": "nope"}), resolve_credentials=resolver)
    outcome = (await engine.search(request("brave"))).outcomes[0]
    assert outcome.error.kind is ErrorKind.AUTH
    assert outcome.error.message == f"Brave Search authorization failed (401). Check API key or base URL. {sentence}"


async def test_auth_failure_from_the_real_lookup(monkeypatch: pytest.MonkeyPatch, memory_keyring) -> None:
    from websearch_tui.secrets import credentials

    memory_keyring.set_password("websearch-tui", "brave:api_key", "kr-secret-1")
    install(monkeypatch, {"brave": brave_json})
    resolver = lookup_resolver(credentials.KeyStore().lookup)
    engine = http_engine(lambda r: httpx.Response(403), resolve_credentials=resolver)
    message = (await engine.search(request("brave"))).outcomes[0].error.message
    assert message.endswith(
        "authorization failed (403). Check API key or base URL. "
        "The key came from the OS keyring (service websearch-tui, user brave:api_key)."
    )
    monkeypatch.setenv("BRAVE_API_KEY", "env-secret-1")  # env wins over the keyring
    message = (await engine.search(request("brave"))).outcomes[0].error.message
    assert message.endswith("The key came from env BRAVE_API_KEY.") and "env-secret-1" not in message


async def test_no_source_sentence_without_a_key_or_for_other_failures(monkeypatch: pytest.MonkeyPatch) -> None:
    install(monkeypatch, {"brave": brave_json})
    found = lookup_resolver(lookup_from([CredentialSource("api_key", "env", "BRAVE_API_KEY")], {"api_key": "k-99"}))
    absent = lookup_resolver(lookup_from([CredentialSource("api_key", None)], {}))

    def plain(spec: ProviderSpec) -> dict[str, str]:  # the older resolver shape: values only
        return {"api_key": "k-99"}

    for resolver, status in ((absent, 401), (plain, 401), (found, 400)):
        engine = http_engine(lambda r, s=status: httpx.Response(s, text="no"), resolve_credentials=resolver)
        message = (await engine.search(request("brave"))).outcomes[0].error.message
        assert "came from" not in message


async def test_context_gets_the_body_cap_and_credential_sources(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[ProviderContext] = []

    async def spy(req: SearchRequest, ctx: ProviderContext) -> AsyncIterator[object]:
        seen.append(ctx)
        yield AnswerDelta("x")

    install(monkeypatch, {"brave": spy})
    resolver = lookup_resolver(lookup_from([CredentialSource("api_key", "env", "BRAVE_API_KEY")], {"api_key": "k-1"}))
    await Engine(max_body_bytes=3 * 1024 * 1024, resolve_credentials=resolver).search(request("brave"))
    assert seen[0].max_body_bytes == 3 * 1024 * 1024
    assert seen[0].credentials == {"api_key": "k-1"}
    assert seen[0].credential_sources == {"api_key": "env BRAVE_API_KEY"}


async def test_dropped_sources_are_summed_on_the_outcome(monkeypatch: pytest.MonkeyPatch) -> None:
    from websearch_tui.providers.helpers.parse import limit_sources, sources_from

    async def rows(req: SearchRequest, ctx: ProviderContext) -> AsyncIterator[object]:
        for page in ([{"u": "https://a.example"}, {"u": None}], [{"u": "javascript:x"}, {"t": "no url"}]):
            parsed = sources_from(page, url="u", title="t", snippet=None)
            yield SourcesFound(limit_sources(parsed, req.max_results))

    install(monkeypatch, {"brave": rows})
    outcome = (await Engine().search(request("brave"))).outcomes[0]
    assert [s.url for s in outcome.response.sources] == ["https://a.example"]
    assert outcome.response.dropped_sources == 3


@pytest.mark.parametrize(
    ("rows", "status", "kept"),
    [
        ([{"url": "https://a.example", "title": "A"}, {"title": "no link"}], RunStatus.DONE, 1),
        ([{"title": "no link"}, {"url": "mailto:x@y.example"}], RunStatus.EMPTY, 0),  # all dropped: still counted
    ],
)
async def test_a_real_provider_reports_rows_without_a_url(
    rows: list[dict[str, str]], status: RunStatus, kept: int
) -> None:
    engine = http_engine(
        lambda r: httpx.Response(200, json={"web": {"results": rows}}),
        resolve_credentials=lambda spec: {"api_key": "k-brave-1"},
    )
    outcome = (await engine.search(request("brave"))).outcomes[0]
    assert outcome.status is status and len(outcome.response.sources) == kept
    assert outcome.response.dropped_sources == len(rows) - kept


# --- probe (the settings Test) and configuration -------------------------------------------------


async def test_a_probe_runs_one_small_search_with_the_pending_settings_and_typed_keys(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from websearch_tui.core.specs import ProviderSettings

    seen: list[tuple[SearchRequest, ProviderContext]] = []

    async def spy(req: SearchRequest, ctx: ProviderContext) -> AsyncIterator[object]:
        seen.append((req, ctx))
        yield SourcesFound((Source(url="https://a.example", title="A"),))

    install(monkeypatch, {"brave": spy})
    stored = lookup_resolver(lookup_from([CredentialSource("api_key", "keyring")], {"api_key": "stored-key-1"}))
    engine = Engine(
        resolve_credentials=stored, timeout=60, settings={"brave": ProviderSettings(base_url="https://old")}
    )
    updates: list[ProviderUpdate] = []
    pending = ProviderSettings(base_url="https://pending.example")
    outcome = await engine.probe(
        "brave", pending, typed={"api_key": "typed-key-0042"}, timeout=5, on_update=updates.append
    )
    request_sent, ctx = seen[0]
    assert (request_sent.query, request_sent.max_results, request_sent.providers) == ("test", 1, ("brave",))
    assert ctx.settings.base_url == "https://pending.example"  # the form's table, not the configured one
    assert ctx.credentials == {"api_key": "typed-key-0042"}  # typed wins over stored, and is not stored
    assert ctx.credential_sources == {}  # a typed key has no stored origin to name
    assert 0 < ctx.remaining() <= 5
    assert outcome.status is RunStatus.DONE and len(outcome.response.sources) == 1
    assert statuses(updates) == [RunStatus.RUNNING, RunStatus.STREAMING, RunStatus.DONE]
    assert redact_check("typed-key-0042")  # registered for redaction before it was used


def redact_check(secret: str) -> bool:
    from websearch_tui.core.errors import redact

    return redact(f"x {secret} y") == "x *** y"


async def test_a_probe_redacts_the_typed_password_but_not_the_user_name(memory_keyring) -> None:
    from tests.fake_providers import FakeServer
    from websearch_tui.core.errors import redact
    from websearch_tui.core.specs import ProviderSettings

    with FakeServer() as server:
        engine = Engine()
        settings = ProviderSettings(base_url=server.url("searxng"))
        typed = {"username": "test", "password": "typed-pw-0031"}
        try:
            outcome = await engine.probe("searxng", settings, typed=typed, timeout=10)
        finally:
            await engine.aclose()
    assert outcome.error is None, outcome.error
    assert redact("typed-pw-0031 test") == "*** test"  # the user name is not a secret


def test_from_config_and_reconfigure_use_one_mapping(tmp_path) -> None:
    from websearch_tui.settings.config import load_config

    path = tmp_path / "config.toml"
    path.write_text(
        '[search]\nproviders = ["brave", "exa"]\ntimeout = 12\nmax_body_mib = 2\n'
        "[providers.brave]\nenabled = false\n[providers.exa]\nmin_interval = 3\n",
        encoding="utf-8",
    )
    engine = Engine.from_config(load_config(path))
    assert engine.default_providers == ("exa",)  # the disabled provider leaves the default selection
    assert (engine.timeout, engine.max_body_bytes) == (12, 2 * 1024 * 1024)
    assert engine.settings["exa"].min_interval == 3
    path.write_text('[search]\nproviders = ["brave"]\ntimeout = 30\n', encoding="utf-8")
    engine.reconfigure(load_config(path))
    assert (engine.default_providers, engine.timeout) == (("brave",), 30)
    assert engine.settings["exa"].min_interval is None


async def test_every_search_gets_its_own_id_and_its_updates_carry_it(monkeypatch: pytest.MonkeyPatch) -> None:
    install(monkeypatch, {"brave": answering("a"), "exa": answering("b")})
    engine = Engine()
    first, second = engine.prepare(request("brave")), engine.prepare(request("exa"))
    assert (first.search_id, second.search_id) == (1, 2)
    assert first.providers == ("brave",) and first.labels == {"brave": "Brave Search"}
    updates: list[ProviderUpdate] = []
    await engine.search(second.request, updates.append, result=second)
    assert {u.search_id for u in updates} == {2} and {u.provider for u in updates} == {"exa"}
    assert second.summary().text() == "Finished — 1 done."


@pytest.mark.parametrize("value", ["k-first-line\nsecond-line-0000", "k-with-escape\x1b[2J-0000"])
async def test_a_stored_key_with_a_line_break_is_never_sent(
    value: str, monkeypatch: pytest.MonkeyPatch, memory_keyring
) -> None:
    from websearch_tui.secrets.credentials import KeyStore

    sent: list[httpx.Request] = []
    monkeypatch.setenv("BRAVE_API_KEY", value)
    install(monkeypatch, {"brave": brave_json})
    engine = http_engine(lambda r: sent.append(r) or httpx.Response(200, json={"answer": "x"}))
    engine.resolve_credentials = lookup_resolver(KeyStore().lookup)
    outcome = (await engine.search(request("brave"))).outcomes[0]
    assert sent == [] and outcome.error is not None and outcome.error.kind is ErrorKind.CONFIG
    assert outcome.error.message.startswith(
        "Brave Search: the API key from env BRAVE_API_KEY contains control characters"
    )
    assert "second-line" not in outcome.error.message and "k-first" not in outcome.error.message


def test_a_header_the_http_library_refuses_is_named_without_its_value() -> None:
    from tests.helpers import make_ctx

    exc = httpx.LocalProtocolError("Illegal header value b'Bearer sk-visible-0000\\nX: y'")
    error = http.transport_error(make_ctx("brave"), exc)
    assert error.kind is ErrorKind.CONFIG and "sk-visible" not in error.message


async def test_a_search_knows_when_it_started(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reports and the JSON document carry it (``created_at``); the history keeps the same moment."""
    from datetime import datetime, timezone

    install(monkeypatch, {"exa": answering("hi")})
    before = datetime.now(timezone.utc)
    result = await Engine().search(request("exa"))
    assert result.created_at is not None and before <= result.created_at <= datetime.now(timezone.utc)
