"""arXiv provider: the query (words in all fields, recency as a submittedDate range), Atom entries as
sources, arXiv's error feed, and untrusted XML (no document type declaration, so no entity expands;
JSON and HTML refused).

Payloads: ``tests/fake_providers/data/arxiv_query.xml`` is the arXiv API user manual's "typical Atom
response" (arXiv/arxiv-docs ``source/help/api/user-manual.md`` §4.1: entry hep-ex/0307015v1, its
abstract shortened) plus a second entry for cond-mat/0702661v2 with the id and dates the manual's
§3.3.2.1 gives and the ``arxiv:doi``/``arxiv:journal_ref`` elements in the manual's §3.3.2.4 form
(their values written for the test). The error feed is the manual's §3.4 example.
"""

from __future__ import annotations

from datetime import datetime, timezone

import httpx
import pytest

from tests.fake_providers import FakeServer
from tests.fake_providers.fake_arxiv import error_feed
from tests.fake_providers.server import load_text
from tests.helpers import Recorder, collect, fake_ctx, json_response, make_ctx, no_wait
from websearch_tui.core.catalogue import get_spec
from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import SearchRequest
from websearch_tui.core.specs import ProviderSettings
from websearch_tui.providers import arxiv

PID = "arxiv"
ATOM = {"Content-Type": "application/atom+xml; charset=utf-8"}
EMPTY_FEED = '<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom"></feed>'


def atom(text: str, status: int = 200) -> httpx.Response:
    return httpx.Response(status, headers=ATOM, content=text.encode("utf-8"))


def ctx_for(rec: Recorder, options: dict[str, object] | None = None):
    return make_ctx(PID, rec, settings=ProviderSettings(options=options or {}))


async def test_the_query_s_words_are_searched_in_all_fields_and_its_syntax_is_not_passed_through() -> None:
    rec = Recorder(atom(EMPTY_FEED))
    await collect(
        PID, SearchRequest('ti:"Dark" (matter) OR au:x', max_results=4), ctx_for(rec, {"contact": "me@example.org"})
    )
    (sent,) = rec.requests
    assert (sent.url.host, sent.url.path) == ("export.arxiv.org", "/api/query")
    assert dict(sent.url.params) == {
        "search_query": "all:ti AND all:dark AND all:matter AND all:or AND all:au AND all:x",
        "start": "0",
        "max_results": "4",
        "sortBy": "relevance",
    }
    assert sent.headers["user-agent"].endswith("(me@example.org)")


def test_recency_is_a_submitted_date_range_ending_now() -> None:
    now = datetime(2026, 12, 3, 7, 0, tzinfo=timezone.utc)
    params = arxiv.build_params(SearchRequest("dark matter", recency="week"), get_spec(PID), now)
    assert params["search_query"] == "all:dark AND all:matter AND submittedDate:[202611260700 TO 202612030700]"


async def test_a_query_without_a_word_is_a_config_error_and_sends_nothing() -> None:
    rec = Recorder()
    with pytest.raises(ProviderError) as info:
        await collect(PID, SearchRequest("?!"), ctx_for(rec))
    assert info.value.kind is ErrorKind.CONFIG and "no word" in info.value.message
    assert rec.requests == []


async def test_entries_become_sources_without_their_version() -> None:
    rec = Recorder(atom(load_text("arxiv_query.xml")))
    _, response = await collect(PID, SearchRequest("electron"), ctx_for(rec))
    first, second = response.sources
    assert first.url == "https://arxiv.org/abs/hep-ex/0307015"
    assert first.title == "Multi-Electron Production at High Transverse Momenta in ep Collisions at HERA"
    assert first.author == "H1 Collaboration" and first.published_date == "2003-07-07T17:46:39Z"
    assert first.snippet.startswith(
        "arXiv:hep-ex/0307015 · hep-ex · Eur.Phys.J. C31 (2003) 17-29\n\nMulti-electron production is studied at"
        " high electron transverse momentum in positron- and electron-proton collisions"
    )
    assert second.url == "https://arxiv.org/abs/cond-mat/0702661"
    assert second.author == "P. S. Shternin, D. G. Yakovlev"
    assert "doi:10.1103/physrevd.75.103004" in second.snippet


@pytest.mark.parametrize("status", [200, 400])
async def test_the_error_feed_is_a_bad_request_with_its_summary(status: int) -> None:
    rec = Recorder(atom(error_feed("incorrect id format for 1234.12345"), status))
    with pytest.raises(ProviderError) as info:
        await collect(PID, SearchRequest("q"), ctx_for(rec))
    assert info.value.kind is ErrorKind.BAD_REQUEST
    assert info.value.message == f"arXiv API error ({status}): incorrect id format for 1234.12345"


async def test_a_document_type_declaration_is_refused_before_any_entity_expands() -> None:
    laughs = "".join(f'<!ENTITY l{i} "{f"&l{i - 1};" * 10 if i else "lol"}">' for i in range(10))
    bomb = f'<?xml version="1.0"?><!DOCTYPE feed [{laughs}]><feed xmlns="http://www.w3.org/2005/Atom"><title>&l9;</title></feed>'
    rec = Recorder(atom(bomb))
    with pytest.raises(ProviderError) as info:
        await collect(PID, SearchRequest("q"), ctx_for(rec))
    assert info.value.kind is ErrorKind.PROTOCOL and "document type declaration" in info.value.message


@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        (json_response({"results": []}), ErrorKind.UNRECOGNISED),
        (httpx.Response(200, headers={"Content-Type": "text/html"}, content=b"<html>down</html>"), ErrorKind.PROTOCOL),
        (atom("<feed>not atom</feed>"), ErrorKind.PROTOCOL),
        (atom("<feed xmlns='http://www.w3.org/2005/Atom'><entry>"), ErrorKind.PROTOCOL),
    ],
)
async def test_anything_but_an_atom_feed_is_an_error(reply: httpx.Response, kind: ErrorKind) -> None:
    with pytest.raises(ProviderError) as info:
        await collect(PID, SearchRequest("q"), ctx_for(Recorder(reply)))
    assert info.value.kind is kind and "arXiv" in info.value.message


async def test_fake_server_round_trip() -> None:
    with FakeServer() as srv:
        async with httpx.AsyncClient() as client:
            _, response = await collect(
                PID, SearchRequest("electron", max_results=1), fake_ctx(PID, srv, client, sleep=no_wait)
            )
    assert [s.url for s in response.sources] == ["https://arxiv.org/abs/hep-ex/0307015"]
