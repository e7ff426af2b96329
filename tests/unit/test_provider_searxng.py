"""SearXNG provider: request, bangs, auth rules, answers/suggestions, failure shapes, real payload."""

from __future__ import annotations

import base64
import json
from typing import Any

import httpx
import pytest

from tests.helpers import Recorder, collect, json_response, make_ctx, shared_fixture
from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import AnswerDelta, Metadata, SearchRequest
from websearch_tui.core.specs import ProviderSettings
from websearch_tui.providers import searxng

BASE = "http://localhost:8888"
BODY = {
    "query": "q",
    "number_of_results": 0,
    "results": [
        {
            "url": "https://a.example/",
            "title": "A &amp; B",
            "content": "  text  ",
            "publishedDate": "2024-07-25T00:00:00",
        },
        {"url": "https://b.example/", "title": "", "content": None, "publishedDate": ""},
        {"url": "ftp://c.example/", "title": "bad scheme"},
    ],
    "answers": [],
    "suggestions": ["more q", "other q"],
    "unresponsive_engines": [],
}


def ctx_for(
    rec: Recorder, *, credentials: dict[str, str] | None = None, options: dict[str, Any] | None = None, base: str = BASE
) -> Any:
    settings = ProviderSettings(base_url=base, options=options or {})
    return make_ctx("searxng", rec, settings=settings, credentials=credentials)


async def test_request_shape_keyless() -> None:
    rec = Recorder(json_response(BODY))
    events, response = await collect("searxng", SearchRequest("rust news", recency="year"), ctx_for(rec))
    (request,) = rec.requests
    assert request.method == "GET"
    assert str(request.url).startswith("http://localhost:8888/search?")
    assert dict(request.url.params) == {"q": "rust news", "format": "json", "pageno": "1", "time_range": "year"}
    assert request.headers["accept"] == "application/json"
    assert "authorization" not in request.headers
    assert events[0] == Metadata(auth_mode="keyless")
    assert response.notes == []


async def test_options_are_sent_and_base_prefix_kept() -> None:
    rec = Recorder(json_response(BODY))
    options = {"categories": "general,news", "language": "de", "engines": "google,bing", "safesearch": 0}
    await collect("searxng", SearchRequest("q"), ctx_for(rec, options=options, base="https://h.example/searx/"))
    request = rec.requests[0]
    assert request.url.path == "/searx/search"
    assert request.url.params["categories"] == "general,news"
    assert request.url.params["language"] == "de"
    assert request.url.params["engines"] == "google,bing"
    assert request.url.params["safesearch"] == "0"


@pytest.mark.parametrize(("recency", "sent"), [("day", "day"), ("week", "month"), ("month", "month"), (None, None)])
async def test_recency_mapping_and_week_widening_note(recency: str | None, sent: str | None) -> None:
    rec = Recorder(json_response(BODY))
    _, response = await collect("searxng", SearchRequest("q", recency=recency), ctx_for(rec))
    assert rec.params().get("time_range") == sent
    widened = "recency 'week' widened to 'month' by SearXNG (it has no one-week filter)."
    assert (widened in response.notes) == (recency == "week")


async def test_bangs_are_stripped_with_a_note() -> None:
    rec = Recorder(json_response(BODY))
    _, response = await collect("searxng", SearchRequest("!!g python  asyncio !!ddg"), ctx_for(rec))
    assert rec.params()["q"] == "python asyncio"
    assert any("!!g" in note and "!!ddg" in note for note in response.notes)
    assert searxng.strip_bangs("a!!b c") == ("a!!b c", [])


async def test_query_of_only_bangs_is_refused() -> None:
    rec = Recorder()
    with pytest.raises(ProviderError) as info:
        await collect("searxng", SearchRequest("!!g"), ctx_for(rec))
    assert info.value.kind is ErrorKind.CONFIG
    assert rec.requests == []


async def test_missing_base_url_is_a_config_error() -> None:
    with pytest.raises(ProviderError) as info:
        await collect("searxng", SearchRequest("q"), make_ctx("searxng", Recorder()))
    assert info.value.kind is ErrorKind.CONFIG
    assert "base_url" in info.value.message


async def test_basic_auth_takes_precedence_over_token() -> None:
    rec = Recorder(json_response(BODY))
    creds = {"username": "ann", "password": "p:ss wörd", "token": "tok-123"}
    events, _ = await collect("searxng", SearchRequest("q"), ctx_for(rec, credentials=creds))
    expected = base64.b64encode("ann:p:ss wörd".encode()).decode()
    assert rec.headers()["authorization"] == f"Basic {expected}"
    assert events[0] == Metadata(auth_mode="api_key")


