"""The engine attaches what each run cost to its outcome, once, at the run's end (fake providers)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

import pytest

from websearch_tui.core.costs import Cost, Price
from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import AnswerDelta, Metadata, SearchRequest, Source, SourcesFound, Usage
from websearch_tui.core.results import RunStatus
from websearch_tui.core.specs import ProviderSettings
from websearch_tui.engine import engine as engine_module
from websearch_tui.engine.engine import Engine
from websearch_tui.providers.base import ProviderContext

Fake = Callable[[SearchRequest, ProviderContext], AsyncIterator[object]]
KEY = {"api_key": "k-cost-1"}


def install(monkeypatch: pytest.MonkeyPatch, fakes: dict[str, Fake]) -> None:
    monkeypatch.setattr(engine_module, "load_stream", lambda provider_id: fakes[provider_id])


def sources(count: int, usage: Usage | None = None) -> Fake:
    async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[object]:
        if usage is not None:
            yield Metadata(usage=usage)
        yield SourcesFound(tuple(Source(url=f"https://example.com/{n}", title=f"S{n}") for n in range(count)))

    return stream


def failing_at_once() -> Fake:
    async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[object]:
        raise ProviderError(ctx.spec.id, ErrorKind.SERVER, "upstream broke")
        yield  # pragma: no cover

    return stream


def failing_after_answering() -> Fake:
    async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[object]:
        yield AnswerDelta("part of an answer ")
        yield Metadata(usage=Usage(input_tokens=2_000, output_tokens=1_000, search_requests=2))
        raise ProviderError(ctx.spec.id, ErrorKind.NETWORK, "stream cut")

    return stream


async def cost_of_run(
    monkeypatch: pytest.MonkeyPatch,
    provider_id: str,
    fake: Fake,
    *,
    credentials: dict[str, str] | None = None,
    settings: ProviderSettings | None = None,
) -> tuple[RunStatus, Cost | None]:
    install(monkeypatch, {provider_id: fake})
    engine = Engine(
        settings={provider_id: settings} if settings else None,
        resolve_credentials=lambda spec: dict(credentials or {}),
    )
    result = await engine.search(SearchRequest("q", providers=(provider_id,)))
    outcome = result.outcomes[0]
    return outcome.status, outcome.cost


async def test_a_keyed_run_is_estimated_from_the_public_price(monkeypatch: pytest.MonkeyPatch) -> None:
    status, cost = await cost_of_run(monkeypatch, "brave", sources(3), credentials=KEY)
    assert status is RunStatus.DONE
    assert cost == Cost(0.005, "estimated")  # Brave: $5 per 1,000 requests


async def test_the_configured_price_replaces_the_public_one(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = ProviderSettings(price=Price(per_request=0.001, per_1k_results=2.0))
    _, cost = await cost_of_run(monkeypatch, "brave", sources(5), credentials=KEY, settings=settings)
    assert cost is not None and cost.basis == "estimated"
    assert cost.usd == pytest.approx(0.001 + 5 * 0.002)


async def test_a_reported_cost_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    _, cost = await cost_of_run(monkeypatch, "exa", sources(2, Usage(cost_usd=0.0123)), credentials=KEY)
    assert cost == Cost(0.0123, "reported")


async def test_a_run_without_a_key_is_keyless(monkeypatch: pytest.MonkeyPatch) -> None:
    _, exa = await cost_of_run(monkeypatch, "exa", sources(2))  # the keyless MCP path: no key resolved
    _, ddgs = await cost_of_run(monkeypatch, "ddgs", sources(2))
    assert exa == Cost(0.0, "keyless") and ddgs == Cost(0.0, "keyless")


async def test_a_provider_without_a_known_price_is_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    _, cost = await cost_of_run(monkeypatch, "jina", sources(2), credentials=KEY)
    assert cost == Cost(0.0, "unknown")


async def test_another_model_than_the_priced_one_is_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    usage = Usage(input_tokens=1_000_000, output_tokens=100_000, search_requests=1)
    _, default = await cost_of_run(monkeypatch, "anthropic", sources(1, usage), credentials=KEY)
    assert default is not None and default.basis == "estimated"
    assert default.usd == pytest.approx(1.0 + 0.5 + 0.01)  # Haiku 4.5 tokens and one search
    other = ProviderSettings(model="claude-opus-5")
    _, cost = await cost_of_run(monkeypatch, "anthropic", sources(1, usage), credentials=KEY, settings=other)
    assert cost == Cost(0.0, "unknown")


async def test_a_failure_before_any_event_costs_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    status, cost = await cost_of_run(monkeypatch, "brave", failing_at_once(), credentials=KEY)
    assert status is RunStatus.FAILED and cost == Cost(0.0, "estimated")


async def test_a_missing_key_costs_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    async def needs_key(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[object]:
        ctx.require_api_key()
        yield AnswerDelta("never")  # pragma: no cover

    status, cost = await cost_of_run(monkeypatch, "brave", needs_key)
    assert status is RunStatus.FAILED and cost == Cost(0.0, "estimated")


async def test_a_failure_after_answering_is_estimated_from_what_arrived(monkeypatch: pytest.MonkeyPatch) -> None:
    status, cost = await cost_of_run(monkeypatch, "openai", failing_after_answering(), credentials=KEY)
    assert status is RunStatus.FAILED and cost is not None and cost.basis == "estimated"
    assert cost.usd == pytest.approx(2_000 * 1.0 / 1e6 + 1_000 * 5.0 / 1e6 + 2 * 0.01)


async def test_a_cancel_before_the_first_event_costs_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    started = asyncio.Event()

    async def waiting(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[object]:
        started.set()
        await asyncio.Event().wait()
        yield AnswerDelta("never")  # pragma: no cover

    install(monkeypatch, {"brave": waiting})
    engine = Engine(resolve_credentials=lambda spec: dict(KEY))
    search = SearchRequest("q", providers=("brave",))
    result = engine.prepare(search)
    task = asyncio.create_task(engine.search(search, result=result, record=False))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    (outcome,) = result.outcomes
    assert outcome.status is RunStatus.CANCELLED and outcome.cost == Cost(0.0, "estimated")


async def test_the_search_total_sums_its_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    install(monkeypatch, {"brave": sources(1), "kagi": sources(1), "ddgs": sources(1)})
    engine = Engine(resolve_credentials=lambda spec: dict(KEY) if spec.id != "ddgs" else {})
    result = await engine.search(SearchRequest("q", providers=("brave", "kagi", "ddgs")))
    assert result.cost_usd() == pytest.approx(0.005 + 0.012)
