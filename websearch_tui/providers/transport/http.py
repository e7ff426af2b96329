"""Shared HTTP for every provider: one client, URL joining, retries, body caps, error mapping.

Providers describe a request as an :class:`HttpRequest` and :func:`send` it (one response, read
whole, as an :class:`HttpReply` that gives ``reply.json()`` or ``reply.text``), or call
:func:`stream_sse` (a ``text/event-stream`` response as parsed JSON payloads). Both:

- bound every attempt by the provider deadline (``ctx.deadline``, on ``ctx.clock``);
- retry 408/429/5xx, timeouts and connection errors but a name that does not resolve (at most 3 retries, honouring
  ``retry-after-ms`` / ``Retry-After`` / ``x-ratelimit-reset*`` hints, else exponential backoff with
  jitter from ``ctx.rng``: 0.5-1 s, 1-2 s, 2-4 s), never past the deadline and never after a stream
  has produced an event; each wait (``ctx.sleep``) is announced through ``ctx.report_retry`` and its
  end through ``ctx.report_resend`` so the front end can show "retrying in 2s (429)";
- read at most ``ctx.max_body_bytes`` (config ``[search] max_body_mib``) and turn anything that is not
  the expected shape (HTML, empty body, bad JSON) into a ``protocol`` :class:`ProviderError` with a
  redacted excerpt;
- map 401/403 to the seed message ``"<Label> authorization failed (<status>). ..."``.
"""

from __future__ import annotations

import codecs
import json
import math
import random
import re
import socket
import time
import weakref
import zlib
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import httpcore
import httpx

from websearch_tui.core.charsets import text_codec
from websearch_tui.core.errors import ErrorKind, ProviderError, auth_failed_message, excerpt, kind_for_status
from websearch_tui.core.specs import ProviderSpec
from websearch_tui.core.text import pattern
from websearch_tui.core.version import __version__
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.transport.loop_backend import LoopBackend
from websearch_tui.providers.transport.pool_transport import PoolTransport
from websearch_tui.providers.transport.shape import Shape, ShapeSeen, check, unrecognised
from websearch_tui.providers.transport.slots import connection_slot

MAX_RETRIES = 3
MAX_RETRY_DELAY = 300.0
RETRY_STATUSES = frozenset({408, 429, 500, 502, 503, 504, 529})
REQUEST_TIMEOUT = 30.0
"""The client's fallback read timeout, for a request made without one (every request of ours sets its
own from the provider's deadline, see :func:`_timeout`)."""
CONNECT_TIMEOUT = 10.0
USER_AGENT = f"websearch-tui/{__version__}"
_MIB = 1024 * 1024

ErrorDescriber = Callable[[int, str, Any], str]
"""``(status, body_text, parsed_json_or_None) -> message`` for a provider's non-2xx responses."""


class _Cookies(httpx.Cookies):
    """httpx's cookies, except that a response without a ``Set-Cookie`` (or ``Set-Cookie2``) header
    is not handed to the jar: the standard library's jar reads nothing else from a response, and httpx
    builds a ``urllib`` request for it each time (about 4% of an MCP search's CPU with three providers)."""

    def extract_cookies(self, response: httpx.Response) -> None:
        """Keep the cookies ``response`` sets, if it sets any."""
        if "set-cookie" in response.headers or "set-cookie2" in response.headers:
            super().extract_cookies(response)


class ProviderClient(httpx.AsyncClient):
    """httpx's client with its cookies in :class:`_Cookies` (set ``cookies`` as on httpx's)."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._kept = _Cookies(options.get("cookies"))

    @property
    def cookies(self) -> httpx.Cookies:
        """The cookies the providers' servers set, sent back to them as a browser would."""
        return self._kept

    @cookies.setter
    def cookies(self, cookies: Any) -> None:  # httpx's CookieTypes
        self._kept = _Cookies(cookies)


