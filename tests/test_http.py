"""Shared HTTP layer: URL joining, retry hints and policy, body checks, SSE response checks."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import httpx
import pytest

from tests.helpers import make_ctx
from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.providers import _http
from websearch_tui.providers._http import join_url, request_json, request_text, retry_hint, stream_sse


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Record retry waits instead of sleeping."""
    waits: list[float] = []

    async def fake_sleep(delay: float) -> None:
        waits.append(delay)

    monkeypatch.setattr(_http, "_sleep", fake_sleep)
    return waits


@pytest.mark.parametrize(
    ("base", "path", "url"),
    [
        ("https://api.openai.com", "/v1/responses", "https://api.openai.com/v1/responses"),
        ("https://api.openai.com/v1", "/v1/responses", "https://api.openai.com/v1/responses"),
        ("https://api.openai.com/v1/responses/", "/v1/responses", "https://api.openai.com/v1/responses"),
        ("http://127.0.0.1:8/brave", "/res/v1/web/search", "http://127.0.0.1:8/brave/res/v1/web/search"),
        ("https://gw.example/proxy/res/v1", "/res/v1/web/search", "https://gw.example/proxy/res/v1/web/search"),
        ("https://html.duckduckgo.com/html", "/html/", "https://html.duckduckgo.com/html/"),
    ],
)
def test_join_url(base: str, path: str, url: str) -> None:
    assert join_url(base, path) == url


