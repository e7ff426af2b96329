"""Shared HTTP for every provider: one client, URL joining, retries, body caps, error mapping.

Providers call :func:`request_json` (one JSON request/response) or :func:`stream_sse`
(a ``text/event-stream`` response as parsed JSON payloads). Both:

- bound every attempt by the provider deadline (``ctx.deadline``);
- retry 408/429/5xx, timeouts and connection errors (at most 3 retries, honouring
  ``retry-after-ms`` / ``Retry-After`` / ``x-ratelimit-reset*`` hints, else exponential backoff with
  jitter: 0.5-1 s, 1-2 s, 2-4 s), never past the deadline and never after a stream has produced an
  event; each wait is announced through ``ctx.report_retry`` and its end through ``ctx.report_resend``
  so the front end can show "retrying in 2s (429)";
- read at most ``ctx.max_body_bytes`` (config ``[search] max_body_mib``) and turn anything that is not
  the expected shape (HTML, empty body, bad JSON) into a ``protocol`` :class:`ProviderError` with a
  redacted excerpt;
- map 401/403 to the seed message ``"<Label> authorization failed (<status>). ..."``.
"""

from __future__ import annotations

import asyncio
import codecs
import json
import random
import re
import time
import zlib
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any

import httpcore
import httpx
import httpx_sse

from websearch_tui import __version__
from websearch_tui.core.errors import ErrorKind, ProviderError, auth_failed_message, excerpt, kind_for_status
from websearch_tui.providers.base import ProviderContext

MAX_RETRIES = 3
MAX_RETRY_DELAY = 300.0
RETRY_STATUSES = frozenset({408, 429, 500, 502, 503, 504, 529})
REQUEST_TIMEOUT = 30.0
CONNECT_TIMEOUT = 10.0
USER_AGENT = f"websearch-tui/{__version__}"
_sleep = asyncio.sleep  # retry waits; tests replace it to run without real delays
_random = random.Random()  # backoff jitter; tests replace or seed it for reproducible waits
_MIB = 1024 * 1024

ErrorDescriber = Callable[[int, str, Any], str]
"""``(status, body_text, parsed_json_or_None) -> message`` for a provider's non-2xx responses."""


def build_client() -> httpx.AsyncClient:
    """The shared client: HTTP/1.1, no redirects (keys must not follow them), pool for 24 providers.

    Its connection pool reclaims connections left behind by cancelled requests (:class:`_ReclaimingPool`).
    """
    limits = httpx.Limits(max_connections=48, max_keepalive_connections=24)
    transport = httpx.AsyncHTTPTransport(limits=limits)
    if type(transport._pool) is httpcore.AsyncConnectionPool:
        transport._pool.__class__ = _ReclaimingPool
    return httpx.AsyncClient(
        transport=transport,
        timeout=httpx.Timeout(REQUEST_TIMEOUT, connect=CONNECT_TIMEOUT),
        follow_redirects=False,
        headers={"User-Agent": USER_AGENT},
    )


class _ReclaimingPool(httpcore.AsyncConnectionPool):
    """httpcore's pool, plus: a connection no pending request owns that is neither idle nor closed is
    closed and dropped whenever the pool re-assigns connections.

    Such a connection is what a request cancelled between getting a new connection and sending on it
    leaves behind in httpcore 1.0.9 (encode/httpcore#1093): never reused, never reaped, it would hold
    a socket and a pool slot until the process ends, so frequent cancels (Esc, a new search) would
    exhaust the pool. Other connections are handled exactly as by httpcore.
    """

    def _assign_requests_to_connections(self) -> list[httpcore.AsyncConnectionInterface]:
        owned = {id(request.connection) for request in self._requests if request.connection is not None}
        orphans = [
            connection
            for connection in self._connections
            if id(connection) not in owned and not (connection.is_idle() or connection.is_closed())
        ]
        for connection in orphans:
            self._connections.remove(connection)
        return [*orphans, *super()._assign_requests_to_connections()]


