"""Ollama web search provider: request body (max_results 1-10), results, error shapes, the fake.

The recorded payload is the response example of Ollama's web search docs
(https://docs.ollama.com/capabilities/web-search, "Response" of the cURL example), its three results
with their content cut.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.fake_providers import FakeServer
from tests.helpers import Recorder, collect, fake_ctx, json_response, make_ctx, no_wait
from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import Metadata, SearchRequest, SourcesFound
from websearch_tui.providers.base import ProviderContext

KEY = "ollama-test-secret-key"
DOCS_ANSWER = {
    "results": [
        {"title": "Ollama", "url": "https://ollama.com/", "content": "Cloud models are now available..."},
        {
            "title": "What is Ollama? Introduction to the AI model management tool",
            "url": "https://www.hostinger.com/tutorials/what-is-ollama",
            "content": "Ariffud M. 6min Read...",
        },
        {
            "title": "Ollama Explained: Transforming AI Accessibility and Language ...",
            "url": "https://www.geeksforgeeks.org/artificial-intelligence/ollama-explained-transforming-ai-accessibility-and-language-processing/",
            "content": "Data Science Data Science Projects Data Analysis...",
        },
    ]
}


def ctx_for(rec: Any) -> ProviderContext:
    return make_ctx("ollama", rec, credentials={"api_key": KEY}, sleep=no_wait)


@pytest.mark.parametrize(("max_results", "num", "sent"), [(10, None, 10), (1, None, 1), (5, 30, 10), (3, None, 3)])
async def test_request_shape_and_count(max_results: int, num: int | None, sent: int) -> None:
    rec = Recorder(json_response(DOCS_ANSWER))
    await collect(
        "ollama",
        SearchRequest("what is ollama?", max_results=max_results, num_search_results=num, recency="week"),
        ctx_for(rec),
    )
    (request,) = rec.requests
    assert request.method == "POST" and str(request.url) == "https://ollama.com/api/web_search"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert rec.body() == {"query": "what is ollama?", "max_results": sent}  # no date filter to send


async def test_docs_answer_maps_to_sources() -> None:
    events, response = await collect(
        "ollama", SearchRequest("what is ollama?"), ctx_for(Recorder(json_response(DOCS_ANSWER)))
    )
    assert [type(e) for e in events] == [Metadata, SourcesFound]
    assert [(s.url, s.title, s.snippet) for s in response.sources][:1] == [
        ("https://ollama.com/", "Ollama", "Cloud models are now available...")
    ]
    assert len(response.sources) == 3 and response.answer is None


async def test_long_content_is_cut_to_a_snippet() -> None:
    body = {"results": [{"title": "t", "url": "https://a.example/", "content": "word " * 2000}]}
    _, response = await collect("ollama", SearchRequest("q"), ctx_for(Recorder(json_response(body))))
    assert response.sources[0].snippet and len(response.sources[0].snippet) <= 1001


@pytest.mark.parametrize(
    ("status", "kind"), [(400, ErrorKind.BAD_REQUEST), (429, ErrorKind.RATE_LIMIT), (500, ErrorKind.SERVER)]
)
async def test_error_bodies(status: int, kind: ErrorKind) -> None:
    with pytest.raises(ProviderError) as info:
        await collect(
            "ollama", SearchRequest("q"), ctx_for(Recorder(json_response({"error": "something went wrong"}, status)))
        )
    assert info.value.kind is kind and info.value.message == f"Ollama API error ({status}): something went wrong"


async def test_end_to_end_against_the_fake() -> None:
    with FakeServer() as srv:
        async with httpx.AsyncClient() as client:
            _, response = await collect("ollama", SearchRequest("python asyncio"), fake_ctx("ollama", srv, client))
            assert srv.last_request("/ollama/api/web_search").json() == {"query": "python asyncio", "max_results": 10}
            assert len(response.sources) == 3 and response.dropped_sources == 1
            srv.use("ollama", "empty")
            _, empty = await collect("ollama", SearchRequest("q"), fake_ctx("ollama", srv, client))
            assert not empty.is_renderable()
            with pytest.raises(ProviderError) as info:
                await collect("ollama", SearchRequest("q"), fake_ctx("ollama", srv, client, key="wrong"))
            assert info.value.kind is ErrorKind.AUTH
