"""The honest cache (issue 26): cache keys, and every rule of reusing a provider's result from the
history, through the session with in-process provider fakes (no HTTP) and a history file in the
test's own folder."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import AsyncIterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from tests.unit.test_engine import Fake, install
from websearch_tui.core.catalogue import SPECS
from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import AnswerDelta, Citation, SearchRequest, Source, SourcesFound
from websearch_tui.core.results import ProviderUpdate, RunStatus
from websearch_tui.core.specs import ProviderSettings
from websearch_tui.engine.cache_keys import cache_key, normalise_query, runs_keyless
from websearch_tui.engine.engine import Engine
from websearch_tui.history.codec import Reused
from websearch_tui.providers.base import ProviderContext
from websearch_tui.session import Session
from websearch_tui.session.cache import plan_search, reused_outcome
from websearch_tui.settings.config import parse_config

QUERY = "what is new in rust"
KEY = {"api_key": "sk-cache-test-0001"}


class Calls:
    """Provider fakes that count how often each provider was asked (a request "sent")."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    def answering(self, text: str = "an answer", url: str = "https://example.com/a") -> Fake:
        async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[object]:
            self.sent.append(ctx.spec.id)
            yield AnswerDelta(text)
            yield SourcesFound((Source(url=url, title="A"),))

        return stream

    def failing(self, after: str | None = None) -> Fake:
        """A run that fails, after a partial answer ``after`` when given."""

        async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[object]:
            self.sent.append(ctx.spec.id)
            if after is not None:
                yield AnswerDelta(after)
            raise ProviderError(ctx.spec.id, ErrorKind.SERVER, "down")

        return stream

    def empty(self) -> Fake:
        async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[object]:
            self.sent.append(ctx.spec.id)
            return
            yield  # pragma: no cover

        return stream

    def hanging(self) -> Fake:
        async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[object]:
            self.sent.append(ctx.spec.id)
            yield AnswerDelta("partial ")
            await asyncio.Event().wait()

        return stream


def config_of(tmp_path: Path, **tables: Any) -> Any:
    """A config whose history is in ``tmp_path``, with ``tables`` (``cache={"ttl": 60}``, ...)."""
    return parse_config({"history": {"path": str(tmp_path / "history.sqlite3")}, **tables}, tmp_path / "config.toml")


def cache_session(tmp_path: Path, keys: dict[str, str] | None = None, **tables: Any) -> Session:
    """A session over an engine whose every provider has the credentials ``keys`` (a dict the test
    may change), recording into the test's history file."""
    held = KEY if keys is None else keys
    engine = Engine(resolve_credentials=lambda spec: dict(held))
    config = config_of(tmp_path, **tables)
    engine.reconfigure(config)  # the providers' settings and the history recorder
    return Session(config, engine)


def ask(*providers: str, query: str = QUERY, **controls: Any) -> SearchRequest:
    return SearchRequest(query=query, providers=providers, **controls)


async def history_ids(session: Session) -> list[int]:
    """The ids of the stored searches, oldest first (after the recorder has written)."""
    entries = await asyncio.to_thread(session.history.entries)
    return sorted(entry.id for entry in entries)


# --- cache keys -----------------------------------------------------------------------------


def key_of(request: SearchRequest, settings: ProviderSettings | None = None, **kwargs: Any) -> str:
    credentials = kwargs.pop("credentials", KEY)
    return cache_key(SPECS["brave"], request, settings or ProviderSettings(), credentials, **kwargs)


def test_a_cache_key_is_a_digest_that_holds_no_part_of_the_key() -> None:
    key = key_of(ask("brave"))
    assert len(key) == 64 and int(key, 16) >= 0
    assert key == key_of(ask("brave"))  # deterministic
    assert "sk-cache" not in key and KEY["api_key"] not in key


