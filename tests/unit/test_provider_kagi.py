"""Kagi provider: v1 request and parsing, legacy v0 opt-in, error envelopes (HTTP and 200), real v0 payloads, fake."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from typing import Any

import httpx
import pytest

from tests.fake_providers import FakeServer
from tests.helpers import Recorder, collect, fake_ctx, json_response, make_ctx, shared_fixture
from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import AnswerDelta, Metadata, Note, RelatedQuestions, SearchRequest, SourcesFound
from websearch_tui.core.specs import ProviderSettings
from websearch_tui.providers import kagi
from websearch_tui.providers.base import ProviderContext

KEY = "kagi-test-secret-key"
V1_AUTH = (
    "Kagi Search authorization failed (401). Check API key or base URL. "
    "Kagi's v1 API needs a v1 key; a legacy v0 (Bot) key is rejected."
)
V1_BODY = {
    "meta": {"trace": "trace-1", "id": "id-1", "ms": 12},
    "data": {
        "search": [
            {
                "url": "https://a.example/",
                "title": "A &amp; B",
                "snippet": "It&#39;s <b>bold</b>",
                "time": "2024-07-25",
            },
            {"href": "https://b.example/", "name": "B", "description": "desc b"},
            {"link": "https://c.example/", "summary": "no title"},
            {"title": "no url", "snippet": "dropped"},
            {"url": "ftp://d.example/", "title": "not http"},
            "not an object",
        ],
        "video": [{"url": "https://v.example/", "title": "Talk"}],
        "news": [{"url": "https://n.example/", "title": "Story", "time": "2 days ago"}],
        "infobox": [{"url": "https://i.example/", "title": "Box"}],
        "adjacent_question": [{"title": "t", "props": {"question": "Why?"}}, {"title": "Fallback title", "props": {}}],
        "related_search": [{"title": "x", "props": {"query": "related q"}}, {"props": {"question": "Why?"}}],
        "direct_answer": [{"title": "Answer title", "snippet": "Answer &amp; text"}],
    },
}


def ctx_for(rec: Any, settings: ProviderSettings | None = None, timeout: float = 30.0) -> ProviderContext:
    return make_ctx("kagi", rec, settings=settings, credentials={"api_key": KEY}, timeout=timeout)


def v0() -> ProviderSettings:
    return ProviderSettings(options={"api_version": "v0"})


# --------------------------------------------------------------------------- v1 request


async def test_v1_request_shape() -> None:
    rec = Recorder(json_response(V1_BODY))
    await collect("kagi", SearchRequest("python asyncio", max_results=7), ctx_for(rec))
    (request,) = rec.requests
    assert request.method == "POST"
    assert str(request.url) == "https://kagi.com/api/v1/search"
    assert request.headers["AUTHORIZATION"] == f"Bearer {KEY}"
    assert request.headers["accept"] == "application/json"
    assert rec.body() == {"query": "python asyncio", "workflow": "search", "limit": 7}
    assert KEY not in str(request.url)


@pytest.mark.parametrize(("recency", "days"), [("day", 1), ("week", 7), ("month", 30), ("year", 365)])
async def test_v1_recency_maps_to_filters_after(recency: str, days: int) -> None:
    rec = Recorder(json_response(V1_BODY))
    events, _ = await collect("kagi", SearchRequest("q", recency=recency), ctx_for(rec))
    after = rec.body()["filters"]["after"]
    expected = {(datetime.now(timezone.utc) - timedelta(days=days, seconds=s)).strftime("%Y-%m-%d") for s in (0, 5)}
    assert after in expected
    assert not any(isinstance(e, Note) for e in events)


@pytest.mark.parametrize(("max_results", "num", "limit"), [(10, None, 10), (3, None, 3), (20, 50, 40), (5, 25, 25)])
async def test_v1_count_is_clamped_to_40(max_results: int, num: int | None, limit: int) -> None:
    rec = Recorder(json_response(V1_BODY))
    await collect("kagi", SearchRequest("q", max_results=max_results, num_search_results=num), ctx_for(rec))
    assert rec.body()["limit"] == limit


async def test_base_url_override_and_prefix_joining() -> None:
    for base, url in [
        ("http://127.0.0.1:9/kagi/", "http://127.0.0.1:9/kagi/api/v1/search"),
        ("https://proxy.example/api/v1", "https://proxy.example/api/v1/search"),
        ("https://proxy.example/api/v1/search", "https://proxy.example/api/v1/search"),
    ]:
        rec = Recorder(json_response(V1_BODY))
        await collect("kagi", SearchRequest("q"), ctx_for(rec, ProviderSettings(base_url=base)))
        assert str(rec.requests[0].url) == url


# --------------------------------------------------------------------------- v1 response


async def test_v1_response_mapping() -> None:
    rec = Recorder(json_response(V1_BODY))
    events, response = await collect("kagi", SearchRequest("q", max_results=20), ctx_for(rec))
    assert [type(e) for e in events] == [Metadata, SourcesFound, AnswerDelta, RelatedQuestions]
    assert response.request_id == "trace-1" and response.auth_mode == "api_key"
    assert [(s.url, s.title) for s in response.sources] == [
        ("https://a.example/", "A & B"),
        ("https://b.example/", "B"),
        ("https://c.example/", "https://c.example/"),
        ("https://v.example/", "[Video] Talk"),
        ("https://n.example/", "[News] Story"),
        ("https://i.example/", "[Info] Box"),
    ]
    first = response.sources[0]
    assert first.snippet == "It's bold" and first.published_text == "2024-07-25" and first.age_seconds
    assert response.sources[1].snippet == "desc b" and response.sources[2].snippet == "no title"
    assert response.sources[4].age_seconds == 2 * 86400
    assert response.answer == "Answer & text"
    assert response.related_questions == ["Why?", "Fallback title", "related q"]


async def test_v1_local_slice_request_id_fallback_and_answer_title() -> None:
    body = json.loads(json.dumps(V1_BODY))
    body["meta"] = {"id": "only-id"}
    body["data"]["direct_answer"] = [{"title": "Just a title"}]
    rec = Recorder(json_response(body))
    _, response = await collect("kagi", SearchRequest("q", max_results=2), ctx_for(rec))
    assert [s.url for s in response.sources] == ["https://a.example/", "https://b.example/"]
    assert response.request_id == "only-id"
    assert response.answer == "Just a title"


def section_row(section: str, **extra: Any) -> dict[str, Any]:
    """A v1 ``SearchResult`` row for ``section`` (url, title, snippet; ``extra`` on top)."""
    return {
        "url": f"https://{section.replace('_', '-')}.example/",
        "title": section,
        "snippet": f"{section} row",
        **extra,
    }


ALL_SECTIONS = (
    "search", "image", "video", "podcast", "podcast_creator", "news", "adjacent_question", "direct_answer",
    "interesting_news", "interesting_finds", "infobox", "code", "package_tracking", "public_records", "weather",
    "related_search", "listicle", "web_archive",
)  # fmt: skip
"""The 18 sections of a v1 ``data`` object (Kagi's OpenAPI ``Search200ResponseData``)."""


async def test_v1_every_web_page_section_is_a_source_with_its_tag() -> None:
    data: dict[str, Any] = {section: [section_row(section)] for section in ALL_SECTIONS}
    data["adjacent_question"] = [{"url": "https://kagi.com/search?q=why", "title": "t", "props": {"question": "Why?"}}]
    data["related_search"] = [{"url": "https://kagi.com/search?q=steve+wozniak", "title": "steve wozniak"}]
    data["direct_answer"] = [{"url": "https://kagi.com/", "title": "4", "snippet": "2 + 2 = 4"}]
    body = {"meta": {"trace": "69c3f5c4", "node": "us-central1", "ms": 213}, "data": data}
    events, response = await collect("kagi", SearchRequest("q", max_results=20), ctx_for(Recorder(json_response(body))))
    assert [type(e) for e in events] == [Metadata, SourcesFound, AnswerDelta, RelatedQuestions]
    assert [s.title for s in response.sources] == [
        "search",
        "[Video] video",
        "[News] news",
        "[Info] infobox",
        "[News] interesting_news",
        "[Small web] interesting_finds",
        "[List] listicle",
        "[Code] code",
        "[Public record] public_records",
        "[Archive] web_archive",
        "[Podcast] podcast",
        "[Podcast] podcast_creator",
        "[Tracking] package_tracking",
    ]
    urls = {s.url for s in response.sources}
    assert not urls & {"https://image.example/", "https://weather.example/", "https://kagi.com/"}
    assert not any("kagi.com/search" in url for url in urls), "related searches are never sources"
    assert response.sources[5].snippet == "interesting_finds row"
    assert response.related_questions == ["Why?", "steve wozniak"]
    assert response.answer == "2 + 2 = 4" and response.request_id == "69c3f5c4"


async def test_v1_section_rows_keep_their_dates_cjk_and_relative_included() -> None:
    data = {
        "interesting_news": [section_row("interesting_news", time="2024年12月5日")],
        "web_archive": [section_row("web_archive", time="2014/03/16")],
        "listicle": [section_row("listicle", time="3 weeks ago")],
        "code": [section_row("code", time="not-a-timestamp")],
    }
    _, response = await collect("kagi", SearchRequest("q"), ctx_for(Recorder(json_response({"data": data}))))
    dates = {s.title: (s.published_text, s.published_date) for s in response.sources}
    assert dates["[News] interesting_news"] == ("2024年12月5日", "2024-12-05T00:00:00Z")
    assert dates["[Archive] web_archive"] == ("2014/03/16", "2014-03-16T00:00:00Z")
    assert dates["[List] listicle"][1] is not None
    assert dates["[Code] code"] == ("not-a-timestamp", None)
    listicle = next(s for s in response.sources if s.title == "[List] listicle")
    assert listicle.age_seconds is not None and abs(listicle.age_seconds - 21 * 86400) < 60


async def test_v1_a_data_object_of_unknown_sections_only_is_empty() -> None:
    body = {"meta": {"trace": "t"}, "data": {"future_section": [section_row("future_section")]}}
    _, response = await collect("kagi", SearchRequest("q"), ctx_for(Recorder(json_response(body))))
    assert not response.is_renderable()


@pytest.mark.parametrize(
    "body",
    [
        {"meta": {"trace": "t"}, "data": {"search": [], "related_search": [], "direct_answer": []}},
        {"meta": {"trace": "t"}, "data": None},
        {"meta": {"trace": "t"}, "data": {}},
        {"meta": {"trace": "t"}, "data": [], "error": []},
    ],
)
async def test_empty_results(body: dict[str, Any]) -> None:
    events, response = await collect("kagi", SearchRequest("q"), ctx_for(Recorder(json_response(body))))
    assert [type(e) for e in events] == [Metadata]
    assert not response.is_renderable() and response.request_id == "t"


@pytest.mark.parametrize("body", [{"data": "text"}, {"data": 3}])
async def test_unexpected_shapes_are_protocol_errors(body: Any) -> None:
    with pytest.raises(ProviderError) as info:
        await collect("kagi", SearchRequest("q"), ctx_for(Recorder(json_response(body))))
    assert info.value.kind is ErrorKind.PROTOCOL and info.value.message.startswith("Kagi returned JSON")


async def test_a_list_body_is_an_unrecognised_response() -> None:
    with pytest.raises(ProviderError) as info:
        await collect("kagi", SearchRequest("q"), ctx_for(Recorder(json_response([1, 2]))))
    assert info.value.kind is ErrorKind.UNRECOGNISED and "keys: [array]" in info.value.message


async def test_html_body_is_protocol_error() -> None:
    rec = Recorder(httpx.Response(200, text="<html>hi</html>", headers={"content-type": "text/html"}))
    with pytest.raises(ProviderError) as info:
        await collect("kagi", SearchRequest("q"), ctx_for(rec))
    assert info.value.kind is ErrorKind.PROTOCOL


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize("status", [401, 403])
async def test_v1_auth_failure_names_the_v0_key_cause(status: int) -> None:
    body = {"meta": {}, "data": None, "error": [{"code": 2, "msg": f"bad key {KEY}", "ref": None}]}
    rec = Recorder(json_response(body, status))
    with pytest.raises(ProviderError) as info:
        await collect("kagi", SearchRequest("q"), ctx_for(rec))
    assert info.value.kind is ErrorKind.AUTH and info.value.status == status
    ip_hint = " A 403 can also mean the key is limited to other IP addresses (the key's IP allow-list)."
    assert info.value.message == V1_AUTH.replace("401", str(status)) + (ip_hint if status == 403 else "")
    assert len(rec.requests) == 1, "no automatic v0 fallback and no retry after an auth failure"
    assert KEY not in info.value.message


async def test_v0_auth_failure_names_the_v1_key_cause() -> None:
    rec = Recorder(json_response({"data": None, "error": [{"code": 2, "msg": "Unauthorized"}]}, 401))
    with pytest.raises(ProviderError) as info:
        await collect("kagi", SearchRequest("q"), ctx_for(rec, v0()))
    assert info.value.message == (
        "Kagi Search authorization failed (401). Check API key or base URL. "
        "Kagi's legacy v0 API needs a v0 (Bot) key; v1 keys are rejected there."
    )


ENVELOPE_200 = [
    (0, "Internal error", ErrorKind.SERVER),
    (1, "Missing q parameter", ErrorKind.BAD_REQUEST),
    (100, "No billing information", ErrorKind.QUOTA),
    (101, "Insufficient credit", ErrorKind.QUOTA),
    (999, "Something odd", ErrorKind.SERVER),
    (None, "Your credits exhausted", ErrorKind.QUOTA),
]


@pytest.mark.parametrize(("code", "msg", "kind"), ENVELOPE_200)
async def test_error_envelope_with_http_200(code: int | None, msg: str, kind: ErrorKind) -> None:
    body = {"meta": {"id": "x"}, "data": None, "error": [{"code": code, "msg": msg, "ref": None}]}
    with pytest.raises(ProviderError) as info:
        await collect("kagi", SearchRequest("q"), ctx_for(Recorder(json_response(body))))
    assert info.value.kind is kind and info.value.status == 200
    assert info.value.message == f"Kagi API error ({code if code is not None else 200}): {msg}"


async def test_unauthorized_envelope_with_http_200_is_auth() -> None:
    body = {"data": None, "error": [{"code": 2, "msg": "Unauthorized"}]}
    with pytest.raises(ProviderError) as info:
        await collect("kagi", SearchRequest("q"), ctx_for(Recorder(json_response(body))))
    assert info.value.kind is ErrorKind.AUTH
    assert info.value.message == (
        "Kagi API error (2): Unauthorized. Kagi's v1 API needs a v1 key; a legacy v0 (Bot) key is rejected."
    )


async def test_v1_errors_array_with_message_and_location() -> None:
    body = {"errors": [{"code": "invalid", "message": "limit too big", "location": "body.limit", "url": "https://x"}]}
    with pytest.raises(ProviderError) as info:
        await collect("kagi", SearchRequest("q"), ctx_for(Recorder(json_response(body, 400))))
    assert info.value.kind is ErrorKind.BAD_REQUEST and info.value.status == 400
    assert info.value.message == "Kagi API error (invalid): limit too big (body.limit)"


@pytest.mark.parametrize(
    ("status", "body", "kind", "message"),
    [
        (402, {"error": [{"code": 100, "msg": "No billing"}]}, ErrorKind.QUOTA, "Kagi API error (100): No billing"),
        (400, {"error": [{"code": 100, "msg": "No billing"}]}, ErrorKind.QUOTA, "Kagi API error (100): No billing"),
        (400, {"error": [{"code": 101, "msg": "Insufficient credit"}]}, ErrorKind.QUOTA, None),
        (
            400,
            {"error": [{"code": 1, "msg": "Missing q"}, {"code": 1, "msg": "Bad limit"}]},
            ErrorKind.BAD_REQUEST,
            None,
        ),
        (500, {"error": [{"code": 0, "msg": "Internal"}]}, ErrorKind.SERVER, "Kagi API error (0): Internal"),
        (404, "not json at all", ErrorKind.NOT_FOUND, "Kagi API error (404): not json at all"),
    ],
)
async def test_http_error_shapes(status: int, body: Any, kind: ErrorKind, message: str | None) -> None:
    reply = json_response(body, status) if not isinstance(body, str) else httpx.Response(status, text=body)
    with pytest.raises(ProviderError) as info:
        await collect("kagi", SearchRequest("q"), ctx_for(Recorder(reply), timeout=0.5))
    assert info.value.kind is kind and info.value.status == status
    if message:
        assert info.value.message == message
    if status == 400 and kind is ErrorKind.BAD_REQUEST:
        assert info.value.message == "Kagi API error (1): Missing q; Bad limit"


async def test_code_2_with_http_400_is_auth_with_hint() -> None:
    reply = json_response({"error": [{"code": 2, "msg": "Unauthorized"}]}, 400)
    with pytest.raises(ProviderError) as info:
        await collect("kagi", SearchRequest("q"), ctx_for(Recorder(reply)))
    assert info.value.kind is ErrorKind.AUTH
    assert info.value.message.endswith("Kagi's v1 API needs a v1 key; a legacy v0 (Bot) key is rejected.")


async def test_rate_limit_is_retried_then_reported() -> None:
    limited = json_response({"error": [{"code": 0, "msg": "Too many requests"}]}, 429, headers={"Retry-After": "600"})
    rec = Recorder(limited)
    with pytest.raises(ProviderError) as info:
        await collect("kagi", SearchRequest("q"), ctx_for(rec, timeout=5))
    assert info.value.kind is ErrorKind.RATE_LIMIT
    assert info.value.message == "Kagi API error (0): Too many requests (retry in 600 s)"


# --------------------------------------------------------------------------- legacy v0 (opt-in)


async def test_v0_request_shape_and_recency_note() -> None:
    rec = Recorder(json_response({"meta": {"id": "v0id"}, "data": []}))
    events, response = await collect(
        "kagi", SearchRequest("q x", recency="week", num_search_results=45), ctx_for(rec, v0())
    )
    (request,) = rec.requests
    assert request.method == "GET"
    assert str(request.url.copy_with(query=None)) == "https://kagi.com/api/v0/search"
    assert dict(request.url.params) == {"q": "q x", "limit": "40"}
    assert request.headers["authorization"] == f"Bot {KEY}"
    assert response.notes == ["Recency is not supported by Kagi's legacy v0 API; results are not filtered by date."]
    assert any(isinstance(e, Note) for e in events) and response.request_id == "v0id"


@pytest.mark.parametrize("value", ["v1", "", "2", None])
async def test_other_api_version_values_use_v1(value: str | None) -> None:
    rec = Recorder(json_response(V1_BODY))
    await collect("kagi", SearchRequest("q"), ctx_for(rec, ProviderSettings(options={"api_version": value})))
    assert rec.requests[0].method == "POST"


# --------------------------------------------------------------------------- conformance: real v0 payloads


async def test_replays_real_v0_search_payload() -> None:
    body = json.loads(shared_fixture("kagi/search_v0_steve_jobs.json").read_text(encoding="utf-8"))
    rec = Recorder(json_response(body))
    events, response = await collect("kagi", SearchRequest("steve jobs", max_results=20), ctx_for(rec, v0()))
    rows = [row for row in body["data"] if row["t"] == 0]
    assert [s.url for s in response.sources] == [row["url"] for row in rows][:20]
    assert [s.title for s in response.sources] == [row["title"] for row in rows][:20]
    assert all("&#39;" not in (s.snippet or "") for s in response.sources)
    amazon = next(s for s in response.sources if "amazon" in s.url)
    assert amazon.snippet.startswith("Walter Isaacson's")
    britannica = next(s for s in response.sources if "britannica" in s.url)
    assert britannica.published_text == "2024-09-30T00:00:00Z" and britannica.age_seconds
    assert response.related_questions == next(row["list"] for row in body["data"] if row["t"] == 1)
    assert response.request_id == body["meta"]["id"]
    assert response.answer is None and not any(isinstance(e, AnswerDelta) for e in events)


async def test_real_v0_payload_parses_through_the_v1_path_too() -> None:
    body = json.loads(shared_fixture("kagi/search_v0_steve_jobs.json").read_text(encoding="utf-8"))
    _, response = await collect(
        "kagi", SearchRequest("steve jobs", max_results=5), ctx_for(Recorder(json_response(body)))
    )
    assert len(response.sources) == 5 and response.related_questions


@pytest.mark.parametrize("status", [200, 400])
async def test_replays_real_v0_error_envelope(status: int) -> None:
    body = json.loads(shared_fixture("kagi/error_missing_q.json").read_text(encoding="utf-8"))
    with pytest.raises(ProviderError) as info:
        await collect("kagi", SearchRequest("q"), ctx_for(Recorder(json_response(body, status)), v0()))
    assert info.value.kind is ErrorKind.BAD_REQUEST and info.value.status == status
    assert info.value.message == "Kagi API error (1): Missing q parameter"


# --------------------------------------------------------------------------- conformance: v1 payloads
# Kept outside the repo ($WEBSEARCH_EXTRA_FIXTURES/kagi/): the v1 sample and error envelope of the
# hra42/kagi-go-sdk test suite (spec-derived; no live v1 capture is public). Skipped when absent.


async def test_replays_a_public_v1_search_payload() -> None:
    body = json.loads(shared_fixture("kagi/v1_search_sample_hra42_go_sdk_test.json").read_text(encoding="utf-8"))
    data = body["data"]
    events, response = await collect(
        "kagi", SearchRequest("steve jobs", max_results=20), ctx_for(Recorder(json_response(body)))
    )
    expected = [(row["url"], f"{tag}{row['title']}") for section, tag in kagi.SECTIONS for row in data.get(section, [])]
    assert [(s.url, s.title) for s in response.sources] == expected
    assert response.request_id == body["meta"]["trace"]
    related = [row["title"] for row in data.get("related_search", [])]
    assert response.related_questions == related
    assert not {row["url"] for row in data.get("related_search", [])} & {s.url for s in response.sources}
    first = data["search"][0]
    assert response.sources[0].snippet == first["snippet"] and response.sources[0].published_text == first["time"]
    assert response.sources[0].published_date == first["time"]  # already ISO 8601 UTC to the second
    assert [type(e) for e in events][:2] == [Metadata, SourcesFound]


@pytest.mark.parametrize("status", [400, 200])
async def test_replays_a_public_v1_error_envelope(status: int) -> None:
    body = json.loads(shared_fixture("kagi/v1_error_envelope_hra42_go_sdk_test.json").read_text(encoding="utf-8"))
    (item,) = body["error"]
    with pytest.raises(ProviderError) as info:
        await collect("kagi", SearchRequest("q"), ctx_for(Recorder(json_response(body, status))))
    assert info.value.message == f"Kagi API error ({item['code']}): {item['message']} ({item['location']})"
    assert info.value.kind is (ErrorKind.BAD_REQUEST if status == 400 else ErrorKind.SERVER)


# --------------------------------------------------------------------------- end to end over the fake


async def test_end_to_end_against_the_fake() -> None:
    with FakeServer() as srv:
        async with httpx.AsyncClient() as client:
            _, response = await collect(
                "kagi", SearchRequest("python asyncio", recency="month", max_results=20), fake_ctx("kagi", srv, client)
            )
            assert srv.last_request("/kagi/api/v1/search").json()["filters"]["after"]
            assert response.sources[0].url == "https://docs.python.org/3/library/asyncio.html"
            assert "[Video] Python asyncio in 20 minutes" in [s.title for s in response.sources]
            assert response.answer and response.request_id == "fake-kagi-trace-0001"
            assert "python asyncio tutorial" in response.related_questions
            assert "asyncio taskgroup" in response.related_questions  # a related_search with its query in title
            titles = [s.title for s in response.sources]
            for tagged in ("[News] Structured", "[Small web] ", "[List] ", "[Code] ", "[Public record] ", "[Archive] "):
                assert any(title.startswith(tagged) for title in titles), tagged
            assert not any("images.example" in s.url or "weather.example" in s.url for s in response.sources)

            _, legacy = await collect(
                "kagi", SearchRequest("python asyncio"), fake_ctx("kagi", srv, client, options={"api_version": "v0"})
            )
            assert legacy.request_id == "fake-kagi-v0-0001" and legacy.sources

            with pytest.raises(ProviderError) as info:  # a v1 key on the legacy endpoint
                await collect(
                    "kagi",
                    SearchRequest("q"),
                    fake_ctx("kagi", srv, client, key="wrong", options={"api_version": "v0"}),
                )
            assert info.value.kind is ErrorKind.AUTH and "legacy v0 API needs a v0 (Bot) key" in info.value.message


@pytest.mark.parametrize(
    ("variant", "kind"),
    [
        ("malformed_200", ErrorKind.BAD_REQUEST),
        ("insufficient_credit_200", ErrorKind.QUOTA),
        ("unauthorized_200", ErrorKind.AUTH),
        ("errors_400", ErrorKind.BAD_REQUEST),
        ("no_billing_402", ErrorKind.QUOTA),
    ],
)
async def test_fake_error_variants(variant: str, kind: ErrorKind) -> None:
    with FakeServer() as srv:
        srv.use("kagi", variant)
        async with httpx.AsyncClient() as client:
            for options in ({}, {"api_version": "v0"}):
                with pytest.raises(ProviderError) as info:
                    await collect("kagi", SearchRequest("q"), fake_ctx("kagi", srv, client, options=options))
                assert info.value.kind is kind and info.value.message.startswith("Kagi API error (")


async def test_fake_empty_variant() -> None:
    with FakeServer() as srv:
        srv.use("kagi", "empty")
        async with httpx.AsyncClient() as client:
            _, response = await collect("kagi", SearchRequest("q"), fake_ctx("kagi", srv, client))
            _, legacy = await collect(
                "kagi", SearchRequest("q"), fake_ctx("kagi", srv, client, options={"api_version": "v0"})
            )
    assert not response.is_renderable() and not legacy.is_renderable()


@pytest.mark.parametrize(
    ("message", "expected"),
    [("Kagi API error (2): Unauthorized", "Kagi API error (2): Unauthorized. Hint."), ("Denied!", "Denied! Hint.")],
)
def test_with_hint_appends_a_sentence_and_keeps_kind_status_and_retry_after(message: str, expected: str) -> None:
    error = ProviderError("kagi", ErrorKind.AUTH, message, status=401, retry_after=2.0).with_hint("Hint.")
    assert (error.message, error.kind, error.status, error.retry_after) == (expected, ErrorKind.AUTH, 401, 2.0)