def build_client() -> httpx.AsyncClient:
    """The shared client: HTTP/1.1, no redirects (keys must not follow them), pool for 24 providers.

    It sends through a :class:`~websearch_tui.providers.transport.pool_transport.PoolTransport` on
    the :class:`~websearch_tui.providers.transport.loop_backend.LoopBackend` (httpcore over asyncio
    directly, not through anyio: a streamed token is one small read, and anyio's per-read cost was
    the largest part of it). ``https`` requests verify certificates exactly as httpx does by
    default (its ``create_ssl_context()``: certifi's CA bundle, or ``SSL_CERT_FILE`` /
    ``SSL_CERT_DIR``), with a TLS context built once, on the first ``https`` request, in a worker
    thread (loading the CA bundle takes about 50 ms; the event loop keeps running meanwhile). Plain
    ``http`` requests (a loopback fake, a local SearXNG) never load it. Connection pools reclaim
    connections left behind by cancelled requests
    (:mod:`~websearch_tui.providers.transport.pool_repair`).
    """
    transport = PoolTransport(LoopBackend(), httpx.Limits(max_connections=48, max_keepalive_connections=24))
    client = ProviderClient(
        transport=transport,
        timeout=httpx.Timeout(REQUEST_TIMEOUT, connect=CONNECT_TIMEOUT),
        follow_redirects=False,
        headers={"User-Agent": USER_AGENT, "Accept-Encoding": ACCEPT_ENCODING},
    )
    _TRANSPORTS[client] = transport
    return client


_TRANSPORTS: weakref.WeakKeyDictionary[httpx.AsyncClient, PoolTransport] = weakref.WeakKeyDictionary()
"""The transport of each client :func:`build_client` made (while it lives)."""


def client_pools(client: httpx.AsyncClient) -> list[httpcore.AsyncConnectionPool]:
    """The connection pools of a :func:`build_client` client that exist so far: plain, then TLS once
    the first ``https`` request built it (none for a client made otherwise)."""
    transport = _TRANSPORTS.get(client)
    return transport.pools() if transport is not None else []


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
    """One attempt's timeouts: reading may take until the provider's deadline (the ``[search] timeout``
    is the limit: a reasoning model may think for minutes before its first byte), or ``read_timeout``
    seconds when a request asks for less; connecting at most :data:`CONNECT_TIMEOUT` seconds."""
    remaining = max(0.1, ctx.remaining())
    read = min(read_timeout, remaining) if read_timeout else remaining
    return httpx.Timeout(read, connect=min(CONNECT_TIMEOUT, remaining))


NOT_SENT_ERRORS = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)
"""Transport failures that happen before a request reaches the server (safe to resend a POST)."""


@dataclass(frozen=True)
class RetryPolicy:
    """How a request may be retried: at most ``max_retries`` times, and an HTTP error answer
    (408, 429, 5xx) only while ``retry_http_errors`` (when it is off, only a failure before any
    answer is retried, e.g. a refused connection)."""

    max_retries: int = MAX_RETRIES
    retry_http_errors: bool = True


@dataclass(frozen=True)
class HttpRequest:
    """One request a provider sends with :func:`send`.

    Attributes:
        method: ``"GET"``, ``"POST"``, ... (anything but ``GET`` is never resent after a failure
            that may have reached the server).
        url: the full URL (never with a secret in it; see :func:`join_url`).
        headers: request headers (added to the shared client's ``User-Agent``).
        params: query parameters.
        json_body: a JSON-serialisable body (sent as ``application/json``), or ``None``.
        form: form fields (sent as ``application/x-www-form-urlencoded``), or ``None``.
        describe_error: words non-2xx replies (default ``"<Label> API error (<status>): <excerpt>"``).
        describe_auth: let ``describe_error`` word 401/403 too (else the seed auth message).
        retry: the :class:`RetryPolicy`.
        read_timeout: at most this many seconds to wait for the response (default: until the
            deadline), never past the deadline.
        expect: the :class:`.transport.shape.Shape` of a 2xx JSON answer: ``reply.json()`` raises
            ``unrecognised_response`` for a body that does not have it (``None``: not checked).
    """

    method: str
    url: str
    headers: Mapping[str, str] | None = None
    params: Mapping[str, Any] | None = None
    json_body: Any = None
    form: Mapping[str, str] | None = None
    describe_error: ErrorDescriber | None = None
    describe_auth: bool = False
    retry: RetryPolicy = RetryPolicy()
    read_timeout: float | None = None
    expect: Shape | None = None

    @classmethod
    def post_json(
        cls,
        url: str,
        body: Any,
        headers: Mapping[str, str],
        *,
        describe_error: ErrorDescriber | None = None,
        retry: RetryPolicy = RetryPolicy(),
        expect: Shape | None = None,
    ) -> HttpRequest:
        """The call most JSON APIs take: ``POST url`` with the JSON ``body``, ``headers`` (the
        credential) and ``Accept: application/json``; ``expect`` as the class attribute."""
        accept = {**headers, "Accept": "application/json"}
        return cls(
            "POST", url, headers=accept, json_body=body, describe_error=describe_error, retry=retry, expect=expect
        )


