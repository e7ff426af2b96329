"""Valyu provider: request body (search_type, count, short bodies, start_date), whole page bodies
kept out of snippets, authors and dates, cost, partial-answer notes, error shapes, the fake.

The payloads follow the official SDK (valyuAI/valyu-py): the envelope of
``tests/test_search_include_abstracts.py`` (``success``, ``error``, ``tx_id``, ``query``, ``results``,
``results_by_source``, ``total_deduction_dollars``, ``total_characters``) and the result fields of
``valyu/types/response.py``; the partial-answer message is the one in Valyu's pricing docs
(https://docs.valyu.ai/pricing, "3 data points were removed for too low max_price").
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tests.fake_providers import FakeServer
from tests.helpers import Recorder, collect, fake_ctx, json_response, make_ctx, no_wait
from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import Metadata, Note, SearchRequest, SourcesFound, Usage
from websearch_tui.core.specs import ProviderSettings
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.helpers.parse import start_date

KEY = "val-test-secret-key"
PAGE = "# Heading\n\n" + "A sentence of the page body. " * 400
ANSWER = {
    "success": True,
    "error": None,
    "tx_id": "tx_test",
    "query": "cancer immunotherapy",
    "results": [
        {
            "title": "Checkpoint inhibitors in cancer immunotherapy",
            "url": "https://www.nature.com/articles/example",
            "content": PAGE,
            "source": "web",
            "price": 0.0015,
            "length": len(PAGE),
            "relevance_score": 0.91,
            "data_type": "unstructured",
            "source_type": "website",
        },
        {
            "title": "Resistance to immune checkpoint blockade",
            "url": "https://arxiv.org/abs/2401.00002",
            "content": "We review mechanisms of resistance.",
            "description": "A review of resistance mechanisms.",
            "source": "valyu/valyu-arxiv",
            "length": 35,
            "publication_date": "2024-01-05",
            "authors": ["A. Author", "B. Author"],
            "data_type": "unstructured",
        },
        {
            "title": "AAPL daily prices",
            "url": "https://valyu.ai/data/aapl",
            "content": [{"date": "2025-01-02", "close": 243.85}],
            "source": "valyu/valyu-stocks",
            "length": 40,
            "data_type": "structured",
        },
    ],
    "results_by_source": {"web": 1, "proprietary": 2},
    "total_deduction_dollars": 0.0045,
    "total_characters": 12075,
}


def ctx_for(rec: Any, **options: Any) -> ProviderContext:
    return make_ctx(
        "valyu", rec, settings=ProviderSettings(options=options), credentials={"api_key": KEY}, sleep=no_wait
    )


async def test_request_shape() -> None:
    rec = Recorder(json_response(ANSWER))
    await collect("valyu", SearchRequest("cancer immunotherapy", max_results=4, recency="month"), ctx_for(rec))
    (request,) = rec.requests
    assert request.method == "POST" and str(request.url) == "https://api.valyu.ai/v1/search"
    assert request.headers["x-api-key"] == KEY and "authorization" not in request.headers
    assert rec.body() == {
        "query": "cancer immunotherapy",
        "search_type": "all",
        "max_num_results": 4,
        "response_length": "short",
        "is_tool_call": True,
        "start_date": start_date("month"),
    }


@pytest.mark.parametrize(("num", "sent"), [(None, 10), (50, 20), (15, 15)])
async def test_count_is_capped_at_20_and_search_type_is_an_option(num: int | None, sent: int) -> None:
    rec = Recorder(json_response(ANSWER))
    await collect("valyu", SearchRequest("q", num_search_results=num), ctx_for(rec, search_type="proprietary"))
    assert rec.body()["max_num_results"] == sent and rec.body()["search_type"] == "proprietary"


async def test_page_bodies_stay_out_of_snippets_and_cost_is_kept() -> None:
    events, response = await collect("valyu", SearchRequest("q"), ctx_for(Recorder(json_response(ANSWER))))
    assert [type(e) for e in events] == [Metadata, SourcesFound]
    web, paper, prices = response.sources
    assert web.snippet and web.snippet.startswith("# Heading") and len(web.snippet) <= 501
    assert paper.snippet == "A review of resistance mechanisms." and paper.author == "A. Author, B. Author"
    assert paper.published_date == "2024-01-05T00:00:00Z"
    assert prices.snippet is None  # a structured record is not text
    assert response.request_id == "tx_test"
    assert response.usage == Usage(cost_usd=0.0045)


async def test_a_partial_answer_and_an_invalid_option_are_notes() -> None:
    body = {**ANSWER, "error": "3 data points were removed for too low max_price"}
    rec = Recorder(json_response(body))
    events, response = await collect("valyu", SearchRequest("q"), ctx_for(rec, search_type="papers"))
    assert rec.body()["search_type"] == "all"
    assert [e.text for e in events if isinstance(e, Note)] == [
        "Valyu search_type 'papers' is not one of all, web, proprietary, news; used all.",
        "Valyu: 3 data points were removed for too low max_price",
    ]
    assert len(response.sources) == 3


@pytest.mark.parametrize("cost", [-1, "0.01", True, float("inf"), float("nan")])
async def test_an_unusable_cost_is_left_out(cost: Any) -> None:
    body = json.dumps({**ANSWER, "total_deduction_dollars": cost})  # Infinity and NaN as Python writes them
    reply = httpx.Response(200, text=body, headers={"content-type": "application/json"})
    _, response = await collect("valyu", SearchRequest("q"), ctx_for(Recorder(reply)))
    assert response.usage is None and len(response.sources) == 3


@pytest.mark.parametrize(
    ("status", "kind"), [(402, ErrorKind.QUOTA), (400, ErrorKind.BAD_REQUEST), (429, ErrorKind.RATE_LIMIT)]
)
async def test_error_bodies(status: int, kind: ErrorKind) -> None:
    body = {"success": False, "error": "Request could not be served"}
    with pytest.raises(ProviderError) as info:
        await collect("valyu", SearchRequest("q"), ctx_for(Recorder(json_response(body, status))))
    assert info.value.kind is kind and info.value.message == f"Valyu API error ({status}): Request could not be served"


async def test_end_to_end_against_the_fake() -> None:
    with FakeServer() as srv:
        async with httpx.AsyncClient() as client:
            _, response = await collect(
                "valyu", SearchRequest("python asyncio", recency="year"), fake_ctx("valyu", srv, client)
            )
            assert srv.last_request("/valyu/v1/search").json()["start_date"] == start_date("year")
            assert [s.url for s in response.sources] == [
                "https://docs.python.org/3/library/asyncio.html",
                "https://arxiv.org/abs/2401.00001",
            ]
            assert response.dropped_sources == 1 and response.request_id == "fake-valyu-tx-0001"
            assert response.sources[1].title == "Asynchronous programming with python asyncio: a study of event loops"
            srv.use("valyu", "partial")
            _, partial = await collect("valyu", SearchRequest("q"), fake_ctx("valyu", srv, client))
            assert partial.notes == ["Valyu: 1 data points were removed for too low max_price"]
            srv.use("valyu", "payment_required")
            with pytest.raises(ProviderError) as info:
                await collect("valyu", SearchRequest("q"), fake_ctx("valyu", srv, client))
            assert info.value.kind is ErrorKind.QUOTA
