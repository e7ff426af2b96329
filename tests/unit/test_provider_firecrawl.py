"""Firecrawl search provider: request body (limit, tbs, country, scrapeOptions), v2 and v1 answer
shapes, scraped page text as a fallback snippet, warnings, error shapes, the fake server.

The recorded payload is the response example of Firecrawl's search docs
(https://docs.firecrawl.dev/features/search, "Response": ``{"success": true, "data": {"web": [...]}}``),
cut to two web results; the error body is the one in the official SDK's tests
(firecrawl/firecrawl ``apps/python-sdk/firecrawl/__tests__/unit/v2/methods/test_search_error_response.py``).
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.fake_providers import FakeServer
from tests.helpers import Recorder, collect, fake_ctx, json_response, make_ctx, no_wait
from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import Metadata, Note, SearchRequest, SourcesFound
from websearch_tui.core.specs import ProviderSettings
from websearch_tui.providers.base import ProviderContext

KEY = "fc-test-secret-key"
DOCS_ANSWER = {
    "success": True,
    "data": {
        "web": [
            {
                "url": "https://www.firecrawl.dev/",
                "title": "Firecrawl - The Web Data API for AI",
                "description": "The web crawling, scraping, and search API for AI. Built for scale. Firecrawl delivers the entire internet to AI agents and builders.",
                "position": 1,
            },
            {
                "url": "https://github.com/mendableai/firecrawl",
                "title": "mendableai/firecrawl: Turn entire websites into LLM-ready ... - GitHub",
                "description": "Firecrawl is an API service that takes a URL, crawls it, and converts it into clean markdown or structured data.",
                "position": 2,
            },
        ]
    },
}


def ctx_for(rec: Any, **options: Any) -> ProviderContext:
    return make_ctx(
        "firecrawl", rec, settings=ProviderSettings(options=options), credentials={"api_key": KEY}, sleep=no_wait
    )


async def test_request_shape() -> None:
    rec = Recorder(json_response(DOCS_ANSWER))
    await collect("firecrawl", SearchRequest("firecrawl", max_results=3), ctx_for(rec))
    (request,) = rec.requests
    assert request.method == "POST" and str(request.url) == "https://api.firecrawl.dev/v2/search"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert rec.body() == {"query": "firecrawl", "limit": 3, "sources": [{"type": "web"}]}


@pytest.mark.parametrize(
    ("recency", "tbs"), [("day", "qdr:d"), ("week", "qdr:w"), ("month", "qdr:m"), ("year", "qdr:y")]
)
async def test_recency_country_and_scrape_options(recency: str, tbs: str) -> None:
    rec = Recorder(json_response(DOCS_ANSWER))
    await collect("firecrawl", SearchRequest("q", recency=recency), ctx_for(rec, country="DE", scrape=True))
    assert rec.body() == {
        "query": "q",
        "limit": 10,
        "sources": [{"type": "web"}],
        "tbs": tbs,
        "country": "DE",
        "scrapeOptions": {"formats": ["markdown"], "onlyMainContent": True},
    }


async def test_docs_answer_maps_to_sources() -> None:
    events, response = await collect(
        "firecrawl", SearchRequest("firecrawl"), ctx_for(Recorder(json_response(DOCS_ANSWER)))
    )
    assert [type(e) for e in events] == [Metadata, SourcesFound]
    assert [(s.url, s.title) for s in response.sources] == [
        ("https://www.firecrawl.dev/", "Firecrawl - The Web Data API for AI"),
        (
            "https://github.com/mendableai/firecrawl",
            "mendableai/firecrawl: Turn entire websites into LLM-ready ... - GitHub",
        ),
    ]
    assert response.sources[1].snippet and response.sources[1].snippet.startswith("Firecrawl is an API service")


async def test_v1_list_scraped_text_metadata_and_warning() -> None:
    body = {
        "success": True,
        "warning": "Some results could not be scraped.",
        "data": [
            {
                "url": "https://a.example/",
                "markdown": "# A page\n\n" + "text " * 400,
                "metadata": {"title": "A page", "publishedTime": "2025-03-01T10:00:00Z"},
            }
        ],
    }
    events, response = await collect("firecrawl", SearchRequest("q"), ctx_for(Recorder(json_response(body))))
    assert [type(e) for e in events] == [Metadata, Note, SourcesFound]
    assert response.notes == ["Firecrawl: Some results could not be scraped."]
    (source,) = response.sources
    assert source.title == "A page" and source.published_date == "2025-03-01T10:00:00Z"
    assert source.snippet and source.snippet.startswith("# A page") and len(source.snippet) <= 1001


@pytest.mark.parametrize(
    ("status", "body", "kind", "message"),
    [
        (402, {"success": False, "error": "Insufficient credits to perform this request."}, ErrorKind.QUOTA, None),
        (429, {"success": False, "error": "Rate limit exceeded."}, ErrorKind.RATE_LIMIT, None),
        (400, {"success": False, "error": "Bad Request: limit must be at most 100"}, ErrorKind.BAD_REQUEST, None),
        (
            401,
            {"error": "invalid key", "code": "UNAUTHORIZED"},
            ErrorKind.AUTH,
            "Firecrawl Search authorization failed (401). Check API key or base URL.",
        ),
    ],
)
async def test_error_bodies(status: int, body: Any, kind: ErrorKind, message: str | None) -> None:
    with pytest.raises(ProviderError) as info:
        await collect("firecrawl", SearchRequest("q"), ctx_for(Recorder(json_response(body, status))))
    assert info.value.kind is kind
    assert info.value.message == (message or f"Firecrawl API error ({status}): {body['error']}")


async def test_a_body_without_data_is_unrecognised() -> None:
    with pytest.raises(ProviderError) as info:
        await collect("firecrawl", SearchRequest("q"), ctx_for(Recorder(json_response({"success": True, "id": "x"}))))
    assert info.value.kind is ErrorKind.UNRECOGNISED


async def test_end_to_end_against_the_fake() -> None:
    with FakeServer() as srv:
        async with httpx.AsyncClient() as client:
            _, response = await collect(
                "firecrawl", SearchRequest("python asyncio", max_results=4), fake_ctx("firecrawl", srv, client)
            )
            assert srv.last_request("/firecrawl/v2/search").json() == {
                "query": "python asyncio",
                "limit": 4,
                "sources": [{"type": "web"}],
            }
            assert len(response.sources) == 3 and response.dropped_sources == 1
            assert response.request_id == "fake-firecrawl-search-0001"
            srv.use("firecrawl", "v1_list")
            _, listed = await collect(
                "firecrawl", SearchRequest("q"), fake_ctx("firecrawl", srv, client, options={"scrape": True})
            )
            assert [s.url for s in listed.sources] == [s.url for s in response.sources]
            assert "scrapeOptions" in srv.last_request("/firecrawl/v2/search").json()
            srv.use("firecrawl", "payment_required")
            with pytest.raises(ProviderError) as info:
                await collect("firecrawl", SearchRequest("q"), fake_ctx("firecrawl", srv, client))
            assert info.value.kind is ErrorKind.QUOTA