@dataclass(frozen=True)
class HttpReply:
    """A 2xx answer to :func:`send`, its body already read whole (decompressed bytes).

    ``response`` is the ``httpx.Response`` whose body was read (for ``status_code`` and ``headers``);
    ``spec`` names the provider in protocol errors; ``expect`` is the request's :class:`.transport.shape.Shape`.
    """

    spec: ProviderSpec
    response: httpx.Response
    body: bytes
    expect: Shape | None = None

    @property
    def headers(self) -> httpx.Headers:
        """The response headers (case-insensitive)."""
        return self.response.headers

    @property
    def status_code(self) -> int:
        """The HTTP status (2xx)."""
        return self.response.status_code

    @property
    def text(self) -> str:
        """The body decoded with the response's charset when it names a character encoding (else UTF-8;
        bad bytes replaced)."""
        return _decode(self.response, self.body)

    def json(self) -> Any:
        """The body parsed as JSON (see :func:`parse_json_body`), checked against ``expect``.

        Raises:
            ProviderError: ``protocol`` for an HTML, empty or malformed body; ``unrecognised_response``
                for an event stream, or JSON without the request's expected shape.
        """
        return parse_json_body(self.spec, self.response, self.body, self.expect)


_HttpFailure = httpx.TransportError | httpx.DecodingError | httpx.InvalidURL
"""The httpx failures :func:`transport_error` maps."""
_FAILURES = (httpx.TransportError, httpx.DecodingError, httpx.InvalidURL, ProviderError)
"""What one attempt may fail with; anything else propagates at once (a cancel above all)."""


async def send(ctx: ProviderContext, request: HttpRequest) -> HttpReply:
    """Send ``request`` and return the 2xx reply, its body read (at most ``ctx.max_body_bytes``).

    Retryable failures are retried as ``request.retry`` allows (see :func:`retry_delay`), each wait
    made with ``ctx.sleep``. A request other than ``GET`` is never resent after a failure that may
    have reached the server (a read timeout, a dropped response): only failures before the
    request was sent are retried, so a paid call is not billed twice.

    Raises:
        ProviderError: auth, rate_limit, quota, bad_request, not_found, server (non-2xx), timeout,
            network, config (an unusable URL), or protocol (a redirect, a body too large or that
            cannot be decompressed). ``reply.json()`` raises ``protocol`` for a body that is not JSON.
    """
    attempt = 0
    while True:
        try:
            async with (
                connection_slot(ctx),
                ctx.client.stream(
                    request.method,
                    request.url,
                    headers=request.headers,
                    params=request.params,
                    json=request.json_body,
                    data=request.form,
                    timeout=_timeout(ctx, request.read_timeout),
                ) as response,
            ):
                body = await read_capped(ctx, response)
            if response.status_code >= 300:
                text = _decode(response, body)
                raise error_from_response(ctx, response, text, request.describe_error, request.describe_auth)
            return HttpReply(ctx.spec, response, body, request.expect)
        except _FAILURES as exc:
            answered = isinstance(exc, ProviderError) and exc.status is not None
            final = (_may_have_arrived(exc) and not _is_get(request.method)) or (
                answered and not request.retry.retry_http_errors
            )  # the server may have run (and billed) this request already, or its answer is final
            attempt = await _retry_or_raise(ctx, exc, attempt, request.retry, final=final)


def _may_have_arrived(exc: Exception) -> bool:
    """True for a transport failure after which the server may have received the request."""
    return isinstance(exc, httpx.TransportError) and not isinstance(exc, NOT_SENT_ERRORS)


def _is_get(method: str) -> bool:
    return method.upper() == "GET"