def join_url(base: str, path: str) -> str:
    """Join a configured ``base_url`` and an endpoint ``path`` (PROVIDERS.md §0).

    ``https://h``, ``https://h/v1`` and ``https://h/v1/x`` all give ``https://h/v1/x`` for path
    ``/v1/x``; a prefix that is not part of the path is kept (``https://h/proxy`` -> ``.../proxy/v1/x``).
    """
    base = base.rstrip("/")
    path = "/" + path.lstrip("/")
    if base.endswith(path.rstrip("/")):
        return base + path[len(path.rstrip("/")) :]
    segments = path.strip("/").split("/")
    for cut in range(len(segments) - 1, 0, -1):
        lead = "/" + "/".join(segments[:cut])
        if base.endswith(lead):
            return base + path[len(lead) :]
    return base + path


def _timeout(ctx: ProviderContext, read_timeout: float | None = None) -> httpx.Timeout:
    remaining = max(0.1, ctx.remaining())
    return httpx.Timeout(min(read_timeout or REQUEST_TIMEOUT, remaining), connect=min(CONNECT_TIMEOUT, remaining))


NOT_SENT_ERRORS = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)
"""Transport failures that happen before a request reaches the server (safe to resend a POST)."""


async def request_json(
    ctx: ProviderContext,
    method: str,
    url: str,
    *,
    headers: Mapping[str, str] | None = None,
    params: Mapping[str, Any] | None = None,
    json_body: Any = None,
    form: Mapping[str, str] | None = None,
    describe_error: ErrorDescriber | None = None,
    describe_auth: bool = False,
    max_retries: int = MAX_RETRIES,
    retry_http_errors: bool = True,
    read_timeout: float | None = None,
) -> tuple[Any, httpx.Response]:
    """Send one request and return ``(parsed JSON, response)``; the body is already read.

    Retryable failures are retried at most ``max_retries`` times (see :func:`retry_delay`). A
    POST is never resent after a failure that may have reached the server (a read timeout, a
    dropped response): only connection failures are retried, so a paid call is not billed twice.
    With ``retry_http_errors=False`` an HTTP error answer is final. ``read_timeout`` (seconds,
    default 30) bounds the wait for the response, never past the deadline.
    ``describe_error`` words non-2xx replies; 401/403 keep the seed auth message unless
    ``describe_auth`` is set (for providers whose own auth wording must be shown).

    Raises:
        ProviderError: auth, rate_limit, quota, bad_request, not_found, server (non-2xx), timeout,
            network, or protocol (a 2xx that is not JSON, too large, or empty).
    """
    response, body = await _send_with_retries(
        ctx,
        method,
        url,
        headers,
        params,
        json_body,
        form,
        describe_error,
        describe_auth,
        _RetryPolicy(max_retries, retry_http_errors, read_timeout),
    )
    return parse_json_body(ctx, response, body), response


async def request_text(
    ctx: ProviderContext,
    method: str,
    url: str,
    *,
    headers: Mapping[str, str] | None = None,
    params: Mapping[str, Any] | None = None,
    json_body: Any = None,
    form: Mapping[str, str] | None = None,
    describe_error: ErrorDescriber | None = None,
    describe_auth: bool = False,
    max_retries: int = MAX_RETRIES,
    retry_http_errors: bool = True,
    read_timeout: float | None = None,
) -> tuple[str, httpx.Response]:
    """Like :func:`request_json` but returns the decoded body text (for HTML or MCP bodies)."""
    response, body = await _send_with_retries(
        ctx,
        method,
        url,
        headers,
        params,
        json_body,
        form,
        describe_error,
        describe_auth,
        _RetryPolicy(max_retries, retry_http_errors, read_timeout),
    )
    return _decode(response, body), response