def test_a_password_is_stretched_before_it_is_folded_into_the_key(monkeypatch) -> None:
    from websearch_tui.engine import cache_keys

    stretched: list[bytes] = []
    real = cache_keys._stretched.__wrapped__

    def counting(provider_id: str, value: bytes) -> bytes:
        stretched.append(value)
        return real(provider_id, value)

    monkeypatch.setattr(cache_keys, "_stretched", counting)
    spec, request = SPECS["searxng"], ask("searxng")
    basic = {"username": "ada", "password": "hunter2"}
    key = cache_key(spec, request, ProviderSettings(), basic)
    assert stretched == [b"hunter2"]  # the user name is not a secret; API keys are not stretched
    assert key != cache_key(spec, request, ProviderSettings(), {**basic, "password": "hunter3"})
    plain = hashlib.sha256(b"hunter2").hexdigest()
    assert plain not in key and key == cache_key(spec, request, ProviderSettings(), basic)


def test_the_query_is_compared_normalised() -> None:
    assert normalise_query("  What IS\nnew\tin  Rust\u200b ") == "what is new in rust"
    assert key_of(ask("brave", query="What is NEW in   rust")) == key_of(ask("brave"))
    assert key_of(ask("brave", query="what is new in go")) != key_of(ask("brave"))


def test_every_control_and_setting_that_changes_results_changes_the_key() -> None:
    base = key_of(ask("brave"))
    assert key_of(ask("brave", mode="auto")) == base  # the mode asks each provider the same
    changed = [
        key_of(ask("brave", max_results=5)),
        key_of(ask("brave", recency="week")),
        key_of(ask("brave", max_tokens=100)),
        key_of(ask("brave", temperature=0.5)),
        key_of(ask("brave", num_search_results=20)),
        key_of(ask("brave"), ProviderSettings(options={"country": "de"})),
        key_of(ask("brave"), ProviderSettings(model="other-model")),
        key_of(ask("brave"), ProviderSettings(base_url="https://proxy.example")),
        key_of(ask("brave"), ProviderSettings(mcp_url="https://mcp.example/mcp")),
        key_of(ask("brave"), credentials={"api_key": "sk-cache-test-0002"}),
        key_of(ask("brave"), credentials={}),  # keyless
        cache_key(SPECS["tavily"], ask("brave"), ProviderSettings(), KEY),
    ]
    assert base not in changed and len(set(changed)) == len(changed)
    # a search's own options count as the same options configured
    configured = key_of(ask("brave"), ProviderSettings(options={"country": "de"}))
    assert key_of(ask("brave"), options={"country": "de"}) == configured


def test_settings_that_do_not_change_results_keep_the_key() -> None:
    base = key_of(ask("brave"))
    same = ProviderSettings(enabled=True, min_interval=3.0, cache_ttl=10.0)
    assert key_of(ask("brave"), same) == base
    # a default endpoint or model written out is the same endpoint or model
    spec = SPECS["exa"]
    explicit = ProviderSettings(base_url=spec.default_base_url, mcp_url=spec.default_mcp_url)
    assert cache_key(spec, ask("exa"), explicit, {}) == cache_key(spec, ask("exa"), ProviderSettings(), {})
    # the round-robin turn of a models list does not change what a run asks
    turns = ProviderSettings(models=("a", "b")), ProviderSettings(models=("b", "a"))
    assert key_of(ask("brave"), turns[0]) == key_of(ask("brave"), turns[1])


def test_runs_keyless() -> None:
    assert runs_keyless(SPECS["exa"], {}) and runs_keyless(SPECS["exa"], {"api_key": ""})
    assert not runs_keyless(SPECS["exa"], KEY)
    assert not runs_keyless(SPECS["codex"], {})  # a login of its own is billed by its plan
    assert runs_keyless(SPECS["ddgs"], {"api_key": "set for every provider"})  # it reads none
    assert not runs_keyless(SPECS["brave"], {})  # its key is required: billed once it runs


# --- hits ----------------------------------------------------------------------------------


