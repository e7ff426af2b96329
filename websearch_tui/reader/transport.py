"""The reader's HTTP client: httpx over httpcore connection pools whose network backend is the
:class:`~websearch_tui.reader.guard.GuardedBackend`, so every connection (every redirect hop, every
new connection of a kept-alive pool) is checked at connect time.

Built from public APIs only: an ``httpx.AsyncBaseTransport`` that hands each request to an
``httpcore.AsyncConnectionPool(network_backend=...)`` and maps httpcore's exceptions to httpx's.
The pools are repaired for cancelled requests as the providers' are
(:func:`~websearch_tui.providers.transport.pool_repair.repair_pool`). The client follows no redirect
(the reader follows them by hand, :mod:`~websearch_tui.reader.fetch`), uses no proxy from the
environment (a proxy would reach private addresses for us) and sends the shared HTTP layer's
``User-Agent`` and ``Accept-Encoding``.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import AsyncIterable, AsyncIterator, Iterator
from typing import cast

import httpcore
import httpx

from websearch_tui.providers.transport.http import ACCEPT_ENCODING, CONNECT_TIMEOUT, USER_AGENT
from websearch_tui.providers.transport.pool_repair import repair_pool
from websearch_tui.reader.guard import GuardedBackend

ACCEPT = "text/html,application/xhtml+xml;q=0.9,application/pdf;q=0.8,text/plain;q=0.7,*/*;q=0.1"
"""What the reader asks for: HTML first, then PDF and plain text."""
MAX_CONNECTIONS = 32
"""Connections open at once per pool (a citation check reads many pages concurrently)."""

_ERRORS: tuple[tuple[type[Exception], type[httpx.TransportError]], ...] = (
    (httpcore.ConnectTimeout, httpx.ConnectTimeout),
    (httpcore.ReadTimeout, httpx.ReadTimeout),
    (httpcore.WriteTimeout, httpx.WriteTimeout),
    (httpcore.PoolTimeout, httpx.PoolTimeout),
    (httpcore.TimeoutException, httpx.TimeoutException),
    (httpcore.ConnectError, httpx.ConnectError),
    (httpcore.ReadError, httpx.ReadError),
    (httpcore.WriteError, httpx.WriteError),
    (httpcore.NetworkError, httpx.NetworkError),
    (httpcore.RemoteProtocolError, httpx.RemoteProtocolError),
    (httpcore.LocalProtocolError, httpx.LocalProtocolError),
    (httpcore.UnsupportedProtocol, httpx.UnsupportedProtocol),
    (httpcore.ProxyError, httpx.ProxyError),
    (httpcore.ProtocolError, httpx.ProtocolError),
)
"""httpcore's exceptions and the httpx exception each becomes (the most specific first)."""


@contextlib.contextmanager
def _httpx_errors(request: httpx.Request) -> Iterator[None]:
    """Within the block, an httpcore exception is raised as its httpx counterpart (:data:`_ERRORS`),
    caused by it; anything else passes unchanged."""
    try:
        yield
    except (httpcore.TimeoutException, httpcore.NetworkError, httpcore.ProtocolError, httpcore.ProxyError) as exc:
        mapped = next(target for source, target in _ERRORS if isinstance(exc, source))
        raise mapped(str(exc), request=request) from exc


class _Body(httpx.AsyncByteStream):
    """An httpcore response body as an httpx one, its errors mapped."""

    def __init__(self, stream: AsyncIterable[bytes], request: httpx.Request) -> None:
        self._stream = stream
        self._request = request

    async def __aiter__(self) -> AsyncIterator[bytes]:
        with _httpx_errors(self._request):
            async for chunk in self._stream:
                yield chunk

    async def aclose(self) -> None:
        """Close the body: its connection goes back to the pool, or is closed."""
        close = getattr(self._stream, "aclose", None)
        if close is not None:
            with _httpx_errors(self._request):
                await close()


class GuardedTransport(httpx.AsyncBaseTransport):
    """An httpx transport over two guarded httpcore pools: one for ``http``, one for ``https``
    (built on the first ``https`` request, with httpx's default TLS context made in a worker thread:
    loading the CA bundle takes about 50 ms; certificates are verified as httpx does by default).

    Args:
        backend: the :class:`GuardedBackend` every connection goes through.
    """

    def __init__(self, backend: GuardedBackend) -> None:
        self.backend = backend
        self._plain = self._pool(None)
        self._tls: httpcore.AsyncConnectionPool | None = None
        self._context: asyncio.Future[ssl.SSLContext] | None = None

    def _pool(self, context: ssl.SSLContext | None) -> httpcore.AsyncConnectionPool:
        pool = httpcore.AsyncConnectionPool(
            ssl_context=context,
            max_connections=MAX_CONNECTIONS,
            max_keepalive_connections=MAX_CONNECTIONS // 2,
            network_backend=self.backend,
        )
        repair_pool(pool)
        return pool

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Send ``request`` through the pool of its scheme.

        Raises:
            httpx.TransportError: connecting, sending or receiving failed (mapped from httpcore).
            PageError: ``blocked`` (:class:`~websearch_tui.reader.guard.GuardedBackend`).
        """
        pool = self._plain if request.url.scheme == "http" else await self._tls_pool()
        url = request.url
        core_request = httpcore.Request(
            method=request.method,
            url=httpcore.URL(scheme=url.raw_scheme, host=url.raw_host, port=url.port, target=url.raw_path),
            headers=request.headers.raw,
            content=request.stream,
            extensions=request.extensions,
        )
        with _httpx_errors(request):
            response = await pool.handle_async_request(core_request)
        return httpx.Response(
            status_code=response.status,
            headers=response.headers,
            stream=_Body(cast(AsyncIterable[bytes], response.stream), request),  # an async pool's always is
            extensions=response.extensions,
        )

    async def _tls_pool(self) -> httpcore.AsyncConnectionPool:
        if self._context is None:
            self._context = asyncio.ensure_future(asyncio.to_thread(httpx.create_ssl_context))
        context = await asyncio.shield(self._context)  # a cancelled request leaves it to the others
        if self._tls is None:
            self._tls = self._pool(context)
        return self._tls

    async def aclose(self) -> None:
        """Close every connection of both pools."""
        await self._plain.aclose()
        if self._tls is not None:
            await self._tls.aclose()


def build_reader_client(backend: GuardedBackend, timeout: float) -> httpx.AsyncClient:
    """The reader's client over ``backend``: no redirects followed, no proxy or ``.netrc`` from the
    environment, the shared ``User-Agent`` and ``Accept-Encoding``, :data:`ACCEPT`; reading may take
    ``timeout`` seconds, connecting at most :data:`~websearch_tui.providers.transport.http.CONNECT_TIMEOUT`."""
    return httpx.AsyncClient(
        transport=GuardedTransport(backend),
        follow_redirects=False,
        trust_env=False,
        timeout=httpx.Timeout(timeout, connect=min(CONNECT_TIMEOUT, timeout)),
        headers={"User-Agent": USER_AGENT, "Accept-Encoding": ACCEPT_ENCODING, "Accept": ACCEPT},
    )