async def _retry_or_raise(
    ctx: ProviderContext, exc: _HttpFailure | ProviderError, attempt: int, policy: RetryPolicy, *, final: bool
) -> int:
    """After a failed attempt (``attempt`` retries made so far): wait for the next one and return
    ``attempt + 1``, or raise the failure as a :class:`ProviderError` when it is ``final`` or
    :func:`retry_delay` refuses another try.

    Raises:
        ProviderError: ``exc`` itself, or mapped by :func:`transport_error`, with a server-requested
            wait appended (:func:`_give_up`).
    """
    error = exc if isinstance(exc, ProviderError) else transport_error(ctx, exc)
    final = final or (not isinstance(exc, ProviderError) and unresolved_host(exc))  # no retry mends a DNS failure
    delay = None if final else retry_delay(ctx, error, attempt, policy.max_retries)
    if delay is None:
        raise _give_up(error) from None
    await _wait_to_retry(ctx, delay, error, attempt + 1)
    return attempt + 1


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
    delay = error.retry_after + 1.0 if error.retry_after is not None else backoff_delay(attempt, ctx.rng)
    if delay > MAX_RETRY_DELAY or delay >= ctx.remaining():
        return None
    return delay


def backoff_delay(attempt: int, rng: random.Random) -> float:
    """Seconds to wait before retry ``attempt + 1`` when the server gave no hint: ``2**attempt``
    scaled by a random factor in [0.5, 1.0] drawn from ``rng`` (0.5-1 s, 1-2 s, 2-4 s), so clients
    that failed together do not all come back at the same instant."""
    return float(2**attempt) * rng.uniform(0.5, 1.0)


def retry_reason(error: ProviderError) -> str:
    """Why a request is retried, as shown in "retrying in 2s (429)": the HTTP status, else the
    error kind (``"timeout"``, ``"network"``)."""
    return str(error.status) if error.status is not None else error.kind.value


async def _wait_to_retry(ctx: ProviderContext, delay: float, error: ProviderError, attempt: int) -> None:
    """Announce retry number ``attempt`` (``ctx.report_retry``), wait ``delay`` seconds
    (``ctx.sleep``), then announce that the request is being sent again (``ctx.report_resend``)."""
    ctx.report_retry(delay, retry_reason(error), attempt)
    await ctx.sleep(delay)
    ctx.report_resend()


def _give_up(error: ProviderError) -> ProviderError:
    """The error to raise when retrying stops; a server-requested wait is shown ("retry in 34 s",
    "retry in more than an hour")."""
    asked = error.retry_after or 0.0
    if error.kind is ErrorKind.RATE_LIMIT and asked >= 1 and "retry in" not in error.message:
        wait = f"retry in {math.ceil(asked)} s" if asked <= 3600 else "retry in more than an hour"
        return ProviderError(
            error.provider, error.kind, f"{error.message} ({wait})", status=error.status, retry_after=error.retry_after
        )
    return error


def transport_error(ctx: ProviderContext, exc: _HttpFailure) -> ProviderError:
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
    if isinstance(exc, httpx.LocalProtocolError):  # its text quotes the offending header value: a key
        return ProviderError(
            ctx.spec.id,
            ErrorKind.CONFIG,
            f"{label}: the request could not be sent (a header value, such as the API key, is not valid "
            "in HTTP); set the key again.",
        )
    if isinstance(exc, httpx.RemoteProtocolError) and _CLOSED_EARLY.search(str(exc)):
        detail = "the connection closed before the response was complete"
    elif isinstance(exc, httpx.ProxyError):
        detail = f"proxy error ({exc})"
    elif isinstance(exc, httpx.ConnectError) and unresolved_host(exc):
        return dns_error(ctx, _request_host(exc))  # the shared client never goes through a proxy
    elif isinstance(exc, httpx.ConnectError):
        detail = f"could not connect ({exc})"
    else:
        detail = f"{type(exc).__name__} ({exc})"
    return network_error(ctx, detail)


def network_error(ctx: ProviderContext, detail: str, hint: str = "Check the connection or base URL.") -> ProviderError:
    """The ``network`` error every provider gives for a connection that failed, in one wording:
    ``"<Label> network error: <detail>. <hint>"`` (``detail`` such as ``"could not connect (...)"``)."""
    return ProviderError(ctx.spec.id, ErrorKind.NETWORK, f"{ctx.spec.label} network error: {detail}. {hint}")


