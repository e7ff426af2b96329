"""Linkup provider: request body (depth, output type, count, recency), sourced answers and search
results, option notes, error shapes, the fake server.

The recorded payloads are the public ones of Linkup's official Python SDK test suite
(LinkupPlatform/linkup-python-sdk, ``tests/unit/client_test.py``: ``test_search_parameters`` and
``test_search_error_parameters``), cut to what the adapter reads.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.fake_providers import FakeServer
from tests.helpers import Recorder, collect, fake_ctx, json_response, make_ctx, no_wait
from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import AnswerDelta, CitationsFound, Metadata, Note, SearchRequest, SourcesFound
from websearch_tui.core.specs import ProviderSettings
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.helpers.parse import start_date

KEY = "linkup-test-secret-key"
SDK_SOURCED_ANSWER = {
    "answer": "foo bar baz",
    "sources": [
        {
            "name": "foo",
            "url": "https://foo.com",
            "snippet": "lorem ipsum dolor sit amet",
            "favicon": "https://foo.com/favicon.ico",
        },
        {
            "name": "bar",
            "url": "https://bar.com",
            "snippet": "consectetur adipiscing elit",
            "favicon": "https://bar.com/favicon.ico",
        },
        {"name": "baz", "url": "https://baz.com", "snippet": "", "favicon": ""},
    ],
}
"""The SDK tests' ``sourcedAnswer`` response."""
SDK_SEARCH_RESULTS = {
    "results": [
        {
            "type": "text",
            "name": "foo",
            "url": "https://foo.com",
            "content": "lorem ipsum dolor sit amet",
            "favicon": "https://foo.com/favicon.ico",
        },
        {"type": "image", "name": "bar", "url": "https://bar.com"},
    ]
}
"""The SDK tests' ``searchResults`` response (a text result and an image result)."""


def ctx_for(rec: Any, **options: Any) -> ProviderContext:
    return make_ctx(
        "linkup", rec, settings=ProviderSettings(options=options), credentials={"api_key": KEY}, sleep=no_wait
    )


async def test_request_shape_defaults_to_a_standard_sourced_answer() -> None:
    rec = Recorder(json_response(SDK_SOURCED_ANSWER))
    await collect("linkup", SearchRequest("python asyncio", max_results=6), ctx_for(rec))
    (request,) = rec.requests
    assert request.method == "POST" and str(request.url) == "https://api.linkup.so/v1/search"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert rec.body() == {
        "q": "python asyncio",
        "depth": "standard",
        "outputType": "sourcedAnswer",
        "maxResults": 6,
        "includeImages": False,
    }


@pytest.mark.parametrize("recency", ["day", "week", "month", "year"])
async def test_recency_is_a_from_date(recency: str) -> None:
    rec = Recorder(json_response(SDK_SOURCED_ANSWER))
    await collect("linkup", SearchRequest("q", recency=recency), ctx_for(rec))
    assert rec.body()["fromDate"] == start_date(recency)


@pytest.mark.parametrize(("max_results", "num", "sent"), [(10, None, 10), (1, None, 1), (5, 50, 50), (5, 12, 12)])
async def test_count_is_max_results(max_results: int, num: int | None, sent: int) -> None:
    rec = Recorder(json_response(SDK_SOURCED_ANSWER))
    await collect("linkup", SearchRequest("q", max_results=max_results, num_search_results=num), ctx_for(rec))
    assert rec.body()["maxResults"] == sent


async def test_sourced_answer_is_an_answer_citing_every_source() -> None:
    events, response = await collect(
        "linkup", SearchRequest("q", max_results=2), ctx_for(Recorder(json_response(SDK_SOURCED_ANSWER)))
    )
    assert [type(e) for e in events] == [Metadata, SourcesFound, AnswerDelta, CitationsFound]
    assert response.answer == "foo bar baz" and response.auth_mode == "api_key"
    # every source is cited, so all three stay listed although max_results is 2
    assert [(s.url, s.title, s.snippet) for s in response.sources] == [
        ("https://foo.com", "foo", "lorem ipsum dolor sit amet"),
        ("https://bar.com", "bar", "consectetur adipiscing elit"),
        ("https://baz.com", "baz", None),
    ]
    assert [(c.url, c.title) for c in response.citations] == [(s.url, s.title) for s in response.sources]


async def test_search_results_leave_images_out_and_cut_long_content() -> None:
    rec = Recorder(json_response(SDK_SEARCH_RESULTS))
    events, response = await collect("linkup", SearchRequest("q"), ctx_for(rec, output="results", depth="deep"))
    assert rec.body()["outputType"] == "searchResults" and rec.body()["depth"] == "deep"
    assert [type(e) for e in events] == [Metadata, SourcesFound]
    assert [s.url for s in response.sources] == ["https://foo.com"] and response.dropped_sources == 0
    assert response.answer is None and response.citations == []
    long = {"results": [{"type": "text", "name": "long", "url": "https://l.example/", "content": "word " * 1000}]}
    _, response = await collect("linkup", SearchRequest("q"), ctx_for(Recorder(json_response(long)), output="results"))
    assert len(response.sources[0].snippet or "") <= 1001


