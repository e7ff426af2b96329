"""DuckDuckGo, keyless: the ``ddgs`` library by default, the DuckDuckGo HTML endpoint when ``base_url`` is set.

Default path: the ``ddgs`` metasearch library (https://github.com/deedy5/ddgs, 9.x),
``DDGS(timeout=T).text(query, max_results=N, region=..., timelimit="d|w|m|y", safesearch=...,
backend="duckduckgo")``, run in a worker thread because it is synchronous. It cannot be pointed at a
loopback fake (only ``DDGS_PROXY``), so tests monkeypatch it. ddgs 9's text backends are bing,
brave, duckduckgo, google, mojeek, yahoo, yandex, wikipedia and grokipedia; its default ``"auto"``
queries several of them and merges the results, so this provider asks for ``duckduckgo`` alone
(``POST https://html.duckduckgo.com/html/`` with a browser's TLS fingerprint) and the DuckDuckGo
pane shows DuckDuckGo. The ``backend`` option still picks others (``"auto"``, ``"bing,brave"``);
the results then carry a note saying where they come from. Library failures are put in the plain
words of the other providers (``DuckDuckGo network error: could not connect (...)``), not the
library's exception text.

``base_url`` path: ``POST {base_url}/html/`` (upstream ``https://html.duckduckgo.com/html/``, the
no-JavaScript results page; there is no official API documentation for it, the ``ddgs`` library's
``engines/duckduckgo.py`` is the reference), form fields ``q``, ``b``, ``l`` (region), ``df``
(recency) and ``kp`` (safe search, only when not moderate). The HTML is read with the standard
library parser: every element whose class contains ``result__body`` is one result (title = the
``h2`` text, URL = the result link with ``//duckduckgo.com/l/?uddg=`` redirects decoded, snippet =
the ``result__snippet`` text); ad rows (``result--ad`` or links to ``duckduckgo.com/y.js``) are
skipped. A page with neither a result nor DuckDuckGo's no-results line is an ``unrecognised_response``
(its markup changed), never an empty result. Checked 2026-12-02 against the ddgs library's engine.

Rate limiting (PROVIDERS.md §2.1, §1.12): HTTP 202, a 200 page with ``id="challenge-form"`` and a
403 all mean DuckDuckGo is rate limiting this address. Requests are serialised (one at a time per
engine), an HTTP error answer (a 429 included) is never resent, and after a rate limit the endpoint
cools down for :data:`COOLDOWN_SECONDS` (on ``ctx.clock``), failing fast instead of hammering it.
What the runs share lives in the engine's per-provider state (:class:`DdgsState`).
"""

from __future__ import annotations

import asyncio
import os
import re
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import field
from html.parser import HTMLParser
from typing import Any
from urllib.parse import parse_qs, urlsplit

from websearch_tui.core.errors import ErrorKind, ProviderError, excerpt
from websearch_tui.core.models import Metadata, Note, SearchEvent, SearchRequest, Source, SourcesFound
from websearch_tui.core.records import record
from websearch_tui.core.text import safe_url
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.helpers.parse import limit_sources, make_source, sources_from
from websearch_tui.providers.transport import http
from websearch_tui.providers.transport.shape import unrecognised

MAX_RESULTS = 20
AUTH_MODE = "keyless"
COOLDOWN_SECONDS = 120.0
RATE_LIMIT_MESSAGE = "DuckDuckGo is rate limiting this address; wait a few minutes"
UNREADABLE_MESSAGE = "could not read DuckDuckGo results page"
TIMELIMITS = {"day": "d", "week": "w", "month": "m", "year": "y"}
SAFESEARCH_KP = {"off": "-2", "on": "1", "strict": "1"}
BROWSER_HEADERS = {
    "User-Agent": "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
    "Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
    "Accept-Language": "en-US,en;q=0.5",
}
HTML_RETRY = http.RetryPolicy(retry_http_errors=False)
"""An error answer (a 429 above all) is final: never hammer DuckDuckGo; a failed connection is retried."""
_LIBRARY_ENDPOINT = "ddgs-library"
DEFAULT_BACKEND = "duckduckgo"
"""The ddgs backend asked for unless the ``backend`` option names others (see the module docstring)."""
_REQUEST_URL = re.compile(r"for url \((https?://[^\s)]{1,2048})\)")