async def _send_with_retries(
    ctx: ProviderContext,
    method: str,
    url: str,
    headers: Mapping[str, str] | None,
    params: Mapping[str, Any] | None,
    json_body: Any,
    form: Mapping[str, str] | None,
    describe_error: ErrorDescriber | None,
    describe_auth: bool,
    policy: _RetryPolicy,
) -> tuple[httpx.Response, bytes]:
    attempt = 0
    while True:
        try:
            async with ctx.client.stream(
                method,
                url,
                headers=headers,
                params=params,
                json=json_body,
                data=form,
                timeout=_timeout(ctx, policy.read_timeout),
            ) as response:
                body = await read_capped(ctx, response)
            if response.status_code >= 300:
                raise error_from_response(ctx, response, _decode(response, body), describe_error, describe_auth)
            return response, body
        except (httpx.TransportError, httpx.DecodingError, httpx.InvalidURL, ProviderError) as exc:
            error = exc if isinstance(exc, ProviderError) else transport_error(ctx, exc)
            maybe_sent = isinstance(exc, httpx.TransportError) and not isinstance(exc, NOT_SENT_ERRORS)
            answered = isinstance(exc, ProviderError) and exc.status is not None
            if (maybe_sent and method.upper() != "GET") or (answered and not policy.retry_http_errors):
                # the server may have run (and billed) this POST already, or its answer is final
                raise _give_up(error) from None
            delay = retry_delay(ctx, error, attempt, policy.max_retries)
            if delay is None:
                raise _give_up(error) from None
            attempt += 1
            await _wait_to_retry(ctx, delay, error, attempt)


@dataclass(frozen=True)
class _RetryPolicy:
    """How one request may be retried: at most ``max_retries`` times; HTTP error answers only when
    ``retry_http_errors``; ``read_timeout`` seconds to wait for the response (default 30 s)."""

    max_retries: int = MAX_RETRIES
    retry_http_errors: bool = True
    read_timeout: float | None = None


def retry_delay(
    ctx: ProviderContext, error: ProviderError, attempt: int, max_retries: int = MAX_RETRIES
) -> float | None:
    """Seconds to wait before retrying ``error``, or ``None`` when it must not be retried.

    Retried: 408, 429 (not quota), 500, 502, 503, 504, 529, timeouts and connection errors, at most
    ``max_retries`` times (``attempt`` counts the retries already made, from 0); the wait is the
    server's hint plus 1 s, else :func:`backoff_delay`, and never reaches past the deadline or beyond
    :data:`MAX_RETRY_DELAY`. 400, 401, 403, 404, 410, 422 and other 4xx are never retried.
    """
    if not error.retryable or attempt >= max_retries:
        return None
    if error.status is not None and error.status not in RETRY_STATUSES:
        return None
    delay = error.retry_after + 1.0 if error.retry_after is not None else backoff_delay(attempt)
    if delay > MAX_RETRY_DELAY or delay >= ctx.remaining():
        return None
    return delay


def backoff_delay(attempt: int) -> float:
    """Seconds to wait before retry ``attempt + 1`` when the server gave no hint: ``2**attempt``
    scaled by a random factor in [0.5, 1.0] (0.5-1 s, 1-2 s, 2-4 s), so clients that failed together
    do not all come back at the same instant. Draws from the module's ``_random``."""
    return float(2**attempt) * _random.uniform(0.5, 1.0)


def retry_reason(error: ProviderError) -> str:
    """Why a request is retried, as shown in "retrying in 2s (429)": the HTTP status, else the
    error kind (``"timeout"``, ``"network"``)."""
    return str(error.status) if error.status is not None else error.kind.value


async def _wait_to_retry(ctx: ProviderContext, delay: float, error: ProviderError, attempt: int) -> None:
    """Announce retry number ``attempt`` (``ctx.report_retry``), wait ``delay`` seconds, then
    announce that the request is being sent again (``ctx.report_resend``)."""
    ctx.report_retry(delay, retry_reason(error), attempt)
    await _sleep(delay)
    ctx.report_resend()


def _give_up(error: ProviderError) -> ProviderError:
    """The error to raise when retrying stops; a server-requested wait is shown ("retry in 34 s")."""
    if error.kind is ErrorKind.RATE_LIMIT and (error.retry_after or 0) >= 1 and "retry in" not in error.message:
        wait = f"retry in {int((error.retry_after or 0) + 0.999)} s"
        return ProviderError(
            error.provider, error.kind, f"{error.message} ({wait})", status=error.status, retry_after=error.retry_after
        )
    return error


