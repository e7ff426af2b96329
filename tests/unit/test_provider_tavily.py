"""Tavily provider: request body, answer/follow-ups, recency widening retry, error shapes, real payloads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fake_providers import FakeServer
from tests.helpers import Recorder, _context, collect, json_response, make_ctx, shared_fixture
from websearch_tui.core.catalogue import get_spec
from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import AnswerDelta, Metadata, Note, RelatedQuestions, SearchRequest, SourcesFound
from websearch_tui.core.specs import ProviderSettings
from websearch_tui.providers import tavily
from websearch_tui.settings.config import ConfigError, load_config
from websearch_tui.tui.settings.fields import provider_fields

KEY = "tvly-test-key"
EMPTY = {"query": "q", "answer": None, "follow_up_questions": None, "results": [], "request_id": "r0"}
ONE = {
    "query": "q",
    "answer": "  Paris is the capital.  ",
    "follow_up_questions": ["What about Lyon?", "", "What about Lyon?"],
    "request_id": "r1",
    "response_time": "1.67",
    "results": [
        {
            "title": "France",
            "url": "https://fr.example/",
            "content": "Paris &amp; more",
            "score": 0.9,
            "published_date": "Thu, 25 Jul 2024 00:00:00 GMT",
        },
        {"title": "No url", "url": "", "content": "x"},
    ],
}


def ctx_for(rec: Recorder, settings: ProviderSettings | None = None, timeout: float = 30.0) -> Any:
    return make_ctx("tavily", rec, settings=settings, credentials={"api_key": KEY}, timeout=timeout)


async def test_request_shape() -> None:
    rec = Recorder(json_response(ONE))
    await collect("tavily", SearchRequest("capital of France", max_results=8, recency="month"), ctx_for(rec))
    (request,) = rec.requests
    assert request.method == "POST"
    assert str(request.url) == "https://api.tavily.com/search"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.headers["content-type"] == "application/json"
    assert rec.body() == {
        "query": "capital of France",
        "search_depth": "basic",
        "topic": "general",
        "max_results": 8,
        "include_answer": "advanced",
        "include_raw_content": False,
        "include_images": False,
        "time_range": "month",
    }
    assert KEY not in str(request.url)


async def test_no_recency_sends_no_time_filter_and_count_is_clamped() -> None:
    rec = Recorder(json_response(ONE))
    await collect("tavily", SearchRequest("q", num_search_results=40), ctx_for(rec))
    body = rec.body()
    assert "time_range" not in body and "start_date" not in body and "end_date" not in body
    assert body["max_results"] == 20
    assert body["topic"] == "general"


@pytest.mark.parametrize(("option", "sent"), [("basic", "basic"), ("false", False), ("advanced", "advanced")])
async def test_options(option: str, sent: Any) -> None:
    rec = Recorder(json_response(ONE))
    settings = ProviderSettings(
        base_url="http://127.0.0.1:1/",
        options={"include_answer": option, "search_depth": "advanced"},
    )
    await collect("tavily", SearchRequest("q"), ctx_for(rec, settings))
    assert str(rec.requests[0].url) == "http://127.0.0.1:1/search"
    assert rec.body()["include_answer"] == sent
    assert rec.body()["search_depth"] == "advanced"


@pytest.mark.parametrize(
    ("depth", "sent"),
    [
        ("basic", "basic"),
        ("advanced", "advanced"),
        ("fast", "fast"),
        ("ultra-fast", "ultra-fast"),
        (" Ultra-Fast ", "ultra-fast"),
    ],
)
async def test_every_documented_search_depth_is_sent(depth: str, sent: str) -> None:
    rec = Recorder(json_response(ONE))
    _, response = await collect(
        "tavily", SearchRequest("q"), ctx_for(rec, ProviderSettings(options={"search_depth": depth}))
    )
    assert rec.body()["search_depth"] == sent and response.notes == []


async def test_an_unknown_search_depth_falls_back_to_basic_with_a_note() -> None:
    rec = Recorder(json_response(ONE))
    settings = ProviderSettings(options={"search_depth": "turbo"})
    _, response = await collect("tavily", SearchRequest("q"), ctx_for(rec, settings))
    assert rec.body()["search_depth"] == "basic"
    assert response.notes == [
        "Tavily search_depth 'turbo' is not one of basic, advanced, fast, ultra-fast; used basic."
    ]


def test_search_depths_in_config_validation_and_the_settings_form(tmp_path: Path) -> None:
    assert get_spec("tavily").option_choices["search_depth"] == tavily.SEARCH_DEPTHS
    for depth in tavily.SEARCH_DEPTHS:
        path = tmp_path / f"{depth}.toml"
        path.write_text(f'[providers.tavily]\nsearch_depth = "{depth}"\n')
        assert load_config(path).settings_for("tavily").options["search_depth"] == depth
    path = tmp_path / "bad.toml"
    path.write_text('[providers.tavily]\nsearch_depth = "turbo"\n')
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert "[providers.tavily] search_depth must be one of basic, advanced, fast, ultra-fast, got 'turbo'" in str(
        info.value
    )
    (field,) = [f for f in provider_fields(get_spec("tavily")) if f.key == "search_depth"]
    assert [value for _, value in field.choices] == list(tavily.SEARCH_DEPTHS)


async def test_the_fake_accepts_every_depth_and_refuses_others() -> None:
    with FakeServer() as srv:
        async with httpx.AsyncClient() as client:
            for depth in tavily.SEARCH_DEPTHS:
                settings = ProviderSettings(base_url=srv.url("tavily"), options={"search_depth": depth})
                ctx = _context(
                    spec=get_spec("tavily"), client=client, settings=settings, credentials={"api_key": "k"}, timeout=20
                )
                _, response = await collect("tavily", SearchRequest("python asyncio"), ctx)
                assert response.sources, depth
                assert srv.last_request("/tavily/search").json()["search_depth"] == depth
            refused = await client.post(
                srv.url("tavily/search"),
                json={"query": "q", "search_depth": "turbo"},
                headers={"Authorization": "Bearer k"},
            )
    assert refused.status_code == 400
    assert refused.json() == {
        "detail": {"error": "Invalid search depth. Must be one of: basic, advanced, fast, ultra-fast"}
    }


async def test_response_mapping() -> None:
    rec = Recorder(json_response(ONE))
    events, response = await collect("tavily", SearchRequest("q", max_results=5), ctx_for(rec))
    assert [type(e) for e in events] == [Metadata, SourcesFound, AnswerDelta, RelatedQuestions]
    assert response.answer == "Paris is the capital."
    assert response.related_questions == ["What about Lyon?"]
    assert response.request_id == "r1"
    assert response.auth_mode == "api_key"
    (source,) = response.sources
    assert source.snippet == "Paris & more"
    assert source.published_text == "Thu, 25 Jul 2024 00:00:00 GMT"
    assert source.published_date == "2024-07-25T00:00:00Z"  # RFC 1123 normalised to ISO 8601 UTC
    assert source.age_seconds is not None and source.age_seconds > 0


async def test_local_slice() -> None:
    results = [{"title": f"t{i}", "url": f"https://x.example/{i}", "content": "c"} for i in range(6)]
    rec = Recorder(json_response({**EMPTY, "results": results}))
    _, response = await collect("tavily", SearchRequest("q", max_results=2), ctx_for(rec))
    assert [s.url for s in response.sources] == ["https://x.example/0", "https://x.example/1"]


@pytest.mark.parametrize("max_results", [1, 20])
async def test_rows_without_an_http_url_are_dropped(max_results: int) -> None:
    results = [
        {"title": "Script", "url": "javascript:alert(1)", "content": "x"},
        {"title": "FTP", "url": "ftp://x", "content": "x"},
        {"title": "No url at all", "content": "x"},
        {"title": "Valid", "url": "https://ok.example/page", "content": "kept"},
    ]
    rec = Recorder(json_response({**EMPTY, "results": results}))
    _, response = await collect("tavily", SearchRequest("q", max_results=max_results), ctx_for(rec))
    # dropped rows take no slot of max_results
    assert [(s.url, s.title) for s in response.sources] == [("https://ok.example/page", "Valid")]


async def test_empty_time_filtered_result_is_retried_without_the_filter() -> None:
    rec = Recorder(json_response(EMPTY), json_response(ONE))
    events, response = await collect("tavily", SearchRequest("q", recency="day"), ctx_for(rec))
    assert len(rec.requests) == 2
    assert rec.body(0)["time_range"] == "day"
    retry = rec.body(1)
    assert "time_range" not in retry
    assert {k: v for k, v in rec.body(0).items() if k != "time_range"} == retry
    notes = [e.text for e in events if isinstance(e, Note)]
    assert notes == ["Tavily found nothing from the past day; retried without a time filter, so results may be older."]
    assert response.notes == notes
    assert response.sources and response.request_id == "r1"


async def test_only_unusable_rows_count_as_nothing_found() -> None:
    unusable = {**EMPTY, "results": [{"title": "x", "url": "javascript:alert(1)", "content": "c"}]}
    rec = Recorder(json_response(unusable), json_response(ONE))
    _, response = await collect("tavily", SearchRequest("q", recency="day"), ctx_for(rec))
    assert len(rec.requests) == 2 and response.sources and response.notes


async def test_no_widening_without_recency_or_with_content() -> None:
    rec = Recorder(json_response(EMPTY))
    _, response = await collect("tavily", SearchRequest("q"), ctx_for(rec))
    assert len(rec.requests) == 1 and not response.is_renderable()

    rec = Recorder(json_response({**EMPTY, "answer": "Only an answer"}))
    _, response = await collect("tavily", SearchRequest("q", recency="week"), ctx_for(rec))
    assert len(rec.requests) == 1 and response.answer == "Only an answer" and response.notes == []


async def test_widened_retry_that_is_still_empty_stays_empty() -> None:
    rec = Recorder(json_response(EMPTY), json_response(EMPTY))
    _, response = await collect("tavily", SearchRequest("q", recency="year"), ctx_for(rec))
    assert len(rec.requests) == 2
    assert not response.is_renderable()
    assert response.notes


ERRORS = [
    ("error_400_bad_request_placeholder.json", 400, ErrorKind.BAD_REQUEST),
    ("error_401_unauthorized.json", 401, ErrorKind.AUTH),
    ("error_429_rate_limited.json", 429, ErrorKind.RATE_LIMIT),
    ("error_432_plan_limit_placeholder.json", 432, ErrorKind.QUOTA),
    ("error_433_paygo_limit.json", 433, ErrorKind.QUOTA),
    ("error_500_internal.json", 500, ErrorKind.SERVER),
]


@pytest.mark.parametrize(("name", "status", "kind"), ERRORS)
async def test_real_error_bodies(name: str, status: int, kind: ErrorKind) -> None:
    body = json.loads(shared_fixture(f"tavily/{name}").read_text(encoding="utf-8"))
    rec = Recorder(json_response(body, status, headers={"Retry-After": "600"}))
    with pytest.raises(ProviderError) as info:
        await collect("tavily", SearchRequest("q"), ctx_for(rec, timeout=5))
    error = info.value
    assert error.kind is kind and error.status == status
    if kind is ErrorKind.AUTH:
        assert error.message == "Tavily authorization failed (401). Check API key or base URL."
    else:
        wait = " (retry in 600 s)" if kind is ErrorKind.RATE_LIMIT else ""
        assert error.message == f"Tavily API error ({status}): {body['detail']['error']}{wait}"
    assert len(rec.requests) == 1


async def test_error_without_detail_wrapper_uses_raw_text() -> None:
    rec = Recorder(httpx.Response(400, text="plain failure"))
    with pytest.raises(ProviderError) as info:
        await collect("tavily", SearchRequest("q"), ctx_for(rec))
    assert info.value.message == "Tavily API error (400): plain failure"
    rec = Recorder(json_response({"message": "top level"}, 400))
    with pytest.raises(ProviderError) as info:
        await collect("tavily", SearchRequest("q"), ctx_for(rec))
    assert info.value.message == "Tavily API error (400): top level"


# --- conformance: real payloads -----------------------------------------------------------


@pytest.mark.parametrize("name", ["search_basic.json", "search_bound_params.json"])
async def test_replays_real_search_payloads(name: str) -> None:
    body = json.loads(shared_fixture(f"tavily/{name}").read_text(encoding="utf-8"))
    rec = Recorder(json_response(body))
    events, response = await collect("tavily", SearchRequest(body["query"], max_results=20), ctx_for(rec))
    assert [s.url for s in response.sources] == [r["url"] for r in body["results"]]
    assert [s.title for s in response.sources] == [r["title"] for r in body["results"]]
    assert response.request_id == body["request_id"]
    assert response.answer is None and response.related_questions == []
    assert not any(isinstance(e, AnswerDelta) for e in events)
    assert all(s.snippet for s in response.sources)