async def test_an_invalid_option_falls_back_with_a_note() -> None:
    rec = Recorder(json_response(SDK_SOURCED_ANSWER))
    events, _ = await collect("linkup", SearchRequest("q"), ctx_for(rec, depth="deepest", output="json"))
    assert rec.body()["depth"] == "standard" and rec.body()["outputType"] == "sourcedAnswer"
    notes = [e.text for e in events if isinstance(e, Note)]
    assert notes == [
        "Linkup depth 'deepest' is not one of standard, deep, fast; used standard.",
        "Linkup output 'json' is not one of answer, results; used answer.",
    ]


@pytest.mark.parametrize(
    ("status", "code", "message", "kind"),
    [
        (429, "INSUFFICIENT_FUNDS_CREDITS", "You do not have enough credits to perform this request.", ErrorKind.QUOTA),
        (429, "TOO_MANY_REQUESTS", "Too many requests.", ErrorKind.RATE_LIMIT),
        (429, "EXCEED_BUDGET_LIMIT", "The API key has reached its budget limit.", ErrorKind.QUOTA),
        (402, "PAYMENT_REQUIRED", "Payment required", ErrorKind.QUOTA),
        (400, "VALIDATION_ERROR", "Validation failed", ErrorKind.BAD_REQUEST),
    ],
)
async def test_sdk_error_bodies(status: int, code: str, message: str, kind: ErrorKind) -> None:
    body = {"error": {"code": code, "message": message, "details": []}}
    with pytest.raises(ProviderError) as info:
        await collect("linkup", SearchRequest("q"), ctx_for(Recorder(json_response(body, status))))
    assert info.value.kind is kind and info.value.message == f"Linkup API error ({status}): {message}"


async def test_a_validation_error_names_its_fields() -> None:
    """The example of Linkup's errors page (https://docs.linkup.so/pages/documentation/platform/errors)."""
    body = {
        "statusCode": 400,
        "error": {
            "code": "VALIDATION_ERROR",
            "message": "Validation failed",
            "details": [
                {
                    "field": "outputType",
                    "message": "outputType must be one of the following values: sourcedAnswer, searchResults, structured",
                }
            ],
        },
    }
    with pytest.raises(ProviderError) as info:
        await collect("linkup", SearchRequest("q"), ctx_for(Recorder(json_response(body, 400))))
    assert info.value.kind is ErrorKind.BAD_REQUEST
    assert info.value.message == (
        "Linkup API error (400): Validation failed (outputType: outputType must be one of the following "
        "values: sourcedAnswer, searchResults, structured)"
    )
    with pytest.raises(ProviderError) as info:
        await collect("linkup", SearchRequest("q"), ctx_for(Recorder(json_response({"message": "Bad gateway"}, 400))))
    assert info.value.message == "Linkup API error (400): Bad gateway"


async def test_a_body_without_its_fields_is_unrecognised() -> None:
    with pytest.raises(ProviderError) as info:
        await collect("linkup", SearchRequest("q"), ctx_for(Recorder(json_response({"name": "Linkup"}))))
    assert info.value.kind is ErrorKind.UNRECOGNISED


async def test_end_to_end_against_the_fake() -> None:
    with FakeServer() as srv:
        async with httpx.AsyncClient() as client:
            _, answer = await collect(
                "linkup", SearchRequest("python asyncio", recency="week"), fake_ctx("linkup", srv, client)
            )
            sent = srv.last_request("/linkup/v1/search").json()
            assert sent["outputType"] == "sourcedAnswer" and sent["fromDate"] == start_date("week")
            assert answer.answer and answer.answer.startswith("asyncio is Python's standard library")
            assert len(answer.sources) == 2 == len(answer.citations) and answer.dropped_sources == 1
            _, results = await collect(
                "linkup",
                SearchRequest("python asyncio"),
                fake_ctx("linkup", srv, client, options={"output": "results"}),
            )
            assert [s.url for s in results.sources] == [
                "https://docs.python.org/3/library/asyncio.html",
                "https://superfastpython.com/python-asyncio/",
            ]
            assert results.sources[1].snippet == "Learn how to use asyncio for python asyncio."
            srv.use("linkup", "no_credits")
            with pytest.raises(ProviderError) as info:
                await collect("linkup", SearchRequest("q"), fake_ctx("linkup", srv, client, sleep=no_wait))
            assert info.value.kind is ErrorKind.QUOTA
