"""Zhipu Web Search provider: request body, count/recency mapping, parsing, 200 error envelopes, e2e."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tests.fake_providers import FakeServer
from tests.helpers import Recorder, collect, fake_ctx, json_response, make_ctx, no_wait, shared_fixture
from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import Metadata, Note, SearchQueries, SearchRequest, SourcesFound
from websearch_tui.core.specs import ProviderSettings
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.helpers.parse import clamp_count
from websearch_tui.providers.zhipu_web_search import MAX_COUNT

PID = "zhipu_web_search"
KEY = "zhipu-test-key-123456"


def row(n: int, **extra: Any) -> dict[str, Any]:
    return {
        "title": f"Result {n}",
        "content": f"Snippet {n}",
        "link": f"https://example.com/{n}",
        "media": "Example",
        "icon": "https://example.com/favicon.ico",
        "refer": f"ref_{n}",
        "publish_date": "2025-08-20",
        **extra,
    }


def body_with(rows: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"id": "task-1", "created": 1748261757, "request_id": "req_123456", "search_result": rows, **extra}


OK = body_with([row(1), row(2)])


def ctx_for(rec: Recorder, settings: ProviderSettings | None = None, timeout: float = 30.0) -> ProviderContext:
    return make_ctx(PID, rec, settings=settings, credentials={"api_key": KEY}, timeout=timeout, sleep=no_wait)


# --------------------------------------------------------------------------- request


async def test_request_shape() -> None:
    rec = Recorder(json_response(OK))
    await collect(PID, SearchRequest("python asyncio  event loop", max_results=7), ctx_for(rec))
    (request,) = rec.requests
    assert request.method == "POST"
    assert str(request.url) == "https://open.bigmodel.cn/api/paas/v4/web_search"
    assert request.headers["AUTHORIZATION"] == f"Bearer {KEY}"
    assert request.headers["accept"] == "application/json"
    assert request.headers["Content-Type"] == "application/json"
    assert rec.body() == {
        "search_query": "python asyncio  event loop",
        "search_engine": "search_pro",
        "search_intent": False,
        "count": 7,
        "content_size": "medium",
    }
    assert KEY not in str(request.url)


@pytest.mark.parametrize(
    ("recency", "sent"), [("day", "oneDay"), ("week", "oneWeek"), ("month", "oneMonth"), ("year", "oneYear")]
)
async def test_recency_mapping(recency: str, sent: str) -> None:
    rec = Recorder(json_response(OK))
    events, _ = await collect(PID, SearchRequest("q", recency=recency), ctx_for(rec))
    assert rec.body()["search_recency_filter"] == sent
    assert not [e for e in events if isinstance(e, Note)]


async def test_count_uses_num_search_results_and_clamps() -> None:
    rec = Recorder(json_response(OK))
    await collect(PID, SearchRequest("q", max_results=3, num_search_results=50), ctx_for(rec))
    assert rec.body()["count"] == 50
    assert clamp_count(80, 10, MAX_COUNT) == 50 and clamp_count(0, 10, MAX_COUNT) == 10


async def test_options_and_base_url_prefix() -> None:
    rec = Recorder(json_response(OK))
    settings = ProviderSettings(
        base_url="https://api.z.ai/api/paas/v4/",
        options={"search_engine": "search-prime", "content_size": "high", "search_intent": True},
    )
    await collect(PID, SearchRequest("q"), ctx_for(rec, settings))
    assert str(rec.requests[0].url) == "https://api.z.ai/api/paas/v4/web_search"
    body = rec.body()
    assert body["search_engine"] == "search-prime" and body["content_size"] == "high"
    assert body["search_intent"] is True


# --------------------------------------------------------------------------- response


async def test_rows_parsed_sliced_and_cleaned() -> None:
    rows = [row(n) for n in range(1, 16)]  # upstream ignores count=2 and returns 15 rows
    rows[0] = row(1, title="A &amp; <b>B</b>", content="x &quot;y&quot;", publish_date="")
    rows[1] = row(2, link="", url="https://example.com/from-url")
    rows[2] = row(3, link="javascript:alert(1)")
    rows[3] = row(4, link=None, title="")
    rec = Recorder(json_response(body_with(rows)))
    events, response = await collect(PID, SearchRequest("q", max_results=2), ctx_for(rec))
    assert rec.body()["count"] == 2
    first, second = response.sources
    assert first.title == "A & B" and first.snippet == 'x "y"' and first.published_text is None
    assert first.author == "Example" and first.url == "https://example.com/1"
    assert second.url == "https://example.com/from-url"
    _, all_sources = await collect(
        PID, SearchRequest("q", max_results=20), ctx_for(Recorder(json_response(body_with(rows))))
    )
    assert len(all_sources.sources) == 13  # rows 3 (javascript:) and 4 (no URL) dropped
    assert response.request_id == "req_123456" and response.auth_mode == "api_key"
    assert [type(e) for e in events] == [Metadata, SourcesFound]


@pytest.mark.parametrize("asked", [False, True])
async def test_search_intent_keywords_are_the_searches_it_ran_whatever_was_asked(asked: bool) -> None:
    intent = [
        {"query": "q", "intent": "SEARCH_ALL", "keywords": "python asyncio tutorial"},
        {"query": "q", "intent": "SEARCH_ALL", "keywords": "asyncio &amp; threads"},
        {"query": "only a query", "intent": "SEARCH_ALWAYS"},
        {"query": "q", "intent": "SEARCH_ALL", "keywords": "python asyncio tutorial"},
    ]
    body = body_with([row(1)], search_intent=intent)
    settings = ProviderSettings(options={"search_intent": asked})
    rec = Recorder(json_response(body))
    events, response = await collect(PID, SearchRequest("q"), ctx_for(rec, settings))
    assert rec.body()["search_intent"] is asked
    assert response.search_queries == ["python asyncio tutorial", "asyncio & threads", "only a query"]
    assert [type(e) for e in events] == [Metadata, SearchQueries, SourcesFound]


@pytest.mark.parametrize(
    "intent",
    [None, [], {"keywords": "one object, as the SDK types it"}, "text", [{"intent": "SEARCH_NONE"}], [None, 3]],
)
async def test_search_intent_in_other_shapes(intent: Any) -> None:
    body = body_with([row(1)], search_intent=intent)
    _, response = await collect(PID, SearchRequest("q"), ctx_for(Recorder(json_response(body))))
    assert response.search_queries == (["one object, as the SDK types it"] if isinstance(intent, dict) else [])
    assert len(response.sources) == 1


async def test_empty_result_and_request_id_fallbacks() -> None:
    rec = Recorder(json_response({"id": "task-9", "search_result": []}, headers={"x-request-id": "hdr"}))
    _, response = await collect(PID, SearchRequest("q"), ctx_for(rec))
    assert not response.is_renderable() and response.request_id == "task-9"
    rec = Recorder(json_response({"search_result": []}, headers={"x-request-id": "hdr-1"}))
    _, response = await collect(PID, SearchRequest("q"), ctx_for(rec))
    assert response.request_id == "hdr-1"


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        ({"id": "x"}, ErrorKind.UNRECOGNISED),  # none of the fields it reads: the API changed
        ([row(1)], ErrorKind.UNRECOGNISED),
        ({"search_result": None}, ErrorKind.PROTOCOL),
        ({"search_intent": [], "search_result": "text"}, ErrorKind.PROTOCOL),
    ],
)
async def test_body_without_result_array_fails(body: Any, kind: ErrorKind) -> None:
    with pytest.raises(ProviderError) as info:
        await collect(PID, SearchRequest("q"), ctx_for(Recorder(json_response(body))))
    assert info.value.kind is kind


async def test_html_body_is_protocol() -> None:
    rec = Recorder(httpx.Response(200, text="<html>gateway</html>", headers={"content-type": "text/html"}))
    with pytest.raises(ProviderError) as info:
        await collect(PID, SearchRequest("q"), ctx_for(rec))
    assert info.value.kind is ErrorKind.PROTOCOL and "text/html instead of JSON" in info.value.message


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("code", "kind"),
    [
        ("1701", ErrorKind.RATE_LIMIT),
        (1701, ErrorKind.RATE_LIMIT),
        ("1702", ErrorKind.CONFIG),
        ("1214", ErrorKind.BAD_REQUEST),
        ("1113", ErrorKind.QUOTA),
        ("9999", ErrorKind.SERVER),
    ],
)
async def test_error_envelope_with_200(code: Any, kind: ErrorKind) -> None:
    rec = Recorder(json_response({"error": {"code": code, "message": "upstream says no"}}))
    with pytest.raises(ProviderError) as info:
        await collect(PID, SearchRequest("q"), ctx_for(rec))
    assert info.value.kind is kind
    assert info.value.message == f"Zhipu Web Search API error (code {code}): upstream says no"
    assert len(rec.requests) == 1


async def test_code_1703_is_an_empty_result_with_a_note() -> None:
    body = {"error": {"code": "1703", "message": "no valid data"}, "request_id": "r-1703"}
    events, response = await collect(PID, SearchRequest("q"), ctx_for(Recorder(json_response(body))))
    assert not response.sources and response.request_id == "r-1703"
    assert response.notes == ["Zhipu Web Search found no usable results (code 1703): no valid data"]
    assert isinstance(events[-1], Note)


async def test_401_gets_the_seed_message() -> None:
    rec = Recorder(json_response({"error": {"code": "1000", "message": "Authentication failed"}}, 401))
    with pytest.raises(ProviderError) as info:
        await collect(PID, SearchRequest("q"), ctx_for(rec))
    assert info.value.kind is ErrorKind.AUTH and info.value.status == 401
    assert info.value.message == "Zhipu Web Search authorization failed (401). Check API key or base URL."


@pytest.mark.parametrize(
    ("status", "code", "message", "kind", "calls"),
    [
        (400, "1214", "search_engine is required", ErrorKind.BAD_REQUEST, 1),
        (429, "1302", "too many concurrent requests", ErrorKind.RATE_LIMIT, 4),
        (429, "1113", "余额不足或无可用资源包,请充值。", ErrorKind.QUOTA, 4),
        (500, "500", "Internal Error", ErrorKind.SERVER, 4),
    ],
)
async def test_http_errors_show_status_and_code(
    status: int, code: str, message: str, kind: ErrorKind, calls: int
) -> None:
    rec = Recorder(json_response({"error": {"code": code, "message": message}}, status))
    with pytest.raises(ProviderError) as info:
        await collect(PID, SearchRequest("q"), ctx_for(rec))
    assert info.value.kind is kind and info.value.status == status
    assert info.value.message.startswith(f"Zhipu Web Search API error ({status}, code {code}): {message}")
    assert len(rec.requests) == calls


async def test_http_error_without_envelope_uses_body_excerpt() -> None:
    rec = Recorder(httpx.Response(502, text="<b>Bad gateway</b>"))
    with pytest.raises(ProviderError) as info:
        await collect(PID, SearchRequest("q"), ctx_for(rec, timeout=0.5))
    assert info.value.kind is ErrorKind.SERVER
    assert info.value.message == "Zhipu Web Search API error (502): Bad gateway"


async def test_secret_never_in_messages() -> None:
    from websearch_tui.core.errors import register_secret

    register_secret(KEY)
    body = {"error": {"code": "1214", "message": f"bad header Bearer {KEY}"}}
    for reply in (json_response(body), json_response(body, 400)):
        with pytest.raises(ProviderError) as info:
            await collect(PID, SearchRequest("q"), ctx_for(Recorder(reply)))
        assert KEY not in info.value.message and "***" in info.value.message


# --------------------------------------------------------------------------- conformance
# Kept outside the repo (../shared/fixtures/providers/zhipu_web_search/ or $WEBSEARCH_EXTRA_FIXTURES/...):
# BigModel's API-reference example and a third-party SDK test fixture (no live capture is public).
# Skipped when absent.


@pytest.mark.parametrize("name", ["third_party_test_fixture_go.json", "bigmodel_api_reference_web_search_example.json"])
async def test_replays_public_payloads(name: str) -> None:
    body = json.loads(shared_fixture(f"zhipu_web_search/{name}").read_text(encoding="utf-8"))
    _, response = await collect(PID, SearchRequest("q", max_results=20), ctx_for(Recorder(json_response(body))))
    assert response.search_queries == [item["keywords"] for item in body["search_intent"]]
    usable = [row for row in body["search_result"] if row["link"].startswith(("http://", "https://"))]
    assert [s.url for s in response.sources] == [row["link"] for row in usable]  # "u1", "<string>": no URL
    assert response.request_id == body["request_id"]


# --------------------------------------------------------------------------- end to end


async def test_end_to_end_against_the_fake() -> None:
    with FakeServer() as srv:
        async with httpx.AsyncClient() as client:
            ctx = fake_ctx(PID, srv, client, options={"search_intent": True}, sleep=no_wait)
            request = SearchRequest("python asyncio", max_results=4, recency="month")
            _, response = await collect(PID, request, ctx)
            sent = srv.last_request(f"/{PID}/api/paas/v4/web_search").json()
            assert sent["count"] == 4 and sent["search_recency_filter"] == "oneMonth"
            assert len(response.sources) == 4  # the fake returns twelve rows whatever count says
            assert response.sources[0].url == "https://docs.python.org/3/library/asyncio.html"
            assert response.sources[1].title == "Coroutines and Tasks — Python 3 documentation"
            assert response.sources[2].published_text is None
            assert response.request_id == "fake-zhipu-req-0001"
            assert response.search_queries == ["python asyncio event loop tutorial"]
            realpython = response.sources[3]
            assert realpython.published_text == "2025年7月30日" and realpython.published_date == "2025-07-30T00:00:00Z"

            plain = fake_ctx(PID, srv, client, sleep=no_wait)  # not asked for: the query is the search it ran
            _, response = await collect(PID, request, plain)
            assert srv.last_request(f"/{PID}/api/paas/v4/web_search").json()["search_intent"] is False
            assert response.search_queries == ["python asyncio"]

            srv.use(PID, "rate_limit")
            with pytest.raises(ProviderError) as info:
                await collect(PID, request, ctx)
            assert info.value.kind is ErrorKind.RATE_LIMIT and "code 1701" in info.value.message

            srv.use(PID, "no_data")
            _, response = await collect(PID, request, ctx)
            assert not response.sources and "1703" in response.notes[0]