def transport_error(
    ctx: ProviderContext, exc: httpx.TransportError | httpx.DecodingError | httpx.InvalidURL
) -> ProviderError:
    """Map an httpx exception to a ``timeout``, ``network``, (bad URL) ``config`` or (a body that
    cannot be decompressed) ``protocol`` :class:`ProviderError`."""
    label = ctx.spec.label
    if isinstance(exc, httpx.DecodingError):
        return ProviderError(ctx.spec.id, ErrorKind.PROTOCOL, f"{label} sent a body that could not be decoded ({exc}).")
    if isinstance(exc, (httpx.UnsupportedProtocol, httpx.InvalidURL)):
        return ProviderError(
            ctx.spec.id,
            ErrorKind.CONFIG,
            f"{label}: the endpoint URL is not usable ({exc}). Check base_url in [providers.{ctx.spec.id}].",
        )
    if isinstance(exc, httpx.TimeoutException):
        return ProviderError(ctx.spec.id, ErrorKind.TIMEOUT, f"{label} did not answer in time ({type(exc).__name__}).")
    if isinstance(exc, httpx.RemoteProtocolError) and _CLOSED_EARLY.search(str(exc)):
        detail = "the connection closed before the response was complete"
    elif isinstance(exc, httpx.ProxyError):
        detail = f"proxy error ({exc})"
    elif isinstance(exc, httpx.ConnectError):
        detail = f"could not connect ({exc})"
    else:
        detail = f"{type(exc).__name__} ({exc})"
    return ProviderError(
        ctx.spec.id, ErrorKind.NETWORK, f"{label} network error: {detail}. Check the connection or base URL."
    )


_CLOSED_EARLY = re.compile(r"closed connection|disconnected", re.IGNORECASE)
"""httpx ``RemoteProtocolError`` texts that mean the server hung up mid-response."""


async def read_capped(ctx: ProviderContext, response: httpx.Response) -> bytes:
    """Read the (decompressed) body.

    Raises:
        ProviderError: ``protocol`` once the body passes ``ctx.max_body_bytes`` (:func:`too_large`).
        httpx.DecodingError: a compressed body that cannot be decompressed.
    """
    chunks: list[bytes] = []
    size = 0
    async for chunk in body_chunks(response):
        size += len(chunk)
        if size > ctx.max_body_bytes:
            raise too_large(ctx, "response", response.status_code)
        chunks.append(chunk)
    return b"".join(chunks)


INFLATE_STEP = 256 * 1024
"""Most bytes a gzip body is inflated to in one step, so a small compressed chunk (a "gzip bomb")
cannot expand to many MiB before the size cap is checked."""


async def body_chunks(response: httpx.Response) -> AsyncIterator[bytes]:
    """The body's decoded bytes in chunks; a gzip body is inflated at most :data:`INFLATE_STEP`
    bytes at a time (other encodings are decoded by httpx).

    Raises:
        httpx.DecodingError: the gzip data is corrupt.
    """
    if response.headers.get("content-encoding", "").strip().lower() not in ("gzip", "x-gzip"):
        async for chunk in response.aiter_bytes():
            yield chunk
        return
    inflater = zlib.decompressobj(zlib.MAX_WBITS | 16)
    try:
        async for data in response.aiter_raw():
            while data and not inflater.eof:
                chunk = inflater.decompress(data, INFLATE_STEP)
                data = inflater.unconsumed_tail
                if chunk:
                    yield chunk
        tail = inflater.flush()
    except zlib.error as exc:
        raise httpx.DecodingError(f"gzip body: {exc}") from None
    if tail:
        yield tail


def too_large(ctx: ProviderContext, what: str, status: int | None = None) -> ProviderError:
    """The ``protocol`` error for a ``what`` ("response", "stream") past ``ctx.max_body_bytes``:
    ``"<Label> response is larger than 8 MiB; stopped reading. Raise [search] max_body_mib in
    config.toml to accept more."``."""
    limit = f"{ctx.max_body_bytes / _MIB:g} MiB"
    return ProviderError(
        ctx.spec.id,
        ErrorKind.PROTOCOL,
        f"{ctx.spec.label} {what} is larger than {limit}; stopped reading. "
        "Raise [search] max_body_mib in config.toml to accept more.",
        status=status,
    )


