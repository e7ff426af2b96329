"""Semantic Scholar provider: the request (query, limit, fields, recency, the optional key), papers as
sources (DOI, arXiv or S2 links, notes, authors), and the shared pool's 429.

Payloads: ``tests/fake_providers/data/semantic_scholar_search.json`` follows the paper search answers
recorded from api.semanticscholar.org in the semanticscholar Python package's VCR cassettes
(danielnsilva/semanticscholar ``tests/data/test_search_paper.yaml`` and
``test_search_paper_open_access_pdf.yaml``): the first paper is ``tests/data/Paper.json`` (Turing's
"Computing Machinery and Intelligence") cut to the fields requested here, the second keeps the
recorded paperId, title and openAccessPdf with its other fields written for the test. The 400 body
``{"error": "Unrecognized or unsupported fields: [unknown]"}`` is recorded in
``tests/data/test_bad_query_parameters.yaml``.
"""

from __future__ import annotations

import httpx
import pytest

from tests.fake_providers import FakeServer
from tests.fake_providers.fake_semantic_scholar import SHARED_POOL
from tests.fake_providers.server import load_data
from tests.helpers import Recorder, collect, fake_ctx, json_response, make_ctx, no_wait
from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import Metadata, SearchRequest
from websearch_tui.providers import semantic_scholar

PID = "semantic_scholar"
KEY = "s2-test-key-1234567890"


def ctx_for(rec: Recorder, key: str | None = None):
    return make_ctx(PID, rec, credentials={"api_key": key} if key else None)


async def test_keyless_request_sends_no_key_header() -> None:
    rec = Recorder(json_response({"total": 0, "offset": 0}))
    events, response = await collect(PID, SearchRequest("turing test", max_results=3, recency="month"), ctx_for(rec))
    (sent,) = rec.requests
    assert (sent.url.host, sent.url.path) == ("api.semanticscholar.org", "/graph/v1/paper/search")
    params = dict(sent.url.params)
    assert params["query"] == "turing test" and params["limit"] == "3"
    assert params["fields"] == semantic_scholar.FIELDS
    assert params["publicationDateOrYear"].endswith(":")
    assert "x-api-key" not in sent.headers
    assert response.sources == [] and next(e for e in events if isinstance(e, Metadata)).auth_mode == "keyless"


async def test_a_key_goes_in_x_api_key() -> None:
    rec = Recorder(json_response({"total": 0, "offset": 0}))
    await collect(PID, SearchRequest("q"), ctx_for(rec, KEY))
    assert rec.headers()["x-api-key"] == KEY and KEY not in str(rec.requests[0].url)


async def test_papers_link_their_doi_else_their_arxiv_page() -> None:
    rec = Recorder(json_response(load_data("semantic_scholar_search.json")))
    _, response = await collect(PID, SearchRequest("turing"), ctx_for(rec))
    turing, chatgpt = response.sources
    assert turing.url == "https://doi.org/10.1093/mind/lix.236.433"  # lower case: one spelling per DOI
    assert turing.author == "A. Turing" and turing.published_date == "1950-10-01T00:00:00Z"
    assert turing.snippet.startswith("The Philosophy of Artificial Intelligence · 1950 · cited by 9,754\n\nI propose")
    assert chatgpt.url == "https://arxiv.org/abs/2301.10035"
    assert chatgpt.snippet == "arXiv.org · 2023 · cited by 107 · open access: http://arxiv.org/pdf/2301.10035"


def test_a_paper_with_neither_links_its_page_and_one_without_any_link_is_dropped() -> None:
    rows = [{"title": "A", "url": "https://www.semanticscholar.org/paper/abc"}, {"title": "B"}]
    sources = semantic_scholar.parse_results({"data": rows})
    assert [s.url for s in sources] == ["https://www.semanticscholar.org/paper/abc"] and sources.dropped == 1


@pytest.mark.parametrize(
    ("status", "body", "kind", "message"),
    [
        (
            400,
            {"error": "Unrecognized or unsupported fields: [unknown]"},
            ErrorKind.BAD_REQUEST,
            "Semantic Scholar API error (400): Unrecognized or unsupported fields: [unknown]",
        ),
        (
            429,
            {"message": SHARED_POOL, "code": "429"},
            ErrorKind.RATE_LIMIT,
            f"Semantic Scholar API error (429): {SHARED_POOL}",
        ),
    ],
)
async def test_errors_carry_s2_s_words(status: int, body: dict[str, str], kind: ErrorKind, message: str) -> None:
    rec = Recorder(json_response(body, status=status))
    with pytest.raises(ProviderError) as info:
        await collect(PID, SearchRequest("q"), make_ctx(PID, rec, sleep=no_wait))
    assert info.value.kind is kind and info.value.message == message


async def test_fake_server_round_trip_with_the_key() -> None:
    with FakeServer() as srv:
        async with httpx.AsyncClient() as client:
            _, response = await collect(PID, SearchRequest("turing", max_results=1), fake_ctx(PID, srv, client))
        (sent,) = srv.requests_to("/semantic_scholar/graph/v1/paper/search")
    assert [s.url for s in response.sources] == ["https://doi.org/10.1093/mind/lix.236.433"]
    assert sent.header("x-api-key") == "fake-semantic-scholar-key"