_RATE_LIMIT_TEXT = re.compile(r"rate ?limit|\b202\b.*ratelimit|ratelimit.*\b202\b", re.IGNORECASE)


@record
class DdgsState:
    """What the DuckDuckGo runs of one engine share (``ctx.state.get(DdgsState)``).

    Attributes:
        lock: keeps DuckDuckGo requests one at a time.
        cooldown_until: by endpoint (the HTML ``base_url``, or the library), the ``ctx.clock`` time
            its rate-limit cool-down ends.
        library_call: the library call in flight; a cancelled search leaves it running (it cannot
            be interrupted) and the next one waits for it.
    """

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    cooldown_until: dict[str, float] = field(default_factory=dict)
    library_call: asyncio.Future[Any] | None = None


def _rate_limited(ctx: ProviderContext, endpoint: str, *, status: int | None = None) -> ProviderError:
    """The rate-limit error; starts the endpoint's cool-down."""
    ctx.state.get(DdgsState).cooldown_until[endpoint] = ctx.clock() + COOLDOWN_SECONDS
    return ProviderError(
        ctx.spec.id, ErrorKind.RATE_LIMIT, RATE_LIMIT_MESSAGE, status=status, retry_after=COOLDOWN_SECONDS
    )


def _check_cooldown(ctx: ProviderContext, endpoint: str) -> None:
    """Raise ``rate_limit`` while the endpoint cools down; forget a cool-down that is over."""
    cooldown_until = ctx.state.get(DdgsState).cooldown_until
    left = cooldown_until.get(endpoint, 0.0) - ctx.clock()
    if left > 0:
        raise ProviderError(
            ctx.spec.id,
            ErrorKind.RATE_LIMIT,
            f"{RATE_LIMIT_MESSAGE} (cooling down, retry in {int(left) + 1} s)",
            retry_after=left,
        )
    cooldown_until.pop(endpoint, None)


async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[SearchEvent]:
    """Run one DuckDuckGo search; yield ``SourcesFound`` (up to ``max_results``, max 20) then ``Metadata``,
    after a ``Note`` (:func:`backend_note`) when the ``backend`` option names ddgs backends other
    than DuckDuckGo's.

    Uses the HTML endpoint when ``base_url`` is configured, else the ``ddgs`` library.

    Raises:
        ProviderError: ``rate_limit`` (202, 403, challenge page, library rate limit, cool-down),
            ``timeout``, ``network`` (in the plain words of every provider, :func:`library_failure`),
            ``server``, ``unrecognised_response`` (a results page with neither result links nor
            the no-results line: its HTML changed), ``protocol`` (other library failures, with an
            excerpt of the library's message).
    """
    limit = max(1, min(MAX_RESULTS, request.max_results))
    base_url = ctx.settings.base_url
    endpoint = base_url.rstrip("/") if base_url else _LIBRARY_ENDPOINT
    async with ctx.state.get(DdgsState).lock:
        _check_cooldown(ctx, endpoint)
        if base_url:
            sources = await _search_html(request, ctx, base_url, endpoint)
        else:
            sources = await _search_library(request, ctx)
    if not base_url and _backend(ctx) != DEFAULT_BACKEND:
        yield Note(backend_note(_backend(ctx)))
    yield SourcesFound(limit_sources(sources, limit))
    yield Metadata(auth_mode=AUTH_MODE)


# --- ddgs library ---------------------------------------------------------------------------


def rows_to_sources(rows: Any) -> list[Source]:
    """Map ``ddgs`` rows (``title``, ``href``/``url``, ``body``/``snippet``) to sources.

    Rows without a usable http(s) URL are dropped; titles fall back to the URL.
    """
    return sources_from(
        rows,
        url=lambda row: row.get("href") or row.get("url"),
        title="title",
        snippet=lambda row: row.get("body") or row.get("snippet"),
    )


