"""Repairs of httpcore's connection pool for cancelled requests: the only module that touches private
parts of httpcore.

A cancelled request (Esc, a new search) can leave the pool holding a connection for good, in two
ways that httpcore 1.0.9 does not handle:

- a request cancelled after the pool gave it a new connection but before it sent anything on it
  leaves that connection behind, neither idle nor closed, owned by no request: it is never reused
  nor reaped (encode/httpcore#1093, open; fixes proposed in encode/httpcore#1094 and #1099);
- a response whose close is interrupted by a cancel leaves its request in the pool, owning an
  ``ACTIVE`` connection, because httpcore marks the close done before awaiting it, so no later close
  redoes the pool's part (encode/httpcore#1115, open, fix proposed in encode/httpcore#1116; seen
  through httpx in encode/httpx#3782).

Either holds a socket and a pool slot until the process ends, so frequent cancels would exhaust the
pool. :func:`repair_pool` turns an httpcore pool into a :class:`ReclaimingPool`, which handles every
other connection exactly as httpcore does.

Internals relied on, checked by :func:`repair_pool` before each use (``tests/unit/test_http.py`` and
``tests/e2e/test_cancel_load.py`` exercise them against the pinned versions):

- ``httpcore.AsyncConnectionPool``: its ``_requests`` and ``_connections`` lists, its
  ``_max_connections`` and ``_max_keepalive_connections`` limits and its
  ``_assign_requests_to_connections()``, ``_close_connections(closing)`` and ``create_connection(origin)``
  methods (the bookkeeping is done here, in linear time: httpcore's is quadratic in the connections);
- ``httpcore._async.connection_pool``: ``PoolByteStream`` (a response body, holding ``_pool`` and
  ``_pool_request``) and ``AsyncPoolRequest``.

When one is missing, the transport keeps httpcore's own pool and a warning is logged once.
"""

from __future__ import annotations

import inspect
import logging

import httpcore

from websearch_tui.core.internals import fall_back, missing_attributes

log = logging.getLogger(__name__)

PATCH = "The connection-pool repair for cancelled requests"
POOL_METHODS = ("_assign_requests_to_connections", "_close_connections", "handle_async_request", "create_connection")
POOL_LISTS = ("_requests", "_connections", "_max_connections", "_max_keepalive_connections")
STREAM_PARAMETERS = ["self", "stream", "pool_request", "pool"]
"""``PoolByteStream.__init__``'s parameters, whose names are the attributes :class:`SettlingByteStream` uses."""

try:
    from httpcore._async.connection_pool import AsyncPoolRequest, PoolByteStream
except ImportError:  # not in the httpcore this is pinned to: see repair_pool()
    _STREAM_MISSING = "httpcore._async.connection_pool.PoolByteStream"
else:
    _STREAM_MISSING = ""

    class SettlingByteStream(PoolByteStream):
        """httpcore's response body stream whose close always ends with the request out of the pool.

        httpcore 1.0.9 marks a response closed before it awaits the connection's state lock (and the
        socket close); a cancel that lands there, e.g. just as a fully read body closes itself, skips
        the pool's bookkeeping and no later close redoes it (encode/httpcore#1115). Here the request
        is removed anyway and its connection, left ``ACTIVE``, is reclaimed by :class:`ReclaimingPool`.
        """

        _pool: ReclaimingPool

        async def aclose(self) -> None:
            """Close the body as httpcore does; if that was interrupted, finish the pool's part, then re-raise."""
            try:
                await super().aclose()
            finally:
                closing = self._pool.release(self._pool_request)  # before any await: settled even if cancelled again
                if closing:
                    await self._pool._close_connections(closing)


