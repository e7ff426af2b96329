"""Hacker News provider: the Algolia search request (tags, page size, recency, date order), stories
and comments as sources with points, comments and their discussion, and Algolia's error body.

Payloads: ``tests/fake_providers/data/hackernews_search.json`` holds two hits as the HN Search API
(https://hn.algolia.com/api) returns them: story 1 ("Y Combinator", https://news.ycombinator.com/item?id=1)
and comment 30826999, a hit recorded from ``/api/v1/search`` and published in a public API README,
without its ``_highlightResult``; the envelope's fields are the API's (``nbHits``, ``page``,
``hitsPerPage``, ``processingTimeMS``).
"""

from __future__ import annotations

import httpx
import pytest

from tests.fake_providers import FakeServer
from tests.fake_providers.server import load_data
from tests.helpers import Recorder, collect, fake_ctx, json_response, make_ctx
from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import SearchRequest
from websearch_tui.core.specs import ProviderSettings
from websearch_tui.providers import hackernews

PID = "hackernews"
NO_HITS = {"hits": [], "nbHits": 0, "page": 0}


def ctx_for(rec: Recorder, **options: object):
    return make_ctx(PID, rec, settings=ProviderSettings(options=options))


async def test_request_searches_stories_and_comments_by_relevance() -> None:
    rec = Recorder(json_response(NO_HITS))
    await collect(PID, SearchRequest("rust async", max_results=6), ctx_for(rec))
    (sent,) = rec.requests
    assert (sent.url.host, sent.url.path) == ("hn.algolia.com", "/api/v1/search")
    assert dict(sent.url.params) == {"query": "rust async", "tags": "(story,comment)", "hitsPerPage": "6"}


async def test_date_order_uses_search_by_date() -> None:
    rec = Recorder(json_response(NO_HITS))
    await collect(PID, SearchRequest("q"), ctx_for(rec, sort="date"))
    assert rec.requests[0].url.path == "/api/v1/search_by_date"


def test_recency_filters_on_creation_time() -> None:
    params = hackernews.build_params(SearchRequest("q", recency="day"), now=1_800_000_000)
    assert params["numericFilters"] == "created_at_i>=1799913600"


async def test_stories_link_out_and_comments_link_their_discussion() -> None:
    rec = Recorder(json_response(load_data("hackernews_search.json", "q")))
    _, response = await collect(PID, SearchRequest("q"), ctx_for(rec))
    story, comment = response.sources
    assert (story.url, story.title, story.author) == ("http://ycombinator.com", "Y Combinator", "pg")
    assert story.snippet == "57 points · 15 comments · discussion: https://news.ycombinator.com/item?id=1"
    assert story.published_date == "2006-10-09T18:21:51Z"
    assert comment.url == "https://news.ycombinator.com/item?id=30826999"
    assert comment.title == "Comment on: I hate what video games have become"
    assert comment.snippet.endswith("at other times a freakin' slog through boring ceremony gated by overt classism.")
    assert comment.snippet.startswith("on https://ivanca.tumblr.com/post/679923341152468992/")


def test_an_ask_hn_story_without_a_link_links_its_discussion() -> None:
    hit = {
        "objectID": "121003",
        "title": "Ask HN: The Arc Effect",
        "url": None,
        "story_text": "<p>Why?</p>",
        "points": 3,
    }
    (source,) = hackernews.parse_results({"hits": [hit]})
    assert source.url == "https://news.ycombinator.com/item?id=121003"
    assert source.snippet == "3 points\n\nWhy?"


async def test_an_algolia_error_body_is_worded() -> None:
    rec = Recorder(json_response({"message": "Invalid value for hitsPerPage: -1", "status": 400}, status=400))
    with pytest.raises(ProviderError) as info:
        await collect(PID, SearchRequest("q"), ctx_for(rec))
    assert info.value.kind is ErrorKind.BAD_REQUEST
    assert info.value.message == "Hacker News search error (400): Invalid value for hitsPerPage: -1"


async def test_fake_server_round_trip() -> None:
    with FakeServer() as srv:
        async with httpx.AsyncClient() as client:
            _, response = await collect(PID, SearchRequest("yc", max_results=1), fake_ctx(PID, srv, client))
    assert [s.url for s in response.sources] == ["http://ycombinator.com"]
