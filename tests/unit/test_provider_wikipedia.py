"""Wikipedia provider: the language (option, locale, default), the MediaWiki search request with a
User-Agent naming the contact, hits as article sources, and MediaWiki's error object sent with 200.

Payloads: ``tests/fake_providers/data/wikipedia_search.json`` is the response example of
https://www.mediawiki.org/wiki/API:Search ("Nelson Mandela", its first two hits) in JSON format
version 2. Error objects ``{"error": {"code", "info"}}`` follow
https://www.mediawiki.org/wiki/API:Errors_and_warnings (``nosrsearch``'s text is MediaWiki's own).
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
from websearch_tui.providers import wikipedia

PID = "wikipedia"
NO_HITS = {"batchcomplete": True, "query": {"searchinfo": {"totalhits": 0}, "search": []}}


def ctx_for(rec: Recorder, **options: object):
    return make_ctx(PID, rec, settings=ProviderSettings(options=options))


@pytest.mark.parametrize(
    ("option", "environ", "code"),
    [
        ("DE", {"LANG": "fr_FR.UTF-8"}, "de"),
        (None, {"LC_ALL": "", "LC_MESSAGES": "pt_BR.UTF-8", "LANG": "fr_FR"}, "pt"),
        (None, {"LANG": "C.UTF-8"}, "en"),
        (None, {}, "en"),
        ("zh-yue", {}, "zh-yue"),
    ],
)
def test_the_language_comes_from_the_option_else_the_locale(
    option: str | None, environ: dict[str, str], code: str
) -> None:
    ctx = ctx_for(Recorder(), **({"language": option} if option else {}))
    assert wikipedia.language(ctx, environ) == code


async def test_a_language_that_is_not_a_code_is_a_config_error_and_sends_nothing() -> None:
    rec = Recorder()
    with pytest.raises(ProviderError) as info:
        await collect(PID, SearchRequest("q"), ctx_for(rec, language="en.evil.example/"))
    assert info.value.kind is ErrorKind.CONFIG and "[providers.wikipedia] language" in info.value.message
    assert rec.requests == []


async def test_the_request_goes_to_that_language_s_wikipedia_with_the_contact() -> None:
    rec = Recorder(json_response(NO_HITS))
    await collect(
        PID, SearchRequest("Nelson Mandela", max_results=5), ctx_for(rec, language="de", contact="me@example.org")
    )
    (sent,) = rec.requests
    assert (sent.url.host, sent.url.path) == ("de.wikipedia.org", "/w/api.php")
    assert dict(sent.url.params) == {
        "action": "query",
        "list": "search",
        "srsearch": "Nelson Mandela",
        "srlimit": "5",
        "srprop": "snippet|timestamp|wordcount",
        "format": "json",
        "formatversion": "2",
        "utf8": "1",
    }
    assert sent.headers["user-agent"].startswith("websearch-tui/") and sent.headers["user-agent"].endswith(
        "(me@example.org)"
    )


async def test_hits_become_article_sources_with_plain_snippets() -> None:
    rec = Recorder(json_response(load_data("wikipedia_search.json")))
    _, response = await collect(PID, SearchRequest("Nelson Mandela"), ctx_for(rec, language="en"))
    mandela, death = response.sources
    assert mandela.url == "https://en.wikipedia.org/wiki/Nelson_Mandela"
    assert mandela.snippet.startswith("Wikipedia (en) · 23,664 words\n\nNelson Rolihlahla Mandela (/mænˈdɛlə/")
    assert "<span" not in mandela.snippet and mandela.published_date == "2018-07-23T07:59:43Z"
    assert death.url == "https://en.wikipedia.org/wiki/Death_of_Nelson_Mandela"


def test_article_urls_encode_what_a_title_may_hold() -> None:
    assert wikipedia.article_url("C++ (programming language)", "en") == (
        "https://en.wikipedia.org/wiki/C%2B%2B_(programming_language)"
    )
    assert (
        wikipedia.article_url("Zürich/Altstadt?x", "de") == "https://de.wikipedia.org/wiki/Z%C3%BCrich%2FAltstadt%3Fx"
    )


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        ({"code": "nosrsearch", "info": 'The "srsearch" parameter must be set.'}, ErrorKind.BAD_REQUEST),
        ({"code": "ratelimited", "info": "You've exceeded your rate limit."}, ErrorKind.RATE_LIMIT),
    ],
)
async def test_an_error_object_sent_with_200_is_an_error(error: dict[str, str], kind: ErrorKind) -> None:
    rec = Recorder(json_response({"error": error, "servedby": "mw1"}))
    with pytest.raises(ProviderError) as info:
        await collect(PID, SearchRequest("q"), ctx_for(rec))
    assert info.value.kind is kind
    assert info.value.message == f"Wikipedia API error (200): {error['code']}: {error['info']}"


async def test_a_query_echo_that_is_not_an_object_is_another_api_s_answer() -> None:
    rec = Recorder(json_response({"query": "Nelson Mandela", "entries": []}))
    with pytest.raises(ProviderError) as info:
        await collect(PID, SearchRequest("q"), ctx_for(rec))
    assert info.value.kind is ErrorKind.UNRECOGNISED and "keys: query, entries" in info.value.message


async def test_fake_server_round_trip() -> None:
    with FakeServer() as srv:
        async with httpx.AsyncClient() as client:
            _, response = await collect(PID, SearchRequest("mandela", max_results=1), fake_ctx(PID, srv, client))
    assert [s.url for s in response.sources] == ["https://en.wikipedia.org/wiki/Nelson_Mandela"]