def dns_error(ctx: ProviderContext, host: str | None, *, via_proxy: bool = False, hint: str = "") -> ProviderError:
    """The ``network`` error of a host name that does not exist (or has no address), in the one
    wording every provider (and the ddgs library's failures) use: ``"<Label> network error: could
    not resolve <host>. Check the connection or base URL."``. Never retried (:func:`send` fails at
    once). ``via_proxy``: the request went through a proxy, so the name that failed may be the
    proxy's: ``"could not resolve the proxy or <host>. Check the connection, the proxy or base
    URL."``. ``hint`` replaces the last sentence."""
    name = f"the proxy or {host or 'the host'}" if via_proxy else host or "the host"
    return network_error(ctx, f"could not resolve {name}", hint or (_PROXY_HINT if via_proxy else _HINT))


_HINT = "Check the connection or base URL."
_PROXY_HINT = "Check the connection, the proxy or base URL."

_NO_SUCH_NAME = frozenset(
    code for code in (socket.EAI_NONAME, getattr(socket, "EAI_NODATA", None), 11001, 11004) if isinstance(code, int)
)
"""``socket.gaierror`` codes that mean the name does not exist or has no address: ``EAI_NONAME``,
``EAI_NODATA`` (where the platform has it) and Windows' ``WSAHOST_NOT_FOUND`` (11001) and
``WSANO_DATA`` (11004). Others (``EAI_AGAIN``: no resolver answered, for now; ``EAI_SYSTEM``: say,
out of file descriptors; ``EAI_FAIL``, ``EAI_MEMORY``) are ordinary, retried network errors."""

_DNS_FAILURE = (
    r"(?i)name or service not known|no address associated with host ?name|nodename nor servname provided"
    r"|no address associated with nodename|name does not resolve|name has no usable address"
    r"|no such host is known"
    r"|\[errno (?:" + "|".join(str(code) for code in sorted(_NO_SUCH_NAME) if code < 0 or code > 11000) + r")\]"
)
"""What a lookup of a name that does not exist reads like when the ``socket.gaierror`` itself is not
in the exception chain: glibc, macOS, musl and Windows wordings of ``EAI_NONAME`` / ``EAI_NODATA``,
and httpcore's ``"[Errno -2] ..."`` form (``str()`` of the gaierror). Not ``"Temporary failure in
name resolution"`` (``EAI_AGAIN``) nor Windows' bare ``"getaddrinfo failed"`` (every code reads so).
Compiled at the first failed connection (:func:`~websearch_tui.core.text.pattern`), so a search that
connects never pays for it."""


def unresolved_host(exc: BaseException) -> bool:
    """True when ``exc`` is (or was caused by) a lookup that found no such name: a
    ``socket.gaierror`` with a code in :data:`_NO_SUCH_NAME` (httpx's ``ConnectError`` is caused by
    httpcore's, caused by the gaierror), or, where the chain lost it, an exception whose text is one
    of :data:`_DNS_FAILURE`. Such a failure is not retried: a second lookup a second later gives the
    same answer. Any other lookup failure (no resolver answered, out of file descriptors) is not one."""
    current: BaseException | None = exc
    for _ in range(8):  # the chain httpx -> httpcore -> socket is three deep
        if current is None:
            return False
        if isinstance(current, socket.gaierror) and current.errno is not None:
            return current.errno in _NO_SUCH_NAME
        if pattern(_DNS_FAILURE).search(str(current)):
            return True
        current = current.__cause__ or current.__context__
    return False


def _request_host(exc: httpx.RequestError) -> str | None:
    """The host ``exc``'s request was for, if it is known."""
    try:
        return exc.request.url.host or None
    except RuntimeError:  # an exception raised without its request
        return None


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
"""Most bytes a compressed body is inflated to in one step, so a small compressed chunk (a "gzip
bomb", a "deflate bomb") cannot expand to many MiB before the size cap is checked."""
ACCEPT_ENCODING = "gzip, deflate"
"""The only content encodings the client asks for, and the only ones it decodes (both bounded)."""


