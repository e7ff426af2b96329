"""Reading a web page: fetch it safely, extract its main content as Markdown.

The one entry point is :class:`Reader` (``await reader.read(url) -> Page``), which holds one HTTP
client for any number of concurrent reads (the citation checker reads many pages at once; the TUI's
reader view one at a time) and is closed with ``await reader.aclose()`` (or ``async with``).
:func:`read_page` reads one page with a reader of its own.

A read, step by step:

1. the URL is checked (absolute http/https, a host, no credentials: :mod:`.guard`);
2. the page is fetched through a client whose every connection passes the SSRF guard (no
   loopback, private, link-local, unique-local, multicast, reserved or cloud-metadata address
   unless ``[reader] allow_private`` lists it, checked on the resolved address at connect time, for
   every redirect hop), redirects followed by hand (at most 5), the body read up to ``[reader]
   max_bytes`` (:mod:`.fetch`), all within ``[reader] timeout`` seconds;
3. off the event loop, in one of :data:`EXTRACT_WORKERS` worker threads and within
   :data:`EXTRACT_TIMEOUT` seconds: the body decoded (:mod:`.charset`) and its main text and
   metadata extracted (:mod:`.extract`: trafilatura, readability-lxml, pypdf).

Every failure is a :class:`~websearch_tui.core.pages.PageError` whose ``reason`` says what kind it
is and whose message says what to do. Layering: this package uses ``core`` and the shared HTTP
plumbing (``providers.transport``) only.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from types import TracebackType
from typing import TYPE_CHECKING

from websearch_tui.core.pages import (
    DEFAULT_MAX_BYTES,
    DEFAULT_TIMEOUT,
    Page,
    PageError,
    PageReason,
    ReaderSettings,
    utc_now,
)
from websearch_tui.reader.guard import AddressPolicy, GuardedBackend, Resolver, check_url, system_resolver

if TYPE_CHECKING:
    import httpx

    from websearch_tui.reader.fetch import Fetched

EXTRACT_TIMEOUT = 20.0
"""Seconds the extraction of one page may take (the worst page the limits let through, 5 MiB on one
line or 60,000 elements, takes some 3-6 s on a 2-core machine); past it the read fails with
``timeout``. The worker thread cannot be stopped from outside, but the input limits bound its work."""
EXTRACT_WORKERS = 2
"""Pages extracted at once per reader (the rest wait their turn)."""

DEFAULTS = ReaderSettings()
"""The ``[reader]`` table's defaults (no private host allowed, 5 MiB, 30 s)."""

__all__ = ["EXTRACT_TIMEOUT", "Page", "PageError", "PageReason", "Reader", "ReaderSettings", "build_page", "read_page"]