def test_retry_hints() -> None:
    assert retry_hint({"retry-after-ms": "1500"}) == 1.5
    assert retry_hint({"Retry-After": "120"}) == 120
    later = format_datetime(datetime.now(timezone.utc) + timedelta(seconds=30), usegmt=True)
    assert 25 <= retry_hint({"Retry-After": later}) <= 31
    assert 8 <= retry_hint({"x-ratelimit-reset": str(int(time.time()) + 10)}) <= 11
    assert retry_hint({"x-ratelimit-reset": "7"}) == 7
    assert retry_hint({"x-ratelimit-reset-after": "3"}) == 3
    google = {"error": {"details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "34.4s"}]}}
    assert retry_hint({}, google) == 34.4
    assert retry_hint({}) is None


async def test_retries_server_errors_then_succeeds(sleeps: list[float]) -> None:
    statuses = iter([503, 429, 200])

    def handler(request: httpx.Request) -> httpx.Response:
        status = next(statuses)
        headers = {"Retry-After": "2"} if status == 429 else {}
        return httpx.Response(status, json={"ok": status == 200}, headers=headers)

    data, response = await request_json(make_ctx("brave", handler), "GET", "https://x.example/s")
    assert data == {"ok": True} and response.status_code == 200
    assert sleeps == [1.0, 3.0]  # backoff 1 s, then the server's 2 s hint plus 1 s padding


@pytest.mark.parametrize("status", [400, 401, 403, 404, 410, 422])
async def test_client_errors_never_retry(status: int, sleeps: list[float]) -> None:
    calls: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        return httpx.Response(status, json={"error": "nope"})

    with pytest.raises(ProviderError) as info:
        await request_json(make_ctx("brave", handler), "GET", "https://x.example/s")
    assert len(calls) == 1 and sleeps == []
    assert info.value.status == status
    if status in (401, 403):
        assert info.value.message == f"Brave Search authorization failed ({status}). Check API key or base URL."


@pytest.mark.parametrize("describe_auth", [False, True])
@pytest.mark.parametrize("status", [401, 403])
async def test_describe_auth_lets_the_provider_word_auth_failures(
    status: int, describe_auth: bool, sleeps: list[float]
) -> None:
    ctx = make_ctx("zai", lambda r: httpx.Response(status, json={"msg": "token expired"}))
    with pytest.raises(ProviderError) as info:
        await request_text(
            ctx,
            "POST",
            "https://x.example/mcp",
            describe_error=lambda code, text, parsed: f"own words ({code}): {parsed['msg']}",
            describe_auth=describe_auth,
        )
    assert info.value.kind is ErrorKind.AUTH and info.value.status == status and sleeps == []
    generic = f"Z.AI Web Search authorization failed ({status}). Check API key or base URL."
    assert info.value.message == (f"own words ({status}): token expired" if describe_auth else generic)


async def test_describe_auth_without_a_describer_keeps_the_seed_message(sleeps: list[float]) -> None:
    ctx = make_ctx("brave", lambda r: httpx.Response(401, text="no"))
    with pytest.raises(ProviderError) as info:
        await request_json(ctx, "GET", "https://x.example/s", describe_auth=True)
    assert info.value.message == "Brave Search authorization failed (401). Check API key or base URL."


async def test_hint_beyond_deadline_fails_at_once(sleeps: list[float]) -> None:
    ctx = make_ctx("tavily", lambda r: httpx.Response(429, headers={"Retry-After": "120"}, text="slow"), timeout=10)
    with pytest.raises(ProviderError) as info:
        await request_json(ctx, "POST", "https://x.example/s")
    assert info.value.kind is ErrorKind.RATE_LIMIT and info.value.retry_after == 120
    assert sleeps == []


async def test_retries_give_up_after_three(sleeps: list[float]) -> None:
    with pytest.raises(ProviderError) as info:
        await request_json(
            make_ctx("brave", lambda r: httpx.Response(502, text="bad gateway")), "GET", "https://x.example"
        )
    assert info.value.kind is ErrorKind.SERVER
    assert sleeps == [1.0, 2.0, 4.0]


@pytest.mark.parametrize(
    ("response", "fragment"),
    [
        (
            httpx.Response(200, html="<html><body>Proxy login</body></html>"),
            "returned text/html instead of JSON (HTTP 200)",
        ),
        (httpx.Response(200, content=b""), "returned an empty body (HTTP 200)"),
        (httpx.Response(200, content=b'{"a": ', headers={"content-type": "application/json"}), "malformed JSON"),
        (httpx.Response(301, headers={"location": "https://elsewhere"}), "unexpected redirect (301)"),
    ],
)
async def test_bad_bodies_are_protocol_errors(response: httpx.Response, fragment: str, sleeps: list[float]) -> None:
    with pytest.raises(ProviderError) as info:
        await request_json(make_ctx("brave", lambda r: response), "GET", "https://x.example")
    assert info.value.kind is ErrorKind.PROTOCOL
    assert fragment in info.value.message


async def test_body_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_http, "MAX_BODY_BYTES", 1024)
    ctx = make_ctx("brave", lambda r: httpx.Response(200, json={"x": "y" * 5000}))
    with pytest.raises(ProviderError, match="larger than"):
        await request_json(ctx, "GET", "https://x.example")


async def test_network_and_timeout_errors(sleeps: list[float]) -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    def slow(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("timed out", request=request)

    with pytest.raises(ProviderError) as info:
        await request_json(make_ctx("brave", refuse), "GET", "https://x.example")
    assert info.value.kind is ErrorKind.NETWORK and "could not connect" in info.value.message
    assert len(sleeps) == 3
    with pytest.raises(ProviderError) as info:
        await request_json(make_ctx("brave", slow), "GET", "https://x.example")
    assert info.value.kind is ErrorKind.TIMEOUT


async def test_error_excerpt_is_sanitized_and_redacted(sleeps: list[float]) -> None:
    ctx = make_ctx("brave", lambda r: httpx.Response(400, text="bad \x1b[2J key=brave-secret-xyz"), credentials={})
    from websearch_tui.core.errors import register_secret

    register_secret("brave-secret-xyz")
    with pytest.raises(ProviderError) as info:
        await request_json(ctx, "GET", "https://x.example")
    assert info.value.message == "Brave Search API error (400): bad  key=***"


async def test_stream_sse_rejects_non_stream_and_maps_errors(sleeps: list[float]) -> None:
    ctx = make_ctx("perplexity", lambda r: httpx.Response(200, html="<p>hi</p>"))
    with pytest.raises(ProviderError, match="instead of an event stream"):
        async for _ in stream_sse(ctx, "POST", "https://x.example"):
            pass
    ctx = make_ctx("perplexity", lambda r: httpx.Response(401, json={"error": {"message": "bad key"}}))
    with pytest.raises(ProviderError) as info:
        async for _ in stream_sse(ctx, "POST", "https://x.example"):
            pass
    assert info.value.kind is ErrorKind.AUTH


async def test_stream_sse_parses_crlf_and_skips_done(sleeps: list[float]) -> None:
    body = b'event: a\r\ndata: {"n": 1}\r\n\r\n: keep-alive\r\n\r\ndata:{"n": 2}\r\n\r\ndata: not json\r\n\r\ndata: [DONE]\r\n\r\n'
    ctx = make_ctx(
        "perplexity", lambda r: httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})
    )
    items = [item async for item in stream_sse(ctx, "POST", "https://x.example")]
    assert items == [("a", {"n": 1}), ("message", {"n": 2})]