def _backend(ctx: ProviderContext) -> str:
    """The ddgs backend(s) to ask, lower case (ddgs's names): the ``backend`` option, else
    :data:`DEFAULT_BACKEND`."""
    return str(ctx.option("backend", DEFAULT_BACKEND)).strip().lower() or DEFAULT_BACKEND


def backend_note(backend: str) -> str:
    """The note for results of a ddgs backend other than DuckDuckGo's (``"auto"`` is a metasearch)."""
    if backend in ("auto", "all"):
        return f"Results from the ddgs backend {backend!r}: a metasearch over several engines, not DuckDuckGo alone."
    return f"Results from the ddgs backend {backend!r}, not DuckDuckGo."


def library_failure(ctx: ProviderContext, message: str) -> ProviderError:
    """A ddgs ``DDGSException`` message (``"DNSError: DNSError('error sending request for url
    (https://html.duckduckgo.com/html/) > error resolving DNS > ...')"``) as our error: a connection
    failure as a ``network`` error in the words every provider uses (:func:`.transport.http.network_error`,
    naming the host, not the library's text; a lookup that found no such name as
    :func:`.transport.http.dns_error`: ``could not resolve html.duckduckgo.com``, or ``could not resolve the
    proxy or html.duckduckgo.com`` when ``DDGS_PROXY`` is set), anything else as ``protocol`` with an
    excerpt. A lookup that failed otherwise (the resolver timed out) reads as ``could not connect``."""
    lowered = message.lower()
    url = _REQUEST_URL.search(message)
    host = (urlsplit(url.group(1)).hostname or "") if url else ""
    if _NO_SUCH_NAME.search(message) or http.unresolved_host(Exception(message)):
        if os.environ.get("DDGS_PROXY"):
            return http.dns_error(ctx, host, via_proxy=True, hint=_LIBRARY_HINT)
        return http.dns_error(ctx, host)
    if "proxy" in lowered:
        return http.network_error(ctx, f"proxy error{f' ({host})' if host else ''}", "Check DDGS_PROXY.")
    if any(word in lowered for word in ("dns", "resolv", "connect", "network", "sending request", "refused", "reset")):
        return http.network_error(ctx, f"could not connect{f' to {host}' if host else ''}", _LIBRARY_HINT)
    return ProviderError(
        ctx.spec.id,
        ErrorKind.PROTOCOL,
        f"DuckDuckGo search failed: {excerpt(message, 500) or 'the ddgs library gave no reason'}",
    )


_LIBRARY_HINT = "Check the connection (and DDGS_PROXY, if you use a proxy)."
_NO_SUCH_NAME = re.compile(r"no records found|nxdomain", re.IGNORECASE)
"""primp's (hickory resolver's) words for a name that does not exist or has no address; its
getaddrinfo wordings are :func:`.transport.http.unresolved_host`'s."""


def _library_text(query: str, timeout: int, **kwargs: Any) -> list[dict[str, Any]]:
    from ddgs import DDGS  # lazy: keeps startup cheap

    return DDGS(timeout=timeout).text(query, **kwargs)


