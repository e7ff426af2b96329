"""Grounding helpers shared by the model-native providers (Gemini, Zhipu chat search).

- :func:`resolve_redirects` turns redirect links (Gemini's
  ``https://vertexaisearch.cloud.google.com/grounding-api-redirect/...``) into the URLs they point
  at: one ``HEAD`` per link, redirects not followed, a short per-request timeout, bounded
  concurrency, and never past the provider deadline. A link that cannot be resolved is simply
  absent from the result (the caller keeps the redirect link and its title).
- :func:`is_redirect_link` recognises such links by their path marker.

(Capping the sources while keeping every cited one is :class:`._parse.SourceSelection`.)
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable
from urllib.parse import urljoin, urlsplit

import httpx

from websearch_tui.core.text import safe_url

REDIRECT_MARKER = "/grounding-api-redirect/"
"""Path segment of Gemini's grounding redirect links (on vertexaisearch.cloud.google.com, or on a
fake/proxy host in tests)."""

HEAD_TIMEOUT = 3.0
"""Seconds one ``HEAD`` may take."""

MAX_CONCURRENCY = 4
"""How many ``HEAD`` requests run at once."""


REDIRECT_HOST = "vertexaisearch.cloud.google.com"
"""The only host Gemini's grounding redirects live on; ``HEAD`` goes nowhere else by default."""


def is_redirect_link(url: str | None, trusted_hosts: Iterable[str] = (), marker: str = REDIRECT_MARKER) -> bool:
    """True when ``url`` is a grounding redirect we may ``HEAD``: ``https://`` on
    :data:`REDIRECT_HOST`, or any http(s) URL on one of ``trusted_hosts`` (the configured endpoint's
    host: a proxy or the loopback fake), with ``marker`` in its path. The URL comes from upstream
    text, so any other host (a private address, say) is never contacted."""
    clean = safe_url(url)
    if clean is None:
        return False
    try:
        parts = urlsplit(clean)
    except ValueError:
        return False
    host = (parts.hostname or "").lower()
    allowed = (parts.scheme == "https" and host == REDIRECT_HOST) or host in {h.lower() for h in trusted_hosts}
    return allowed and marker in parts.path


async def resolve_redirects(
    client: httpx.AsyncClient,
    urls: Iterable[str],
    *,
    deadline: float,
    clock: Callable[[], float] = time.monotonic,
    timeout: float = HEAD_TIMEOUT,
    concurrency: int = MAX_CONCURRENCY,
) -> dict[str, str]:
    """Map each redirect link in ``urls`` to the http(s) URL its ``HEAD`` answer points at.

    ``deadline`` is a ``clock()`` value no request may outlive (the provider deadline, on the run's
    ``ctx.clock``); each ``HEAD`` also gets at most ``timeout`` seconds and at most ``concurrency`` run at once.
    A 3xx answer with a ``Location`` header (relative locations are joined to the link) that is an
    absolute http(s) URL resolves the link; any other answer, a network error or a timeout leaves it
    out of the result. Duplicates in ``urls`` are resolved once. Never raises for a failed link;
    cancellation propagates.
    """
    pending = list(dict.fromkeys(u for u in urls if isinstance(u, str) and u))
    resolved: dict[str, str] = {}
    if not pending or deadline - clock() <= 0:
        return resolved
    gate = asyncio.Semaphore(max(1, concurrency))

    async def one(url: str) -> None:
        async with gate:
            left = min(timeout, deadline - clock())
            if left <= 0:
                return
            target = await _head_location(client, url, left)
            if target is not None:
                resolved[url] = target

    tasks = [asyncio.ensure_future(one(url)) for url in pending]
    try:
        await asyncio.wait(tasks, timeout=max(0.0, deadline - clock()))
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return resolved


async def _head_location(client: httpx.AsyncClient, url: str, timeout: float) -> str | None:
    """The absolute http(s) ``Location`` of a 3xx answer to ``HEAD url``, else ``None``."""
    try:
        response = await client.head(url, follow_redirects=False, timeout=httpx.Timeout(timeout))
    except (httpx.HTTPError, httpx.InvalidURL, ValueError):
        return None
    location = response.headers.get("location")
    if not 300 <= response.status_code < 400 or not location:
        return None
    try:
        return safe_url(urljoin(url, location.strip()))
    except ValueError:
        return None
