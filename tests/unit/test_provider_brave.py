"""Brave Search provider: request building, parsing, errors, and replay of the real payloads."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tests.helpers import Recorder, collect, json_response, make_ctx, shared_fixture
from websearch_tui.core.errors import ErrorKind, ProviderError, register_secret
from websearch_tui.core.models import Metadata, SearchRequest, SourcesFound
from websearch_tui.core.specs import ProviderSettings
from websearch_tui.providers import brave

KEY = "brave-test-key-123"
EMPTY_WEB = {"type": "search", "web": {"results": []}}


def ctx_for(recorder: Recorder, *, settings: ProviderSettings | None = None, timeout: float = 30.0) -> Any:
    return make_ctx("brave", recorder, settings=settings, credentials={"api_key": KEY}, timeout=timeout)


def row(url: Any = "https://a.example/x", **extra: Any) -> dict[str, Any]:
    return {"title": "A title", "url": url, "description": "desc", **extra}


async def test_request_shape() -> None:
    rec = Recorder(json_response(EMPTY_WEB))
    await collect("brave", SearchRequest("rust 1.80", max_results=7, recency="week"), ctx_for(rec))
    (request,) = rec.requests
    assert request.method == "GET"
    assert request.url.scheme == "https" and request.url.host == "api.search.brave.com"
    assert request.url.path == "/res/v1/web/search"
    assert dict(request.url.params) == {
        "q": "rust 1.80",
        "count": "7",
        "extra_snippets": "true",
        "text_decorations": "false",
        "safesearch": "moderate",
        "freshness": "pw",
    }
    assert request.headers["x-subscription-token"] == KEY
    assert request.headers["accept"] == "application/json"
    assert KEY not in str(request.url)


@pytest.mark.parametrize(("recency", "freshness"), [("day", "pd"), ("month", "pm"), ("year", "py"), (None, None)])
async def test_recency_maps_to_freshness(recency: str | None, freshness: str | None) -> None:
    rec = Recorder(json_response(EMPTY_WEB))
    await collect("brave", SearchRequest("q", recency=recency), ctx_for(rec))
    assert rec.params().get("freshness") == freshness


async def test_count_is_clamped_to_20() -> None:
    rec = Recorder(json_response(EMPTY_WEB))
    await collect("brave", SearchRequest("q", max_results=5, num_search_results=50), ctx_for(rec))
    assert rec.params()["count"] == "20"


async def test_options_and_base_url_prefix() -> None:
    rec = Recorder(json_response(EMPTY_WEB))
    settings = ProviderSettings(
        base_url="https://gw.example/brave/",
        options={"country": "de", "search_lang": "de", "safesearch": "strict"},
    )
    await collect("brave", SearchRequest("q"), ctx_for(rec, settings=settings))
    request = rec.requests[0]
    assert str(request.url).startswith("https://gw.example/brave/res/v1/web/search?")
    assert request.url.params["country"] == "de"
    assert request.url.params["search_lang"] == "de"
    assert request.url.params["safesearch"] == "strict"


async def test_base_url_with_full_path_is_used_unchanged() -> None:
    rec = Recorder(json_response(EMPTY_WEB))
    settings = ProviderSettings(base_url="http://127.0.0.1:9/res/v1/web/search")
    await collect("brave", SearchRequest("q"), ctx_for(rec, settings=settings))
    assert rec.requests[0].url.path == "/res/v1/web/search"


async def test_parsing_cleans_text_dates_and_slices() -> None:
    rows = [
        row(
            title="<b>Hello</b>   &amp; world",
            description="A &quot;Hello&quot; is <strong>simple</strong>",
            extra_snippets=["more", "A &quot;Hello&quot; is <strong>simple</strong>", "more", "last"],
            page_age="2024-12-27T15:49:55",
            age="4 days ago",
            profile={"name": "Example"},
        ),
        row(url="javascript:alert(1)"),
        row(url=None),
        row(url="https://b.example/", title="", age="3 days ago", description=None),
        row(url="https://c.example/"),
    ]
    rec = Recorder(json_response({"web": {"results": rows}}, headers={"x-request-id": "req-9"}))
    events, response = await collect("brave", SearchRequest("q", max_results=2), ctx_for(rec))
    assert events[0] == Metadata(request_id="req-9", auth_mode="api_key")
    first, second = response.sources
    assert first.title == "Hello & world"
    assert first.url == "https://a.example/x"
    assert first.snippet == 'A "Hello" is simple\nmore\nlast'
    assert first.published_text == "2024-12-27T15:49:55"
    assert first.published_date == "2024-12-27T15:49:55Z"  # naive ISO 8601 is UTC
    assert first.age_seconds is not None and first.age_seconds > 0
    assert first.author == "Example"
    assert second.url == "https://b.example/"
    assert second.title == "https://b.example/"
    assert second.snippet is None
    assert second.published_text == "3 days ago"
    assert second.age_seconds == 3 * 86400
    assert response.answer is None and response.related_questions == []


async def test_200_without_web_key_is_zero_results() -> None:
    rec = Recorder(json_response({"type": "search", "query": {"original": '"x"'}, "videos": {"results": []}}))
    events, response = await collect("brave", SearchRequest("q"), ctx_for(rec))
    assert response.sources == []
    assert not any(isinstance(e, SourcesFound) for e in events)
    assert response.auth_mode == "api_key"


async def test_request_id_falls_back_to_request_id_header() -> None:
    rec = Recorder(json_response({"web": {"results": []}}, headers={"request-id": "r-2"}))
    _, response = await collect("brave", SearchRequest("q"), ctx_for(rec))
    assert response.request_id == "r-2"


async def test_422_envelope_shows_detail_and_meta_errors() -> None:
    body = {
        "type": "ErrorResponse",
        "error": {
            "id": "e1",
            "status": 422,
            "code": "VALIDATION",
            "detail": "Unable to validate request parameter(s)",
            "meta": {"errors": [{"loc": ["query", "count"], "msg": "ensure this value is less than or equal to 20"}]},
        },
        "time": 1735000000,
    }
    rec = Recorder(json_response(body, 422))
    with pytest.raises(ProviderError) as info:
        await collect("brave", SearchRequest("q"), ctx_for(rec))
    assert info.value.kind is ErrorKind.BAD_REQUEST
    assert info.value.status == 422
    assert info.value.message == (
        "Brave API error (422): Unable to validate request parameter(s) "
        "(query.count: ensure this value is less than or equal to 20)"
    )
    assert len(rec.requests) == 1


async def test_envelope_with_empty_meta() -> None:
    body = {"type": "ErrorResponse", "error": {"status": 400, "code": "X", "detail": "Bad thing", "meta": {}}}
    rec = Recorder(json_response(body, 400))
    with pytest.raises(ProviderError) as info:
        await collect("brave", SearchRequest("q"), ctx_for(rec))
    assert info.value.message == "Brave API error (400): Bad thing"


@pytest.mark.parametrize(
    ("status", "kind"),
    [(401, ErrorKind.AUTH), (403, ErrorKind.AUTH), (429, ErrorKind.RATE_LIMIT), (500, ErrorKind.SERVER)],
)
async def test_status_errors(status: int, kind: ErrorKind) -> None:
    body = {"type": "ErrorResponse", "error": {"status": status, "detail": "Nope"}}
    rec = Recorder(json_response(body, status, headers={"Retry-After": "600"}))
    with pytest.raises(ProviderError) as info:
        await collect("brave", SearchRequest("q"), ctx_for(rec, timeout=5))
    assert info.value.kind is kind
    assert info.value.status == status
    if kind is ErrorKind.AUTH:
        assert info.value.message == f"Brave Search authorization failed ({status}). Check API key or base URL."


async def test_html_200_is_a_protocol_error() -> None:
    rec = Recorder(httpx.Response(200, text="<html>proxy</html>", headers={"Content-Type": "text/html"}))
    with pytest.raises(ProviderError) as info:
        await collect("brave", SearchRequest("q"), ctx_for(rec))
    assert info.value.kind is ErrorKind.PROTOCOL


async def test_key_echoed_in_an_error_body_is_redacted() -> None:
    register_secret(KEY)
    body = {"error": {"detail": f"token {KEY} is not valid for this plan"}}
    rec = Recorder(json_response(body, 400))
    with pytest.raises(ProviderError) as info:
        await collect("brave", SearchRequest("q"), ctx_for(rec))
    assert KEY not in info.value.message and "***" in info.value.message


# --- conformance: real payloads -----------------------------------------------------------


async def test_replays_real_web_search_payload() -> None:
    body = json.loads(shared_fixture("brave/web_search_hello_world.json").read_text(encoding="utf-8"))
    rec = Recorder(json_response(body, headers={"x-request-id": "live-1"}))
    _, response = await collect("brave", SearchRequest("hello world", max_results=20), ctx_for(rec))
    assert len(response.sources) == 20 == len(body["web"]["results"])
    first = response.sources[0]
    assert first.title == '"Hello, World!" program - Wikipedia'
    assert first.url == "https://en.wikipedia.org/wiki/%22Hello,_World!%22_program"
    assert first.snippet is not None
    assert first.snippet.startswith('A "Hello, World!" program is usually a simple computer program')
    assert "<strong>" not in first.snippet and "&quot;" not in first.snippet and "&#x27;" not in first.snippet
    assert first.published_text == "2024-12-27T15:49:55"
    assert first.author == "Wikipedia"
    undated = [s for s in response.sources if s.published_text is None]
    assert undated and all(s.age_seconds is None for s in undated)
    assert all(s.age_seconds is not None for s in response.sources if s.published_text)
    assert response.request_id == "live-1"

    _, sliced = await collect(
        "brave", SearchRequest("hello world", max_results=3), ctx_for(Recorder(json_response(body)))
    )
    assert [s.url for s in sliced.sources] == [s.url for s in response.sources[:3]]


def test_parses_real_news_payload() -> None:
    body = json.loads(shared_fixture("brave/news_search_hello_world.json").read_text(encoding="utf-8"))
    sources = brave.parse_results(body)
    assert len(sources) == len([r for r in body["results"] if r.get("url")])
    assert sources[0].title == "World News and International Headlines : NPR"
    assert sources[0].published_text == "2024-12-31T17:09:03"