async def body_chunks(response: httpx.Response) -> AsyncIterator[bytes]:
    """The body's decoded bytes in chunks, read raw and decoded here, never by httpx: identity as it
    is; gzip and deflate (zlib-wrapped, or raw as some servers send it) inflated at most
    :data:`INFLATE_STEP` bytes at a time, so the size cap holds before memory grows.

    Raises:
        httpx.DecodingError: the compressed data is corrupt, or the server used an encoding that
            was not asked for (``br``, ``zstd``, ``compress``, or several stacked).
    """
    encoding = response.headers.get("content-encoding", "").strip().lower()
    if encoding in ("", "identity"):
        async for chunk in response.aiter_bytes():  # no content coding: httpx decodes nothing here
            yield chunk
        return
    if encoding not in ("gzip", "x-gzip", "deflate"):
        raise httpx.DecodingError(f"content encoding {encoding!r} was not asked for (only {ACCEPT_ENCODING})")
    inflater: Any = None
    try:
        async for data in response.aiter_raw():
            if inflater is None:
                if not data:
                    continue
                inflater = zlib.decompressobj(_window_bits(encoding, data))
            while data and not inflater.eof:
                chunk = inflater.decompress(data, INFLATE_STEP)
                data = inflater.unconsumed_tail
                if chunk:
                    yield chunk
        tail = inflater.flush() if inflater is not None else b""
    except zlib.error as exc:
        raise httpx.DecodingError(f"{encoding} body: {exc}") from None
    if tail:
        yield tail


def _window_bits(encoding: str, head: bytes) -> int:
    """zlib's ``wbits`` for a body in ``encoding`` that starts with ``head``: gzip; deflate with a
    zlib header (RFC 1950, what HTTP's "deflate" means); or raw deflate (what some servers send)."""
    if encoding != "deflate":
        return zlib.MAX_WBITS | 16
    wrapped = len(head) >= 2 and head[0] & 0x0F == 8 and (head[0] << 8 | head[1]) % 31 == 0
    return zlib.MAX_WBITS if wrapped else -zlib.MAX_WBITS


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


def _charset(response: httpx.Response) -> str:
    """The codec of ``response``'s ``Content-Type`` charset when that names a character encoding
    (:func:`~websearch_tui.core.charsets.text_codec`: never ``zlib``, ``bz2``, ``rot13``, ...), else UTF-8."""
    return text_codec(response.charset_encoding) or "utf-8"


def _decode(response: httpx.Response, body: bytes) -> str:
    return body.decode(_charset(response), errors="replace")


def parse_json_body(spec: ProviderSpec, response: httpx.Response, body: bytes, expect: Shape | None = None) -> Any:
    """Parse ``spec``'s provider's 2xx body as JSON; HTML, empty or malformed bodies raise ``protocol``.

    With ``expect`` (the :class:`.transport.shape.Shape` the parser reads), an event stream where JSON was
    asked for, or JSON without that shape, raises ``unrecognised_response`` naming what came.
    """
    text = _decode(response, body).strip()
    content_type = response.headers.get("content-type", "").lower()
    if expect is not None and "text/event-stream" in content_type:
        raise unrecognised(spec, _stream_shape(text, content_type), response.status_code)
    looks_json = text[:1] in ("{", "[")
    if not text or ("json" not in content_type and not looks_json):
        shown = content_type.split(";")[0] or "no content type"
        what = f"an empty body (HTTP {response.status_code})"
        if text:
            what = f"{shown} instead of JSON (HTTP {response.status_code}): {excerpt(text, 200)}"
        raise ProviderError(spec.id, ErrorKind.PROTOCOL, f"{spec.label} returned {what}", status=response.status_code)
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError) as exc:  # RecursionError: nested deeper than the decoder goes
        raise ProviderError(
            spec.id,
            ErrorKind.PROTOCOL,
            f"{spec.label} returned malformed JSON (HTTP {response.status_code}): {exc}",
            status=response.status_code,
        ) from None
    return check(spec, expect, parsed, content_type.split(";")[0], response.status_code)