class ReclaimingPool(httpcore.AsyncConnectionPool):
    """httpcore's pool, plus two repairs for cancelled requests, so that once a cancel has returned no
    connection is left neither idle nor closed without a request that is still running on it:

    - a connection no pending request owns that is neither idle nor closed is closed and dropped
      whenever the pool re-assigns connections (encode/httpcore#1093);
    - a response's body stream is a :class:`SettlingByteStream`, which leaves the pool even when its
      close is cancelled (encode/httpcore#1115).

    Other connections are handled exactly as by httpcore.
    """

    async def handle_async_request(self, request: httpcore.Request) -> httpcore.Response:
        """httpcore's request handling; the response's body stream leaves the pool even when its
        close is cancelled (:class:`SettlingByteStream`)."""
        response = await super().handle_async_request(request)
        if type(response.stream) is PoolByteStream:
            response.stream.__class__ = SettlingByteStream
        return response

    def _assign_requests_to_connections(self) -> list[httpcore.AsyncConnectionInterface]:
        """httpcore's bookkeeping, in time linear in the connections (httpcore 1.0.9 lists every
        connection again for each idle one, and for each queued request: with 30 requests at once
        that was a third of a request's CPU), plus the orphans' reclaiming. Returns the connections
        to close: orphans, expired ones, idle ones while the pool holds more than its keep-alive
        limit (httpcore compares the number of all its connections, idle or not, with that limit:
        kept as it is), and an idle one closed to make room for a queued request."""
        owned = {id(request.connection) for request in self._requests if request.connection is not None}
        orphans = [
            connection
            for connection in self._connections
            if id(connection) not in owned and not (connection.is_idle() or connection.is_closed())
        ]
        closing, kept = list(orphans), []
        orphaned = {id(connection) for connection in orphans}
        count = len(self._connections) - len(orphans)  # the pool's size as httpcore's loop sees it
        for connection in self._connections:
            if id(connection) in orphaned:
                continue
            if connection.is_closed():
                count -= 1
            elif connection.has_expired() or (count > self._max_keepalive_connections and connection.is_idle()):
                count -= 1
                closing.append(connection)
            else:
                kept.append(connection)
        self._connections[:] = kept
        for request in self._requests:
            if request.is_queued():
                closing += self._assign(request)
        return closing

    def _assign(self, request: AsyncPoolRequest) -> list[httpcore.AsyncConnectionInterface]:
        """Give queued ``request`` a connection as httpcore does: the first available one for its
        origin, else a new one while there is room, else a new one in place of the first idle one
        (returned, to close); else it stays queued."""
        origin = request.request.url.origin
        connections = self._connections
        reused = next((c for c in connections if c.can_handle_request(origin) and c.is_available()), None)
        if reused is not None:
            request.assign_to_connection(reused)
            return []
        idle = None if len(connections) < self._max_connections else next((c for c in connections if c.is_idle()), None)
        if idle is None and len(connections) >= self._max_connections:
            return []
        if idle is not None:
            connections.remove(idle)
        connection = self.create_connection(origin)
        connections.append(connection)
        request.assign_to_connection(connection)
        return [idle] if idle is not None else []

    def release(self, pool_request: AsyncPoolRequest) -> list[httpcore.AsyncConnectionInterface]:
        """Remove ``pool_request`` if it is still pending and re-assign connections; returns the
        connections to close (its own among them when it was not left idle)."""
        if pool_request not in self._requests:
            return []
        self._requests.remove(pool_request)
        return self._assign_requests_to_connections()


def repair_pool(pool: httpcore.AsyncConnectionPool | None) -> bool:
    """Make ``pool`` (httpcore's own, not used yet; ``None``: there is none) a
    :class:`ReclaimingPool`; True if it now is. False, with the pool left as httpcore's and a
    warning logged once, when an internal this relies on is gone or the pool is not httpcore's plain
    ``AsyncConnectionPool``. :class:`~websearch_tui.providers.transport.pool_transport.PoolTransport`
    repairs every pool it builds here."""
    problem = _missing_internals(pool)
    if problem:
        fall_back(log, PATCH, problem)
        return False
    assert pool is not None  # checked above
    pool.__class__ = ReclaimingPool
    return True


def _missing_internals(pool: httpcore.AsyncConnectionPool | None) -> str:
    """What this module needs and does not find ("" when everything is there), for ``pool``."""
    if _STREAM_MISSING:
        return f"no {_STREAM_MISSING}"
    if pool is None:
        return "there is no httpcore pool"
    if type(pool) is not httpcore.AsyncConnectionPool:
        return f"the transport's pool is a {type(pool).__name__}, not httpcore's AsyncConnectionPool"
    missing = missing_attributes(pool, (*POOL_METHODS, *POOL_LISTS))
    if missing:
        return f"httpcore.AsyncConnectionPool has no {', '.join(missing)}"
    if list(inspect.signature(PoolByteStream.__init__).parameters) != STREAM_PARAMETERS:
        return f"PoolByteStream no longer takes ({', '.join(STREAM_PARAMETERS[1:])})"
    return ""
