"""You.com provider: request body, web + news merge with de-duplication, count cap, error shapes, fake server."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from tests.fake_providers import FakeServer
from tests.helpers import Recorder, collect, fake_ctx, json_response, make_ctx
from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import Metadata, SearchRequest, SourcesFound
from websearch_tui.core.specs import ProviderSettings
from websearch_tui.providers.base import ProviderContext

KEY = "ydc-test-secret-key"
BODY = {
    "results": {
        "web": [
            {
                "url": "https://a.example/",
                "title": "A &amp; co",
                "description": "desc a",
                "snippets": ["first <b>snippet</b>", "", "second"],
                "page_age": "2025-06-25T11:41:00",
                "authors": ["Ann", "Bob"],
            },
            {"url": "https://b.example/page", "title": "B", "description": "desc b", "published_at": "2 days ago"},
            {"title": "no url", "description": "dropped"},
            {"url": "mailto:x@y.example", "title": "not http"},
            "not a row",
        ],
        "news": [
            {"url": "https://A.example", "title": "A again", "description": "dup of web a"},
            {"url": "https://n.example/story", "title": "", "description": "news", "date": "July 25, 2024"},
        ],
    },
    "metadata": {"request_uuid": "uuid-1", "query": "q", "latency": 0.1},
}


def ctx_for(rec: Any, settings: ProviderSettings | None = None, timeout: float = 30.0) -> ProviderContext:
    return make_ctx("you", rec, settings=settings, credentials={"api_key": KEY}, timeout=timeout)


async def test_request_shape() -> None:
    rec = Recorder(json_response(BODY))
    await collect("you", SearchRequest("python asyncio", max_results=6, recency="week"), ctx_for(rec))
    (request,) = rec.requests
    assert request.method == "POST"
    assert str(request.url) == "https://ydc-index.io/v1/search"
    assert request.headers["X-API-KEY"] == KEY and request.headers["accept"] == "application/json"
    assert "authorization" not in request.headers
    assert rec.body() == {"query": "python asyncio", "count": 6, "freshness": "week"}
    assert KEY not in str(request.url)


@pytest.mark.parametrize("recency", ["day", "week", "month", "year"])
async def test_recency_maps_to_freshness(recency: str) -> None:
    rec = Recorder(json_response(BODY))
    await collect("you", SearchRequest("q", recency=recency), ctx_for(rec))
    assert rec.body()["freshness"] == recency


@pytest.mark.parametrize(("max_results", "num", "count"), [(10, None, 10), (1, None, 1), (20, 50, 20), (5, 12, 12)])
async def test_count_is_clamped_to_20_and_no_freshness_without_recency(max_results: int, num: Any, count: int) -> None:
    rec = Recorder(json_response(BODY))
    await collect("you", SearchRequest("q", max_results=max_results, num_search_results=num), ctx_for(rec))
    assert rec.body() == {"query": "q", "count": count}


async def test_base_url_override() -> None:
    for base, url in [
        ("http://127.0.0.1:9/you", "http://127.0.0.1:9/you/v1/search"),
        ("https://gw.example/v1/", "https://gw.example/v1/search"),
    ]:
        rec = Recorder(json_response(BODY))
        await collect("you", SearchRequest("q"), ctx_for(rec, ProviderSettings(base_url=base)))
        assert str(rec.requests[0].url) == url


async def test_response_mapping_merges_web_and_news_without_duplicates() -> None:
    rec = Recorder(json_response(BODY))
    events, response = await collect("you", SearchRequest("q"), ctx_for(rec))
    assert [type(e) for e in events] == [Metadata, SourcesFound]
    assert response.request_id == "uuid-1" and response.auth_mode == "api_key"
    assert response.answer is None and response.related_questions == []
    assert [s.url for s in response.sources] == [
        "https://a.example/",
        "https://b.example/page",
        "https://n.example/story",
    ]
    a, b, n = response.sources
    assert a.title == "A & co" and a.snippet == "first snippet\n\nsecond" and a.author == "Ann, Bob"
    assert a.published_text == "2025-06-25T11:41:00" and a.age_seconds
    assert b.snippet == "desc b" and b.published_text == "2 days ago" and b.age_seconds == 2 * 86400
    assert n.title == "https://n.example/story" and n.published_text == "July 25, 2024" and n.age_seconds


async def test_merged_list_is_capped_to_the_count_and_sliced() -> None:
    web = [{"url": f"https://w.example/{i}", "title": f"w{i}"} for i in range(5)]
    news = [{"url": f"https://n.example/{i}", "title": f"n{i}"} for i in range(5)]
    rec = Recorder(json_response({"results": {"web": web, "news": news}}))
    _, response = await collect("you", SearchRequest("q", max_results=3), ctx_for(rec))
    assert [s.title for s in response.sources] == ["w0", "w1", "w2"]
    rec = Recorder(json_response({"results": {"web": web[:1], "news": news}}))
    _, response = await collect("you", SearchRequest("q", max_results=4, num_search_results=8), ctx_for(rec))
    assert [s.title for s in response.sources] == ["w0", "n0", "n1", "n2"]


async def test_request_id_falls_back_to_search_uuid_and_header() -> None:
    rec = Recorder(json_response({"results": {}, "metadata": {"search_uuid": "s-uuid"}}))
    _, response = await collect("you", SearchRequest("q"), ctx_for(rec))
    assert response.request_id == "s-uuid"
    rec = Recorder(json_response({"results": {}}, headers={"X-Request-Id": "hdr-1"}))
    _, response = await collect("you", SearchRequest("q"), ctx_for(rec))
    assert response.request_id == "hdr-1"


@pytest.mark.parametrize(
    "body", [{"results": {"web": [], "news": []}}, {"results": {}}, {"results": None}, {"results": {"web": None}}]
)
async def test_empty_results(body: Any) -> None:
    events, response = await collect("you", SearchRequest("q"), ctx_for(Recorder(json_response(body))))
    assert [type(e) for e in events] == [Metadata] and not response.is_renderable()


@pytest.mark.parametrize("body", [{}, ["not", "an", "object"], {"metadata": {"request_uuid": "x"}}])
async def test_a_body_without_results_is_unrecognised_not_empty(body: Any) -> None:
    with pytest.raises(ProviderError) as info:
        await collect("you", SearchRequest("q"), ctx_for(Recorder(json_response(body))))
    assert info.value.kind is ErrorKind.UNRECOGNISED


@pytest.mark.parametrize("body", [{"results": ["x"]}, {"results": "text"}])
async def test_wrong_shape_is_protocol(body: Any) -> None:
    with pytest.raises(ProviderError) as info:
        await collect("you", SearchRequest("q"), ctx_for(Recorder(json_response(body))))
    assert info.value.kind is ErrorKind.PROTOCOL
    assert info.value.message == "You.com returned JSON without a results object."


@pytest.mark.parametrize(
    ("status", "body", "kind", "message"),
    [
        (401, {"detail": "Invalid or expired API key"}, ErrorKind.AUTH, None),
        (403, {"detail": "Missing required scopes"}, ErrorKind.AUTH, None),
        (
            402,
            {"status": 402, "code": "payment_required", "title": "Payment Required", "detail": "Add credits"},
            ErrorKind.QUOTA,
            "You.com API error (402): Add credits",
        ),
        (
            422,
            {"detail": [{"loc": ["body", "count"], "msg": "Input should be less than or equal to 100", "type": "x"}]},
            ErrorKind.BAD_REQUEST,
            "You.com API error (422): Input should be less than or equal to 100",
        ),
        (400, {"title": "Bad Request"}, ErrorKind.BAD_REQUEST, "You.com API error (400): Bad Request"),
        (429, {"detail": "Too many requests"}, ErrorKind.RATE_LIMIT, "You.com API error (429): Too many requests"),
        (500, {"detail": "Internal authentication error"}, ErrorKind.SERVER, None),
        (502, "<html>Bad gateway</html>", ErrorKind.SERVER, "You.com API error (502): Bad gateway"),
    ],
)
async def test_error_shapes(status: int, body: Any, kind: ErrorKind, message: str | None) -> None:
    reply = httpx.Response(status, text=body) if isinstance(body, str) else json_response(body, status)
    rec = Recorder(reply)
    with pytest.raises(ProviderError) as info:
        await collect("you", SearchRequest("q"), ctx_for(rec, timeout=0.5))
    error = info.value
    assert error.kind is kind and error.status == status
    if kind is ErrorKind.AUTH:
        assert error.message == f"You.com Search authorization failed ({status}). Check API key or base URL."
    elif message:
        assert error.message == message
    else:
        assert error.message == f"You.com API error ({status}): {body['detail']}"
    assert KEY not in error.message


async def test_secret_in_error_body_is_redacted() -> None:
    from websearch_tui.core.errors import register_secret

    register_secret(KEY)
    rec = Recorder(json_response({"detail": f"key {KEY} is not valid for this route"}, 400))
    with pytest.raises(ProviderError) as info:
        await collect("you", SearchRequest("q"), ctx_for(rec))
    assert KEY not in info.value.message and "***" in info.value.message


# --------------------------------------------------------------------------- end to end over the fake


async def test_end_to_end_against_the_fake() -> None:
    with FakeServer() as srv:
        async with httpx.AsyncClient() as client:
            _, response = await collect(
                "you", SearchRequest("python asyncio", recency="day"), fake_ctx("you", srv, client)
            )
            sent = srv.last_request("/you/v1/search")
            assert sent.json() == {"query": "python asyncio", "count": 10, "freshness": "day"}
            urls = [s.url for s in response.sources]
            assert urls[0] == "https://docs.python.org/3/library/asyncio.html"
            assert len(urls) == 4 and "https://www.python.org/downloads/release/python-3130/" in urls
            assert response.request_id == "fake-you-req-0001"
            assert response.sources[2].snippet == "Learn how to use asyncio for python asyncio."

            with pytest.raises(ProviderError) as info:
                await collect("you", SearchRequest("q"), fake_ctx("you", srv, client, key="wrong"))
            assert info.value.message == "You.com Search authorization failed (401). Check API key or base URL."


@pytest.mark.parametrize(
    ("variant", "kind"),
    [("forbidden", ErrorKind.AUTH), ("payment_required", ErrorKind.QUOTA), ("rate_limit", ErrorKind.RATE_LIMIT)],
)
async def test_fake_error_variants(variant: str, kind: ErrorKind) -> None:
    with FakeServer() as srv:
        srv.use("you", variant)
        async with httpx.AsyncClient() as client:
            with pytest.raises(ProviderError) as info:
                ctx = fake_ctx("you", srv, client)
                ctx.deadline = time.monotonic() + 5
                await collect("you", SearchRequest("q"), ctx)
    assert info.value.kind is kind


async def test_fake_empty_and_news_only_variants() -> None:
    with FakeServer() as srv:
        async with httpx.AsyncClient() as client:
            srv.use("you", "empty")
            _, empty = await collect("you", SearchRequest("q"), fake_ctx("you", srv, client))
            srv.use("you", "news_only")
            _, news = await collect("you", SearchRequest("q"), fake_ctx("you", srv, client))
    assert not empty.is_renderable()
    assert [s.url for s in news.sources] == [
        "https://docs.python.org/3/library/asyncio.html#",
        "https://www.python.org/downloads/release/python-3130/",
    ]
