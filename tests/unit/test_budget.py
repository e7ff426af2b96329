"""Budgets (issue 26): ``[budget] daily`` / ``monthly`` checked before a search, by estimate, through
the session, MCP and the Python API (in-process provider fakes, a history file in the test's folder)."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from tests.unit.test_cache import KEY, Calls, ask, cache_session, config_of, no_progress
from tests.unit.test_engine import install
from websearch_tui.core.costs import Price
from websearch_tui.session import BudgetOverrun, OverBudget, Session
from websearch_tui.session.budget import billed, over_budget, period_start, provider_estimate
from websearch_tui.session.cache import SearchPlan

PRICED = {"brave": {"price": {"per_request": 1.0}}, "tavily": {"price": {"per_request": 0.25}}}
"""Prices large enough to read: a brave search $1, a tavily one $0.25."""


def budget_session(tmp_path: Path, keys: dict[str, str] | None = None, **budget: float) -> Session:
    return cache_session(tmp_path, keys, providers=PRICED, budget=budget)


async def test_no_budget_means_no_check_and_no_history_read(monkeypatch, tmp_path) -> None:
    session = cache_session(tmp_path, providers=PRICED)

    def untouched(*args: object, **kwargs: object) -> None:
        raise AssertionError("the history was read")

    for name in ("open", "spent", "reusable"):
        monkeypatch.setattr(session.history, name, untouched)
    monkeypatch.setattr(session.engine, "cache_keys", untouched)
    assert await session.budget_check(ask("brave", "tavily")) is None
    await session.engine.aclose()


async def test_a_search_that_would_pass_the_daily_budget_is_named_with_spend_and_estimate(
    monkeypatch, tmp_path
) -> None:
    calls = Calls()
    install(monkeypatch, {"brave": calls.answering(), "tavily": calls.answering()})
    session = budget_session(tmp_path, daily=1.5)
    assert await session.budget_check(ask("brave")) is None  # $1 of $1.50
    spent = await session.search(ask("brave"))
    assert spent.cost_usd() == pytest.approx(1.0)

    overrun = await session.budget_check(ask("brave", "tavily", query="another question"))
    assert overrun == BudgetOverrun("daily", 1.5, pytest.approx(1.0), pytest.approx(1.25))
    assert overrun is not None and overrun.message() == (
        "This search would pass the daily budget of $1.50: $1.00 spent today, about $1.25 for this search. "
        "Run it anyway with --over-budget, or raise [budget] daily in the config file."
    )
    assert "Nothing was sent" in overrun.message(override=None)
    # what the cache would answer costs nothing: the same question again fits
    assert await session.budget_check(ask("brave")) is None
    # unless the search is fresh
    assert await session.budget_check(ask("brave"), fresh=True) is not None
    assert await session.budget_check(ask("tavily", query="another question")) is None  # $1.25 of $1.50
    assert calls.sent == ["brave"]  # checking sends nothing
    await session.aclose()


async def test_the_monthly_budget_is_checked_after_the_daily_one(monkeypatch, tmp_path) -> None:
    calls = Calls()
    install(monkeypatch, {"brave": calls.answering()})
    session = budget_session(tmp_path, daily=10.0, monthly=1.5)
    await session.search(ask("brave"))
    overrun = await session.budget_check(ask("brave", query="another question"))
    assert overrun is not None and (overrun.period, overrun.limit) == ("monthly", 1.5)
    assert overrun.message().startswith("This search would pass the monthly budget of $1.50: $1.00 spent this month")
    assert "raise [budget] monthly" in overrun.message()
    await session.aclose()


async def test_keyless_runs_cost_nothing_and_never_pass_a_budget(monkeypatch, tmp_path) -> None:
    session = budget_session(tmp_path, keys={}, daily=0.0001)
    assert await session.budget_check(ask("exa", "parallel")) is None  # their keyless endpoints: $0
    assert await session.budget_check(ask("brave")) is not None  # a required key: billed once it runs
    await session.engine.aclose()


async def test_auto_mode_counts_the_first_provider_of_the_chain(monkeypatch, tmp_path) -> None:
    session = budget_session(tmp_path, daily=0.5)
    assert await session.budget_check(ask("tavily", "brave", mode="auto")) is None  # $0.25
    overrun = await session.budget_check(ask("brave", "tavily", mode="auto"))
    assert overrun is not None and overrun.estimate == pytest.approx(1.0)
    await session.engine.aclose()


async def test_a_history_that_cannot_be_read_counts_nothing_spent(monkeypatch, tmp_path) -> None:
    from websearch_tui.history import HistoryError

    session = budget_session(tmp_path, daily=1.5)

    def broken(*args: object) -> float:
        raise HistoryError("the history file is damaged")

    monkeypatch.setattr(session.history, "spent", broken)
    assert await session.budget_check(ask("brave")) is None  # $1 alone fits
    overrun = await session.budget_check(ask("brave", "tavily", query="x", max_results=5))
    assert overrun is None  # $1.25 fits too: nothing counts as spent
    await session.engine.aclose()


def test_estimates_from_the_price(tmp_path) -> None:
    config = config_of(tmp_path, providers={"valyu": {"price": {"per_1k_results": 2.0}}})
    assert provider_estimate(config, ask("valyu", max_results=10), "valyu", None) == pytest.approx(0.02)
    assert provider_estimate(config, ask("valyu"), "valyu", 0.5) == 0.5  # a known average wins
    assert provider_estimate(config, ask("kagi"), "kagi", None) == Price(per_request=0.012).typical(10)
    assert provider_estimate(config, ask("jina"), "jina", None) == 0.0  # no price known
    assert provider_estimate(config, ask("openai"), "openai", None) > 0.001  # a model's typical answer


async def test_a_model_never_run_before_is_caught_by_a_spent_budget(tmp_path) -> None:
    session = budget_session(tmp_path, daily=0.001)
    assert await session.budget_check(ask("anthropic")) is not None  # no history: its price's typical answer
    await session.engine.aclose()


def test_billed_leaves_out_reused_and_keyless_providers() -> None:
    from websearch_tui.engine.cache_keys import CacheKeys
    from websearch_tui.engine.engine import ResolvedCredentials

    credentials = {
        "brave": ResolvedCredentials(KEY),
        "exa": ResolvedCredentials({}),
        "tavily": ResolvedCredentials(KEY),
    }
    keys = CacheKeys({pid: pid for pid in credentials}, credentials)
    plan = SearchPlan(keys, {"tavily": object()})  # type: ignore[dict-item]
    assert billed(["brave", "exa", "tavily"], "compare", plan) == ["brave"]
    assert billed(["exa", "brave"], "auto", plan) == []
    assert billed(["brave", "exa"], "compare", SearchPlan()) == ["brave", "exa"]  # unknown: counted


def test_periods_start_at_local_midnight() -> None:
    now = datetime(2026, 12, 3, 15, 30, tzinfo=timezone.utc)
    day, month = period_start("daily", now), period_start("monthly", now)
    local = now.astimezone()
    assert (day.hour, day.minute, day.day) == (0, 0, local.day) and day <= now
    assert (month.day, month.hour) == (1, 0) and month <= day


def test_over_budget_without_a_budget_reads_nothing(tmp_path) -> None:
    config = config_of(tmp_path)
    assert over_budget(config, None, ask("brave"), ["brave"], SearchPlan(), now=datetime.now(timezone.utc)) is None  # type: ignore[arg-type]


async def test_mcp_answers_a_tool_error_naming_the_budget_and_sends_nothing(monkeypatch, tmp_path) -> None:
    from websearch_tui.mcp.tools import SearchTools

    calls = Calls()
    install(monkeypatch, {"brave": calls.answering()})
    tools = SearchTools(budget_session(tmp_path, daily=0.5))
    try:
        refused = await tools.call("web_search", {"query": "q", "providers": ["brave"]}, no_progress)
    finally:
        await tools.aclose()
    assert refused.is_error and calls.sent == []
    text = refused.content[0].text  # type: ignore[union-attr]
    assert text.startswith("Error: This search would pass the daily budget of $0.50: $0.00 spent today")
    assert "raise [budget] daily in the config file" in text and "--over-budget" not in text


async def test_the_api_raises_over_budget_unless_told_to_run_it(monkeypatch, tmp_path) -> None:
    from websearch_tui.api import asearch

    calls = Calls()
    install(monkeypatch, {"brave": calls.answering()})
    monkeypatch.setenv("BRAVE_API_KEY", KEY["api_key"])
    config = config_of(tmp_path, providers=PRICED, budget={"daily": 0.5})
    with pytest.raises(OverBudget, match=r"daily budget of \$0\.50.*over_budget=True") as refused:
        await asearch("q", providers=["brave"], config=config)
    assert refused.value.overrun.estimate == pytest.approx(1.0) and calls.sent == []
    result = await asearch("q", providers=["brave"], config=config, over_budget=True)
    assert result.ok and calls.sent == ["brave"]


async def test_the_estimate_is_the_average_of_recent_runs_when_known(monkeypatch, tmp_path) -> None:
    calls = Calls()
    install(monkeypatch, {"brave": calls.answering()})
    session = budget_session(tmp_path, daily=1.5)
    await session.search(ask("brave"))  # cost $1 (estimated from the price then)
    cheaper = {"brave": {"price": {"per_request": 0.1}}}
    session.use_config(config_of(tmp_path, providers=cheaper, budget={"daily": 1.5}))
    overrun = await session.budget_check(ask("brave", query="another question"))
    assert overrun is not None and overrun.estimate == pytest.approx(1.0)  # what its runs cost, not the new price
    # a provider without a run yet: its price (Tavily's list price, $0.008) fits beside the $1 spent
    assert await session.budget_check(ask("tavily", query="another question")) is None
    await session.aclose()
