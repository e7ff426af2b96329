"""Serper provider: request body (num, tbs, gl/hl), organic results, the answer box as answer and
citation, the knowledge graph as a note, "people also ask" and related searches, error shapes, the fake.

The recorded payload is the public answer printed in LangChain's Serper notebook
(langchain-ai/langchain, ``docs/docs/integrations/tools/google_serper.ipynb``, ``search.results("Apple
Inc.")``), cut to two organic results, two questions and three related searches; the answer box is
the one Serper documents (``answerBox`` with ``title``, ``link``, ``snippet``).
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.fake_providers import FakeServer
from tests.helpers import Recorder, collect, fake_ctx, json_response, make_ctx, no_wait
from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import (
    AnswerDelta,
    CitationsFound,
    Metadata,
    Note,
    RelatedQuestions,
    SearchRequest,
    SourcesFound,
)
from websearch_tui.core.specs import ProviderSettings
from websearch_tui.providers.base import ProviderContext

KEY = "serper-test-secret-key"
APPLE = {
    "searchParameters": {"q": "Apple Inc.", "gl": "us", "hl": "en", "num": 10, "type": "search"},
    "knowledgeGraph": {
        "title": "Apple",
        "type": "Technology company",
        "website": "http://www.apple.com/",
        "description": "Apple Inc. is an American multinational technology company headquartered in Cupertino, California.",
        "descriptionSource": "Wikipedia",
        "descriptionLink": "https://en.wikipedia.org/wiki/Apple_Inc.",
        "attributes": {"CEO": "Tim Cook (Aug 24, 2011–)", "Headquarters": "Cupertino, CA"},
    },
    "organic": [
        {
            "title": "Apple",
            "link": "https://www.apple.com/",
            "snippet": "Discover the innovative world of Apple and shop everything iPhone, iPad, Apple Watch, Mac, and Apple TV, plus explore accessories, entertainment, ...",
            "sitelinks": [{"title": "Support", "link": "https://support.apple.com/"}],
            "position": 1,
        },
        {
            "title": "Apple Inc. - Wikipedia",
            "link": "https://en.wikipedia.org/wiki/Apple_Inc.",
            "snippet": "Apple Inc. is an American multinational technology company headquartered in Cupertino, California. Apple is the world's largest technology company by revenue, ...",
            "attributes": {"Products": "AirPods; Apple Watch; iPad; iPhone; Mac; Full list"},
            "position": 2,
        },
    ],
    "peopleAlsoAsk": [
        {
            "question": "What does Apple Inc do?",
            "snippet": "Apple Inc. (Apple) designs, manufactures and markets smartphones, personal\ncomputers, tablets, wearables and accessories and sells a range of related\nservices.",
            "title": "AAPL.O - | Stock Price & Latest News - Reuters",
            "link": "https://www.reuters.com/markets/companies/AAPL.O/",
        },
        {
            "question": "Who runs Apple Inc?",
            "title": "Tim Cook - Wikipedia",
            "link": "https://en.wikipedia.org/wiki/Tim_Cook",
        },
    ],
    "relatedSearches": [
        {"query": "Who invented the iPhone"},
        {"query": "Apple iPhone"},
        {"query": "What does Apple Inc own"},
    ],
}
ANSWER_BOX = {
    "title": "Apple Inc. - Wikipedia",
    "link": "https://en.wikipedia.org/wiki/Apple_Inc.",
    "snippet": "Apple Inc. is an American multinational technology company headquartered in Cupertino, California.",
}


def ctx_for(rec: Any, **options: Any) -> ProviderContext:
    return make_ctx(
        "serper", rec, settings=ProviderSettings(options=options), credentials={"api_key": KEY}, sleep=no_wait
    )


async def test_request_shape() -> None:
    rec = Recorder(json_response(APPLE))
    await collect("serper", SearchRequest("Apple Inc.", max_results=7), ctx_for(rec, gl="de", hl="de"))
    (request,) = rec.requests
    assert request.method == "POST" and str(request.url) == "https://google.serper.dev/search"
    assert request.headers["x-api-key"] == KEY and "authorization" not in request.headers
    assert rec.body() == {"q": "Apple Inc.", "num": 7, "gl": "de", "hl": "de"}


@pytest.mark.parametrize(
    ("recency", "tbs"), [("day", "qdr:d"), ("week", "qdr:w"), ("month", "qdr:m"), ("year", "qdr:y")]
)
async def test_recency_is_googles_tbs(recency: str, tbs: str) -> None:
    rec = Recorder(json_response(APPLE))
    await collect("serper", SearchRequest("q", recency=recency, num_search_results=30), ctx_for(rec))
    assert rec.body() == {"q": "q", "num": 30, "tbs": tbs}


async def test_recorded_answer_maps_to_sources_note_and_related_questions() -> None:
    events, response = await collect("serper", SearchRequest("Apple Inc."), ctx_for(Recorder(json_response(APPLE))))
    assert [type(e) for e in events] == [Metadata, Note, SourcesFound, RelatedQuestions]
    assert [(s.url, s.title) for s in response.sources] == [
        ("https://www.apple.com/", "Apple"),
        ("https://en.wikipedia.org/wiki/Apple_Inc.", "Apple Inc. - Wikipedia"),
    ]
    assert response.notes == [
        "Knowledge graph: Apple (Technology company): Apple Inc. is an American multinational technology "
        "company headquartered in Cupertino, California. (Wikipedia)"
    ]
    assert response.related_questions == [
        "What does Apple Inc do?",
        "Who runs Apple Inc?",
        "Who invented the iPhone",
        "Apple iPhone",
        "What does Apple Inc own",
    ]
    assert response.answer is None and response.citations == []


async def test_answer_box_is_the_answer_and_its_link_a_citation_kept_in_the_sources() -> None:
    body = {**APPLE, "answerBox": ANSWER_BOX}
    events, response = await collect(
        "serper", SearchRequest("q", max_results=1), ctx_for(Recorder(json_response(body)))
    )
    assert [type(e) for e in events] == [Metadata, Note, SourcesFound, AnswerDelta, CitationsFound, RelatedQuestions]
    assert response.answer == ANSWER_BOX["snippet"]
    (citation,) = response.citations
    assert (citation.url, citation.title, citation.cited_text) == (
        ANSWER_BOX["link"],
        ANSWER_BOX["title"],
        ANSWER_BOX["snippet"],
    )
    # max_results 1, but the cited Wikipedia result stays listed
    assert [s.url for s in response.sources] == ["https://www.apple.com/", "https://en.wikipedia.org/wiki/Apple_Inc."]
    short = {"organic": [], "answerBox": {"answer": "1 April 1976", "title": "Founded"}}
    _, response = await collect("serper", SearchRequest("q"), ctx_for(Recorder(json_response(short))))
    assert response.answer == "1 April 1976" and response.citations == []


async def test_a_body_with_only_echoes_is_unrecognised() -> None:
    body = {"searchParameters": {"q": "q"}, "credits": 1}
    with pytest.raises(ProviderError) as info:
        await collect("serper", SearchRequest("q"), ctx_for(Recorder(json_response(body))))
    assert info.value.kind is ErrorKind.UNRECOGNISED


@pytest.mark.parametrize(
    ("status", "message", "kind"),
    [
        (400, "Not enough credits", ErrorKind.QUOTA),
        (400, "Query not allowed", ErrorKind.BAD_REQUEST),
        (429, "Too many requests", ErrorKind.RATE_LIMIT),
    ],
)
async def test_error_bodies(status: int, message: str, kind: ErrorKind) -> None:
    body = {"message": message, "statusCode": status}
    with pytest.raises(ProviderError) as info:
        await collect("serper", SearchRequest("q"), ctx_for(Recorder(json_response(body, status))))
    assert info.value.kind is kind and info.value.message == f"Serper API error ({status}): {message}"


async def test_end_to_end_against_the_fake() -> None:
    with FakeServer() as srv:
        async with httpx.AsyncClient() as client:
            _, response = await collect(
                "serper", SearchRequest("python asyncio", recency="month"), fake_ctx("serper", srv, client)
            )
            assert srv.last_request("/serper/search").json() == {"q": "python asyncio", "num": 10, "tbs": "qdr:m"}
            assert len(response.sources) == 3 and response.dropped_sources == 1
            assert response.sources[1].title == "Async IO in Python: A Complete Walkthrough"
            assert (
                response.sources[1].snippet
                == "This tutorial will give you a firm grasp of Python's approach to async IO."
            )
            assert response.answer and response.citations[0].url == "https://docs.python.org/3/library/asyncio.html"
            assert response.related_questions[-2:] == ["python asyncio example", "asyncio vs threading"]
            srv.use("serper", "organic_only")
            _, plain = await collect("serper", SearchRequest("q"), fake_ctx("serper", srv, client))
            assert plain.answer is None and plain.notes == [] and plain.related_questions == []
            srv.use("serper", "no_credits")
            with pytest.raises(ProviderError) as info:
                await collect("serper", SearchRequest("q"), fake_ctx("serper", srv, client, sleep=no_wait))
            assert info.value.kind is ErrorKind.QUOTA
