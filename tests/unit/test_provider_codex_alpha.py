"""Codex Alpha Search gateway: needs base_url + key, request body, answer/results parsing, notes, errors, fake."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest

from tests.fake_providers import FakeServer
from tests.helpers import Recorder, collect, fake_ctx, json_response, make_ctx
from websearch_tui.core.catalogue import get_spec
from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import AnswerDelta, Metadata, Note, SearchRequest, SourcesFound, Usage
from websearch_tui.core.specs import ProviderSettings
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.transport.http import USER_AGENT
from websearch_tui.secrets.credentials import provider_status

KEY = "codex-alpha-test-secret"
BASE = "https://gateway.example"
BODY = {
    "id": "body-id",
    "model": "gpt-5.6-luna-2026",
    "output": "  **Answer** with [link](https://a.test/)\x1b[31m  ",
    "output_text": "plain answer",
    "results": [
        {"type": "text_result", "title": "A &amp; B", "url": "https://a.test/", "description": "desc"},
        {"type": "text_result", "title": "", "url": "https://b.test/x", "snippet": "snip"},
        {"type": "text_result", "title": "C", "url": "https://c.test/", "text": "txt"},
        {"type": "text_result", "title": "A dup", "url": "https://A.test", "description": "dup"},
        {"type": "media_result", "media_url": "https://cdn.test/a.jpg"},
        {"type": "unknown", "ref_id": "opaque"},
        {"type": "text_result", "title": "bad", "url": "javascript:void(0)"},
        "junk",
    ],
    "usage": {"input_tokens": 3, "output_tokens": 5, "total_tokens": 8, "extra": "x"},
}


def ctx_for(
    rec: Any, settings: ProviderSettings | None = None, *, key: str | None = KEY, timeout: float = 30.0
) -> ProviderContext:
    credentials = {"api_key": key} if key else {}
    return make_ctx(
        "codex_alpha",
        rec,
        settings=settings or ProviderSettings(base_url=BASE),
        credentials=credentials,
        timeout=timeout,
    )


# --------------------------------------------------------------------------- configuration


def test_spec_needs_a_base_url_and_has_no_default() -> None:
    spec = get_spec("codex_alpha")
    assert spec.needs_base_url and spec.default_base_url is None
    assert provider_status(spec, ProviderSettings(), {"api_key": KEY}) == "needs URL"
    assert provider_status(spec, ProviderSettings(base_url=BASE), {}) == "needs key"
    assert provider_status(spec, ProviderSettings(base_url=BASE), {"api_key": KEY}) == "ready"


async def test_without_base_url_nothing_is_sent() -> None:
    rec = Recorder(json_response(BODY))
    with pytest.raises(ProviderError) as info:
        await collect("codex_alpha", SearchRequest("q"), ctx_for(rec, ProviderSettings()))
    assert info.value.kind is ErrorKind.CONFIG
    assert "no base_url configured" in info.value.message and "[providers.codex_alpha]" in info.value.message
    assert rec.requests == []


# --------------------------------------------------------------------------- request


async def test_request_shape() -> None:
    rec = Recorder(json_response(BODY))
    await collect("codex_alpha", SearchRequest("python asyncio", max_results=3), ctx_for(rec))
    (request,) = rec.requests
    assert request.method == "POST"
    assert str(request.url) == "https://gateway.example/v1/alpha/search"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.headers["user-agent"] == USER_AGENT and USER_AGENT.startswith("websearch-tui/")
    body = rec.body()
    assert uuid.UUID(body.pop("id")).version == 4
    assert body == {
        "model": "gpt-5.6-luna",
        "commands": {"search_query": [{"q": "python asyncio"}]},
        "settings": {"external_web_access": True, "search_context_size": "low"},
    }
    assert KEY not in str(request.url)


async def test_fresh_id_per_request_model_and_context_size_from_config() -> None:
    rec = Recorder(json_response(BODY))
    settings = ProviderSettings(base_url=BASE, model="gpt-custom", options={"search_context_size": "High"})
    await collect("codex_alpha", SearchRequest("q"), ctx_for(rec, settings))
    await collect("codex_alpha", SearchRequest("q"), ctx_for(rec, settings))
    first, second = rec.bodies
    assert first["id"] != second["id"]
    assert first["model"] == "gpt-custom" and first["settings"]["search_context_size"] == "high"


@pytest.mark.parametrize(
    ("base", "url"),
    [
        ("http://127.0.0.1:9/codex_alpha", "http://127.0.0.1:9/codex_alpha/v1/alpha/search"),
        ("https://gw.example/v1", "https://gw.example/v1/alpha/search"),
        ("https://gw.example/v1/alpha/search", "https://gw.example/v1/alpha/search"),
        ("https://gw.example/proxy/", "https://gw.example/proxy/v1/alpha/search"),
    ],
)
async def test_base_url_joining(base: str, url: str) -> None:
    rec = Recorder(json_response(BODY))
    await collect("codex_alpha", SearchRequest("q"), ctx_for(rec, ProviderSettings(base_url=base)))
    assert str(rec.requests[0].url) == url


# --------------------------------------------------------------------------- response


async def test_response_mapping() -> None:
    rec = Recorder(json_response(BODY, headers={"x-request-id": "req-hdr"}))
    events, response = await collect("codex_alpha", SearchRequest("q"), ctx_for(rec))
    assert [type(e) for e in events] == [Metadata, SourcesFound, AnswerDelta]
    assert response.answer == "**Answer** with [link](https://a.test/)"
    assert response.model == "gpt-5.6-luna-2026" and response.request_id == "req-hdr"
    assert response.usage == Usage(input_tokens=3, output_tokens=5, total_tokens=8)
    assert response.auth_mode == "api_key" and response.notes == [] and response.citations == []
    assert [(s.url, s.title, s.snippet) for s in response.sources] == [
        ("https://a.test/", "A & B", "desc"),
        ("https://b.test/x", "https://b.test/x", "snip"),
        ("https://c.test/", "C", "txt"),
    ]


async def test_answer_falls_back_to_output_text_and_ids_to_the_body() -> None:
    for output in (None, {"type": "summary"}, "   ", ["x"]):
        body = {**BODY, "output": output, "usage": None}
        _, response = await collect("codex_alpha", SearchRequest("q"), ctx_for(Recorder(json_response(body))))
        assert response.answer == "plain answer"
        assert response.request_id == "body-id" and response.usage is None


async def test_local_slice_and_requested_model_when_body_has_none() -> None:
    body = {"output": "a", "results": [{"url": f"https://r.test/{i}", "title": str(i)} for i in range(8)]}
    _, response = await collect(
        "codex_alpha", SearchRequest("q", max_results=2), ctx_for(Recorder(json_response(body)))
    )
    assert [s.title for s in response.sources] == ["0", "1"]
    assert response.model == "gpt-5.6-luna"


async def test_note_for_an_explicit_count_and_no_filters_sent() -> None:
    """The gateway takes neither a count nor a date filter (the engine notes the ignored recency)."""
    rec = Recorder(json_response(BODY))
    events, response = await collect(
        "codex_alpha", SearchRequest("q", recency="week", num_search_results=30, max_results=4), ctx_for(rec)
    )
    assert response.notes == ["Codex Alpha Search takes no result count; sources are trimmed locally to 4."]
    assert sum(isinstance(e, Note) for e in events) == 1
    assert set(rec.body()) == {"id", "model", "commands", "settings"}


@pytest.mark.parametrize(
    ("body", "dropped"),
    [
        ({"output": "", "output_text": "", "results": []}, 0),
        ({"output": None, "results": [{"type": "media_result"}]}, 1),  # a row without a URL is counted
    ],
)
async def test_empty(body: Any, dropped: int) -> None:
    events, response = await collect("codex_alpha", SearchRequest("q"), ctx_for(Recorder(json_response(body))))
    assert [type(e) for e in events] == [Metadata] + [SourcesFound] * dropped and not response.is_renderable()
    assert response.dropped_sources == dropped


@pytest.mark.parametrize("body", [["x"], {}])
async def test_body_without_its_shape_is_unrecognised(body: Any) -> None:
    with pytest.raises(ProviderError) as info:
        await collect("codex_alpha", SearchRequest("q"), ctx_for(Recorder(json_response(body))))
    assert info.value.kind is ErrorKind.UNRECOGNISED


async def test_unknown_model_names_the_config_key() -> None:
    body = {"error": {"code": "model_not_found", "message": "The requested model 'gpt-0' does not exist."}}
    with pytest.raises(ProviderError) as info:
        await collect("codex_alpha", SearchRequest("q"), ctx_for(Recorder(json_response(body, 400))))
    assert info.value.kind is ErrorKind.MODEL_NOT_FOUND
    assert info.value.message == (
        "Codex Alpha Search: model 'gpt-5.6-luna' is not available (400). "
        "Set [providers.codex_alpha] model, or run websearch-tui doctor codex_alpha"
    )


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("body", "kind", "message"),
    [
        ({"error": {"message": "search backend unavailable"}}, ErrorKind.SERVER, "search backend unavailable"),
        ({"error": {"message": "You exceeded your current quota"}}, ErrorKind.QUOTA, "You exceeded your current quota"),
        ({"error": "plain failure", "results": []}, ErrorKind.SERVER, "plain failure"),
    ],
)
async def test_error_envelope_with_http_200(body: Any, kind: ErrorKind, message: str) -> None:
    with pytest.raises(ProviderError) as info:
        await collect("codex_alpha", SearchRequest("q"), ctx_for(Recorder(json_response(body))))
    assert info.value.kind is kind and info.value.status == 200
    assert info.value.message == f"Codex Alpha Search API error: {message}"


async def test_error_field_next_to_content_is_not_fatal() -> None:
    body = {**BODY, "error": None}
    _, response = await collect("codex_alpha", SearchRequest("q"), ctx_for(Recorder(json_response(body))))
    assert response.sources
    body = {"output": "answer", "error": {"message": "partial"}}
    _, response = await collect("codex_alpha", SearchRequest("q"), ctx_for(Recorder(json_response(body))))
    assert response.answer == "answer"


@pytest.mark.parametrize(
    ("status", "body", "kind", "message"),
    [
        (401, {"error": {"message": "Incorrect API key", "type": "invalid_api_key"}}, ErrorKind.AUTH, None),
        (403, {"error": {"message": "forbidden"}}, ErrorKind.AUTH, None),
        (
            400,
            {"error": {"message": "Missing 'id'", "type": "invalid_request_error"}},
            ErrorKind.BAD_REQUEST,
            "Missing 'id'",
        ),
        (404, {"detail": "Not Found"}, ErrorKind.NOT_FOUND, "Not Found"),
        (429, {"error": {"message": "insufficient_quota: check your plan"}}, ErrorKind.QUOTA, None),
        (429, {"error": {"message": "Rate limit reached"}}, ErrorKind.RATE_LIMIT, "Rate limit reached"),
        (500, {"error": {"message": "boom"}}, ErrorKind.SERVER, "boom"),
        (503, "upstream down", ErrorKind.SERVER, "upstream down"),
    ],
)
async def test_http_error_shapes(status: int, body: Any, kind: ErrorKind, message: str | None) -> None:
    reply = httpx.Response(status, text=body) if isinstance(body, str) else json_response(body, status)
    with pytest.raises(ProviderError) as info:
        await collect("codex_alpha", SearchRequest("q"), ctx_for(Recorder(reply), timeout=0.5))
    error = info.value
    assert error.kind is kind and error.status == status
    if kind is ErrorKind.AUTH:
        assert error.message == f"Codex Alpha Search authorization failed ({status}). Check API key or base URL."
    elif message:
        assert error.message == f"Codex Alpha Search API error ({status}): {message}"
    assert KEY not in error.message


# --------------------------------------------------------------------------- end to end over the fake


async def test_end_to_end_against_the_fake() -> None:
    with FakeServer() as srv:
        async with httpx.AsyncClient() as client:
            _, response = await collect(
                "codex_alpha", SearchRequest("python asyncio"), fake_ctx("codex_alpha", srv, client)
            )
            sent = srv.last_request("/codex_alpha/v1/alpha/search")
            assert sent.json()["commands"] == {"search_query": [{"q": "python asyncio"}]}
            assert [s.url for s in response.sources] == [
                "https://docs.python.org/3/library/asyncio.html",
                "https://docs.python.org/3/library/asyncio-task.html",
                "https://realpython.com/async-io-python/",
            ]
            assert response.answer and response.answer.startswith("**asyncio**")
            assert response.request_id == "fake-codex-alpha-req-0001" and response.usage


async def test_fake_variants() -> None:
    with FakeServer() as srv:
        async with httpx.AsyncClient() as client:
            srv.use("codex_alpha", "output_text_only")
            _, response = await collect("codex_alpha", SearchRequest("q"), fake_ctx("codex_alpha", srv, client))
            assert response.answer == "asyncio is Python's standard library for concurrent code with async/await."
            srv.use("codex_alpha", "empty")
            _, response = await collect("codex_alpha", SearchRequest("q"), fake_ctx("codex_alpha", srv, client))
            assert not response.is_renderable()
            for variant, kind in (("error_200", ErrorKind.SERVER), ("rate_limit", ErrorKind.RATE_LIMIT)):
                srv.use("codex_alpha", variant)
                with pytest.raises(ProviderError) as info:
                    await collect("codex_alpha", SearchRequest("q"), fake_ctx("codex_alpha", srv, client))
                assert info.value.kind is kind
            with pytest.raises(ProviderError) as info:
                await collect("codex_alpha", SearchRequest("q"), fake_ctx("codex_alpha", srv, client, key="wrong"))
            assert info.value.kind is ErrorKind.AUTH