async def test_an_echoed_basic_auth_header_is_redacted() -> None:
    creds = {"username": "ann", "password": "echo-me-1234"}
    token = base64.b64encode(b"ann:echo-me-1234").decode()

    def echo(request: httpx.Request) -> httpx.Response:
        return httpx.Response(400, json={"error": f"bad key: {request.headers['authorization']}"})

    with pytest.raises(ProviderError) as info:
        await collect("searxng", SearchRequest("q"), ctx_for(Recorder(echo), credentials=creds))
    assert token not in info.value.message and "bad key: Basic ***" in info.value.message


async def test_bearer_token() -> None:
    rec = Recorder(json_response(BODY))
    await collect("searxng", SearchRequest("q"), ctx_for(rec, credentials={"token": "tok-123"}))
    assert rec.headers()["authorization"] == "Bearer tok-123"


@pytest.mark.parametrize(
    ("creds", "fragment"),
    [
        ({"username": "ann"}, "both a username and a password"),
        ({"password": "pw"}, "both a username and a password"),
        ({"username": "", "token": "tok"}, "both a username and a password"),
        ({"username": "a:b", "password": "pw"}, "must not contain ':'"),
        ({"username": "ann", "password": "p\nw"}, "control characters"),
        ({"username": "a\x85", "password": "pw"}, "control characters"),
        ({"token": "t\x00k"}, "control characters"),
    ],
)
async def test_invalid_credentials_are_config_errors(creds: dict[str, str], fragment: str) -> None:
    rec = Recorder()
    with pytest.raises(ProviderError) as info:
        await collect("searxng", SearchRequest("q"), ctx_for(rec, credentials=creds))
    assert info.value.kind is ErrorKind.CONFIG
    assert fragment in info.value.message
    assert rec.requests == []


async def test_empty_password_counts_as_set() -> None:
    rec = Recorder(json_response(BODY))
    await collect("searxng", SearchRequest("q"), ctx_for(rec, credentials={"username": "ann", "password": ""}))
    assert rec.headers()["authorization"] == "Basic " + base64.b64encode(b"ann:").decode()


async def test_response_mapping() -> None:
    rec = Recorder(json_response(BODY))
    _, response = await collect("searxng", SearchRequest("q"), ctx_for(rec))
    first, second = response.sources
    assert first.title == "A & B" and first.snippet == "text"
    assert first.published_text == "2024-07-25T00:00:00" and first.age_seconds
    assert second.title == "https://b.example/" and second.published_text is None and second.snippet is None
    assert response.related_questions == ["more q", "other q"]
    assert response.answer is None


async def test_local_slice() -> None:
    rows = [{"url": f"https://x.example/{i}", "title": str(i)} for i in range(30)]
    rec = Recorder(json_response({**BODY, "results": rows}))
    _, response = await collect("searxng", SearchRequest("q", max_results=4), ctx_for(rec))
    assert len(response.sources) == 4


async def test_answers_shapes_are_joined_and_capped() -> None:
    answers = [
        "<b>42</b> is the answer",
        {"answer": "From an engine", "url": "https://e.example"},
        {"translations": [{"text": "Hallo"}, {"text": "Servus"}]},
        {"answer": "fourth, dropped"},
    ]
    rec = Recorder(json_response({**BODY, "answers": answers}))
    events, response = await collect("searxng", SearchRequest("q"), ctx_for(rec))
    assert response.answer == "<b>42</b> is the answer\n\nFrom an engine\n\nHallo\nServus"
    assert sum(isinstance(e, AnswerDelta) for e in events) == 1


def test_weather_answer() -> None:
    weather = {"location": "Berlin", "current": {"summary": "Cloudy", "temperature": {"value": 7, "unit": "°C"}}}
    assert searxng.parse_answers([weather]) == "Weather: Berlin, Cloudy, 7 °C"
    assert searxng.parse_answers([{"unknown": 1}, 5, None]) is None


async def test_unresponsive_engines_with_results_is_a_warning() -> None:
    body = {**BODY, "unresponsive_engines": [["brave", "timeout"], ["startpage", "Suspended: timeout"]]}
    _, response = await collect("searxng", SearchRequest("q"), ctx_for(Recorder(json_response(body))))
    assert response.sources
    assert "Some SearXNG engines did not respond: brave: timeout; startpage: Suspended: timeout" in response.notes