def _decode(response: httpx.Response, body: bytes) -> str:
    return body.decode(response.encoding or "utf-8", errors="replace")


def parse_json_body(ctx: ProviderContext, response: httpx.Response, body: bytes) -> Any:
    """Parse a 2xx body as JSON; HTML, empty or malformed bodies raise ``protocol``."""
    text = _decode(response, body).strip()
    content_type = response.headers.get("content-type", "").lower()
    looks_json = text[:1] in ("{", "[")
    if not text or ("json" not in content_type and not looks_json):
        shown = content_type.split(";")[0] or "no content type"
        what = f"an empty body (HTTP {response.status_code})"
        if text:
            what = f"{shown} instead of JSON (HTTP {response.status_code}): {excerpt(text, 200)}"
        raise ProviderError(
            ctx.spec.id, ErrorKind.PROTOCOL, f"{ctx.spec.label} returned {what}", status=response.status_code
        )
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:  # RecursionError: nested deeper than the decoder goes
        raise ProviderError(
            ctx.spec.id,
            ErrorKind.PROTOCOL,
            f"{ctx.spec.label} returned malformed JSON (HTTP {response.status_code}): {exc}",
            status=response.status_code,
        ) from None


def error_from_response(
    ctx: ProviderContext,
    response: httpx.Response,
    text: str,
    describe_error: ErrorDescriber | None,
    describe_auth: bool = False,
) -> ProviderError:
    """Build the :class:`ProviderError` for a non-2xx response (body already read as ``text``).

    401/403 get the seed message ``"<Label> authorization failed (<status>). ..."`` unless
    ``describe_auth`` is set and there is a ``describe_error``, which then words them too.
    """
    status = response.status_code
    parsed: Any = None
    try:
        parsed = json.loads(text) if text.strip()[:1] in ("{", "[") else None
    except (ValueError, RecursionError):
        parsed = None
    hint = retry_hint(response.headers, parsed, text)
    kind = kind_for_status(status, text, has_retry_hint=hint is not None)
    if status < 400:
        kind = ErrorKind.PROTOCOL
        message = f"{ctx.spec.label} answered with an unexpected redirect ({status}); check the base URL."
    elif kind is ErrorKind.AUTH and not (describe_auth and describe_error is not None):
        message = auth_failed_message(ctx.spec.label, status)
    elif describe_error is not None:
        message = describe_error(status, text, parsed)
    else:
        message = f"{ctx.spec.label} API error ({status}): {excerpt(text, 500)}"
    return ProviderError(ctx.spec.id, kind, message, status=status, retry_after=hint)


def retry_hint(headers: Mapping[str, str], parsed: Any = None, text: str = "") -> float | None:
    """Seconds to wait according to the response, or ``None`` when it gives no hint.

    In order: ``retry-after-ms``; ``Retry-After`` (seconds or HTTP date); ``x-ratelimit-reset-ms``;
    ``x-ratelimit-reset`` (epoch if > 1e9, else seconds); ``x-ratelimit-reset-after``; a Google
    ``RetryInfo.retryDelay`` such as ``"34.4s"``; body text such as "Please retry in 12s",
    "try again in 2 min" or "reset after 1h2m3s".
    """
    lowered = {k.lower(): v for k, v in headers.items()}
    value = _number(lowered.get("retry-after-ms"))
    if value is not None:
        return max(0.0, value / 1000)
    retry_after = _retry_after(lowered.get("retry-after"))
    if retry_after is not None:
        return retry_after
    value = _number(lowered.get("x-ratelimit-reset-ms"))
    if value is not None:
        return max(0.0, value / 1000)
    reset = _number(lowered.get("x-ratelimit-reset"))
    if reset is not None:
        return max(0.0, reset - time.time()) if reset > 1e9 else max(0.0, reset)
    after = _number(lowered.get("x-ratelimit-reset-after"))
    if after is not None:
        return max(0.0, after)
    google = _google_retry_delay(parsed)
    return google if google is not None else _text_retry_delay(text)


