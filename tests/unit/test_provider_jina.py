"""Jina Search provider: request, site operator, result mapping, "no results" envelope, error shapes, fake server."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tests.fake_providers import FakeServer
from tests.fake_providers.fake_jina import envelope
from tests.helpers import Recorder, collect, fake_ctx, json_response, make_ctx, no_wait, shared_fixture
from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import Metadata, SearchRequest, SourcesFound
from websearch_tui.core.specs import ProviderSettings
from websearch_tui.providers.jina import split_site

PID = "jina"
KEY = "jina_test_key_123456"
ONE = {
    "code": 200,
    "status": 20000,
    "data": [
        {
            "title": "asyncio <b>docs</b>",
            "url": "https://docs.python.org/3/library/asyncio.html",
            "description": "Python&#39;s async library",
            "content": "",
            "date": "Oct 7, 2024",
        },
        {"title": "", "url": "https://example.com/page", "description": "", "content": "x" * 3000},
        {"title": "No URL", "url": None, "description": "dropped"},
        {"title": "Relative", "url": "/relative", "description": "dropped"},
    ],
    "meta": {"usage": {"tokens": 10000}},
}
NO_RESULTS = envelope(422, "No search results available for query 数据库 异步")
RECENCY_NOTE = "Recency is not supported by Jina Search; results are not filtered by date."


def ctx_for(rec: Recorder, settings: ProviderSettings | None = None) -> Any:
    return make_ctx(PID, rec, settings=settings, credentials={"api_key": KEY}, sleep=no_wait)


async def test_request_shape() -> None:
    rec = Recorder(json_response(ONE))
    await collect(PID, SearchRequest("python asyncio / tasks?#x", max_results=8), ctx_for(rec))
    (request,) = rec.requests
    assert request.method == "POST"
    assert request.url == httpx.URL("https://s.jina.ai/")
    assert rec.body() == {"q": "python asyncio / tasks?#x", "num": 8, "page": 1}
    headers = request.headers
    assert headers["content-type"] == "application/json"
    assert headers["authorization"] == f"Bearer {KEY}"
    assert headers["accept"] == "application/json"
    assert headers["x-respond-with"] == "no-content"
    assert headers["x-retain-images"] == "none"
    assert "x-site" not in headers
    assert KEY not in str(request.url)


@pytest.mark.parametrize(
    ("kwargs", "count"), [({}, "10"), ({"max_results": 1}, "1"), ({"num_search_results": 50}, "20")]
)
async def test_count_clamp(kwargs: dict[str, int], count: str) -> None:
    rec = Recorder(json_response(ONE))
    await collect(PID, SearchRequest("q", **kwargs), ctx_for(rec))
    assert rec.body()["num"] == int(count)


@pytest.mark.parametrize(
    ("options", "sent"),
    [
        ({"gl": "us", "hl": "en"}, {"gl": "us", "hl": "en"}),
        ({"gl": " de "}, {"gl": "de"}),
        ({"gl": "", "hl": "  "}, {}),
        ({}, {}),
    ],
)
async def test_gl_and_hl_are_sent_when_configured(options: dict[str, str], sent: dict[str, str]) -> None:
    rec = Recorder(json_response(ONE))
    await collect(PID, SearchRequest("q"), ctx_for(rec, ProviderSettings(options=options)))
    body = rec.body()
    assert {k: v for k, v in body.items() if k in ("gl", "hl")} == sent
    assert set(body) == {"q", "num", "page", *sent}


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("asyncio site:docs.python.org", ("asyncio", "docs.python.org")),
        ("site:docs.python.org  event loop", ("event loop", "docs.python.org")),
        ("a site:x.org site:y.org", ("a site:x.org site:y.org", None)),
        ("site:x.org", ("site:x.org", None)),
        ("website:x.org", ("website:x.org", None)),
        ("plain", ("plain", None)),
    ],
)
def test_split_site(query: str, expected: tuple[str, str | None]) -> None:
    assert split_site(query) == expected


async def test_site_operator_goes_to_header() -> None:
    rec = Recorder(json_response(ONE))
    await collect(PID, SearchRequest("asyncio site:docs.python.org"), ctx_for(rec))
    assert rec.body()["q"] == "asyncio"
    assert rec.headers()["x-site"] == "docs.python.org"


async def test_base_url_prefix_is_kept() -> None:
    rec = Recorder(json_response(ONE))
    await collect(PID, SearchRequest("q"), ctx_for(rec, ProviderSettings(base_url="http://127.0.0.1:1/gw/jina/")))
    assert rec.requests[0].url == httpx.URL("http://127.0.0.1:1/gw/jina/")


async def test_response_mapping() -> None:
    rec = Recorder(json_response(ONE, headers={"x-request-id": "jr-1"}))
    events, response = await collect(PID, SearchRequest("q"), ctx_for(rec))
    assert [type(e) for e in events] == [Metadata, SourcesFound]
    assert response.request_id == "jr-1" and response.auth_mode == "api_key"
    first, second = response.sources
    assert first.title == "asyncio docs" and first.snippet == "Python's async library"
    assert first.published_text == "Oct 7, 2024" and first.age_seconds and first.age_seconds > 0
    assert second.title == "https://example.com/page"
    assert second.snippet is not None and len(second.snippet) == 1000 and second.snippet.endswith("\u2026")


async def test_bare_array_and_local_slice() -> None:
    rows = [{"title": f"t{i}", "url": f"https://x.example/{i}", "description": "d"} for i in range(6)]
    _, response = await collect(PID, SearchRequest("q", max_results=4), ctx_for(Recorder(json_response(rows))))
    assert [s.url for s in response.sources] == [f"https://x.example/{i}" for i in range(4)]


async def test_recency_is_not_sent() -> None:
    """Jina has no date filter; the engine adds the "not supported" note from the capability record."""
    rec = Recorder(json_response(ONE))
    _, response = await collect(PID, SearchRequest("q", recency="week"), ctx_for(rec))
    assert set(rec.body()) == {"q", "num", "page"}
    assert response.notes == []


@pytest.mark.parametrize(
    "reply",
    [
        json_response(NO_RESULTS, 422),
        json_response({**NO_RESULTS, "name": "Other"}, 422),  # status 42206 alone is enough
        json_response({**NO_RESULTS, "status": 1}, 422),  # name alone is enough
        json_response(NO_RESULTS, 200),
    ],
)
async def test_assertion_failure_is_an_empty_result(reply: httpx.Response) -> None:
    query = "数据库 异步"
    rec = Recorder(reply)
    events, response = await collect(PID, SearchRequest(query), ctx_for(rec))
    assert not response.sources and not response.is_renderable()
    assert response.notes == [f"Jina Search found no results for \u201c{query}\u201d."]
    assert response.auth_mode == "api_key"
    assert len(rec.requests) == 1


@pytest.mark.parametrize("body", [{"code": 200, "status": 20000, "data": []}, {"code": 200, "data": None}, []])
async def test_empty_data(body: Any) -> None:
    _, response = await collect(PID, SearchRequest("q"), ctx_for(Recorder(json_response(body))))
    assert not response.is_renderable() and response.notes == []


async def test_other_422_is_still_a_failure() -> None:
    body = envelope(400, "Invalid value for count")
    rec = Recorder(json_response({**body, "code": 422, "name": "ParamValidationError", "status": 42201}, 422))
    with pytest.raises(ProviderError) as info:
        await collect(PID, SearchRequest("q"), ctx_for(rec))
    assert info.value.kind is ErrorKind.BAD_REQUEST
    assert info.value.message == "Jina API error (422): ParamValidationError: Invalid value for count"


ERRORS = [
    (400, envelope(400, "Invalid value for count: 50"), ErrorKind.BAD_REQUEST,
     "Jina API error (400): ParamValidationError: Invalid value for count: 50"),
    (402, envelope(402, "Account balance not enough to run this query, please recharge."), ErrorKind.QUOTA,
     "Jina API error (402): InsufficientBalanceError: Account balance not enough to run this query, please recharge."),
    (429, envelope(429, "Per UID rate limit exceeded"), ErrorKind.RATE_LIMIT,
     "Jina API error (429): RateLimitTriggeredError: Per UID rate limit exceeded"),
    (500, {"data": None, "code": 500, "status": 50000, "message": "Cannot read properties of undefined",
           "name": "TypeError", "cause": {"message": "inner"}}, ErrorKind.SERVER,
     "Jina API error (500): Cannot read properties of undefined"),
    (502, "Bad gateway", ErrorKind.SERVER, "Jina API error (502): Bad gateway"),
    (401, envelope(401, f"Invalid API key {KEY}"), ErrorKind.AUTH,
     "Jina Search authorization failed (401). Check API key or base URL."),
]  # fmt: skip


@pytest.mark.parametrize(("status", "body", "kind", "message"), ERRORS)
async def test_error_shapes(status: int, body: Any, kind: ErrorKind, message: str) -> None:
    reply = json_response(body, status) if isinstance(body, dict) else httpx.Response(status, text=body)
    with pytest.raises(ProviderError) as info:
        await collect(PID, SearchRequest("q"), ctx_for(Recorder(reply)))
    assert info.value.kind is kind and info.value.status == status
    assert info.value.message == message
    assert KEY not in info.value.message


async def test_nested_error_object_message() -> None:
    body = {"error": {"code": 500, "message": "site search failed", "cause": {"message": "deep"}}}
    with pytest.raises(ProviderError) as info:
        await collect(PID, SearchRequest("q site:x.org"), ctx_for(Recorder(json_response(body, 500))))
    assert info.value.message == "Jina API error (500): site search failed"


@pytest.mark.parametrize(
    ("body", "kind", "message"),
    [
        (envelope(402, "balance low"), ErrorKind.QUOTA,
         "Jina API response reported failure (402): InsufficientBalanceError: balance low"),
        ({"code": 503, "data": None}, ErrorKind.SERVER, "Jina API response reported failure (503)"),
        ({"code": 7, "data": []}, ErrorKind.PROTOCOL, "Jina API response reported failure (7)"),
    ],
)  # fmt: skip
async def test_failure_envelope_with_http_200(body: dict[str, Any], kind: ErrorKind, message: str) -> None:
    with pytest.raises(ProviderError) as info:
        await collect(PID, SearchRequest("q"), ctx_for(Recorder(json_response(body))))
    assert info.value.kind is kind and info.value.message == message


# --- end to end over HTTP against the fake ------------------------------------------------


async def test_end_to_end_against_the_fake() -> None:
    with FakeServer() as srv:
        async with httpx.AsyncClient() as client:
            _, response = await collect(
                PID, SearchRequest("python asyncio", max_results=10), fake_ctx(PID, srv, client, sleep=no_wait)
            )
            sent = srv.last_request("/jina/")
            assert sent.method == "POST" and sent.json() == {"q": "python asyncio", "num": 10, "page": 1}
            assert sent.header("x-respond-with") == "no-content"
            assert len(response.sources) == 6
            assert response.sources[0].url == "https://docs.python.org/3/library/asyncio.html"
            assert response.sources[1].snippet and "Python's approach" in response.sources[1].snippet

            srv.use(PID, "bare_array")
            _, response = await collect(
                PID, SearchRequest("python asyncio", max_results=3), fake_ctx(PID, srv, client, sleep=no_wait)
            )
            assert len(response.sources) == 3

            srv.use(PID, "no_results")
            _, response = await collect(PID, SearchRequest("zzqx asyncio"), fake_ctx(PID, srv, client, sleep=no_wait))
            assert not response.is_renderable() and response.notes

            srv.use(PID, "body_failure")
            with pytest.raises(ProviderError) as info:
                await collect(PID, SearchRequest("q"), fake_ctx(PID, srv, client, sleep=no_wait))
            assert info.value.kind is ErrorKind.QUOTA

            srv.use(PID, "site_error")
            with pytest.raises(ProviderError) as info:
                await collect(
                    PID, SearchRequest("asyncio site:docs.python.org"), fake_ctx(PID, srv, client, sleep=no_wait)
                )
            assert info.value.kind is ErrorKind.SERVER
            assert (
                info.value.message == "Jina API error (500): InternalServerError: Failed to search site docs.python.org"
            )


async def test_the_fake_serves_only_the_documented_post() -> None:
    with FakeServer() as srv:
        async with httpx.AsyncClient() as client:
            ctx = fake_ctx(PID, srv, client, options={"gl": "us", "hl": "en"}, sleep=no_wait)
            _, response = await collect(PID, SearchRequest("python asyncio", max_results=2), ctx)
            assert len(response.sources) == 2
            assert srv.last_request("/jina/").json() == {
                "q": "python asyncio",
                "num": 2,
                "page": 1,
                "gl": "us",
                "hl": "en",
            }

            with pytest.raises(ProviderError) as info:
                await collect(PID, SearchRequest("q"), fake_ctx(PID, srv, client, options={"gl": "usa"}, sleep=no_wait))
            assert info.value.kind is ErrorKind.BAD_REQUEST
            assert info.value.message == "Jina API error (400): ParamValidationError: Invalid value for gl: 'usa'"

            headers = {"Authorization": "Bearer fake-jina-key", "Accept": "application/json"}
            legacy = await client.get(f"{srv.base_url}/jina/", params={"q": "x", "count": "3"}, headers=headers)
            assert legacy.status_code >= 400, "the fake no longer serves the GET form"


# --- conformance: Jina's documented payloads ------------------------------------------------
# Kept outside the repo ($WEBSEARCH_EXTRA_FIXTURES/jina/): the response example of Jina's own API
# reference (jina-ai/meta-prompt v9, "Search API"). Skipped when absent.


async def test_replays_the_documented_search_response() -> None:
    body = json.loads(shared_fixture("jina/search_docs_example_meta_prompt_v9.json").read_text(encoding="utf-8"))
    events, response = await collect(
        PID, SearchRequest("jina ai", max_results=20), ctx_for(Recorder(json_response(body)))
    )
    assert [type(e) for e in events] == [Metadata, SourcesFound]
    assert [(s.url, s.title, s.snippet) for s in response.sources] == [
        (row["url"], row["title"], row["description"]) for row in body["data"]
    ]
