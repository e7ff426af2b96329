"""An httpx transport over httpcore connection pools with a network backend of our choosing.

Built from public APIs only: each request goes to an ``httpcore.AsyncConnectionPool(network_backend=
...)``, one pool for ``http`` and one for ``https`` (built on the first ``https`` request, with
httpx's default TLS context made in a worker thread: loading the CA bundle takes about 50 ms, and
certificates are verified as httpx does by default); httpcore's exceptions are raised as their httpx
counterparts, as httpx's own transport does. Both pools are repaired for cancelled requests
(:func:`~websearch_tui.providers.transport.pool_repair.repair_pool`).

The providers' client sends through it with the
:class:`~websearch_tui.providers.transport.loop_backend.LoopBackend`; the page reader with its
guarded backend (:mod:`websearch_tui.reader.guard`) over the same.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import AsyncIterable, AsyncIterator, Iterator
from typing import cast

import httpcore
import httpx

from websearch_tui.providers.transport.pool_repair import repair_pool

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


class PoolTransport(httpx.AsyncBaseTransport):
    """An httpx transport over two httpcore pools sending through ``backend`` (see the module).

    Args:
        backend: the network backend every connection goes through.
        limits: connections open at once, kept alive, and for how long (``httpx.Limits``).
    """

    def __init__(self, backend: httpcore.AsyncNetworkBackend, limits: httpx.Limits) -> None:
        self.backend = backend
        self._limits = limits
        self._plain = self._pool(None)
        self._tls: httpcore.AsyncConnectionPool | None = None
        self._context: asyncio.Future[ssl.SSLContext] | None = None

    def _pool(self, context: ssl.SSLContext | None) -> httpcore.AsyncConnectionPool:
        pool = httpcore.AsyncConnectionPool(
            ssl_context=context,
            max_connections=self._limits.max_connections,
            max_keepalive_connections=self._limits.max_keepalive_connections,
            keepalive_expiry=self._limits.keepalive_expiry,
            network_backend=self.backend,
        )
        repair_pool(pool)
        return pool

    def pools(self) -> list[httpcore.AsyncConnectionPool]:
        """The pools that exist so far: ``http``, then ``https`` once the first such request built it."""
        return [self._plain] if self._tls is None else [self._plain, self._tls]

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Send ``request`` through the pool of its scheme.

        Raises:
            httpx.TransportError: connecting, sending or receiving failed (mapped from httpcore).
            httpx.UnsupportedProtocol: neither ``http`` nor ``https``.
        """
        url = request.url
        if url.scheme not in ("http", "https"):
            raise httpx.UnsupportedProtocol(f"Request URL has an unsupported protocol '{url.scheme}://'.")
        pool = self._plain if url.scheme == "http" else await self._tls_pool()
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