def test_retry_hint_order_and_body_text() -> None:
    # Retry-After (as an HTTP date) comes before x-ratelimit-reset-ms
    past = format_datetime(datetime(2020, 1, 1, tzinfo=timezone.utc), usegmt=True)
    assert retry_hint({"Retry-After": past, "x-ratelimit-reset-ms": "5000"}) == 0
    assert retry_hint({}, None, "Please retry in 12s.") == 12
    assert retry_hint({}, None, "rate limited, reset after 1h2m3s") == 3723
    assert retry_hint({}, None, "Try again in 2 min") == 120
    assert retry_hint({}, None, "retry-after-ms=250") == 0.25
    assert retry_hint({}, None, "quota exceeded") is None


async def test_other_5xx_are_not_retried(sleeps: list[float]) -> None:
    with pytest.raises(ProviderError) as info:
        await request_json(make_ctx("brave", lambda r: httpx.Response(501, text="nope")), "GET", "https://x.example")
    assert info.value.kind is ErrorKind.SERVER and sleeps == []


@pytest.mark.parametrize("url", ["localhost:8888/search", "http://exa\nmple.example/x"])
async def test_unusable_endpoint_is_a_config_error_not_retried(url: str, sleeps: list[float]) -> None:
    from websearch_tui.providers import get_spec
    from websearch_tui.providers.base import ProviderContext

    async with httpx.AsyncClient() as client:  # a real transport: httpx refuses these URLs before any I/O
        with pytest.raises(ProviderError) as info:
            await request_json(ProviderContext(spec=get_spec("searxng"), client=client), "GET", url)
    assert info.value.kind is ErrorKind.CONFIG and sleeps == []
    assert "Check base_url in [providers.searxng]" in info.value.message


async def test_long_server_wait_is_shown(sleeps: list[float]) -> None:
    ctx = make_ctx("tavily", lambda r: httpx.Response(429, headers={"Retry-After": "34"}, text="slow"), timeout=10)
    with pytest.raises(ProviderError) as info:
        await request_json(ctx, "POST", "https://x.example/s")
    assert info.value.message.endswith("(retry in 34 s)")


async def test_no_retry_once_a_response_arrived_when_http_errors_are_final(sleeps: list[float]) -> None:
    calls: list[int] = []

    async def broken_body():
        yield b": keep-alive\n\n"
        raise httpx.ReadError("connection reset")

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=broken_body())

    with pytest.raises(ProviderError) as info:
        async for _ in stream_sse(
            make_ctx("perplexity", handler), "POST", "https://x.example", retry_http_errors=False
        ):
            pass
    assert info.value.kind is ErrorKind.NETWORK
    assert len(calls) == 1 and sleeps == []


async def test_connection_failure_before_a_response_is_retried_once_when_asked(sleeps: list[float]) -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    with pytest.raises(ProviderError):
        async for _ in stream_sse(
            make_ctx("perplexity", refuse), "POST", "https://x.example", retry_http_errors=False, max_retries=1
        ):
            pass
    assert sleeps == [1.0]


async def test_max_retries_caps_the_attempts(sleeps: list[float]) -> None:
    calls: list[int] = []

    def down(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        return httpx.Response(503, text="down")

    with pytest.raises(ProviderError):
        await request_json(make_ctx("brave", down), "GET", "https://x.example", max_retries=1)
    assert len(calls) == 2 and sleeps == [1.0]


async def test_a_post_that_may_have_reached_the_server_is_not_resent(sleeps: list[float]) -> None:
    calls: list[str] = []

    def slow(request: httpx.Request) -> httpx.Response:
        calls.append(request.method)
        raise httpx.ReadTimeout("no answer yet", request=request)

    with pytest.raises(ProviderError) as info:
        await request_json(make_ctx("ark", slow), "POST", "https://x.example/api/v3/responses", json_body={})
    assert info.value.kind is ErrorKind.TIMEOUT
    assert calls == ["POST"] and sleeps == []  # a paid model call is not billed twice


async def test_a_post_that_never_connected_is_retried(sleeps: list[float]) -> None:
    calls: list[str] = []

    def refuse(request: httpx.Request) -> httpx.Response:
        calls.append(request.method)
        raise httpx.ConnectError("refused", request=request)

    with pytest.raises(ProviderError):
        await request_json(make_ctx("ark", refuse), "POST", "https://x.example", json_body={})
    assert len(calls) == 4 and sleeps == [1.0, 2.0, 4.0]


async def test_http_errors_can_be_final(sleeps: list[float]) -> None:
    calls: list[int] = []

    def busy(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        return httpx.Response(503, text="busy")

    with pytest.raises(ProviderError):
        await request_json(make_ctx("perplexity_search", busy), "POST", "https://x.example", retry_http_errors=False)
    assert len(calls) == 1 and sleeps == []