def _in_daemon_thread(function: Callable[[], Any]) -> asyncio.Future[Any]:
    """Run a blocking ``function`` in a daemon thread; its result arrives on the returned future.

    A daemon thread (not the default executor) so that a cancelled search never holds up the
    event loop's shutdown or the process exit (the ``ddgs`` call cannot be interrupted).
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def settle(result: Any, error: BaseException | None) -> None:
        if not future.done():
            future.set_exception(error) if error is not None else future.set_result(result)

    def run() -> None:
        try:
            result, error = function(), None
        except BaseException as exc:  # handed to the awaiting coroutine
            result, error = None, exc
        if not loop.is_closed():
            loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=run, name="ddgs-search", daemon=True).start()
    return future


async def _library_call_finished(state: DdgsState, remaining: float) -> None:
    """Wait (at most ``remaining`` s) for a library call left running by a cancelled search.

    Raises:
        asyncio.TimeoutError: it is still running after ``remaining`` seconds.
    """
    call = state.library_call
    if call is not None and not call.done():
        await asyncio.wait({call}, timeout=max(0.0, remaining))
        if not call.done():
            raise asyncio.TimeoutError
    state.library_call = None


async def _search_library(request: SearchRequest, ctx: ProviderContext) -> list[Source]:
    from ddgs.exceptions import DDGSException, RatelimitException, TimeoutException

    remaining = ctx.remaining()
    if remaining <= 0:
        raise ProviderError(ctx.spec.id, ErrorKind.TIMEOUT, "DuckDuckGo did not answer in time.")
    timeout = max(1, int(remaining))  # the provider's deadline is the only limit
    kwargs = {
        "max_results": max(1, min(MAX_RESULTS, request.upstream_count)),
        "region": str(ctx.option("region", "wt-wt")),
        "timelimit": TIMELIMITS.get(request.recency or ""),
        "safesearch": str(ctx.option("safesearch", "moderate")),
        "backend": _backend(ctx),
    }
    try:
        state = ctx.state.get(DdgsState)
        await _library_call_finished(state, remaining)  # keep library calls one at a time, even across cancels
        call = state.library_call = _in_daemon_thread(lambda: _library_text(request.query, timeout, **kwargs))
        rows = await asyncio.wait_for(asyncio.shield(call), ctx.remaining())
    except RatelimitException:
        raise _rate_limited(ctx, _LIBRARY_ENDPOINT) from None
    except (TimeoutException, asyncio.TimeoutError):
        raise ProviderError(ctx.spec.id, ErrorKind.TIMEOUT, "DuckDuckGo did not answer in time.") from None
    except DDGSException as exc:
        message = str(exc)
        if "no results" in message.lower():
            return []
        if _RATE_LIMIT_TEXT.search(message):
            raise _rate_limited(ctx, _LIBRARY_ENDPOINT) from None
        raise library_failure(ctx, message) from None
    return rows_to_sources(rows)


# --- HTML endpoint ----------------------------------------------------------------------------


def html_url(base_url: str) -> str:
    """``{base_url}/html/``; a base that already ends in ``/html`` gets only the trailing slash."""
    return http.join_url(base_url, "/html/")


def build_form(request: SearchRequest, ctx: ProviderContext) -> dict[str, str]:
    """Form fields for ``POST /html/``: ``q``, ``b`` (empty), ``l`` region, ``df`` recency, ``kp`` safe search."""
    form = {"q": request.query, "b": "", "l": str(ctx.option("region", "wt-wt"))}
    timelimit = TIMELIMITS.get(request.recency or "")
    if timelimit:
        form["df"] = timelimit
    kp = SAFESEARCH_KP.get(str(ctx.option("safesearch", "moderate")).lower())
    if kp:
        form["kp"] = kp
    return form


async def _search_html(request: SearchRequest, ctx: ProviderContext, base_url: str, endpoint: str) -> list[Source]:
    page = http.HttpRequest(
        "POST", html_url(base_url), headers=BROWSER_HEADERS, form=build_form(request, ctx), retry=HTML_RETRY
    )
    try:
        reply = await http.send(ctx, page)
    except ProviderError as exc:
        if exc.status == 403 or exc.kind is ErrorKind.RATE_LIMIT:
            raise _rate_limited(ctx, endpoint, status=exc.status) from None
        raise
    text = reply.text
    if reply.status_code == 202 or is_challenge_page(text):
        raise _rate_limited(ctx, endpoint, status=reply.status_code)
    sources = parse_results_page(text)
    if not sources and not has_no_results_marker(text):
        content_type = reply.headers.get("content-type", "").split(";")[0] or "no content type"
        what = f"{content_type}, {len(reply.body)} bytes: {UNREADABLE_MESSAGE}, no result links, no no-results line"
        raise unrecognised(ctx.spec, what, reply.status_code)
    return sources


def is_challenge_page(page: str) -> bool:
    """True for DuckDuckGo's bot challenge (``id="challenge-form"`` / anomaly modal)."""
    lowered = page.lower()
    return 'id="challenge-form"' in lowered or "id='challenge-form'" in lowered or "anomaly-modal" in lowered


def has_no_results_marker(page: str) -> bool:
    """True when the page says it found nothing (``class="no-results"`` or "No results")."""
    lowered = page.lower()
    return "no-results" in lowered or "no results" in lowered