def _retry_after(value: str | None) -> float | None:
    seconds = _number(value)
    if seconds is not None:
        return max(0.0, seconds)
    if value:
        try:
            return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
        except (TypeError, ValueError, IndexError):
            return None
    return None


_DURATION = r"((?:\d+(?:\.\d+)?\s*(?:ms|hours?|h|minutes?|mins?|m|seconds?|secs?|s)(?![a-zA-Z])\s*)+)"
_TEXT_HINTS = (
    re.compile(r"retry-after-ms\s*[=:]\s*(\d+)", re.IGNORECASE),  # milliseconds, no unit
    re.compile(r"(?:retry|try again)(?: after)?(?: in)?\s*[=:]?\s*" + _DURATION, re.IGNORECASE),
    re.compile(r"reset after\s*" + _DURATION, re.IGNORECASE),
)
_TEXT_PART = re.compile(r"(\d+(?:\.\d+)?)\s*(ms|hours?|h|minutes?|mins?|m|seconds?|secs?|s)(?![a-zA-Z])", re.IGNORECASE)
_TEXT_UNITS = {"ms": 0.001, "h": 3600.0, "m": 60.0, "s": 1.0}


def _text_retry_delay(text: str) -> float | None:
    """A wait stated in an error body: "Please retry in 12s", "250ms", "try again in 2 min",
    "reset after 1h2m3s", "retry-after-ms=500"."""
    millis, *duration_hints = _TEXT_HINTS
    match = millis.search(text or "")
    if match:
        return int(match.group(1)) / 1000
    for pattern in duration_hints:
        match = pattern.search(text or "")
        if match:
            parts = _TEXT_PART.findall(match.group(1))
            return sum(float(n) * _TEXT_UNITS["ms" if u.lower() == "ms" else u[0].lower()] for n, u in parts)
    return None


def _number(value: str | None) -> float | None:
    try:
        return float(value) if value is not None and value.strip() else None
    except ValueError:
        return None


def _google_retry_delay(parsed: Any) -> float | None:
    error = parsed.get("error") if isinstance(parsed, dict) else None
    details = error.get("details") if isinstance(error, dict) else None
    for item in details if isinstance(details, list) else ():
        if isinstance(item, dict) and str(item.get("@type", "")).endswith("google.rpc.RetryInfo"):
            delay = str(item.get("retryDelay", ""))
            if delay.endswith("s"):
                return _number(delay[:-1])
    return None


async def stream_sse(
    ctx: ProviderContext,
    method: str,
    url: str,
    *,
    headers: Mapping[str, str] | None = None,
    json_body: Any = None,
    describe_error: ErrorDescriber | None = None,
    retry_http_errors: bool = True,
    max_retries: int = MAX_RETRIES,
    json_fallback: bool = False,
) -> AsyncGenerator[tuple[str, Any], None]:
    """POST/GET and yield ``(event_name, parsed JSON payload)`` per server-sent event.

    ``[DONE]`` and payloads that are not JSON are skipped. Retries (at most ``max_retries``) happen
    only before the server accepted the stream: an HTTP error answer (not with
    ``retry_http_errors=False``), or a connection failure before any answer, which for a POST must
    be one that cannot have reached the server (as :func:`request_json`). Once a 2xx stream has
    begun nothing is resent, so a paid call is not billed twice.
    With ``json_fallback``, a 2xx JSON response (a server that ignored ``stream: true``) is read
    whole and yielded once as ``("json", payload)`` instead of failing as ``protocol``.

    Raises:
        ProviderError: as :func:`request_json`, plus ``protocol`` when the response is not
            ``text/event-stream`` or the stream exceeds ``ctx.max_body_bytes`` (decoded) bytes.
    """
    attempt = 0
    while True:
        status: int | None = None
        try:
            async with httpx_sse.aconnect_sse(
                ctx.client, method, url, headers=dict(headers or {}), json=json_body, timeout=_timeout(ctx)
            ) as source:
                status = source.response.status_code
                if json_fallback and _is_json_response(source.response):
                    body = await read_capped(ctx, source.response)
                    yield "json", parse_json_body(ctx, source.response, body)
                    return
                await _check_stream_response(ctx, source.response, describe_error)
                async for item in _iter_payloads(ctx, source.response):
                    yield item
            return
        except (httpx.TransportError, httpx.DecodingError, httpx.InvalidURL, ProviderError) as exc:
            error = exc if isinstance(exc, ProviderError) else transport_error(ctx, exc)
            maybe_sent = isinstance(exc, httpx.TransportError) and not isinstance(exc, NOT_SENT_ERRORS)
            final = (status is not None and (status < 300 or not retry_http_errors)) or (
                status is None and maybe_sent and method.upper() != "GET"
            )  # a stream that began, a final HTTP answer, or a POST the server may have received
            delay = None if final else retry_delay(ctx, error, attempt, max_retries)
            if delay is None:
                raise _give_up(error) from None
            attempt += 1
            await _wait_to_retry(ctx, delay, error, attempt)


