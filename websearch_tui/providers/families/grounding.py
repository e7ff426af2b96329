"""Grounding helpers shared by the model-native providers (Gemini, Zhipu chat search).

- :func:`resolve_redirects` turns redirect links (Gemini's
  ``https://vertexaisearch.cloud.google.com/grounding-api-redirect/...``) into the URLs they point
  at: one ``HEAD`` per link, redirects not followed, a short per-request timeout, bounded
  concurrency, and never past the provider deadline. A link that cannot be resolved is simply
  absent from the result (the caller keeps the redirect link and its title).
- :func:`redirect_link` recognises such links (normalised, then checked against an allowed origin
  and the path marker) and gives the URL to request.

(Capping the sources while keeping every cited one is :class:`.helpers.parse.SourceSelection`.)
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Mapping
from urllib.parse import urljoin

import httpx
import yarl

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


Origin = tuple[str, str, int]
"""``(scheme, host, port)`` of a URL, after normalisation: what a request to it reaches."""

REDIRECT_ORIGIN: Origin = ("https", REDIRECT_HOST, 443)


def origin_of(url: str) -> Origin | None:
    """The normalised ``(scheme, host, port)`` of an absolute http(s) ``url`` (default ports filled
    in), or ``None``."""
    try:
        parsed = yarl.URL(url)
    except (ValueError, TypeError):
        return None
    if parsed.scheme not in ("http", "https") or not parsed.host or parsed.port is None:
        return None
    return parsed.scheme, parsed.host.lower(), parsed.port


def redirect_link(url: str | None, trusted: Iterable[Origin] = (), marker: str = REDIRECT_MARKER) -> str | None:
    """The URL to ``HEAD`` for ``url`` when it is a grounding redirect we may resolve, else ``None``.

    ``url`` comes from upstream text, so it is normalised first (``yarl``: dot segments such as
    ``..`` or ``%2e%2e`` resolved, host lower-case, user info dropped: it would be sent as Basic
    auth) and only then checked: its scheme, host and port must be Google's redirect origin
    (:data:`REDIRECT_ORIGIN`) or one of ``trusted`` (the configured endpoint's own origin: a proxy
    or the loopback fake), and its path must hold ``marker``. Any other port, path or host (a
    private address, say) is never contacted.
    """
    clean = safe_url(url)
    if clean is None:
        return None
    try:
        parsed = yarl.URL(clean).with_user(None).with_fragment(None)
    except (ValueError, TypeError):
        return None
    origin = origin_of(str(parsed))
    if origin is None or marker not in parsed.path:
        return None
    return str(parsed) if origin == REDIRECT_ORIGIN or origin in set(trusted) else None


async def resolve_redirects(
    client: httpx.AsyncClient,
    links: Mapping[str, str],
    *,
    deadline: float,
    clock: Callable[[], float] = time.monotonic,
    timeout: float = HEAD_TIMEOUT,
    concurrency: int = MAX_CONCURRENCY,
) -> dict[str, str]:
    """Map each redirect link (``links``: the link as upstream sent it -> the URL to ``HEAD``, from
    :func:`redirect_link`) to the http(s) URL its ``HEAD`` answer points at.

    ``deadline`` is a ``clock()`` value no request may outlive (the provider deadline, on the run's
    ``ctx.clock``); each ``HEAD`` also gets at most ``timeout`` seconds and at most ``concurrency`` run at once.
    A 3xx answer with a ``Location`` header (relative locations are joined to the link) that is an
    absolute http(s) URL resolves the link; any other answer, a network error or a timeout leaves it
    out of the result. Never raises for a failed link; cancellation propagates.
    """
    pending = list(links)
    resolved: dict[str, str] = {}
    if not pending or deadline - clock() <= 0:
        return resolved
    gate = asyncio.Semaphore(max(1, concurrency))

    async def one(url: str) -> None:
        async with gate:
            left = min(timeout, deadline - clock())
            if left <= 0:
                return
            target = await _head_location(client, links[url], left)
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
