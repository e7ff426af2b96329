"""What the Streamable HTTP server allows one connection, where uvicorn has no setting for it: the
time to read a request and the number of connections open at once (:class:`LimitedH11Protocol`,
handed to uvicorn as its HTTP protocol by :func:`websearch_tui.mcp.server.serve_http`).

uvicorn's own settings cover the rest: the size of a request head (h11's
``h11_max_incomplete_event_size``), the idle time between two requests on one connection
(``timeout_keep_alive``). Without these limits a client that sends half a request head and then a
byte every few seconds holds its connection for ever, and a few hundred such clients take every file
descriptor the process has (before any bearer token is checked).

Relies on uvicorn's ``H11Protocol`` keeping its h11 connection in ``conn``, the server's open
connections in ``connections``, its transport in ``transport`` and its loop in ``loop``, and calling
``on_response_complete`` after each response (uvicorn 0.31 to 0.55; the e2e tests exercise them).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger(__name__)

REQUEST_TIMEOUT = 10.0
"""Seconds a client has to send a whole request (head and body), counted from when the connection
opened or the previous response ended; then the connection is closed."""
MAX_CONNECTIONS = 128
"""Connections open at once (fewer when the process may open few files: half its descriptor limit,
:func:`connection_cap`); another one closes the one that has waited longest for its request (if that
is older than :data:`EVICTABLE_AFTER`), else is closed at once."""
EVICTABLE_AFTER = 1.0
"""Seconds a connection must have waited for its request before a new connection may take its place."""
MAX_HEAD_BYTES = 16 * 1024
"""The largest request head (h11's default ``max_incomplete_event_size``, set explicitly)."""
_READING = (h11.IDLE, h11.SEND_BODY)
"""The client's h11 states while its request (head or body) has not fully arrived."""


OPEN_FILES_WANTED = 65536
"""The soft limit on open files the HTTP server raises itself to (or the hard limit, if lower)."""


def raise_open_file_limit() -> None:
    """Raise this process's soft limit on open files to its hard limit (at most
    :data:`OPEN_FILES_WANTED`): a server that many clients reach should not run out of descriptors at
    the usual soft default (1,024) while the system allows more. No-op where there is no such limit
    (Windows) or it cannot be raised."""
    try:
        import resource
    except ImportError:
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = OPEN_FILES_WANTED if hard == resource.RLIM_INFINITY else min(hard, OPEN_FILES_WANTED)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


def connection_cap() -> int:
    """:data:`MAX_CONNECTIONS`, or half the process's soft limit on open files if that is less (the
    engine's connections, the log and the history need the rest); at least 8."""
    try:
        import resource
    except ImportError:  # not on Windows
        return MAX_CONNECTIONS
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return MAX_CONNECTIONS if soft == resource.RLIM_INFINITY else max(8, min(MAX_CONNECTIONS, soft // 2))


class LimitedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline on reading each request (:data:`REQUEST_TIMEOUT`) and a
    cap on open connections (:data:`MAX_CONNECTIONS`). A connection closed for either is logged (one
    line, rate-limited with the rest of the log), never answered."""

    _timer: asyncio.TimerHandle | None = None
    _waiting_since: float | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Take the connection (closing the longest-waiting one when the server is full), or close it."""
        super().connection_made(transport)
        cap = connection_cap()
        if len(self.connections) > cap and not self._evict_one():
            log.warning("closed a connection from %s: %d connections are open", self._peer(), cap)
            transport.close()
            return
        self._await_request()

    def data_received(self, data: bytes) -> None:
        """Process ``data``; the deadline ends once the request has fully arrived."""
        super().data_received(data)
        if self.conn.their_state not in _READING:
            self._stop_timer()

    def on_response_complete(self) -> None:
        """After a response, the next request on this connection has its own deadline."""
        super().on_response_complete()
        if not self.transport.is_closing() and self.conn.their_state in _READING:
            self._await_request()

    def connection_lost(self, exc: Exception | None) -> None:
        """Forget the deadline; then as uvicorn."""
        self._stop_timer()
        super().connection_lost(exc)

    def _await_request(self) -> None:
        self._stop_timer()
        self._waiting_since = self.loop.time()
        self._timer = self.loop.call_later(REQUEST_TIMEOUT, self._timed_out)

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer, self._waiting_since = None, None

    def _timed_out(self) -> None:
        self._timer = None
        if self.conn.their_state in _READING and not self.transport.is_closing():
            log.info("closed a connection from %s: no whole request within %g s", self._peer(), REQUEST_TIMEOUT)
            self.transport.close()

    def _evict_one(self) -> bool:
        """Close the connection that has waited longest for its request, if one has waited at least
        :data:`EVICTABLE_AFTER` seconds; True when one was closed."""
        now = self.loop.time()
        waiting = [
            (since, other)
            for other in self.connections
            if isinstance(other, LimitedH11Protocol)
            and (since := other._waiting_since) is not None
            and now - since >= EVICTABLE_AFTER
            and not other.transport.is_closing()
        ]
        if not waiting:
            return False
        _, oldest = min(waiting, key=lambda pair: pair[0])
        log.info("closed a connection from %s: the server is full and it sent no whole request", oldest._peer())
        oldest._stop_timer()
        oldest.transport.close()
        return True

    def _peer(self) -> str:
        """``host:port`` of the client (``?`` when unknown)."""
        return f"{self.client[0]}:{self.client[1]}" if self.client else "?"
