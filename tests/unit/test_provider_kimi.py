"""Kimi Code Search provider: request body, prefix joining, mapping, key-kind hint on 401/403, fake server."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.fake_providers import FakeServer
from tests.fake_providers.fake_kimi import REQUEST_ID
from tests.helpers import Recorder, collect, fake_ctx, json_response, make_ctx, no_wait
from websearch_tui.core.errors import ErrorKind, ProviderError, register_secret
from websearch_tui.core.models import Metadata, SearchRequest, SourcesFound
from websearch_tui.core.specs import ProviderSettings
from websearch_tui.providers.kimi import KEY_HINT

PID = "kimi"
KEY = "sk-kimi-test-123456"
ONE = {
    "search_results": [
        {
            "site_name": "  Python docs ",
            "title": "  asyncio  \n  docs ",
            "url": " https://docs.python.org/3/library/asyncio.html ",
            "snippet": "  short snippet  ",
            "content": "long content",
            "date": "2026-01-20",
            "icon": "https://docs.python.org/favicon.ico",
            "mime": "text/html",
        },
        {"site_name": "", "title": None, "url": "https://example.com/a", "snippet": "   ", "content": "from content"},
        {"title": "No URL", "snippet": "dropped"},
        {"title": "Bad URL", "url": "javascript:alert(1)"},
    ]
}
AUTH_401 = f"Kimi Code Search authorization failed (401). Check API key or base URL. {KEY_HINT}"


def ctx_for(rec: Recorder, settings: ProviderSettings | None = None) -> Any:
    return make_ctx(PID, rec, settings=settings, credentials={"api_key": KEY}, sleep=no_wait)


async def test_request_shape() -> None:
    rec = Recorder(json_response(ONE))
    await collect(PID, SearchRequest("python asyncio", max_results=6), ctx_for(rec))
    (request,) = rec.requests
    assert request.method == "POST"
    assert str(request.url) == "https://api.kimi.com/coding/v1/search"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.headers["accept"] == "application/json"
    assert rec.body() == {
        "text_query": "python asyncio",
        "limit": 6,
        "enable_page_crawling": False,
        "timeout_seconds": 30,
    }


@pytest.mark.parametrize(("kwargs", "limit"), [({}, 10), ({"num_search_results": 35}, 20), ({"max_results": 1}, 1)])
async def test_limit_clamp(kwargs: dict[str, int], limit: int) -> None:
    rec = Recorder(json_response(ONE))
    await collect(PID, SearchRequest("q", **kwargs), ctx_for(rec))
    assert rec.body()["limit"] == limit


@pytest.mark.parametrize(
    "base",
    ["https://proxy.example/coding", "https://proxy.example/coding/", "https://proxy.example/coding/v1",
     "https://proxy.example/coding/v1/search"],
)  # fmt: skip
async def test_base_url_joining(base: str) -> None:
    rec = Recorder(json_response(ONE))
    await collect(PID, SearchRequest("q"), ctx_for(rec, ProviderSettings(base_url=base)))
    assert str(rec.requests[0].url) == "https://proxy.example/coding/v1/search"


async def test_response_mapping() -> None:
    rec = Recorder(json_response(ONE, headers={"x-request-id": "kr-1", "x-msh-request-id": "msh-2"}))
    events, response = await collect(PID, SearchRequest("q"), ctx_for(rec))
    assert [type(e) for e in events] == [Metadata, SourcesFound]
    assert response.request_id == "kr-1" and response.auth_mode == "api_key"
    first, second = response.sources
    assert first.url == "https://docs.python.org/3/library/asyncio.html"
    assert first.title == "asyncio docs" and first.snippet == "short snippet" and first.author == "Python docs"
    assert first.published_text == "2026-01-20" and first.age_seconds is not None
    assert second.title == "https://example.com/a" and second.snippet == "from content" and second.author is None


async def test_msh_request_id_fallback_and_local_slice() -> None:
    rows = [{"title": f"t{i}", "url": f"https://x.example/{i}"} for i in range(5)]
    rec = Recorder(json_response({"search_results": rows}, headers={"x-msh-request-id": "msh-2"}))
    _, response = await collect(PID, SearchRequest("q", max_results=2), ctx_for(rec))
    assert response.request_id == "msh-2"
    assert [s.url for s in response.sources] == ["https://x.example/0", "https://x.example/1"]


async def test_recency_is_not_sent() -> None:
    """Kimi has no date filter; the engine adds the "not supported" note from the capability record."""
    rec = Recorder(json_response(ONE))
    _, response = await collect(PID, SearchRequest("q", recency="day"), ctx_for(rec))
    assert response.notes == []
    assert set(rec.body()) == {"text_query", "limit", "enable_page_crawling", "timeout_seconds"}


@pytest.mark.parametrize("body", [{"search_results": []}, {"search_results": None}])
async def test_empty_result(body: dict[str, Any]) -> None:
    _, response = await collect(PID, SearchRequest("q"), ctx_for(Recorder(json_response(body))))
    assert not response.is_renderable() and response.notes == []


@pytest.mark.parametrize("body", [{}, {"results": []}])
async def test_a_body_without_its_results_is_unrecognised_not_empty(body: Any) -> None:
    with pytest.raises(ProviderError) as info:
        await collect(PID, SearchRequest("q"), ctx_for(Recorder(json_response(body))))
    assert info.value.kind is ErrorKind.UNRECOGNISED
    assert "answered in a shape this version does not read" in info.value.message


@pytest.mark.parametrize("status", [401, 403])
async def test_auth_failure_names_the_key_kind(status: int) -> None:
    body = {"error": {"message": "Invalid Authentication", "type": "invalid_authentication_error"}}
    with pytest.raises(ProviderError) as info:
        await collect(PID, SearchRequest("q"), ctx_for(Recorder(json_response(body, status))))
    error = info.value
    assert error.kind is ErrorKind.AUTH and error.status == status
    assert error.message == AUTH_401.replace("(401)", f"({status})")
    assert "Kimi Code console key" in error.message and "Moonshot Open Platform" in error.message


ERRORS = [
    (400, {"error": {"message": "Invalid request: limit must be between 1 and 20", "type": "invalid_request_error"}},
     ErrorKind.BAD_REQUEST, "Kimi search API error (400): Invalid request: limit must be between 1 and 20"),
    (429, {"error": {"message": "rate limit reached", "type": "rate_limit_reached_error"}},
     ErrorKind.RATE_LIMIT, "Kimi search API error (429): rate limit reached"),
    (429, {"error": {"message": "Your account is suspended, insufficient balance", "type": "exceeded_current_quota_error"}},
     ErrorKind.QUOTA, "Kimi search API error (429): Your account is suspended, insufficient balance"),
    (500, "internal error", ErrorKind.SERVER, "Kimi search API error (500): internal error"),
    (404, {"message": "Not Found"}, ErrorKind.NOT_FOUND, "Kimi search API error (404): Not Found"),
]  # fmt: skip


@pytest.mark.parametrize(("status", "body", "kind", "message"), ERRORS)
async def test_error_shapes(status: int, body: Any, kind: ErrorKind, message: str) -> None:
    reply = json_response(body, status) if isinstance(body, dict) else httpx.Response(status, text=body)
    with pytest.raises(ProviderError) as info:
        await collect(PID, SearchRequest("q"), ctx_for(Recorder(reply)))
    assert info.value.kind is kind and info.value.status == status
    assert info.value.message == message
    assert KEY_HINT not in info.value.message


async def test_secret_is_redacted_from_error_bodies() -> None:
    register_secret(KEY)  # as the credential layer does for every key it resolves
    body = {"error": {"message": f"key {KEY} is malformed"}}
    with pytest.raises(ProviderError) as info:
        await collect(PID, SearchRequest("q"), ctx_for(Recorder(json_response(body, 400))))
    assert info.value.message == "Kimi search API error (400): key *** is malformed"


# --- end to end over HTTP against the fake ------------------------------------------------


async def test_end_to_end_against_the_fake() -> None:
    with FakeServer() as srv:
        async with httpx.AsyncClient() as client:
            _, response = await collect(
                PID, SearchRequest("python asyncio", max_results=3), fake_ctx(PID, srv, client, sleep=no_wait)
            )
            assert srv.last_request("/kimi/coding/v1/search").json()["limit"] == 3
            assert [s.author for s in response.sources] == [
                "Python documentation",
                "Real Python",
                "Python documentation",
            ]
            assert response.sources[1].title == "Async IO in Python: A Complete Walkthrough"
            assert response.sources[1].snippet and response.sources[1].snippet.startswith("Async IO is")
            assert response.request_id == REQUEST_ID

            srv.use(PID, "msh_request_id")
            _, response = await collect(PID, SearchRequest("python asyncio"), fake_ctx(PID, srv, client, sleep=no_wait))
            assert response.request_id == REQUEST_ID and len(response.sources) == 4

            srv.use(PID, "empty")
            _, response = await collect(PID, SearchRequest("python asyncio"), fake_ctx(PID, srv, client, sleep=no_wait))
            assert not response.is_renderable()

            srv.use(PID)
            with pytest.raises(ProviderError) as info:
                await collect(
                    PID, SearchRequest("q"), fake_ctx(PID, srv, client, key="sk-moonshot-platform-key", sleep=no_wait)
                )
            assert info.value.message == AUTH_401

            srv.fail(PID, 503)
            with pytest.raises(ProviderError) as info:
                await collect(PID, SearchRequest("q"), fake_ctx(PID, srv, client, sleep=no_wait))
            assert info.value.kind is ErrorKind.SERVER
            assert info.value.message == "Kimi search API error (503): Service Unavailable"