def _stream_shape(text: str, content_type: str) -> ShapeSeen:
    """The names in an event-stream body read whole: event names and the payloads' keys and types."""
    seen = ShapeSeen(content_type=content_type.split(";")[0])
    name = "message"
    for line in text.splitlines():
        field_name, _, value = line.partition(":")
        if field_name == "event":
            name = value.strip() or "message"
        elif field_name == "data":
            try:
                payload = json.loads(value)
            except (ValueError, RecursionError):
                payload = None
            seen.observe(None, name, payload)
            name = "message"
    return seen


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
    """Seconds to wait according to the response (0 to :data:`MAX_HINT`), or ``None`` when it gives
    no usable hint (none, or not a finite number: ``inf``, ``1e400``, ``nan``).

    In order: ``retry-after-ms``; ``Retry-After`` (seconds or HTTP date); ``x-ratelimit-reset-ms``;
    ``x-ratelimit-reset`` (epoch if > 1e9, else seconds); ``x-ratelimit-reset-after``; a Google
    ``RetryInfo.retryDelay`` such as ``"34.4s"``; body text such as "Please retry in 12s",
    "try again in 2 min" or "reset after 1h2m3s" (only the first :data:`HINT_SCAN_CHARS` characters
    are read; the patterns run in linear time).
    """
    hint = _raw_retry_hint(headers, parsed, text)
    return None if hint is None else min(max(0.0, hint), MAX_HINT)


MAX_HINT = 86400.0
"""The longest server-requested wait taken at its word (one day); longer ones are clamped to it."""
HINT_SCAN_CHARS = 4096
"""How much of an error body is searched for a "retry in ..." sentence."""


def _raw_retry_hint(headers: Mapping[str, str], parsed: Any, text: str) -> float | None:
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
        from email.utils import parsedate_to_datetime  # an HTTP date: rare (about 3 ms to import)

        try:
            return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
    return None


# Linear by construction: bounded digit runs, and no two adjacent optional runs that can split the same
# spaces (the former "\s*[=:]?\s*" backtracked quadratically on "retry" followed by many spaces).
_AMOUNT = r"\d{1,9}(?:\.\d{1,6})?"
_UNITS = r"ms|hours?|h|minutes?|mins?|m|seconds?|secs?|s"
_DURATION = rf"((?:{_AMOUNT}\s*(?:{_UNITS})(?![a-zA-Z])\s*){{1,6}})"
_TEXT_HINTS = (
    r"(?i)retry-after-ms\s*(?:[=:]\s*)(\d{1,12})(?!\d)",  # milliseconds, no unit
    r"(?i)(?:retry|try again)(?: after)?(?: in)?\s*(?:[=:]\s*)?" + _DURATION,
    r"(?i)reset after\s*" + _DURATION,
)
"""Patterns compiled at the first error body read for a hint (:func:`~websearch_tui.core.text.pattern`):
a search that succeeds never pays for them."""
_TEXT_PART = rf"(?i)({_AMOUNT})\s*({_UNITS})(?![a-zA-Z])"
_TEXT_UNITS = {"ms": 0.001, "h": 3600.0, "m": 60.0, "s": 1.0}


def _text_retry_delay(text: str) -> float | None:
    """A wait stated in an error body: "Please retry in 12s", "250ms", "try again in 2 min",
    "reset after 1h2m3s", "retry-after-ms=500"."""
    text = (text or "")[:HINT_SCAN_CHARS]
    millis, *duration_hints = _TEXT_HINTS
    match = pattern(millis).search(text)
    if match:
        return int(match.group(1)) / 1000
    for hint in duration_hints:
        match = pattern(hint).search(text)
        if match:
            parts = pattern(_TEXT_PART).findall(match.group(1))
            return sum(float(n) * _TEXT_UNITS["ms" if u.lower() == "ms" else u[0].lower()] for n, u in parts)
    return None