def decode_result_url(href: str | None) -> str | None:
    """Absolute result URL from a DuckDuckGo link; ``None`` for ads (``/y.js``) and unusable links.

    ``//duckduckgo.com/l/?uddg=<percent-encoded>&rut=...`` becomes the decoded ``uddg`` value;
    protocol-relative links get ``https:``.
    """
    if not href:
        return None
    href = href.strip()
    if href.startswith("//"):
        href = "https:" + href
    elif href.startswith("/"):
        href = "https://duckduckgo.com" + href
    try:
        parts = urlsplit(href)
    except ValueError:
        return None
    host = (parts.hostname or "").lower()
    if host == "duckduckgo.com" or host.endswith(".duckduckgo.com"):
        if parts.path.startswith("/y.js"):
            return None
        if parts.path.startswith("/l/"):
            target = parse_qs(parts.query).get("uddg")
            return safe_url(target[0]) if target else None
    return safe_url(href)


_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"}
)


class _ResultsParser(HTMLParser):
    """Collects one record per ``result__body`` element: title, title link, result link, snippet."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.records: list[dict[str, Any]] = []
        self._stack: list[tuple[str, frozenset[str]]] = []
        self._ad_depth: int | None = None
        self._body_depth: int | None = None
        self._record: dict[str, Any] | None = None
        self._title_depth: int | None = None
        self._snippet_depth: int | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        classes = frozenset((attributes.get("class") or "").split())
        depth = len(self._stack)
        if tag not in _VOID:
            self._stack.append((tag, classes))
        if "result--ad" in classes and self._ad_depth is None:
            self._ad_depth = depth
        if self._record is None:
            if "result__body" in classes:
                self._body_depth = depth
                self._record = {"title": [], "snippet": [], "ad": self._ad_depth is not None}
            return
        record = self._record
        if tag == "h2" and self._title_depth is None:
            self._title_depth = depth
        if tag == "a":
            href = attributes.get("href")
            if self._title_depth is not None or "result__a" in classes:
                record.setdefault("title_href", href)
            if "result__snippet" in classes or depth == (self._body_depth or 0) + 1:
                record.setdefault("href", href)
        if "result__snippet" in classes and self._snippet_depth is None:
            self._snippet_depth = depth

    def handle_endtag(self, tag: str) -> None:
        for index in range(len(self._stack) - 1, -1, -1):
            if self._stack[index][0] == tag:
                del self._stack[index:]
                break
        else:
            return
        depth = len(self._stack)
        if self._title_depth is not None and depth <= self._title_depth:
            self._title_depth = None
        if self._snippet_depth is not None and depth <= self._snippet_depth:
            self._snippet_depth = None
        if self._body_depth is not None and depth <= self._body_depth:
            if self._record is not None:
                self.records.append(self._record)
            self._record, self._body_depth = None, None
            self._title_depth = self._snippet_depth = None
        if self._ad_depth is not None and depth <= self._ad_depth:
            self._ad_depth = None

    def handle_data(self, data: str) -> None:
        if self._record is None:
            return
        if self._title_depth is not None:
            self._record["title"].append(data)
        elif self._snippet_depth is not None:
            self._record["snippet"].append(data)

    def close(self) -> None:
        super().close()
        if self._record is not None:  # unterminated last block
            self.records.append(self._record)
            self._record = None


def parse_results_page(page: str) -> list[Source]:
    """Organic results of a DuckDuckGo HTML page, in page order (ads and link-less rows dropped)."""
    parser = _ResultsParser()
    parser.feed(page)
    parser.close()
    sources: list[Source] = []
    for row in parser.records:
        if row["ad"]:
            continue
        raw = row.get("href") or row.get("title_href")
        if _is_ad_link(raw) or _is_ad_link(row.get("title_href")):
            continue
        source = make_source(decode_result_url(raw), "".join(row["title"]), " ".join("".join(row["snippet"]).split()))
        if source is not None:
            sources.append(source)
    return sources


def _is_ad_link(href: str | None) -> bool:
    return href is not None and "duckduckgo.com/y.js" in href