async def test_the_same_question_is_answered_from_the_history_without_a_request(monkeypatch, tmp_path) -> None:
    calls = Calls()
    install(monkeypatch, {"brave": calls.answering("first"), "tavily": calls.answering("t")})
    session = cache_session(tmp_path)
    first = await session.search(ask("brave", "tavily"))
    assert sorted(calls.sent) == ["brave", "tavily"]
    [first_id] = await history_ids(session)

    updates: list[ProviderUpdate] = []
    before = datetime.now(timezone.utc)
    again = await session.search(ask("brave", "tavily", query="  What is new in RUST "), updates.append)
    assert sorted(calls.sent) == ["brave", "tavily"]  # nothing sent again
    for old, new in zip(first.outcomes, again.outcomes, strict=True):
        assert new.status is RunStatus.DONE and new.response.answer == old.response.answer
        assert new.cached is not None and new.cached.search_id == first_id
        assert abs(new.cached.created_at - first.created_at) < timedelta(milliseconds=1)  # stored to the ms
        assert 0 <= new.cached.age_seconds <= (datetime.now(timezone.utc) - first.created_at).total_seconds()
        assert new.cost is not None and (new.cost.usd, new.cost.basis) == (0.0, "cached")
        assert new.cache_key == old.cache_key and new.cache_key is not None
        assert new.elapsed_ms == 0 and new.first_event_ms is None
    assert [(u.provider, u.status) for u in updates] == [
        ("brave", RunStatus.QUEUED),
        ("tavily", RunStatus.QUEUED),
        ("brave", RunStatus.DONE),
        ("tavily", RunStatus.DONE),
    ]
    assert updates[2].response.answer == "first"  # the final update carries the reused response
    assert again.created_at is not None and again.created_at >= before
    assert len(await history_ids(session)) == 2  # the reusing search is recorded too
    await session.aclose()


async def test_a_reused_result_is_not_reused_again_but_its_source_is(monkeypatch, tmp_path) -> None:
    """The lookup finds the search that sent the request (never one that itself reused it)."""
    calls = Calls()
    install(monkeypatch, {"brave": calls.answering()})
    session = cache_session(tmp_path)
    await session.search(ask("brave"))
    [sent_id] = await history_ids(session)
    for _ in range(2):
        again = await session.search(ask("brave"))
        assert again.outcomes[0].cached is not None and again.outcomes[0].cached.search_id == sent_id
    assert calls.sent == ["brave"]
    await session.aclose()


async def test_auto_mode_answers_from_a_reused_provider_without_a_request(monkeypatch, tmp_path) -> None:
    calls = Calls()
    install(monkeypatch, {"brave": calls.answering(), "tavily": calls.answering()})
    session = cache_session(tmp_path)
    await session.search(ask("brave"))
    result = await session.search(ask("brave", "tavily", mode="auto"))
    assert calls.sent == ["brave"] and result.winner == "brave"
    assert result.outcomes[0].cached is not None
    assert result.statuses() == {"brave": RunStatus.DONE, "tavily": RunStatus.SKIPPED}
    await session.aclose()


async def test_a_reused_result_comes_without_the_earlier_citation_checks(tmp_path) -> None:
    from websearch_tui.core.checks import CitationCheck
    from websearch_tui.core.models import SearchResponse
    from websearch_tui.core.results import ProviderOutcome

    check = CitationCheck(verdict="quoted")
    response = SearchResponse(
        "brave", answer="a [1]", citations=[Citation(url="https://x.example", title="X", check=check)]
    )
    stored = ProviderOutcome("brave", RunStatus.DONE, response, cache_key="k")
    created = datetime.now(timezone.utc) - timedelta(minutes=12)
    reused = reused_outcome(Reused(7, created, stored), "k", datetime.now(timezone.utc))
    assert reused is not None and reused.response.citations[0].check is None
    assert stored.response.citations[0].check is check  # the stored outcome is left as it was
    assert reused.cached is not None and reused.cached.text() == "cached · 12 min ago"


