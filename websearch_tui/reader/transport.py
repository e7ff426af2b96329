"""The reader's HTTP client: the shared
:class:`~websearch_tui.providers.transport.pool_transport.PoolTransport` over the
:class:`~websearch_tui.reader.guard.GuardedBackend`, so every connection (every redirect hop, every
new connection of a kept-alive pool) is checked at connect time.

The client follows no redirect (the reader follows them by hand, :mod:`~websearch_tui.reader.fetch`),
uses no proxy from the environment (a proxy would reach private addresses for us) and sends the shared
HTTP layer's ``User-Agent`` and ``Accept-Encoding``.
"""

from __future__ import annotations

import httpx

from websearch_tui.providers.transport.http import ACCEPT_ENCODING, CONNECT_TIMEOUT, USER_AGENT
from websearch_tui.providers.transport.pool_transport import PoolTransport
from websearch_tui.reader.guard import GuardedBackend

ACCEPT = "text/html,application/xhtml+xml;q=0.9,application/pdf;q=0.8,text/plain;q=0.7,*/*;q=0.1"
"""What the reader asks for: HTML first, then PDF and plain text."""

MAX_CONNECTIONS = 32
"""Connections open at once per pool (a citation check reads many pages concurrently)."""
LIMITS = httpx.Limits(
    max_connections=MAX_CONNECTIONS, max_keepalive_connections=MAX_CONNECTIONS // 2, keepalive_expiry=None
)
"""The reader's pools: :data:`MAX_CONNECTIONS` open, half of them kept alive (until the server closes them)."""


def build_reader_client(backend: GuardedBackend, timeout: float) -> httpx.AsyncClient:
    """The reader's client over ``backend``: no redirects followed, no proxy or ``.netrc`` from the
    environment, the shared ``User-Agent`` and ``Accept-Encoding``, :data:`ACCEPT`; reading may take
    ``timeout`` seconds, connecting at most :data:`~websearch_tui.providers.transport.http.CONNECT_TIMEOUT`."""
    return httpx.AsyncClient(
        transport=PoolTransport(backend, LIMITS),
        follow_redirects=False,
        trust_env=False,
        timeout=httpx.Timeout(timeout, connect=min(CONNECT_TIMEOUT, timeout)),
        headers={"User-Agent": USER_AGENT, "Accept-Encoding": ACCEPT_ENCODING, "Accept": ACCEPT},
    )
