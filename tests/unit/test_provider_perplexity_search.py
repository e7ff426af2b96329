"""Perplexity Search API provider: request body, result mapping, error shapes, real payload, fake server."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tests.fake_providers import FakeServer
from tests.helpers import Recorder, collect, fake_ctx, json_response, make_ctx, no_wait, shared_fixture
from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import Metadata, Note, SearchRequest, SourcesFound
from websearch_tui.core.specs import ProviderSettings

PID = "perplexity_search"
KEY = "pplx-test-key-123456"
ONE = {
    "id": "req-1",
    "results": [
        {
            "title": "Asyncio &amp; you",
            "url": "https://docs.python.org/3/library/asyncio.html",
            "snippet": "## Heading\n\nBody text",
            "date": "2024-10-07",
            "last_updated": "2025-01-01",
        },
        {"title": "No URL", "url": "", "snippet": "dropped"},
        {"title": "Not http", "url": "ftp://example.com/x", "snippet": "dropped"},
        "not a row",
    ],
}


def ctx_for(rec: Recorder, settings: ProviderSettings | None = None) -> Any:
    return make_ctx(PID, rec, settings=settings, credentials={"api_key": KEY}, sleep=no_wait)


async def test_request_shape() -> None:
    rec = Recorder(json_response(ONE))
    await collect(PID, SearchRequest("python asyncio", max_results=7, recency="week"), ctx_for(rec))
    (request,) = rec.requests
    assert request.method == "POST"
    assert str(request.url) == "https://api.perplexity.ai/search"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.headers["accept"] == "application/json"
    assert rec.body() == {"query": "python asyncio", "max_results": 7, "search_recency_filter": "week"}


@pytest.mark.parametrize("recency", ["day", "week", "month", "year"])
async def test_recency_mapping(recency: str) -> None:
    rec = Recorder(json_response(ONE))
    await collect(PID, SearchRequest("q", recency=recency), ctx_for(rec))
    assert rec.body()["search_recency_filter"] == recency


@pytest.mark.parametrize(
    ("request_kwargs", "sent"), [({}, 10), ({"num_search_results": 40}, 20), ({"max_results": 3}, 3)]
)
async def test_count_clamp_and_no_recency(request_kwargs: dict[str, int], sent: int) -> None:
    rec = Recorder(json_response(ONE))
    await collect(PID, SearchRequest("q", **request_kwargs), ctx_for(rec))
    assert rec.body() == {"query": "q", "max_results": sent}


@pytest.mark.parametrize("base", ["http://127.0.0.1:1/pplx", "http://127.0.0.1:1/pplx/search/"])
async def test_base_url_is_joined(base: str) -> None:
    rec = Recorder(json_response(ONE))
    await collect(PID, SearchRequest("q"), ctx_for(rec, ProviderSettings(base_url=base)))
    assert str(rec.requests[0].url) == "http://127.0.0.1:1/pplx/search"


async def test_response_mapping() -> None:
    rec = Recorder(json_response(ONE))
    events, response = await collect(PID, SearchRequest("q"), ctx_for(rec))
    assert [type(e) for e in events] == [Metadata, SourcesFound]
    assert response.request_id == "req-1" and response.auth_mode == "api_key"
    (source,) = response.sources
    assert source.title == "Asyncio & you"
    assert source.snippet == "## Heading\n\nBody text"
    assert source.published_text == "2024-10-07" and source.age_seconds and source.age_seconds > 0
    assert response.answer is None and response.citations == []


async def test_request_id_falls_back_to_header_and_local_slice() -> None:
    rows = [{"title": f"t{i}", "url": f"https://x.example/{i}", "snippet": "s"} for i in range(5)]
    rec = Recorder(json_response({"results": rows}, headers={"x-request-id": "hdr-9"}))
    _, response = await collect(PID, SearchRequest("q", max_results=2), ctx_for(rec))
    assert [s.url for s in response.sources] == ["https://x.example/0", "https://x.example/1"]
    assert response.request_id == "hdr-9"


@pytest.mark.parametrize("body", [{"id": "r", "results": []}, {"results": None}])
async def test_empty_result(body: dict[str, Any]) -> None:
    events, response = await collect(PID, SearchRequest("q"), ctx_for(Recorder(json_response(body))))
    assert not response.is_renderable()
    assert not any(isinstance(e, (SourcesFound, Note)) for e in events)


@pytest.mark.parametrize("body", [{"id": "r"}, {}])
async def test_a_body_without_its_results_is_unrecognised_not_empty(body: Any) -> None:
    with pytest.raises(ProviderError) as info:
        await collect(PID, SearchRequest("q"), ctx_for(Recorder(json_response(body))))
    assert info.value.kind is ErrorKind.UNRECOGNISED
    assert "answered in a shape this version does not read" in info.value.message


ERRORS = [
    (400, {"error": {"message": "Invalid max_results", "type": "invalid_request_error", "code": 400}},
     ErrorKind.BAD_REQUEST, "Perplexity API error (400): Invalid max_results"),
    (422, {"error": {"message": "query is required", "type": "invalid_request_error"}},
     ErrorKind.BAD_REQUEST, "Perplexity API error (422): query is required"),
    (429, {"error": {"message": "Rate limit exceeded", "type": "rate_limit_exceeded", "code": 429}},
     ErrorKind.RATE_LIMIT, "Perplexity API error (429): Rate limit exceeded"),
    (402, {"error": {"message": "Payment required", "type": "billing"}},
     ErrorKind.QUOTA, "Perplexity API error (402): Payment required"),
    (500, "upstream exploded", ErrorKind.SERVER, "Perplexity API error (500): upstream exploded"),
    (401, {"error": {"message": f"bad key {KEY}"}}, ErrorKind.AUTH,
     "Perplexity Search authorization failed (401). Check API key or base URL."),
    (403, "<html>forbidden</html>", ErrorKind.AUTH,
     "Perplexity Search authorization failed (403). Check API key or base URL."),
]  # fmt: skip


@pytest.mark.parametrize(("status", "body", "kind", "message"), ERRORS)
async def test_error_shapes(status: int, body: Any, kind: ErrorKind, message: str) -> None:
    reply = json_response(body, status) if isinstance(body, dict) else httpx.Response(status, text=body)
    rec = Recorder(reply)
    with pytest.raises(ProviderError) as info:
        await collect(PID, SearchRequest("q"), ctx_for(rec))
    assert info.value.kind is kind and info.value.status == status
    assert info.value.message == message
    assert KEY not in info.value.message


async def test_html_200_is_a_protocol_error() -> None:
    rec = Recorder(httpx.Response(200, text="<html>login</html>", headers={"content-type": "text/html"}))
    with pytest.raises(ProviderError) as info:
        await collect(PID, SearchRequest("q"), ctx_for(rec))
    assert info.value.kind is ErrorKind.PROTOCOL


# --- conformance: real payload ------------------------------------------------------------


async def test_replays_real_search_payload() -> None:
    body = json.loads(shared_fixture("perplexity/search_api.json").read_text(encoding="utf-8"))
    events, response = await collect(
        PID, SearchRequest("ai 2024", max_results=20), ctx_for(Recorder(json_response(body)))
    )
    assert [s.url for s in response.sources] == [r["url"] for r in body["results"]]
    assert [s.title for s in response.sources] == [r["title"] for r in body["results"]]
    assert [s.published_text for s in response.sources] == [r["date"] for r in body["results"]]
    assert response.request_id == body["id"]
    assert [s.snippet for s in response.sources] == [r["snippet"].strip() for r in body["results"]]  # markdown kept
    assert response.answer is None


# --- end to end over HTTP against the fake ------------------------------------------------


async def test_end_to_end_against_the_fake() -> None:
    with FakeServer() as srv:
        async with httpx.AsyncClient() as client:
            _, response = await collect(
                PID, SearchRequest("python asyncio", max_results=3), fake_ctx(PID, srv, client, sleep=no_wait)
            )
            sent = srv.last_request("/perplexity_search/search").json()
            assert sent == {"query": "python asyncio", "max_results": 3}
            assert response.sources[0].url == "https://docs.python.org/3/library/asyncio.html"
            assert len(response.sources) == 3 and response.request_id == "fake-pplx-search-0001"

            srv.use(PID, "empty")
            _, response = await collect(PID, SearchRequest("python asyncio"), fake_ctx(PID, srv, client, sleep=no_wait))
            assert not response.is_renderable()

            srv.use(PID, "bad_request")
            with pytest.raises(ProviderError) as info:
                await collect(PID, SearchRequest("python asyncio"), fake_ctx(PID, srv, client, sleep=no_wait))
            assert info.value.kind is ErrorKind.BAD_REQUEST
            assert info.value.message == "Perplexity API error (400): Invalid search_domain_filter: too many domains"

            srv.use(PID)
            with pytest.raises(ProviderError) as info:
                await collect(PID, SearchRequest("q"), fake_ctx(PID, srv, client, key="wrong-key-000", sleep=no_wait))
            assert info.value.kind is ErrorKind.AUTH


async def test_fake_rate_limit_shows_the_wait() -> None:
    with FakeServer() as srv:
        srv.use(PID, "rate_limit")
        async with httpx.AsyncClient() as client:
            with pytest.raises(ProviderError) as info:
                await collect(PID, SearchRequest("q"), fake_ctx(PID, srv, client, sleep=no_wait))
    assert info.value.kind is ErrorKind.RATE_LIMIT
    assert info.value.message.endswith("(retry in 120 s)")