def test_a_reused_result_drops_the_earlier_runs_pacing_wait() -> None:
    from websearch_tui.core.models import SearchResponse
    from websearch_tui.core.results import ProviderOutcome
    from websearch_tui.engine.engine import paced_message
    from websearch_tui.providers import SPECS

    held = paced_message(SPECS["exa"], 0.8, 1.0)
    response = SearchResponse("exa", answer="a", notes=[held, "Kept 12 sources (limit 10)."])
    stored = ProviderOutcome("exa", RunStatus.DONE, response, elapsed_ms=1900, cache_key="k", paced_ms=800)
    reused = reused_outcome(Reused(7, datetime.now(timezone.utc), stored), "k", datetime.now(timezone.utc))
    assert reused is not None
    assert reused.response.notes == ["Kept 12 sources (limit 10)."]
    assert (reused.elapsed_ms, reused.paced_ms) == (0, 0)


# --- misses --------------------------------------------------------------------------------


async def test_a_different_query_or_control_is_sent(monkeypatch, tmp_path) -> None:
    calls = Calls()
    install(monkeypatch, {"brave": calls.answering()})
    session = cache_session(tmp_path)
    await session.search(ask("brave"))
    for different in (
        ask("brave", query="what is new in go"),
        ask("brave", max_results=3),
        ask("brave", recency="week"),
    ):
        result = await session.search(different)
        assert result.outcomes[0].cached is None
    assert calls.sent == ["brave"] * 4
    await session.aclose()


async def test_a_changed_key_endpoint_or_setting_is_sent(monkeypatch, tmp_path) -> None:
    calls = Calls()
    install(monkeypatch, {"brave": calls.answering()})
    keys = dict(KEY)
    session = cache_session(tmp_path, keys)
    await session.search(ask("brave"))
    keys["api_key"] = "sk-cache-test-rotated"  # the key changed: the old answer is not this key's
    assert (await session.search(ask("brave"))).outcomes[0].cached is None
    for table in (
        {"base_url": "https://proxy.example"},  # another endpoint
        {"country": "de"},  # an option that changes results
    ):
        session.use_config(config_of(tmp_path, providers={"brave": table}))
        assert (await session.search(ask("brave"))).outcomes[0].cached is None
    assert calls.sent == ["brave"] * 4
    session.use_config(config_of(tmp_path, providers={"brave": {"min_interval": 0.0}}))  # no effect on results
    assert (await session.search(ask("brave"))).outcomes[0].cached is not None
    assert len(calls.sent) == 4
    await session.aclose()


@pytest.mark.parametrize(
    "ending",
    ["failed", "empty", "cancelled", "partial"],
)
async def test_only_results_that_ended_done_are_reused(monkeypatch, tmp_path, ending: str) -> None:
    calls = Calls()
    first = {
        "failed": calls.failing(),
        "empty": calls.empty(),
        "cancelled": calls.hanging(),
        "partial": calls.failing(after="half an answer"),
    }[ending]
    install(monkeypatch, {"brave": first})
    session = cache_session(tmp_path)
    live = session.begin(ask("brave"))
    task = asyncio.ensure_future(session.run(live))
    if ending == "cancelled":
        while not calls.sent:
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert live.result.outcomes[0].response.answer  # partial content was there
    else:
        await task
    expected = {"cancelled": RunStatus.CANCELLED, "empty": RunStatus.EMPTY}.get(ending, RunStatus.FAILED)
    assert live.result.outcomes[0].status is expected
    assert live.result.outcomes[0].cache_key is not None  # stored with its key all the same

    install(monkeypatch, {"brave": calls.answering()})
    again = await session.search(ask("brave"))
    assert calls.sent == ["brave", "brave"] and again.outcomes[0].cached is None
    await session.aclose()


async def test_a_result_older_than_the_ttl_is_sent_again(monkeypatch, tmp_path) -> None:
    calls = Calls()
    install(monkeypatch, {"brave": calls.answering()})
    session = cache_session(tmp_path, cache={"ttl": 60})
    first = await session.search(ask("brave"))
    assert first.created_at is not None
    await history_ids(session)  # written

    def plan_at(seconds: float) -> dict[str, Any]:
        when = first.created_at + timedelta(seconds=seconds)  # type: ignore[operator]
        plan = plan_search(
            session.engine, session.history, session.config, ask("brave"), ["brave"], read=True, now=when
        )
        return dict(plan.reuse)

    within, expired = plan_at(59), plan_at(61)
    assert within["brave"].cached.age_seconds == pytest.approx(59, abs=1)
    assert expired == {}
    await session.aclose()