def _number(value: str | None) -> float | None:
    """``value`` as a finite number, else ``None`` (absent, blank, not a number, ``inf``, ``nan``)."""
    try:
        number = float(value) if value is not None and value.strip() else None
    except ValueError:
        return None
    return number if number is not None and math.isfinite(number) else None


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
    expect: Shape | None = None,
) -> AsyncGenerator[tuple[str, Any], None]:
    """POST/GET and yield ``(event_name, parsed JSON payload)`` per server-sent event.

    ``[DONE]`` and payloads that are not JSON are skipped. Retries (at most ``max_retries``, waits
    made with ``ctx.sleep``) happen only before the server accepted the stream: an HTTP error
    answer (not with ``retry_http_errors=False``), or a connection failure before any answer, which
    for a POST must be one that cannot have reached the server (as :func:`send`). Once a 2xx stream
    has begun nothing is resent, so a paid call is not billed twice.
    With ``json_fallback``, a 2xx JSON response (a server that ignored ``stream: true``) is read
    whole and yielded once as ``("json", payload)`` instead of failing as ``protocol``.
    With ``expect`` (the :class:`.transport.shape.Shape` the parser reads), a stream that ends without one
    payload of that shape, or a JSON body without it, raises ``unrecognised_response``.

    Raises:
        ProviderError: as :func:`send`, plus ``protocol`` when the response is not
            ``text/event-stream`` or the stream exceeds ``ctx.max_body_bytes`` (decoded) bytes, and
            ``unrecognised_response`` as above.
    """
    import httpx_sse  # only streaming providers read server-sent events

    policy = RetryPolicy(max_retries, retry_http_errors)
    attempt = 0
    while True:
        status: int | None = None
        try:
            async with (
                connection_slot(ctx),
                httpx_sse.aconnect_sse(
                    ctx.client, method, url, headers=dict(headers or {}), json=json_body, timeout=_timeout(ctx)
                ) as source,
            ):
                status = source.response.status_code
                if (json_fallback or expect is not None) and _is_json_response(source.response):
                    body = await read_capped(ctx, source.response)
                    parsed = parse_json_body(ctx.spec, source.response, body, expect)
                    if not json_fallback:  # the expected shape, but not streamed
                        await _check_stream_response(ctx, source.response, describe_error, body)
                    yield "json", parsed
                    return
                await _check_stream_response(ctx, source.response, describe_error)
                async for item in _iter_payloads(ctx, source.response, expect):
                    yield item
            return
        except _FAILURES as exc:
            final = (status is not None and (status < 300 or not policy.retry_http_errors)) or (
                status is None and _may_have_arrived(exc) and not _is_get(method)
            )  # a stream that began, a final HTTP answer, or a POST the server may have received
            attempt = await _retry_or_raise(ctx, exc, attempt, policy, final=final)


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
        decoder = codecs.getincrementaldecoder(_charset(self.response))(errors="replace")
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
    ctx: ProviderContext, response: httpx.Response, describe_error: ErrorDescriber | None, body: bytes | None = None
) -> None:
    """Raise for a non-2xx answer or one that is not an event stream (``body``: already read)."""
    if response.status_code >= 300:
        body = await read_capped(ctx, response) if body is None else body
        raise error_from_response(ctx, response, _decode(response, body), describe_error)
    content_type = response.headers.get("content-type", "").lower()
    if "text/event-stream" not in content_type:
        body = await read_capped(ctx, response) if body is None else body
        raise ProviderError(
            ctx.spec.id,
            ErrorKind.PROTOCOL,
            f"{ctx.spec.label} returned {content_type.split(';')[0] or 'no content type'} instead of an event stream "
            f"(HTTP {response.status_code}): {excerpt(_decode(response, body), 200)}",
            status=response.status_code,
        )


async def _iter_payloads(
    ctx: ProviderContext, response: httpx.Response, expect: Shape | None = None
) -> AsyncIterator[tuple[str, Any]]:
    """Parsed JSON payloads; a stream whose every payload was not JSON raises ``protocol`` at its end,
    one in which ``expect`` (when given) knew no payload raises ``unrecognised_response`` there."""
    import httpx_sse

    skipped: list[str] = []
    parsed = False
    seen = ShapeSeen(content_type="text/event-stream")
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
        if expect is not None and not seen.known:
            seen.observe(expect, event.event or "message", payload)
        yield event.event or "message", payload
    if expect is not None and parsed and not seen.known:
        raise unrecognised(ctx.spec, seen, response.status_code)
    if skipped and not parsed:
        raise ProviderError(
            ctx.spec.id,
            ErrorKind.PROTOCOL,
            f"{ctx.spec.label} sent {len(skipped)} stream event(s) that were not JSON: {excerpt(skipped[0], 200)}",
        )
