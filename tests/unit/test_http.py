"""Shared HTTP layer: URL joining, retry hints and policy (jitter, reporting), body caps, SSE checks, the client pool."""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from typing import Any

import httpcore
import httpx
import pytest

from tests.helpers import SleepLog, closed_port_url, finishes_within, make_ctx
from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.transport import http
from websearch_tui.providers.transport.http import HttpRequest, RetryPolicy, join_url, retry_hint, send, stream_sse


class TopOfRange(random.Random):
    """A random source whose ``uniform(a, b)`` is always ``b``: backoff waits become exactly 1, 2, 4 s."""

    def uniform(self, a: float, b: float) -> float:
        return b


TOP_OF_RANGE = TopOfRange()


@pytest.fixture
def sleeps() -> SleepLog:
    """Retry waits, recorded instead of slept: a test's contexts get ``sleep=sleeps`` (and their
    jitter pinned to the top of its range, ``rng=TOP_OF_RANGE``)."""
    return SleepLog()


async def fetch_json(ctx: ProviderContext, method: str, url: str, **fields: Any) -> Any:
    """``send`` one :class:`HttpRequest` and parse its reply as JSON."""
    return (await send(ctx, HttpRequest(method, url, **fields))).json()


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


async def test_retries_server_errors_then_succeeds(sleeps: SleepLog) -> None:
    statuses = iter([503, 429, 200])

    def handler(request: httpx.Request) -> httpx.Response:
        status = next(statuses)
        headers = {"Retry-After": "2"} if status == 429 else {}
        return httpx.Response(status, json={"ok": status == 200}, headers=headers)

    reply = await send(
        make_ctx("brave", handler, sleep=sleeps, rng=TOP_OF_RANGE), HttpRequest("GET", "https://x.example/s")
    )
    assert reply.json() == {"ok": True} and reply.status_code == 200
    assert sleeps == [1.0, 3.0]  # backoff 1 s, then the server's 2 s hint plus 1 s padding


@pytest.mark.parametrize("status", [400, 401, 403, 404, 410, 422])
async def test_client_errors_never_retry(status: int, sleeps: SleepLog) -> None:
    calls: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        return httpx.Response(status, json={"error": "nope"})

    with pytest.raises(ProviderError) as info:
        await fetch_json(make_ctx("brave", handler, sleep=sleeps, rng=TOP_OF_RANGE), "GET", "https://x.example/s")
    assert len(calls) == 1 and sleeps == []
    assert info.value.status == status
    if status in (401, 403):
        assert info.value.message == f"Brave Search authorization failed ({status}). Check API key or base URL."


def own_words(code: int, text: str, parsed: Any) -> str:
    return f"own words ({code}): {parsed['msg']}"


@pytest.mark.parametrize("describe_auth", [False, True])
@pytest.mark.parametrize("status", [401, 403])
async def test_describe_auth_lets_the_provider_word_auth_failures(
    status: int, describe_auth: bool, sleeps: SleepLog
) -> None:
    ctx = make_ctx(
        "zai", lambda r: httpx.Response(status, json={"msg": "token expired"}), sleep=sleeps, rng=TOP_OF_RANGE
    )
    with pytest.raises(ProviderError) as info:
        await send(
            ctx, HttpRequest("POST", "https://x.example/mcp", describe_error=own_words, describe_auth=describe_auth)
        )
    assert info.value.kind is ErrorKind.AUTH and info.value.status == status and sleeps == []
    generic = f"Z.AI Web Search authorization failed ({status}). Check API key or base URL."
    assert info.value.message == (f"own words ({status}): token expired" if describe_auth else generic)


async def test_describe_auth_without_a_describer_keeps_the_seed_message(sleeps: SleepLog) -> None:
    ctx = make_ctx("brave", lambda r: httpx.Response(401, text="no"), sleep=sleeps, rng=TOP_OF_RANGE)
    with pytest.raises(ProviderError) as info:
        await fetch_json(ctx, "GET", "https://x.example/s", describe_auth=True)
    assert info.value.message == "Brave Search authorization failed (401). Check API key or base URL."


async def test_hint_beyond_deadline_fails_at_once(sleeps: SleepLog) -> None:
    ctx = make_ctx(
        "tavily",
        lambda r: httpx.Response(429, headers={"Retry-After": "120"}, text="slow"),
        timeout=10,
        sleep=sleeps,
        rng=TOP_OF_RANGE,
    )
    with pytest.raises(ProviderError) as info:
        await fetch_json(ctx, "POST", "https://x.example/s")
    assert info.value.kind is ErrorKind.RATE_LIMIT and info.value.retry_after == 120
    assert sleeps == []


