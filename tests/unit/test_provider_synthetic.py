"""Synthetic Search provider: query-only body, local slice, notes for ignored options, error shapes, fake server."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.fake_providers import FakeServer
from tests.helpers import Recorder, collect, fake_ctx, json_response, make_ctx, no_wait
from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import Metadata, Note, SearchRequest, SourcesFound
from websearch_tui.core.specs import ProviderSettings

PID = "synthetic"
KEY = "syn_test_key_123456"
ONE = {
    "results": [
        {
            "url": "https://docs.python.org/3/library/asyncio.html",
            "title": "asyncio &mdash; docs",
            "text": "Event loop <em>and</em> tasks",
            "published": "2024-07-25",
        },
        {"url": "https://example.com/x", "title": None, "text": None, "published": "not a date"},
        {"url": None, "title": "dropped"},
        {"title": "dropped too", "text": "no url key"},
    ]
}
RECENCY_NOTE = "Recency is not supported by Synthetic Search; results are not filtered by date."


def ctx_for(rec: Recorder, settings: ProviderSettings | None = None) -> Any:
    return make_ctx(PID, rec, settings=settings, credentials={"api_key": KEY}, sleep=no_wait)


async def test_request_shape() -> None:
    rec = Recorder(json_response(ONE))
    await collect(PID, SearchRequest("python asyncio", max_results=3), ctx_for(rec))
    (request,) = rec.requests
    assert request.method == "POST"
    assert str(request.url) == "https://api.synthetic.new/v2/search"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert rec.body() == {"query": "python asyncio"}


@pytest.mark.parametrize(
    "base", ["http://127.0.0.1:1/syn", "http://127.0.0.1:1/syn/v2", "http://127.0.0.1:1/syn/v2/search"]
)
async def test_base_url_joining(base: str) -> None:
    rec = Recorder(json_response(ONE))
    await collect(PID, SearchRequest("q"), ctx_for(rec, ProviderSettings(base_url=base)))
    assert str(rec.requests[0].url) == "http://127.0.0.1:1/syn/v2/search"


async def test_response_mapping() -> None:
    events, response = await collect(PID, SearchRequest("q"), ctx_for(Recorder(json_response(ONE))))
    assert [type(e) for e in events] == [Metadata, SourcesFound]
    assert response.auth_mode == "api_key" and response.request_id is None
    first, second = response.sources
    assert first.title == "asyncio \u2014 docs" and first.snippet == "Event loop and tasks"
    assert first.published_text == "2024-07-25" and first.age_seconds and first.age_seconds > 0
    assert second.title == "https://example.com/x" and second.snippet is None
    assert second.published_text == "not a date" and second.age_seconds is None


async def test_local_slice() -> None:
    rows = [{"title": f"t{i}", "url": f"https://x.example/{i}", "text": "t"} for i in range(15)]
    _, response = await collect(
        PID, SearchRequest("q", max_results=4), ctx_for(Recorder(json_response({"results": rows})))
    )
    assert [s.url for s in response.sources] == [f"https://x.example/{i}" for i in range(4)]


async def test_ignored_options_are_noted_not_sent() -> None:
    rec = Recorder(json_response(ONE))
    events, response = await collect(
        PID, SearchRequest("q", recency="month", num_search_results=30, max_results=5), ctx_for(rec)
    )
    assert rec.body() == {"query": "q"}
    assert response.notes == [
        "Synthetic Search has no result-count parameter; num_search_results is ignored and results are cut to 5 locally.",
    ]
    assert sum(isinstance(e, Note) for e in events) == 1


async def test_no_notes_without_options() -> None:
    _, response = await collect(PID, SearchRequest("q"), ctx_for(Recorder(json_response(ONE))))
    assert response.notes == []


@pytest.mark.parametrize("body", [{"results": []}, {"results": None}])
async def test_empty_result(body: Any) -> None:
    _, response = await collect(PID, SearchRequest("q"), ctx_for(Recorder(json_response(body))))
    assert not response.is_renderable()


@pytest.mark.parametrize("body", [{}, [], {"hits": []}])
async def test_a_body_without_its_results_is_unrecognised_not_empty(body: Any) -> None:
    with pytest.raises(ProviderError) as info:
        await collect(PID, SearchRequest("q"), ctx_for(Recorder(json_response(body))))
    assert info.value.kind is ErrorKind.UNRECOGNISED
    assert "answered in a shape this version does not read" in info.value.message


ERRORS = [
    (400, {"error": "query is required"}, ErrorKind.BAD_REQUEST, "Synthetic API error (400): query is required"),
    (402, {"error": {"message": "Subscription required"}}, ErrorKind.QUOTA,
     "Synthetic API error (402): Subscription required"),
    (429, {"error": "Rate limit exceeded"}, ErrorKind.RATE_LIMIT, "Synthetic API error (429): Rate limit exceeded"),
    (500, "Internal Server Error", ErrorKind.SERVER, "Synthetic API error (500): Internal Server Error"),
    (401, {"error": "Invalid API key"}, ErrorKind.AUTH,
     "Synthetic Search authorization failed (401). Check API key or base URL."),
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


# --- end to end over HTTP against the fake ------------------------------------------------


async def test_end_to_end_against_the_fake() -> None:
    with FakeServer() as srv:
        async with httpx.AsyncClient() as client:
            _, response = await collect(
                PID, SearchRequest("python asyncio", max_results=10), fake_ctx(PID, srv, client, sleep=no_wait)
            )
            assert srv.last_request("/synthetic/v2/search").json() == {"query": "python asyncio"}
            assert len(response.sources) == 10  # the fake returns 12; sliced locally
            assert response.sources[0].url == "https://docs.python.org/3/library/asyncio.html"
            assert response.sources[4].published_text is None

            srv.use(PID, "empty")
            _, response = await collect(PID, SearchRequest("python asyncio"), fake_ctx(PID, srv, client, sleep=no_wait))
            assert not response.is_renderable()

            srv.use(PID, "rate_limit")
            with pytest.raises(ProviderError) as info:
                await collect(PID, SearchRequest("q"), fake_ctx(PID, srv, client, sleep=no_wait))
            assert info.value.message == "Synthetic API error (429): Rate limit exceeded (retry in 120 s)"
