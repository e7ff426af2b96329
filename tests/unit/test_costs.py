"""Prices, costs and their wording: Price.estimate, cost_of, format_usd, Cost.text, CachedFrom, the public
price list and a search's cost phrase."""

from __future__ import annotations

import math
import re
from datetime import datetime, timezone

import pytest

from websearch_tui.core.catalogue import SPECS
from websearch_tui.core.costs import MAX_RUN_USD, CachedFrom, Cost, Price, cost_of, format_usd, plausible_usd
from websearch_tui.core.models import SearchRequest, SearchResponse, Source, Usage
from websearch_tui.core.prices import DEFAULT_PRICES, default_price
from websearch_tui.core.results import ProviderOutcome, RunStatus, SearchResult


def response(sources: int = 0, usage: Usage | None = None) -> SearchResponse:
    found = [Source(url=f"https://example.com/{n}", title=str(n)) for n in range(sources)]
    return SearchResponse("brave", sources=found, usage=usage)


def test_estimate_adds_every_unit() -> None:
    price = Price(
        per_request=0.002,
        per_1k_results=1.5,
        per_million_input_tokens=3.0,
        per_million_output_tokens=15.0,
        per_search_call=0.01,
    )
    usage = Usage(input_tokens=10_000, output_tokens=2_000, search_requests=3)
    assert price.estimate(response(4, usage)) == pytest.approx(0.002 + 0.006 + 0.03 + 0.03 + 0.03)


def test_estimate_counts_unreported_tokens_as_zero_and_unreported_search_calls_as_one() -> None:
    price = Price(per_request=0.001, per_million_input_tokens=3.0, per_search_call=0.01)
    assert price.estimate(response(2)) == pytest.approx(0.011)  # a model that answered searched once
    assert price.estimate(response(2, Usage(output_tokens=5))) == pytest.approx(0.011)
    assert price.estimate(response(2, Usage(search_requests=0))) == pytest.approx(0.001)
    assert Price().estimate(response(10, Usage(input_tokens=10**9))) == 0


def test_no_cost_passes_the_plausible_bound() -> None:
    assert Price(per_million_input_tokens=1_000).estimate(response(1, Usage(input_tokens=10**15))) == MAX_RUN_USD
    assert cost_of(None, response(1, Usage(cost_usd=1.7e308)), keyless=False) == Cost(0.0, "unknown")
    assert cost_of(None, response(1, Usage(cost_usd=99.5)), keyless=False) == Cost(99.5, "reported")
    assert not plausible_usd(math.nan) and not plausible_usd(-0.01) and not plausible_usd(True)


def test_typical_is_the_request_its_results_and_a_typical_model_answer() -> None:
    assert Price(per_request=0.005, per_1k_results=2.0).typical(10) == pytest.approx(0.025)
    # a model billed by the token and the search call: 8,000 tokens in, 1,000 out, one search
    model = Price(per_million_input_tokens=3.0, per_million_output_tokens=15.0, per_search_call=0.01)
    assert model.typical(10) == pytest.approx(0.024 + 0.015 + 0.01)


def test_a_reported_cost_wins_over_keyless_and_any_price() -> None:
    reported = response(3, Usage(cost_usd=0.0042))
    assert cost_of(Price(per_request=1.0), reported, keyless=False) == Cost(0.0042, "reported")
    assert cost_of(None, reported, keyless=True) == Cost(0.0042, "reported")
    assert cost_of(None, response(1, Usage(cost_usd=0)), keyless=False) == Cost(0.0, "reported")


@pytest.mark.parametrize("bad", [-0.01, math.inf, math.nan])
def test_a_reported_cost_that_is_not_a_finite_amount_is_ignored(bad: float) -> None:
    result = cost_of(Price(per_request=0.005), response(1, Usage(cost_usd=bad)), keyless=False)
    assert result == Cost(0.005, "estimated")


def test_keyless_costs_nothing_and_no_price_is_unknown() -> None:
    assert cost_of(Price(per_request=0.005), response(1), keyless=True) == Cost(0.0, "keyless")
    assert cost_of(None, response(1), keyless=False) == Cost(0.0, "unknown")
    assert cost_of(Price(), response(1), keyless=False) == Cost(0.0, "estimated")


@pytest.mark.parametrize(
    ("usd", "shown"),
    [
        (0, "$0.00"),
        (-1, "$0.00"),
        (math.nan, "$0.00"),
        (math.inf, "$0.00"),
        (0.004, "$0.004"),
        (0.0123, "$0.012"),
        (0.00075, "$0.00075"),
        (0.01, "$0.01"),
        (0.5, "$0.50"),
        (0.0999, "$0.10"),
        (0.9996, "$1.00"),
        (1.25, "$1.25"),
        (1204.5, "$1,204.50"),
    ],
)
def test_format_usd(usd: float, shown: str) -> None:
    assert format_usd(usd) == shown