async def test_retries_give_up_after_three(sleeps: SleepLog) -> None:
    with pytest.raises(ProviderError) as info:
        await fetch_json(
            make_ctx("brave", lambda r: httpx.Response(502, text="bad gateway"), sleep=sleeps, rng=TOP_OF_RANGE),
            "GET",
            "https://x.example",
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
async def test_bad_bodies_are_protocol_errors(response: httpx.Response, fragment: str, sleeps: SleepLog) -> None:
    with pytest.raises(ProviderError) as info:
        await fetch_json(
            make_ctx("brave", lambda r: response, sleep=sleeps, rng=TOP_OF_RANGE), "GET", "https://x.example"
        )
    assert info.value.kind is ErrorKind.PROTOCOL
    assert fragment in info.value.message


CAP_MESSAGE = "larger than 0.5 MiB; stopped reading. Raise [search] max_body_mib in config.toml to accept more."


async def test_body_cap_comes_from_the_context_and_names_the_config_key() -> None:
    cap = 512 * 1024
    ctx = make_ctx("brave", lambda r: httpx.Response(200, json={"x": "y" * cap}))
    ctx.max_body_bytes = cap
    with pytest.raises(ProviderError) as info:
        await fetch_json(ctx, "GET", "https://x.example")
    assert info.value.kind is ErrorKind.PROTOCOL
    assert info.value.message == f"Brave Search response is {CAP_MESSAGE}"
    ctx.max_body_bytes = 2 * cap  # the same body fits under a larger cap
    data = await fetch_json(ctx, "GET", "https://x.example")
    assert len(data["x"]) == cap


def chunked_stream(*chunks: bytes) -> Callable[[httpx.Request], httpx.Response]:
    """A handler answering with an event stream that arrives in ``chunks``, one read each."""

    async def body():
        for chunk in chunks:
            yield chunk

    return lambda request: httpx.Response(200, content=body(), headers={"content-type": "text/event-stream"})


async def test_stream_cap_comes_from_the_context(sleeps: SleepLog) -> None:
    event = b"data: " + json.dumps({"t": "z" * 1000}).encode() + b"\n\n"
    ctx = make_ctx("perplexity", chunked_stream(*[event] * 600), sleep=sleeps, rng=TOP_OF_RANGE)
    ctx.max_body_bytes = 512 * 1024
    seen = 0
    with pytest.raises(ProviderError) as info:
        async for _ in stream_sse(ctx, "POST", "https://x.example"):
            seen += 1
    assert info.value.message == f"Perplexity stream is {CAP_MESSAGE}"
    assert 0 < seen < 600 and sleeps == []


@pytest.mark.parametrize("separator", [b"\n", b""], ids=["data lines without a blank line", "one endless line"])
async def test_stream_cap_holds_for_lines_that_never_end_an_event(separator: bytes, sleeps: SleepLog) -> None:
    line = (b"data: " if separator else b"") + b"z" * 64 * 1024 + separator
    ctx = make_ctx(
        "perplexity", chunked_stream(*[line] * 200), sleep=sleeps, rng=TOP_OF_RANGE
    )  # 12.5 MiB, not one complete event
    ctx.max_body_bytes = 1024 * 1024
    with pytest.raises(ProviderError) as info:
        async for _ in stream_sse(ctx, "POST", "https://x.example"):
            pass
    assert "stream is larger than 1 MiB" in info.value.message


NOT_CHARSETS = [
    "zlib",
    "bz2",
    "rot13",
    "base64",
    "hex",
    "uu",
    "quopri",
    "idna",
    "punycode",
    "unicode_escape",
    "undefined",
]
"""Python codec names that are no character encoding: a reply labelled with one is read as UTF-8."""


def reply_in(content_type: str, body: bytes) -> Callable[[httpx.Request], httpx.Response]:
    """A handler answering 200 with ``body`` and that ``Content-Type``."""
    return lambda request: httpx.Response(200, content=body, headers={"content-type": content_type})


@pytest.mark.parametrize("label", NOT_CHARSETS)
async def test_a_reply_charset_that_is_no_text_encoding_is_read_as_utf8(label: str, sleeps: SleepLog) -> None:
    body = json.dumps({"t": "café\n"}, ensure_ascii=False).encode()
    ctx = make_ctx("perplexity", reply_in(f"application/json; charset={label}", body), sleep=sleeps)
    assert await fetch_json(ctx, "GET", "https://x.example") == {"t": "café\n"}


@pytest.mark.parametrize("label", NOT_CHARSETS)
async def test_a_stream_charset_that_is_no_text_encoding_is_read_as_utf8(label: str, sleeps: SleepLog) -> None:
    body = 'data: {"t": "café\\n"}\n\n'.encode()
    ctx = make_ctx("perplexity", reply_in(f"text/event-stream; charset={label}", body), sleep=sleeps)
    items = [item async for item in stream_sse(ctx, "POST", "https://x.example")]
    assert items == [("message", {"t": "café\n"})]


async def test_a_stream_that_began_is_never_resent(sleeps: SleepLog) -> None:
    calls = []

    def drop_after_headers(request: httpx.Request) -> httpx.Response:
        calls.append(request)

        async def body():
            raise httpx.RemoteProtocolError("peer closed connection without sending complete message body")
            yield b""  # pragma: no cover - makes this an async generator

        return httpx.Response(200, content=body(), headers={"content-type": "text/event-stream"})

    with pytest.raises(ProviderError) as info:
        async for _ in stream_sse(
            make_ctx("openai", drop_after_headers, sleep=sleeps, rng=TOP_OF_RANGE), "POST", "https://x.example"
        ):
            pass
    assert info.value.kind is ErrorKind.NETWORK
    assert len(calls) == 1 and sleeps == []


async def test_a_stream_post_is_not_resent_after_a_read_timeout(sleeps: SleepLog) -> None:
    calls = []

    def time_out(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        raise httpx.ReadTimeout("no answer", request=request)

    with pytest.raises(ProviderError) as info:
        async for _ in stream_sse(
            make_ctx("openai", time_out, sleep=sleeps, rng=TOP_OF_RANGE), "POST", "https://x.example"
        ):
            pass
    assert info.value.kind is ErrorKind.TIMEOUT and len(calls) == 1


async def test_a_stream_is_retried_after_a_connection_that_never_opened(sleeps: SleepLog) -> None:
    calls = []

    def refuse_once(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        if len(calls) == 1:
            raise httpx.ConnectError("refused", request=request)
        return httpx.Response(200, content=b'data: {"ok": 1}\n\n', headers={"content-type": "text/event-stream"})

    items = [
        item
        async for item in stream_sse(
            make_ctx("openai", refuse_once, sleep=sleeps, rng=TOP_OF_RANGE), "POST", "https://x.example"
        )
    ]
    assert items == [("message", {"ok": 1})] and len(calls) == 2


async def test_a_corrupt_gzip_body_is_a_protocol_error(sleeps: SleepLog) -> None:
    async def body():
        yield b"not gzip at all"

    def broken(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=body(), headers={"content-encoding": "gzip"})

    with pytest.raises(ProviderError) as info:
        await fetch_json(make_ctx("brave", broken, sleep=sleeps, rng=TOP_OF_RANGE), "GET", "https://x.example")
    assert info.value.kind is ErrorKind.PROTOCOL
    assert info.value.message.startswith("Brave Search sent a body that could not be decoded")


def test_error_excerpts_stay_capped() -> None:
    from websearch_tui.core.errors import ERROR_EXCERPT_CHARS, excerpt

    assert len(excerpt("e" * (10 * ERROR_EXCERPT_CHARS))) == ERROR_EXCERPT_CHARS
    assert len(excerpt("e" * 5000, 500)) == 500


async def test_api_error_excerpt_is_capped_whatever_the_body_size(sleeps: SleepLog) -> None:
    ctx = make_ctx("brave", lambda r: httpx.Response(400, text="x" * 100_000), sleep=sleeps, rng=TOP_OF_RANGE)
    ctx.max_body_bytes = 4 * 1024 * 1024
    with pytest.raises(ProviderError) as info:
        await fetch_json(ctx, "GET", "https://x.example")
    assert len(info.value.message) < 600


async def test_network_and_timeout_errors(sleeps: SleepLog) -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    def slow(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("timed out", request=request)

    with pytest.raises(ProviderError) as info:
        await fetch_json(make_ctx("brave", refuse, sleep=sleeps, rng=TOP_OF_RANGE), "GET", "https://x.example")
    assert info.value.kind is ErrorKind.NETWORK and "could not connect" in info.value.message
    assert len(sleeps) == 3
    with pytest.raises(ProviderError) as info:
        await fetch_json(make_ctx("brave", slow, sleep=sleeps, rng=TOP_OF_RANGE), "GET", "https://x.example")
    assert info.value.kind is ErrorKind.TIMEOUT


async def test_error_excerpt_is_sanitized_and_redacted(sleeps: SleepLog) -> None:
    ctx = make_ctx(
        "brave",
        lambda r: httpx.Response(400, text="bad \x1b[2J key=brave-secret-xyz"),
        credentials={},
        sleep=sleeps,
        rng=TOP_OF_RANGE,
    )
    from websearch_tui.core.errors import register_secret

    register_secret("brave-secret-xyz")
    with pytest.raises(ProviderError) as info:
        await fetch_json(ctx, "GET", "https://x.example")
    assert info.value.message == "Brave Search API error (400): bad  key=***"


async def test_stream_sse_rejects_non_stream_and_maps_errors(sleeps: SleepLog) -> None:
    ctx = make_ctx("perplexity", lambda r: httpx.Response(200, html="<p>hi</p>"), sleep=sleeps, rng=TOP_OF_RANGE)
    with pytest.raises(ProviderError, match="instead of an event stream"):
        async for _ in stream_sse(ctx, "POST", "https://x.example"):
            pass
    ctx = make_ctx(
        "perplexity",
        lambda r: httpx.Response(401, json={"error": {"message": "bad key"}}),
        sleep=sleeps,
        rng=TOP_OF_RANGE,
    )
    with pytest.raises(ProviderError) as info:
        async for _ in stream_sse(ctx, "POST", "https://x.example"):
            pass
    assert info.value.kind is ErrorKind.AUTH


async def test_stream_sse_parses_crlf_and_skips_done(sleeps: SleepLog) -> None:
    body = b'event: a\r\ndata: {"n": 1}\r\n\r\n: keep-alive\r\n\r\ndata:{"n": 2}\r\n\r\ndata: not json\r\n\r\ndata: [DONE]\r\n\r\n'
    ctx = make_ctx(
        "perplexity",
        lambda r: httpx.Response(200, content=body, headers={"content-type": "text/event-stream"}),
        sleep=sleeps,
        rng=TOP_OF_RANGE,
    )
    items = [item async for item in stream_sse(ctx, "POST", "https://x.example")]
    assert items == [("a", {"n": 1}), ("message", {"n": 2})]


async def test_stream_of_only_non_json_events_is_a_protocol_error(sleeps: SleepLog) -> None:
    body = b"data: <html>oops</html>\n\ndata: {broken\n\n"
    ctx = make_ctx(
        "perplexity",
        lambda r: httpx.Response(200, content=body, headers={"content-type": "text/event-stream"}),
        sleep=sleeps,
        rng=TOP_OF_RANGE,
    )
    with pytest.raises(ProviderError) as info:
        async for _ in stream_sse(ctx, "POST", "https://x.example"):
            pass
    assert info.value.kind is ErrorKind.PROTOCOL
    assert info.value.message == "Perplexity sent 2 stream event(s) that were not JSON: oops"


async def test_an_empty_body_message_has_no_dangling_excerpt(sleeps: SleepLog) -> None:
    with pytest.raises(ProviderError) as info:
        await fetch_json(
            make_ctx("brave", lambda r: httpx.Response(200, content=b""), sleep=sleeps, rng=TOP_OF_RANGE),
            "GET",
            "https://x.example",
        )
    assert info.value.message == "Brave Search returned an empty body (HTTP 200)"


async def test_an_html_error_page_is_quoted_as_readable_text(sleeps: SleepLog) -> None:
    page = (
        "<!DOCTYPE html>\n<html><head><title>Access denied</title><style>h1{color:red}</style>"
        "<script>track('<b>x</b>')</script></head><body><h1>Blocked &amp; logged</h1></body></html>"
    )
    with pytest.raises(ProviderError) as info:
        await fetch_json(
            make_ctx("brave", lambda r: httpx.Response(200, html=page), sleep=sleeps, rng=TOP_OF_RANGE),
            "GET",
            "https://x.example",
        )
    assert info.value.message.endswith("instead of JSON (HTTP 200): Access denied Blocked & logged")


async def test_a_connection_closed_mid_body_is_worded_plainly(sleeps: SleepLog) -> None:
    def hang_up(request: httpx.Request) -> httpx.Response:
        raise httpx.RemoteProtocolError("peer closed connection without sending complete message body", request=request)

    with pytest.raises(ProviderError) as info:
        await fetch_json(make_ctx("brave", hang_up, sleep=sleeps, rng=TOP_OF_RANGE), "GET", "https://x.example")
    assert info.value.kind is ErrorKind.NETWORK
    assert info.value.message == (
        "Brave Search network error: the connection closed before the response was complete. "
        "Check the connection or base URL."
    )


def test_retry_hint_order_and_body_text() -> None:
    # Retry-After (as an HTTP date) comes before x-ratelimit-reset-ms
    past = format_datetime(datetime(2020, 1, 1, tzinfo=timezone.utc), usegmt=True)
    assert retry_hint({"Retry-After": past, "x-ratelimit-reset-ms": "5000"}) == 0
    assert retry_hint({}, None, "Please retry in 12s.") == 12
    assert retry_hint({}, None, "rate limited, reset after 1h2m3s") == 3723
    assert retry_hint({}, None, "Try again in 2 min") == 120
    assert retry_hint({}, None, "retry-after-ms=250") == 0.25
    assert retry_hint({}, None, "quota exceeded") is None


async def test_other_5xx_are_not_retried(sleeps: SleepLog) -> None:
    with pytest.raises(ProviderError) as info:
        await fetch_json(
            make_ctx("brave", lambda r: httpx.Response(501, text="nope"), sleep=sleeps, rng=TOP_OF_RANGE),
            "GET",
            "https://x.example",
        )
    assert info.value.kind is ErrorKind.SERVER and sleeps == []


@pytest.mark.parametrize("url", ["localhost:8888/search", "http://exa\nmple.example/x"])
async def test_unusable_endpoint_is_a_config_error_not_retried(url: str, sleeps: SleepLog) -> None:
    from websearch_tui.core.catalogue import get_spec
    from websearch_tui.providers.base import ProviderContext

    async with httpx.AsyncClient() as client:  # a real transport: httpx refuses these URLs before any I/O
        with pytest.raises(ProviderError) as info:
            await fetch_json(ProviderContext(spec=get_spec("searxng"), client=client, sleep=sleeps), "GET", url)
    assert info.value.kind is ErrorKind.CONFIG and sleeps == []
    assert "Check base_url in [providers.searxng]" in info.value.message


async def test_long_server_wait_is_shown(sleeps: SleepLog) -> None:
    ctx = make_ctx(
        "tavily",
        lambda r: httpx.Response(429, headers={"Retry-After": "34"}, text="slow"),
        timeout=10,
        sleep=sleeps,
        rng=TOP_OF_RANGE,
    )
    with pytest.raises(ProviderError) as info:
        await fetch_json(ctx, "POST", "https://x.example/s")
    assert info.value.message.endswith("(retry in 34 s)")


async def test_no_retry_once_a_response_arrived_when_http_errors_are_final(sleeps: SleepLog) -> None:
    calls: list[int] = []

    async def broken_body():
        yield b": keep-alive\n\n"
        raise httpx.ReadError("connection reset")

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=broken_body())

    with pytest.raises(ProviderError) as info:
        async for _ in stream_sse(
            make_ctx("perplexity", handler, sleep=sleeps, rng=TOP_OF_RANGE),
            "POST",
            "https://x.example",
            retry_http_errors=False,
        ):
            pass
    assert info.value.kind is ErrorKind.NETWORK
    assert len(calls) == 1 and sleeps == []


async def test_connection_failure_before_a_response_is_retried_once_when_asked(sleeps: SleepLog) -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    with pytest.raises(ProviderError):
        async for _ in stream_sse(
            make_ctx("perplexity", refuse, sleep=sleeps, rng=TOP_OF_RANGE),
            "POST",
            "https://x.example",
            retry_http_errors=False,
            max_retries=1,
        ):
            pass
    assert sleeps == [1.0]


async def test_max_retries_caps_the_attempts(sleeps: SleepLog) -> None:
    calls: list[int] = []

    def down(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        return httpx.Response(503, text="down")

    with pytest.raises(ProviderError):
        await fetch_json(
            make_ctx("brave", down, sleep=sleeps, rng=TOP_OF_RANGE),
            "GET",
            "https://x.example",
            retry=RetryPolicy(max_retries=1),
        )
    assert len(calls) == 2 and sleeps == [1.0]


async def test_a_post_that_may_have_reached_the_server_is_not_resent(sleeps: SleepLog) -> None:
    calls: list[str] = []

    def slow(request: httpx.Request) -> httpx.Response:
        calls.append(request.method)
        raise httpx.ReadTimeout("no answer yet", request=request)

    with pytest.raises(ProviderError) as info:
        await fetch_json(
            make_ctx("ark", slow, sleep=sleeps, rng=TOP_OF_RANGE),
            "POST",
            "https://x.example/api/v3/responses",
            json_body={},
        )
    assert info.value.kind is ErrorKind.TIMEOUT
    assert calls == ["POST"] and sleeps == []  # a paid model call is not billed twice


async def test_a_post_that_never_connected_is_retried(sleeps: SleepLog) -> None:
    calls: list[str] = []

    def refuse(request: httpx.Request) -> httpx.Response:
        calls.append(request.method)
        raise httpx.ConnectError("refused", request=request)

    with pytest.raises(ProviderError):
        await fetch_json(
            make_ctx("ark", refuse, sleep=sleeps, rng=TOP_OF_RANGE), "POST", "https://x.example", json_body={}
        )
    assert len(calls) == 4 and sleeps == [1.0, 2.0, 4.0]


async def test_http_errors_can_be_final(sleeps: SleepLog) -> None:
    calls: list[int] = []

    def busy(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        return httpx.Response(503, text="busy")

    with pytest.raises(ProviderError):
        await fetch_json(
            make_ctx("perplexity_search", busy, sleep=sleeps, rng=TOP_OF_RANGE),
            "POST",
            "https://x.example",
            retry=RetryPolicy(retry_http_errors=False),
        )
    assert len(calls) == 1 and sleeps == []


# --- backoff jitter ------------------------------------------------------------------------


class FakeClock:
    """A monotonic clock that only moves when the run sleeps: ``sleep`` records the wait and
    advances ``now`` by it, as the time a real wait takes would."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.waits: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, delay: float) -> None:
        self.waits.append(delay)
        self.now += delay


async def failing_waits(seed: int, timeout: float = 30.0) -> list[float]:
    """The waits of one request that always gets 503, with the jitter seeded and the run's time
    advanced by each wait (so each one moves the deadline closer)."""
    clock = FakeClock()
    ctx = make_ctx(
        "brave",
        lambda r: httpx.Response(503, text="busy"),
        timeout=timeout,
        clock=clock,
        sleep=clock.sleep,
        rng=random.Random(seed),
    )
    with pytest.raises(ProviderError):
        await fetch_json(ctx, "GET", "https://x.example")
    return clock.waits


async def test_backoff_without_a_hint_is_jittered_exponential() -> None:
    runs = [await failing_waits(seed) for seed in range(20)]
    for waits in runs:
        assert len(waits) == 3
        for attempt, wait in enumerate(waits):
            assert 0.5 * 2**attempt <= wait <= 2**attempt
    assert len({tuple(waits) for waits in runs}) == len(runs)  # clients failing together spread out
    assert await failing_waits(7) == await failing_waits(7)  # the seed decides


async def test_jittered_backoff_never_waits_past_the_deadline() -> None:
    for seed in range(20):
        waits = await failing_waits(seed, timeout=2.5)
        assert sum(waits) < 2.5 and 1 <= len(waits) <= 2  # a wait that would end past the deadline is not made


def test_server_hint_is_not_jittered() -> None:
    ctx = make_ctx("brave")
    error = ProviderError("brave", ErrorKind.RATE_LIMIT, "slow down", status=429, retry_after=2.0)
    assert {http.retry_delay(ctx, error, attempt) for attempt in range(3)} == {3.0}


# --- retry reporting -----------------------------------------------------------------------


class RetryLog:
    """Records, in order, what the HTTP layer reports and when it sleeps (jitter pinned to the
    top of its range)."""

    def __init__(self) -> None:
        self.entries: list[tuple[object, ...]] = []

    async def sleep(self, delay: float) -> None:
        self.entries.append(("sleep", delay))

    def attach(self, ctx: ProviderContext) -> ProviderContext:
        ctx.report_retry = lambda delay, reason, attempt: self.entries.append(("retry", delay, reason, attempt))
        ctx.report_resend = lambda: self.entries.append(("resend",))
        ctx.sleep = self.sleep
        ctx.rng = TOP_OF_RANGE
        return ctx


async def test_request_reports_each_wait_then_the_resend() -> None:
    log = RetryLog()
    replies = iter(
        [httpx.Response(503), httpx.Response(429, headers={"Retry-After": "2"}), httpx.Response(200, json={})]
    )
    ctx = log.attach(make_ctx("brave", lambda r: next(replies)))
    await fetch_json(ctx, "GET", "https://x.example")
    assert log.entries == [
        ("retry", 1.0, "503", 1),
        ("sleep", 1.0),
        ("resend",),
        ("retry", 3.0, "429", 2),
        ("sleep", 3.0),
        ("resend",),
    ]


async def test_transport_failures_are_reported_as_timeout_and_network() -> None:
    log = RetryLog()
    failures = iter([httpx.ReadTimeout("slow"), httpx.ConnectError("refused")])

    def handler(request: httpx.Request) -> httpx.Response:
        failure = next(failures, None)
        if failure is not None:
            failure.request = request
            raise failure
        return httpx.Response(200, content=b'data: {"n": 1}\n\n', headers={"content-type": "text/event-stream"})

    ctx = log.attach(make_ctx("perplexity", handler))
    assert [item async for item in stream_sse(ctx, "GET", "https://x.example")] == [("message", {"n": 1})]
    reported = [entry for entry in log.entries if entry[0] == "retry"]
    assert reported == [("retry", 1.0, "timeout", 1), ("retry", 2.0, "network", 2)]
    assert log.entries.count(("resend",)) == 2


async def test_mcp_calls_report_their_retries() -> None:
    from websearch_tui.providers.families.mcp import call_tool

    log = RetryLog()
    replies = iter([httpx.Response(502, text="bad gateway")])

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        result = {"content": [{"type": "text", "text": '{"results": [1]}'}]}
        return next(replies, None) or httpx.Response(200, json={"jsonrpc": "2.0", "id": body["id"], "result": result})

    ctx = log.attach(make_ctx("exa", handler))
    assert await call_tool(ctx, "https://mcp.example/mcp", "web_search_exa", {}, handshake=False) == {"results": [1]}
    assert log.entries == [("retry", 1.0, "502", 1), ("sleep", 1.0), ("resend",)]


async def test_nothing_is_reported_when_no_retry_happens() -> None:
    log = RetryLog()
    ctx = log.attach(make_ctx("brave", lambda r: httpx.Response(422, json={"error": "bad"})))
    with pytest.raises(ProviderError):
        await fetch_json(ctx, "GET", "https://x.example")
    assert log.entries == []


# --- the shared client ----------------------------------------------------------------------


async def test_shared_client_holds_24_requests_open_at_once() -> None:
    """24 providers in flight together each get a connection: the server answers none of them
    until all 24 have arrived, so a smaller pool would leave the rest queued and time out."""
    from tests.fake_providers import FakeResponse, FakeServer

    arrived: list[int] = []
    lock = threading.Lock()
    everyone = 24

    async def barrier(request) -> FakeResponse:
        with lock:
            arrived.append(1)
        while len(arrived) < everyone:
            await asyncio.sleep(0.01)
        return FakeResponse(200, body={"ok": True})

    with FakeServer(default_routes=False) as server:
        server.set("GET", "/wait", barrier)
        client = http.build_client()
        try:
            replies = await asyncio.wait_for(
                asyncio.gather(*(client.get(server.url("/wait")) for _ in range(everyone))), timeout=20
            )
        finally:
            await client.aclose()
    assert [reply.json() for reply in replies] == [{"ok": True}] * everyone


def compressed_response(
    payload: bytes, *, pieces: int = 1, encoding: str = "gzip"
) -> Callable[[httpx.Request], httpx.Response]:
    """A handler answering with ``payload`` compressed (``gzip``, ``deflate`` with its zlib header, or
    ``raw-deflate``: sent as ``deflate`` without the header, as some servers do), in ``pieces`` reads."""
    import gzip
    import zlib

    if encoding == "gzip":
        packed = gzip.compress(payload)
    else:
        packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS if encoding == "deflate" else -zlib.MAX_WBITS)
        packed = packer.compress(payload) + packer.flush()
    step = -(-len(packed) // pieces)

    async def body():
        for start in range(0, len(packed), step):
            yield packed[start : start + step]

    header = "gzip" if encoding == "gzip" else "deflate"
    return lambda request: httpx.Response(
        200, content=body(), headers={"content-encoding": header, "content-type": "application/json"}
    )


def gzip_response(payload: bytes, *, pieces: int = 1) -> Callable[[httpx.Request], httpx.Response]:
    """A handler answering with ``payload`` gzip-compressed, sent in ``pieces`` reads."""
    return compressed_response(payload, pieces=pieces)


async def test_a_gzip_bomb_is_inflated_in_small_steps_and_stopped_at_the_cap(sleeps: SleepLog) -> None:
    ctx = make_ctx(
        "brave", gzip_response(b"0" * (64 * 1024 * 1024)), sleep=sleeps, rng=TOP_OF_RANGE
    )  # 64 MiB of zeros: about 64 KiB packed
    ctx.max_body_bytes = 1024 * 1024
    with pytest.raises(ProviderError, match="larger than 1 MiB"):
        await fetch_json(ctx, "GET", "https://x.example")

    sizes = []
    async with make_ctx("brave", gzip_response(b"1" * (3 * 1024 * 1024))).client.stream("GET", "https://x") as reply:
        async for chunk in http.body_chunks(reply):
            sizes.append(len(chunk))
    assert max(sizes) <= http.INFLATE_STEP and sum(sizes) == 3 * 1024 * 1024


async def test_a_gzip_body_split_across_reads_decodes_whole(sleeps: SleepLog) -> None:
    payload = json.dumps({"web": {"results": [{"url": f"https://r{i}.example/"} for i in range(500)]}}).encode()
    data = await fetch_json(make_ctx("brave", gzip_response(payload, pieces=7)), "GET", "https://x.example")
    assert len(data["web"]["results"]) == 500


@pytest.mark.parametrize("encoding", ["gzip", "deflate", "raw-deflate"])
async def test_every_accepted_encoding_is_inflated_in_steps_and_stopped_at_the_cap(encoding: str) -> None:
    ctx = make_ctx("brave", compressed_response(b"0" * (64 * 1024 * 1024), encoding=encoding, pieces=4))
    ctx.max_body_bytes = 1024 * 1024
    with pytest.raises(ProviderError, match="larger than 1 MiB"):
        await fetch_json(ctx, "GET", "https://x.example")
    sizes = []
    bomb = compressed_response(b"1" * (3 * 1024 * 1024), encoding=encoding)
    async with make_ctx("brave", bomb).client.stream("GET", "https://x") as reply:
        async for chunk in http.body_chunks(reply):
            sizes.append(len(chunk))
    assert max(sizes) <= http.INFLATE_STEP and sum(sizes) == 3 * 1024 * 1024
    payload = json.dumps({"ok": encoding}).encode()
    assert await fetch_json(make_ctx("brave", compressed_response(payload, encoding=encoding)), "GET", "https://x") == {
        "ok": encoding
    }


@pytest.mark.parametrize("encoding", ["br", "zstd", "compress", "gzip, gzip"])
async def test_an_encoding_that_was_not_asked_for_is_refused(encoding: str) -> None:
    async def body():
        yield b"\x00" * 64

    ctx = make_ctx("brave", lambda r: httpx.Response(200, content=body(), headers={"content-encoding": encoding}))
    with pytest.raises(ProviderError) as caught:
        await fetch_json(ctx, "GET", "https://x.example")
    assert caught.value.kind is ErrorKind.PROTOCOL and "was not asked for" in caught.value.message


def test_the_client_asks_only_for_encodings_it_bounds() -> None:
    assert http.build_client().headers["accept-encoding"] == "gzip, deflate"


async def test_reading_may_take_until_the_deadline_not_a_hidden_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """A provider that thinks before its first byte is waited for as long as the deadline allows
    (today 0.3 s of silence with a 0.1 s fallback timeout: it used to fail "did not answer in time")."""
    from tests.fake_providers import FakeResponse, FakeServer

    monkeypatch.setattr(http, "REQUEST_TIMEOUT", 0.1)

    async def slow(request):
        await asyncio.sleep(0.3)
        return FakeResponse(200, body={"slow": True})

    with FakeServer() as server:
        server.set("GET", "/slow", slow)
        client = http.build_client()
        try:
            ctx = make_ctx("brave", timeout=10)
            ctx.client = client
            assert await fetch_json(ctx, "GET", server.base_url + "/slow") == {"slow": True}
        finally:
            await client.aclose()


@pytest.mark.parametrize("value", ["inf", "-inf", "1e400", "nan", "Infinity"])
def test_a_retry_hint_that_is_not_a_finite_number_is_no_hint(value: str) -> None:
    for name in ("Retry-After", "retry-after-ms", "x-ratelimit-reset", "x-ratelimit-reset-after"):
        assert retry_hint({name: value}) is None


def test_absurd_waits_are_clamped_and_worded() -> None:
    assert retry_hint({"Retry-After": "99999999999999999999"}) == http.MAX_HINT
    error = ProviderError("brave", ErrorKind.RATE_LIMIT, "Slow down.", status=429, retry_after=http.MAX_HINT)
    assert http._give_up(error).message == "Slow down. (retry in more than an hour)"


@pytest.mark.parametrize(
    "text",
    [
        "retry" + " " * 30_000 + "x",
        "retry in " + "1" * 30_000,
        "try again " + "1 " * 20_000,
        "reset after " + "9.9" * 10_000,
        "retry-after-ms=" + "9" * 30_000,
    ],
    ids=["spaces", "digits", "repeats", "decimals", "millis"],
)
def test_hint_patterns_are_linear_on_hostile_bodies(text: str) -> None:
    """These took 20 s and more with the old patterns; a linear scan answers at once (the hang guard
    allows 100 times what it needs, only to stop a regression from hanging the suite)."""
    assert finishes_within(lambda: retry_hint({}, None, text), seconds=10)


async def test_https_verifies_with_httpxs_default_context_built_once_in_a_thread(monkeypatch) -> None:
    """Plain http never loads the CA bundle; the first https requests share one context, httpx's own
    default (built off the event loop), so certificate checks are exactly httpx's."""
    import ssl

    made: list[str] = []
    real = httpx.create_ssl_context

    def recording_context() -> ssl.SSLContext:
        made.append(threading.current_thread().name)
        return real()

    monkeypatch.setattr(httpx, "create_ssl_context", recording_context)
    closed = closed_port_url().replace("http:", "https:") + "/"  # connecting fails after the context exists
    client = http.build_client()
    try:
        [plain] = http.client_pools(client)
        assert plain._ssl_context is None  # plain http never does TLS: no context, no CA bundle loaded
        results = await asyncio.gather(client.get(closed), client.get(closed), return_exceptions=True)
        assert all(isinstance(result, httpx.ConnectError) for result in results)
        assert len(made) == 1 and made[0] != threading.main_thread().name
        tls = http.client_pools(client)[1]
        assert tls._ssl_context.verify_mode is ssl.CERT_REQUIRED and tls._ssl_context.check_hostname
        assert tls._ssl_context.cert_store_stats()["x509_ca"] > 0
    finally:
        await client.aclose()


class FakeResolver:
    """``socket.getaddrinfo`` (what asyncio's ``loop.getaddrinfo``, under anyio and httpcore, calls
    in a worker thread) failing with ``socket.gaierror(code)`` for names under ``.invalid``, so no
    test asks the system resolver; loopback names go to the real function. ``asked`` lists the
    names looked up."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, code: int) -> None:
        import socket

        self.code = code
        self.asked: list[str] = []
        self._real = socket.getaddrinfo
        monkeypatch.setattr(socket, "getaddrinfo", self)

    def __call__(self, host: Any, *args: Any, **kwargs: Any) -> Any:
        """Look ``host`` up: fail for a ``.invalid`` name, else ask the real resolver."""
        import socket

        name = host.decode() if isinstance(host, bytes) else str(host)
        if not name.endswith(".invalid"):
            return self._real(host, *args, **kwargs)
        self.asked.append(name)
        raise socket.gaierror(self.code, f"fake lookup failure {self.code}")


HOST = "search.websearch-tui.invalid"


async def search_through(provider: str, client: httpx.AsyncClient, log: RetryLog) -> ProviderError:
    """Run ``provider`` against ``http://{HOST}`` on ``client``; return the error it fails with."""
    from tests.helpers import _context, collect
    from websearch_tui.core.catalogue import get_spec
    from websearch_tui.core.models import SearchRequest
    from websearch_tui.core.specs import ProviderSettings

    settings = ProviderSettings(base_url=f"http://{HOST}")
    ctx = log.attach(
        _context(spec=get_spec(provider), client=client, settings=settings, credentials={"api_key": "k"}, timeout=30)
    )
    try:
        with pytest.raises(ProviderError) as info:
            await collect(provider, SearchRequest("q"), ctx)
    finally:
        await client.aclose()
    return info.value


@pytest.mark.parametrize("provider", ["brave", "perplexity"])  # a GET through send, a POST event stream
@pytest.mark.parametrize("code", ["EAI_NONAME", "EAI_NODATA"])
async def test_a_host_that_does_not_resolve_fails_at_once_in_one_wording(
    monkeypatch: pytest.MonkeyPatch, provider: str, code: str
) -> None:
    """A name that does not exist (or has no address) is looked up once: no retry reported, and it
    reads as every provider's DNS failure does. The lookup is faked (:class:`FakeResolver`)."""
    import socket

    from websearch_tui.core.catalogue import get_spec

    if not hasattr(socket, code):
        pytest.skip(f"no socket.{code} here")
    resolver = FakeResolver(monkeypatch, getattr(socket, code))
    log = RetryLog()
    error = await search_through(provider, http.build_client(), log)
    assert error.kind is ErrorKind.NETWORK
    assert error.message == (
        f"{get_spec(provider).label} network error: could not resolve {HOST}. Check the connection or base URL."
    )
    assert log.entries == []  # not one retry
    assert resolver.asked == [HOST]


@pytest.mark.parametrize(("provider", "retries"), [("brave", 3), ("perplexity", 1)])  # perplexity: max_retries=1
@pytest.mark.parametrize("code", ["EAI_AGAIN", "EAI_SYSTEM", "EAI_FAIL"])
async def test_other_lookup_failures_are_retried_like_any_failed_connection(
    monkeypatch: pytest.MonkeyPatch, provider: str, retries: int, code: str
) -> None:
    """No resolver answering (``EAI_AGAIN``), a system error such as running out of file descriptors
    (``EAI_SYSTEM``), a resolver failure (``EAI_FAIL``): not "could not resolve", but a failed
    connection, retried (a GET and a POST alike: nothing was sent) and worded as one."""
    import socket

    from websearch_tui.core.catalogue import get_spec

    if not hasattr(socket, code):
        pytest.skip(f"no socket.{code} here")
    number = getattr(socket, code)
    resolver = FakeResolver(monkeypatch, number)
    log = RetryLog()
    error = await search_through(provider, http.build_client(), log)
    assert error.kind is ErrorKind.NETWORK
    assert error.message == (
        f"{get_spec(provider).label} network error: could not connect ([Errno {number}] fake lookup failure "
        f"{number}). Check the connection or base URL."
    )
    assert [entry for entry in log.entries if entry[0] == "retry"] == [
        ("retry", float(2**attempt), "network", attempt + 1) for attempt in range(retries)
    ]
    assert resolver.asked == [HOST] * (retries + 1)


async def test_the_shared_client_ignores_proxy_variables_so_the_name_is_the_hosts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """httpx reads ``HTTP(S)_PROXY`` / ``ALL_PROXY`` only for a client without its own transport;
    :func:`http.build_client` has one, so it looks the target up itself and the error names it."""
    import socket

    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.setenv(name, "http://proxy.websearch-tui.invalid:3128")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    resolver = FakeResolver(monkeypatch, socket.EAI_NONAME)
    error = await search_through("brave", http.build_client(), RetryLog())
    assert error.message == f"Brave Search network error: could not resolve {HOST}. Check the connection or base URL."
    assert resolver.asked == [HOST]


def test_only_a_name_that_does_not_exist_counts_as_unresolved() -> None:
    """By the gaierror's code where the chain keeps it (httpx -> httpcore -> socket), else by the words
    of ``EAI_NONAME`` / ``EAI_NODATA``; a temporary or system failure of the lookup is not one."""
    import socket

    request = httpx.Request("GET", "https://x.example")

    def caused_by(code: int, text: str) -> httpx.ConnectError:
        inner = httpcore.ConnectError(f"[Errno {code}] {text}")
        inner.__cause__ = socket.gaierror(code, text)
        outer = httpx.ConnectError(str(inner), request=request)
        outer.__cause__ = inner
        return outer

    assert http.unresolved_host(caused_by(socket.EAI_NONAME, "Name or service not known"))
    assert http.unresolved_host(caused_by(socket.EAI_NODATA, "No address associated with hostname"))
    assert http.unresolved_host(socket.gaierror(11001, "getaddrinfo failed"))  # Windows' WSAHOST_NOT_FOUND
    assert http.unresolved_host(socket.gaierror(11004, "getaddrinfo failed"))  # Windows' WSANO_DATA
    assert not http.unresolved_host(caused_by(socket.EAI_AGAIN, "Temporary failure in name resolution"))
    assert not http.unresolved_host(caused_by(socket.EAI_SYSTEM, "System error"))
    assert not http.unresolved_host(socket.gaierror(11002, "getaddrinfo failed"))  # Windows' WSATRY_AGAIN
    for text in (  # the chain lost the gaierror: only its words are left
        "[Errno -2] Name or service not known",
        "[Errno -5] No address associated with hostname",
        "[Errno 8] nodename nor servname provided, or not known",
        "Name does not resolve",
        "[Errno 11001] getaddrinfo failed",
    ):
        assert http.unresolved_host(httpx.ConnectError(text, request=request)), text
    for text in (
        "[Errno -3] Temporary failure in name resolution",
        "[Errno -11] System error",
        "[Errno 11002] getaddrinfo failed",
        "[Errno 111] Connection refused",
    ):
        assert not http.unresolved_host(httpx.ConnectError(text, request=request)), text


async def test_the_providers_client_keeps_the_cookies_set_and_reads_no_other_response_for_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from http.cookiejar import CookieJar

    sent: list[str | None] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request.headers.get("cookie"))
        return httpx.Response(200, headers={"set-cookie": "session=abc; Path=/"} if request.url.path == "/in" else {})

    parsed: list[str] = []
    extract = CookieJar.extract_cookies

    def counted(jar: CookieJar, response: Any, request: Any) -> None:
        parsed.append(request.get_full_url())
        extract(jar, response, request)

    monkeypatch.setattr(CookieJar, "extract_cookies", counted)
    client = http.build_client()
    await client.aclose()
    async with type(client)(transport=httpx.MockTransport(answer)) as client:
        for path in ("/plain", "/in", "/after"):
            await client.get(f"http://provider.test{path}")
    assert parsed == ["http://provider.test/in"]
    assert sent == [None, None, "session=abc"]
