"""Every output format says what each provider's run cost, which results were reused from the history,
and what the search cost in total; the JSON document carries them and matches its schema."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timezone

import jsonschema

from websearch_tui.cli.render import terminal_text
from websearch_tui.core.catalogue import SPECS
from websearch_tui.core.costs import CachedFrom, Cost
from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import SearchRequest, SearchResponse, Source
from websearch_tui.core.results import ProviderOutcome, RunStatus, SearchResult
from websearch_tui.formats.json_document import JSON_DOCUMENT_SCHEMA
from websearch_tui.formats.llm import to_llm_document, to_llm_merged, to_llm_text
from websearch_tui.formats.markdown import to_markdown
from websearch_tui.formats.text import to_text

REUSED = CachedFrom(41, datetime(2026, 12, 3, 9, 18, tzinfo=timezone.utc), 720)


def response(provider: str, answer: str | None = None) -> SearchResponse:
    source = Source(url=f"https://{provider}.example/a", title=f"{provider} page")
    return SearchResponse(provider, answer=answer, sources=[source])


def priced_search() -> SearchResult:
    """Brave estimated, Exa reused from the history, Perplexity reported, Jina without a price and a
    Tavily failure that cost nothing."""
    outcomes = [
        ProviderOutcome("brave", RunStatus.DONE, response("brave"), None, 900, cost=Cost(0.005, "estimated")),
        ProviderOutcome(
            "exa",
            RunStatus.DONE,
            response("exa"),
            None,
            1500,
            cost=Cost(0.0, "cached"),
            cached=REUSED,
            cache_key="ab" * 32,
        ),
        ProviderOutcome(
            "perplexity",
            RunStatus.DONE,
            response("perplexity", "An answer."),
            None,
            4000,
            cost=Cost(0.0123, "reported"),
        ),
        ProviderOutcome("jina", RunStatus.DONE, response("jina"), None, 700, cost=Cost(0.0, "unknown")),
        ProviderOutcome(
            "tavily",
            RunStatus.FAILED,
            SearchResponse("tavily"),
            ProviderError("tavily", ErrorKind.AUTH, "Invalid key."),
            300,
            cost=Cost(0.0, "estimated"),
        ),
    ]
    providers = tuple(o.provider for o in outcomes)
    return SearchResult(
        SearchRequest("what is new", providers=providers),
        "compare",
        providers=providers,
        labels={pid: SPECS[pid].label for pid in providers},
        outcomes=outcomes,
    )


TOTAL = "≥ $0.017 (no price for Jina Search) · 1 cached"


def test_text_shows_each_cost_the_reuse_and_the_total() -> None:
    text = to_text(priced_search())
    assert "== Brave Search (brave): done in 0.9s, 1 source · ≈ $0.005\n" in text
    assert "== Exa (exa): done, 1 source · cached · 12 min ago · $0\n" in text
    assert "== Perplexity (perplexity): done in 4.0s, 1 source · $0.0123\n" in text
    assert "== Jina Search (jina): done in 0.7s, 1 source · cost unknown\n" in text
    assert "== Tavily (tavily): failed (auth) after 0.3s: Invalid key." in text  # an error that cost nothing
    assert text.endswith(f"\n\nCost: {TOTAL}")


def test_a_failure_that_cost_something_says_so() -> None:
    result = priced_search()
    failed = dataclasses.replace(result.outcomes[-1], cost=Cost(0.021, "estimated"))
    result = dataclasses.replace(result, outcomes=[failed])
    assert to_text(result) == "== Tavily (tavily): failed (auth) after 0.3s, ≈ $0.021: Invalid key."


def test_one_provider_has_no_total_line_and_no_cost_changes_nothing() -> None:
    result = priced_search()
    alone = dataclasses.replace(result, outcomes=result.outcomes[:1])
    assert "Cost:" not in to_text(alone) and "Cost:" not in to_markdown(alone) and "Cost:" not in to_llm_document(alone)
    bare = dataclasses.replace(
        result, outcomes=[dataclasses.replace(o, cost=None, cached=None) for o in result.outcomes]
    )
    assert "$" not in to_text(bare) and "Cost" not in to_text(bare) and "cached" not in to_text(bare)


def test_markdown_shows_each_cost_the_reuse_and_the_total() -> None:
    markdown = to_markdown(priced_search())
    assert f"\n\nCost: {TOTAL.replace('$', chr(92) + '$')}\n\n## Brave Search" in markdown  # $ is not math on GitHub
    assert "*done in 0.9s, 1 source · ≈ \\$0.005*" in markdown
    assert "*done, 1 source · cached · 12 min ago · \\$0*" in markdown


def test_llm_formats_show_each_cost_the_reuse_and_the_total() -> None:
    result = priced_search()
    document = to_llm_document(result)
    assert "# Brave Search (brave) · ≈ $0.005\n" in document
    assert "# Exa (exa) · cached · 12 min ago · $0\n" in document
    assert "# Tavily (tavily)\nError: Invalid key." in document
    assert document.endswith(f"\n\nCost: {TOTAL}")
    merged = to_llm_merged(result)
    assert "# Perplexity (perplexity) · $0.0123\nAn answer." in merged
    assert merged.endswith(f"\n\nCost: {TOTAL}")
    assert "$" not in to_llm_text(result.outcomes[0].response)  # the seed block itself is unchanged


def test_json_carries_each_cost_the_reuse_and_the_total_and_matches_the_schema() -> None:
    document = priced_search().to_dict()
    brave, exa, perplexity, jina, tavily = document["results"]
    assert brave["cost"] == {"usd": 0.005, "basis": "estimated"} and brave["cached"] is None
    assert exa["cost"] == {"usd": 0.0, "basis": "cached"} and exa["cached"] == {"age_seconds": 720, "search_id": 41}
    assert "cache_key" not in exa  # never shown
    assert perplexity["cost"]["basis"] == "reported" and jina["cost"]["basis"] == "unknown"
    assert tavily["cost"] == {"usd": 0.0, "basis": "estimated"}
    assert document["cost_usd"] == 0.0173
    assert list(jsonschema.Draft202012Validator(JSON_DOCUMENT_SCHEMA).iter_errors(document)) == []


def test_the_coloured_terminal_text_keeps_the_total_line() -> None:
    result = priced_search()
    plain = to_text(result)
    painted = terminal_text(result, plain, color=True)
    assert painted != plain and "\x1b[" in painted  # still coloured: the blocks were recognised
    assert painted.endswith(f"\n\nCost: {TOTAL}")