async def test_zero_results_with_unresponsive_engines_is_a_503_failure() -> None:
    body = {**BODY, "results": [], "unresponsive_engines": [["brave", "timeout"], ["google", "CAPTCHA"]]}
    with pytest.raises(ProviderError) as info:
        await collect("searxng", SearchRequest("q"), ctx_for(Recorder(json_response(body))))
    assert info.value.kind is ErrorKind.SERVER
    assert info.value.status == 503
    assert info.value.message == (
        "SearXNG returned no usable results; upstream engines failed: brave: timeout; google: CAPTCHA"
    )


async def test_zero_results_without_failures_is_just_empty() -> None:
    rec = Recorder(json_response({**BODY, "results": [], "suggestions": []}))
    _, response = await collect("searxng", SearchRequest("q"), ctx_for(rec))
    assert not response.is_renderable()


async def test_403_html_means_json_output_disabled() -> None:
    page = "<!DOCTYPE html><html><head><title>403 Forbidden</title></head><body>Forbidden</body></html>"
    rec = Recorder(httpx.Response(403, text=page, headers={"Content-Type": "text/html"}))
    with pytest.raises(ProviderError) as info:
        await collect("searxng", SearchRequest("q"), ctx_for(rec))
    assert info.value.kind is ErrorKind.CONFIG
    assert info.value.status == 403
    assert info.value.message == (
        "This SearXNG instance has JSON output disabled; add `json` to `search.formats` in settings.yml"
    )
    assert len(rec.requests) == 1


async def test_403_with_credentials_points_at_both_causes() -> None:
    rec = Recorder(httpx.Response(403, text="Forbidden", headers={"Content-Type": "text/html"}))
    with pytest.raises(ProviderError) as info:
        await collect("searxng", SearchRequest("q"), ctx_for(rec, credentials={"token": "searx-token-1"}))
    assert info.value.kind is ErrorKind.AUTH
    assert "check the SearXNG credentials" in info.value.message and "search.formats" in info.value.message


async def test_200_html_page_is_a_protocol_error() -> None:
    rec = Recorder(
        httpx.Response(200, text="<html><body>Welcome to nginx</body></html>", headers={"Content-Type": "text/html"})
    )
    with pytest.raises(ProviderError) as info:
        await collect("searxng", SearchRequest("q"), ctx_for(rec))
    assert info.value.kind is ErrorKind.PROTOCOL
    assert "text/html" in info.value.message and "Welcome to nginx" in info.value.message


async def test_401_and_other_statuses() -> None:
    rec = Recorder(httpx.Response(401, text="auth required"))
    with pytest.raises(ProviderError) as info:
        await collect("searxng", SearchRequest("q"), ctx_for(rec, credentials={"token": "tok-1234"}))
    assert info.value.kind is ErrorKind.AUTH
    rec = Recorder(httpx.Response(400, text="bad engine"))
    with pytest.raises(ProviderError) as info:
        await collect("searxng", SearchRequest("q"), ctx_for(rec))
    assert info.value.kind is ErrorKind.BAD_REQUEST
    assert info.value.message == "SearXNG API error (400): bad engine"


# --- conformance: real payload ------------------------------------------------------------


async def test_replays_real_unresponsive_engines_payload() -> None:
    body = json.loads(shared_fixture("searxng/search_unresponsive_engines_count_zero.json").read_text(encoding="utf-8"))
    rec = Recorder(json_response(body))
    _, response = await collect("searxng", SearchRequest(body["query"]), ctx_for(rec))
    # number_of_results says 0, but there is a result: it counts, and the dead engines are a warning.
    assert [s.url for s in response.sources] == ["https://openclaw.ai/"]
    assert response.sources[0].title == "OpenClaw — Personal AI Assistant"
    assert response.sources[0].published_text is None
    assert response.related_questions == body["suggestions"]
    assert response.notes == [
        "Some SearXNG engines did not respond: brave: timeout; startpage: Suspended: timeout; wikidata: Suspended: timeout"
    ]

    emptied = {**body, "results": []}
    with pytest.raises(ProviderError) as info:
        await collect("searxng", SearchRequest(body["query"]), ctx_for(Recorder(json_response(emptied))))
    assert info.value.status == 503
    assert "brave: timeout; startpage: Suspended: timeout; wikidata: Suspended: timeout" in info.value.message