async def test_a_provider_with_cache_ttl_0_is_always_sent(monkeypatch, tmp_path) -> None:
    calls = Calls()
    install(monkeypatch, {"brave": calls.answering(), "tavily": calls.answering()})
    session = cache_session(tmp_path, providers={"brave": {"cache_ttl": 0}})
    await session.search(ask("brave", "tavily"))
    again = await session.search(ask("brave", "tavily"))
    assert sorted(calls.sent) == ["brave", "brave", "tavily"]
    assert again.outcomes[0].cached is None and again.outcomes[1].cached is not None
    await session.aclose()


async def test_cache_ttl_0_turns_the_cache_off(monkeypatch, tmp_path) -> None:
    calls = Calls()
    install(monkeypatch, {"brave": calls.answering()})
    session = cache_session(tmp_path, cache={"ttl": 0})
    await session.search(ask("brave"))
    await session.search(ask("brave"))
    assert calls.sent == ["brave", "brave"]
    await session.aclose()


# --- bypass --------------------------------------------------------------------------------


async def test_a_fresh_search_is_sent(monkeypatch, tmp_path) -> None:
    calls = Calls()
    install(monkeypatch, {"brave": calls.answering()})
    session = cache_session(tmp_path)
    await session.search(ask("brave"))
    fresh = await session.search(ask("brave"), fresh=True)
    assert calls.sent == ["brave", "brave"] and fresh.outcomes[0].cached is None
    assert fresh.outcomes[0].cache_key is not None  # and a later search may reuse it
    assert (await session.search(ask("brave"))).outcomes[0].cached is not None
    await session.aclose()


async def test_a_retry_of_failed_providers_is_always_fresh(monkeypatch, tmp_path) -> None:
    calls = Calls()
    install(monkeypatch, {"tavily": calls.answering("kept")})
    session = cache_session(tmp_path)
    await session.search(ask("tavily"))  # a done result the cache holds
    install(monkeypatch, {"tavily": calls.failing()})
    shown = await session.search(ask("tavily"), fresh=True)
    assert session.failed() == ["tavily"]

    install(monkeypatch, {"tavily": calls.answering("retried")})
    live = session.begin_retry()
    assert live.fresh
    await session.run(live)
    assert calls.sent == ["tavily"] * 3  # sent again, not answered from the earlier result
    assert shown.outcomes[0].response.answer == "retried" and shown.outcomes[0].cached is None
    await session.aclose()


async def test_private_mode_neither_reads_nor_writes_the_cache(monkeypatch, tmp_path) -> None:
    calls = Calls()
    install(monkeypatch, {"brave": calls.answering()})
    session = cache_session(tmp_path)
    await session.search(ask("brave"))
    session.toggle_private()
    looked: list[str] = []
    real = session.history.reusable
    monkeypatch.setattr(session.history, "reusable", lambda *a: looked.append("read") or real(*a))
    private = await session.search(ask("brave"))  # not read...
    assert private.outcomes[0].cached is None and calls.sent == ["brave", "brave"] and looked == []
    await session.search(ask("brave", query="asked in private"))  # ...nor written
    session.toggle_private()
    assert len(await history_ids(session)) == 1
    after = await session.search(ask("brave", query="asked in private"))
    assert after.outcomes[0].cached is None and len(calls.sent) == 4
    await session.aclose()


async def test_with_the_history_off_nothing_is_reused_and_nothing_fails(monkeypatch, tmp_path) -> None:
    calls = Calls()
    install(monkeypatch, {"brave": calls.answering()})
    session = cache_session(tmp_path, history={"enabled": False})
    for _ in range(2):
        result = await session.search(ask("brave"))
        assert result.ok and result.outcomes[0].cached is None
    assert calls.sent == ["brave", "brave"]
    await session.aclose()