class Reader:
    """Reads pages: one guarded HTTP client and one small extraction thread pool, shared by every
    concurrent :meth:`read`.

    Args:
        settings: the ``[reader]`` table (allowed private hosts, body cap, timeout).
        resolver: how host names are resolved (default: the system's ``getaddrinfo``); tests give
            their own.
        extract_timeout: seconds one extraction may take (:data:`EXTRACT_TIMEOUT`).

    Raises:
        ValueError: an ``allow_private`` entry that is not a host, address or network.
    """

    def __init__(
        self,
        settings: ReaderSettings = DEFAULTS,
        *,
        resolver: Resolver = system_resolver,
        extract_timeout: float = EXTRACT_TIMEOUT,
    ) -> None:
        self.settings = settings
        self.extract_timeout = extract_timeout
        self._backend = GuardedBackend(AddressPolicy(settings.allow_private), resolver)
        self._client: httpx.AsyncClient | None = None
        self._workers: ThreadPoolExecutor | None = None

    async def read(self, url: str) -> Page:
        """Fetch ``url`` and extract its main content. The page's ``url`` is ``url`` normalised
        (host in lower case, IDNA; path and query percent-encoded).

        Raises:
            PageError: every failure, with its reason (:class:`~websearch_tui.core.pages.PageReason`).
            asyncio.CancelledError: the caller was cancelled (the connection is closed first).
        """
        from websearch_tui.reader.fetch import fetch

        url = str(check_url(url))  # normalised: the host in lower case, the path percent-encoded
        try:
            async with asyncio.timeout(self.settings.timeout):
                fetched = await fetch(self._http(), url, max_bytes=self.settings.max_bytes)
        except TimeoutError:
            raise PageError(
                PageReason.TIMEOUT,
                f"{url} did not arrive within {self.settings.timeout:g} s; try again later, or raise "
                "[reader] timeout in config.toml",
                url=url,
            ) from None
        return await self._extract(fetched, utc_now())

    def _http(self) -> httpx.AsyncClient:
        """The client, built on first use (so a reader that never reads never imports httpx's TLS)."""
        if self._client is None:
            from websearch_tui.reader.transport import build_reader_client

            self._client = build_reader_client(self._backend, self.settings.timeout)
        return self._client

    async def _extract(self, fetched: Fetched, retrieved_at: datetime) -> Page:
        """:func:`build_page` in a worker thread, within :attr:`extract_timeout` seconds.

        Raises:
            PageError: as :func:`build_page`, or ``timeout`` when extraction takes too long.
        """
        if self._workers is None:
            self._workers = ThreadPoolExecutor(EXTRACT_WORKERS, thread_name_prefix="websearch-reader")
        work = asyncio.get_running_loop().run_in_executor(self._workers, build_page, fetched, retrieved_at)
        try:
            return await asyncio.wait_for(work, self.extract_timeout)
        except TimeoutError:
            raise PageError(
                PageReason.TIMEOUT,
                f"extracting the text of {fetched.final_url} took longer than {self.extract_timeout:g} s; "
                "the page is too complex to read here, open it in a browser",
                url=fetched.url,
            ) from None

    async def aclose(self) -> None:
        """Close the client's connections and stop the worker threads (an extraction still running
        finishes in the background; its result is dropped)."""
        if self._client is not None:
            await self._client.aclose()
            self._client = None
        if self._workers is not None:
            self._workers.shutdown(wait=False, cancel_futures=True)
            self._workers = None

    async def __aenter__(self) -> Reader:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.aclose()


def build_page(fetched: Fetched, retrieved_at: datetime) -> Page:
    """The :class:`Page` of a fetched body: its content extracted (:func:`.extract.extract`), its
    words counted, its bytes digested (blocking, CPU-bound).

    Raises:
        PageError: ``no_main_text``, ``too_large``, ``unsupported`` (see :func:`.extract.extract`).
    """
    from websearch_tui.reader.extract import extract

    found = extract(fetched)
    return Page(
        url=fetched.url,
        final_url=fetched.final_url,
        status=fetched.status,
        title=found.title,
        site=found.site,
        author=found.author,
        published_date=found.published_date,
        text=found.text,
        word_count=len(found.text.split()),
        truncated=fetched.truncated or found.truncated,
        retrieved_at=retrieved_at,
        content_sha256=hashlib.sha256(fetched.body).hexdigest(),
        content_type=fetched.content_type,
    )


async def read_page(
    url: str,
    *,
    allow_private: Iterable[str] = (),
    max_bytes: int = DEFAULT_MAX_BYTES,
    timeout: float = DEFAULT_TIMEOUT,
    resolver: Resolver = system_resolver,
) -> Page:
    """Read one page with a :class:`Reader` of its own (closed before returning): ``allow_private``,
    ``max_bytes`` and ``timeout`` as the ``[reader]`` table's keys.

    Raises:
        PageError: as :meth:`Reader.read`.
        ValueError: an ``allow_private`` entry that is not a host, address or network.
    """
    settings = ReaderSettings(tuple(allow_private), max_bytes, timeout)
    async with Reader(settings, resolver=resolver) as reader:
        return await reader.read(url)