class _CappedText:
    """The part of an ``httpx.Response`` that ``httpx_sse.EventSource`` reads (``headers`` and
    ``aiter_text()``), counting the decoded bytes so a stream past ``ctx.max_body_bytes`` raises
    ``protocol`` before its lines are buffered (a line without a newline would otherwise grow
    without limit inside the SSE line decoder)."""

    def __init__(self, ctx: ProviderContext, response: httpx.Response) -> None:
        self.ctx = ctx
        self.response = response

    @property
    def headers(self) -> httpx.Headers:
        """The response headers (EventSource checks the content type)."""
        return self.response.headers

    async def aiter_text(self) -> AsyncIterator[str]:
        """The body as text chunks, decoded incrementally.

        Raises:
            ProviderError: ``protocol`` once more than ``ctx.max_body_bytes`` bytes were read.
        """
        decoder = codecs.getincrementaldecoder(self.response.encoding or "utf-8")(errors="replace")
        size = 0
        async for chunk in body_chunks(self.response):
            size += len(chunk)
            if size > self.ctx.max_body_bytes:
                raise too_large(self.ctx, "stream")
            yield decoder.decode(chunk)
        yield decoder.decode(b"", final=True)


def _is_json_response(response: httpx.Response) -> bool:
    content_type = response.headers.get("content-type", "").lower()
    return response.status_code < 300 and "json" in content_type and "text/event-stream" not in content_type


async def _check_stream_response(
    ctx: ProviderContext, response: httpx.Response, describe_error: ErrorDescriber | None
) -> None:
    if response.status_code >= 300:
        body = await read_capped(ctx, response)
        raise error_from_response(ctx, response, _decode(response, body), describe_error)
    content_type = response.headers.get("content-type", "").lower()
    if "text/event-stream" not in content_type:
        body = await read_capped(ctx, response)
        raise ProviderError(
            ctx.spec.id,
            ErrorKind.PROTOCOL,
            f"{ctx.spec.label} returned {content_type.split(';')[0] or 'no content type'} instead of an event stream "
            f"(HTTP {response.status_code}): {excerpt(_decode(response, body), 200)}",
            status=response.status_code,
        )


async def _iter_payloads(ctx: ProviderContext, response: httpx.Response) -> AsyncIterator[tuple[str, Any]]:
    """Parsed JSON payloads; a stream whose every payload was not JSON raises ``protocol`` at its end."""
    skipped: list[str] = []
    parsed = False
    async for event in httpx_sse.EventSource(_CappedText(ctx, response)).aiter_sse():  # type: ignore[arg-type]
        data = event.data.strip()
        if not data or data == "[DONE]":
            continue
        try:
            payload = json.loads(data)
        except (ValueError, RecursionError):
            skipped.append(data)
            continue
        parsed = True
        yield event.event or "message", payload
    if skipped and not parsed:
        raise ProviderError(
            ctx.spec.id,
            ErrorKind.PROTOCOL,
            f"{ctx.spec.label} sent {len(skipped)} stream event(s) that were not JSON: {excerpt(skipped[0], 200)}",
        )