async def test_a_history_that_cannot_be_read_means_no_reuse_never_an_error(monkeypatch, tmp_path) -> None:
    from websearch_tui.history import HistoryError

    calls = Calls()
    install(monkeypatch, {"brave": calls.answering()})
    session = cache_session(tmp_path)
    await session.search(ask("brave"))

    def broken(*args: object) -> None:
        raise HistoryError("the history file is damaged")

    monkeypatch.setattr(session.history, "reusable", broken)
    result = await session.search(ask("brave"))
    assert result.ok and result.outcomes[0].cached is None and calls.sent == ["brave", "brave"]
    await session.aclose()


async def test_a_probe_gets_no_cache_key(monkeypatch, tmp_path) -> None:
    calls = Calls()
    install(monkeypatch, {"brave": calls.answering()})
    session = cache_session(tmp_path)
    outcome = await session.probe("brave", session.config, typed={})
    assert outcome.ok and outcome.cache_key is None
    await session.aclose()


async def test_credentials_are_looked_up_once_per_search(monkeypatch, tmp_path) -> None:
    calls = Calls()
    install(monkeypatch, {"brave": calls.answering(), "tavily": calls.answering()})
    looked: list[str] = []
    engine = Engine(resolve_credentials=lambda spec: looked.append(spec.id) or dict(KEY))
    config = config_of(tmp_path)
    engine.reconfigure(config)
    session = Session(config, engine)
    await session.search(ask("brave", "tavily"))
    assert sorted(looked) == ["brave", "tavily"]
    await session.aclose()


# --- MCP and the Python API ------------------------------------------------------------------


async def no_progress(done: float, total: float | None, message: str | None) -> None:
    return None


async def test_mcp_reuses_a_result_unless_fresh(monkeypatch, tmp_path) -> None:
    from websearch_tui.mcp.tools import SearchTools

    calls = Calls()
    install(monkeypatch, {"brave": calls.answering()})
    tools = SearchTools(cache_session(tmp_path))
    try:
        await tools.call("web_search", {"query": QUERY, "providers": ["brave"]}, no_progress)
        cached = await tools.call("web_search", {"query": QUERY, "providers": ["brave"]}, no_progress)
        fresh = await tools.call("web_search", {"query": QUERY, "providers": ["brave"], "fresh": True}, no_progress)
        bad = await tools.call("web_search", {"query": QUERY, "fresh": "yes"}, no_progress)
    finally:
        await tools.aclose()
    assert calls.sent == ["brave", "brave"]
    assert cached.structured_content["results"][0]["cached"]["search_id"] >= 1  # type: ignore[index]
    assert fresh.structured_content["results"][0]["cached"] is None  # type: ignore[index]
    assert bad.is_error and bad.content[0].text == "fresh must be true or false"  # type: ignore[union-attr]


async def test_the_api_reuses_a_result_unless_fresh(monkeypatch, tmp_path) -> None:
    from websearch_tui.api import asearch

    calls = Calls()
    install(monkeypatch, {"brave": calls.answering()})
    config = config_of(tmp_path)
    first = await asearch(QUERY, providers=["brave"], config=config)
    second = await asearch(QUERY, providers=["brave"], config=config)
    third = await asearch(QUERY, providers=["brave"], config=config, fresh=True)
    # the brave fake needs no key: the API resolves none here, so the runs are keyless alike
    assert calls.sent == ["brave", "brave"]
    assert first.outcomes[0].cached is None and second.outcomes[0].cached is not None
    assert third.outcomes[0].cached is None


async def test_the_key_is_never_stored_only_its_digest(monkeypatch, tmp_path) -> None:
    calls = Calls()
    install(monkeypatch, {"brave": calls.answering()})
    session = cache_session(tmp_path)
    result = await session.search(ask("brave"))
    await history_ids(session)  # written
    await session.aclose()
    stored = b"".join(path.read_bytes() for path in tmp_path.glob("history.sqlite3*"))
    assert result.outcomes[0].cache_key is not None and result.outcomes[0].cache_key.encode() in stored
    assert KEY["api_key"].encode() not in stored
