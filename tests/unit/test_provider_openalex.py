"""OpenAlex provider: the request (search, page size, recency filter, contact as mailto, the optional
key), works as sources (DOI links, notes, authors, the abstract rebuilt from its inverted index),
errors, and the key kept out of httpx's log.

Payloads: ``tests/fake_providers/data/openalex_works.json`` holds two works as the OpenAlex
documentation shows them (W2741809807, "The state of OA", the work object example of
https://developers.openalex.org/api-reference/works and ourresearch/openalex-docs
``api-entities/works/work-object``; W1775749144 from its "Get lists of works" example), trimmed to
the fields this provider selects; the second work's authors and count were written for the test. The
error body ``{"error", "message"}`` is OpenAlex's documented shape.
"""

from __future__ import annotations

import logging

import httpx
import pytest

from tests.fake_providers import FakeServer
from tests.fake_providers.server import load_data
from tests.helpers import Recorder, collect, fake_ctx, json_response, make_ctx, no_wait
from websearch_tui.core.errors import ErrorKind, ProviderError, register_secret
from websearch_tui.core.models import Metadata, SearchRequest
from websearch_tui.core.specs import ProviderSettings
from websearch_tui.providers import openalex

PID = "openalex"
KEY = "openalex-test-key-1234567890"
EMPTY = {"meta": {"count": 0}, "results": []}


def ctx_for(rec: Recorder, *, key: str | None = None, options: dict[str, object] | None = None):
    settings = ProviderSettings(options=options or {})
    return make_ctx(PID, rec, settings=settings, credentials={"api_key": key} if key else None)


async def test_keyless_request_names_the_search_the_fields_and_the_contact() -> None:
    rec = Recorder(json_response(EMPTY))
    request = SearchRequest("open access citation advantage", max_results=7, recency="year")
    await collect(PID, request, ctx_for(rec, options={"contact": "me@example.org"}))
    (sent,) = rec.requests
    assert (sent.url.host, sent.url.path) == ("api.openalex.org", "/works")
    params = dict(sent.url.params)
    assert params["search"] == "open access citation advantage" and params["per_page"] == "7"
    assert params["select"] == openalex.FIELDS and params["mailto"] == "me@example.org"
    assert params["filter"].startswith("from_publication_date:20")
    assert "api_key" not in params
    assert sent.headers["user-agent"].endswith("(me@example.org)")


async def test_a_url_contact_is_not_sent_as_mailto_and_a_key_is_sent_as_api_key() -> None:
    rec = Recorder(json_response(EMPTY))
    events, _ = await collect(PID, SearchRequest("q"), ctx_for(rec, key=KEY, options={"contact": "https://me.example"}))
    assert "mailto" not in rec.params() and rec.params()["api_key"] == KEY
    assert next(e for e in events if isinstance(e, Metadata)).auth_mode == "api_key"


async def test_works_become_sources_with_doi_links_notes_authors_and_abstracts() -> None:
    rec = Recorder(json_response(load_data("openalex_works.json")))
    events, response = await collect(PID, SearchRequest("q"), ctx_for(rec))
    first, second = response.sources
    assert first.url == "https://doi.org/10.7717/peerj.4375"
    assert first.title.startswith("The state of OA")
    assert first.author == "Heather Piwowar, Jason Priem, Vincent Larivière et al."
    assert first.published_date == "2018-02-13T00:00:00Z"
    assert first.snippet == (
        "PeerJ · 2018 · cited by 356 · open access: https://peerj.com/articles/4375.pdf\n\n"
        "Despite growing interest in Open Access in publishing"
    )
    assert second.url == "https://doi.org/10.1016/s0021-9258(19)52451-6"
    assert second.snippet == "Journal of Biological Chemistry · 1951 · cited by 323,431"  # its OA copy is the link
    assert next(e for e in events if isinstance(e, Metadata)).auth_mode == "keyless"


def test_a_work_without_a_doi_links_its_landing_page_else_its_openalex_page() -> None:
    rows = [
        {
            "id": "https://openalex.org/W1",
            "display_name": "A",
            "primary_location": {"landing_page_url": "https://a.example/1"},
        },
        {"id": "https://openalex.org/W2", "display_name": "B"},
        {"display_name": "no link at all"},
    ]
    sources = openalex.parse_results({"results": rows})
    assert [s.url for s in sources] == ["https://a.example/1", "https://openalex.org/W2"] and sources.dropped == 1


def test_the_abstract_is_rebuilt_in_order_and_a_hostile_index_stays_small() -> None:
    assert openalex.abstract({"world": [1], "Hello": [0], "again": [3], "and": [2]}) == "Hello world and again"
    hostile = {"far": [10**12, -1, True, "3"], "near": [0]}
    assert openalex.abstract(hostile) == "near"
    assert openalex.abstract(None) is None


async def test_an_error_body_is_worded_with_openalex_s_error_and_message() -> None:
    body = {"error": "Invalid query parameters error.", "message": "per_page is '500'; it must be from 1 to 200"}
    rec = Recorder(json_response(body, status=400))
    with pytest.raises(ProviderError) as info:
        await collect(PID, SearchRequest("q"), ctx_for(rec))
    assert info.value.kind is ErrorKind.BAD_REQUEST
    assert info.value.message == (
        "OpenAlex API error (400): Invalid query parameters error.: per_page is '500'; it must be from 1 to 200"
    )


async def test_the_key_in_the_url_never_reaches_a_log_record(caplog: pytest.LogCaptureFixture) -> None:
    register_secret(KEY)
    caplog.set_level(logging.INFO, logger="httpx")
    with FakeServer() as srv:
        srv.fail(PID, 429, echo_key=False)
        async with httpx.AsyncClient() as client:
            with pytest.raises(ProviderError) as info:
                await collect(PID, SearchRequest("q"), fake_ctx(PID, srv, client, key=KEY, sleep=no_wait))
    assert info.value.kind is ErrorKind.RATE_LIMIT
    assert "HTTP Request: GET" in caplog.text and "api_key=" in caplog.text
    assert KEY not in caplog.text


async def test_fake_server_round_trip_sends_the_contact_and_the_key() -> None:
    with FakeServer() as srv:
        async with httpx.AsyncClient() as client:
            _, response = await collect(PID, SearchRequest("oa", max_results=1), fake_ctx(PID, srv, client))
        (sent,) = srv.requests_to("/openalex/works")
    assert [s.url for s in response.sources] == ["https://doi.org/10.7717/peerj.4375"]
    assert sent.query["mailto"] == "fake-tests@example.org" and sent.query["api_key"] == "fake-openalex-key"


async def test_a_key_that_is_not_ascii_is_a_config_error_and_sends_nothing() -> None:
    rec = Recorder(json_response(EMPTY))
    with pytest.raises(ProviderError) as info:
        await collect(PID, SearchRequest("q"), ctx_for(rec, key="oa-\u00a0pasted-key"))
    assert info.value.kind is ErrorKind.CONFIG and "not plain ASCII" in info.value.message
    assert rec.requests == []