def test_format_usd_with_three_significant_figures() -> None:
    assert format_usd(0.0123, significant=3) == "$0.0123"
    assert format_usd(0.004, significant=3) == "$0.004"
    assert format_usd(0.12345, significant=3) == "$0.123"


@pytest.mark.parametrize(
    ("cost", "text"),
    [
        (Cost(0.004, "estimated"), "≈ $0.004"),
        (Cost(0.0123, "reported"), "$0.0123"),
        (Cost(0.0, "keyless"), "$0"),
        (Cost(0.0, "cached"), "$0"),
        (Cost(0.0, "estimated"), "$0"),
        (Cost(0.0, "unknown"), "cost unknown"),
        (Cost(2.5, "estimated"), "≈ $2.50"),
    ],
)
def test_cost_text(cost: Cost, text: str) -> None:
    assert cost.text() == text


def test_to_dicts() -> None:
    assert Cost(0.00412345678, "estimated").to_dict() == {"usd": 0.004123, "basis": "estimated"}
    cached = CachedFrom(41, datetime(2026, 12, 3, 9, 0, tzinfo=timezone.utc), 720.9)
    assert cached.to_dict() == {"age_seconds": 720, "search_id": 41}


@pytest.mark.parametrize(
    ("age", "text"),
    [
        (0, "just now"),
        (59, "just now"),
        (60, "1 min ago"),
        (720, "12 min ago"),
        (3600, "1 h ago"),
        (200_000, "2 days ago"),
    ],
)
def test_cached_text(age: float, text: str) -> None:
    assert CachedFrom(1, datetime(2026, 12, 3, tzinfo=timezone.utc), age).text() == f"cached · {text}"


def test_every_public_price_is_dated_non_negative_and_for_a_keyed_provider() -> None:
    for provider_id, price in DEFAULT_PRICES.items():
        spec = SPECS[provider_id]
        assert spec.key_need in ("required", "optional"), provider_id
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", price.read_on), provider_id
        assert all(getattr(price, unit) >= 0 for unit in Price.UNITS), provider_id
        assert not price.model or price.model == spec.default_model, provider_id


def test_the_default_price_is_only_for_the_model_it_prices() -> None:
    haiku = DEFAULT_PRICES["anthropic"]
    assert default_price("anthropic", "claude-haiku-4-5") is haiku
    assert default_price("anthropic", None) is haiku
    assert default_price("anthropic", "claude-opus-5") is None
    assert default_price("brave", "anything") is DEFAULT_PRICES["brave"]  # no token prices: any model
    assert default_price("jina", None) is None


def outcome(provider: str, cost: Cost | None, cached: CachedFrom | None = None) -> ProviderOutcome:
    return ProviderOutcome(provider, RunStatus.DONE, SearchResponse(provider), cost=cost, cached=cached)


def search(*outcomes: ProviderOutcome) -> SearchResult:
    providers = tuple(o.provider for o in outcomes)
    labels = {pid: SPECS[pid].label for pid in providers}
    request = SearchRequest("q", providers=providers)
    return SearchResult(request, "compare", providers=providers, labels=labels, outcomes=list(outcomes))


def test_the_search_cost_text() -> None:
    ago = CachedFrom(3, datetime(2026, 12, 3, tzinfo=timezone.utc), 720)
    assert search(outcome("brave", None)).cost_text() == ""
    assert search(outcome("brave", Cost(0.005, "estimated")), outcome("exa", Cost(0.007, "reported"))).cost_text() == (
        "≈ $0.012"
    )
    assert (
        search(outcome("exa", Cost(0.0071, "reported")), outcome("ddgs", Cost(0, "keyless"))).cost_text() == "$0.0071"
    )
    assert search(outcome("ddgs", Cost(0, "keyless"))).cost_text() == "$0"
    assert search(outcome("brave", Cost(0, "cached"), ago), outcome("ddgs", Cost(0, "keyless"))).cost_text() == (
        "$0 · 1 cached"
    )
    assert search(outcome("brave", Cost(0.005, "estimated")), outcome("jina", Cost(0, "unknown"))).cost_text() == (
        "≥ $0.005 (no price for Jina Search)"
    )
    assert search(outcome("jina", Cost(0, "unknown"))).cost_text() == "unknown (no price for Jina Search)"
    total = search(outcome("brave", Cost(0.005, "estimated")), outcome("kagi", Cost(0.012, "estimated")))
    assert total.cost_usd() == pytest.approx(0.017)
