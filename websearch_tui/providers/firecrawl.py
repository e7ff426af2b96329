"""Firecrawl search: web results from Firecrawl's search backend, optionally with each page's content.

API: ``POST {base_url}/v2/search`` (default ``https://api.firecrawl.dev``), header
``Authorization: Bearer <key>``, JSON body ``{"query", "limit", "sources": [{"type": "web"}], "tbs",
"country", "scrapeOptions"}``. Checked 2026-12-03 against https://docs.firecrawl.dev/features/search
and the official SDK (firecrawl/firecrawl ``apps/python-sdk``: ``/v2/search``,
``tests/unit/v2/methods/test_search_request_preparation.py``): the answer is ``{"success", "data":
{"web": [{"url", "title", "description", "position"}]}}`` (the v1 API answered ``data`` as a list;
both are read), and with ``scrapeOptions`` each web result also carries ``markdown`` and
``metadata``. ``tbs`` takes Google's ``qdr:d|w|m|y``. Errors are ``{"success": false, "error"}``
(402: out of credits). Not in PROVIDERS.md.

Option ``scrape`` (default false): also scrape each result and use the start of its page text as the
snippet when the result has no description (costs extra credits per page). Option ``country``: ISO
country code for geo-targeted results. A ``warning`` in the answer becomes a note.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from websearch_tui.core.models import Metadata, Note, SearchEvent, SearchRequest, SourcesFound
from websearch_tui.core.text import plain_text
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.helpers.parse import (
    SourceList,
    api_error_describer,
    as_dict,
    clamp_count,
    find_message,
    first_text,
    header,
    limit_sources,
    sources_from,
)
from websearch_tui.providers.transport.http import HttpRequest, join_url, send
from websearch_tui.providers.transport.shape import Shape

PATH = "/v2/search"
DEFAULT_COUNT = 10
MAX_COUNT = 100
SNIPPET_CHARS = 1000
"""A scraped page's markdown is the whole page: at most its first 1,000 characters become the snippet."""
TBS = {"day": "qdr:d", "week": "qdr:w", "month": "qdr:m", "year": "qdr:y"}
"""Firecrawl's ``tbs`` time filter (Google's) for each recency window."""

SHAPE = Shape.of("data")
"""A Firecrawl answer: ``data`` (``success`` and ``id`` are echoes)."""

describe_error = api_error_describer(
    "Firecrawl API error", lambda parsed: find_message(parsed, ("error", "message", "details"))
)
"""``Firecrawl API error (<s>): <error>``."""


async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[SearchEvent]:
    """Run one Firecrawl search; yield ``Metadata``, a note for a warning, then the web results.

    Raises:
        ProviderError: ``config`` without a key; ``auth`` (401/403), ``quota`` (402), ``rate_limit``
            (429), ``bad_request`` (400), ``server``, ``timeout``, ``network``, ``protocol``;
            ``unrecognised_response`` for a body without ``data``.
    """
    key = ctx.require_api_key()
    search = HttpRequest.post_json(
        join_url(ctx.base_url(), PATH),
        build_body(request, ctx),
        {"Authorization": f"Bearer {key}"},
        describe_error=describe_error,
        expect=SHAPE,
    )
    reply = await send(ctx, search)
    payload = as_dict(reply.json())
    request_id = plain_text(payload.get("id"), collapse=True) or header(reply.headers, "x-request-id")
    yield Metadata(request_id=request_id, auth_mode="api_key")
    warning = plain_text(payload.get("warning"), collapse=True)
    if warning:
        yield Note(f"Firecrawl: {warning}")
    sources = parse_results(payload)
    if sources or sources.dropped:
        yield SourcesFound(limit_sources(sources, request.max_results))


def build_body(request: SearchRequest, ctx: ProviderContext) -> dict[str, Any]:
    """``query``, ``limit`` 1-100 (default 10), web results only, ``tbs`` from recency, ``country``
    and (option ``scrape``) ``scrapeOptions`` asking for each page's main content as markdown."""
    body: dict[str, Any] = {
        "query": request.query,
        "limit": clamp_count(request.upstream_count, DEFAULT_COUNT, MAX_COUNT),
        "sources": [{"type": "web"}],
    }
    if request.recency in TBS:
        body["tbs"] = TBS[request.recency]
    country = ctx.option("country")
    if country:
        body["country"] = str(country)
    if ctx.option("scrape") is True:
        body["scrapeOptions"] = {"formats": ["markdown"], "onlyMainContent": True}
    return body


def parse_results(payload: Any) -> SourceList:
    """Sources from ``data.web[]`` (v2) or a ``data[]`` list (v1): ``url``, ``title`` (else the
    scraped page's ``metadata.title``), ``description`` else the start of ``markdown``, the page's
    ``metadata.publishedTime`` else the result's ``date``."""
    data = as_dict(payload).get("data")
    rows = as_dict(data).get("web") if isinstance(data, dict) else data
    return sources_from(
        rows,
        url="url",
        title=lambda row: first_text(row, "title") or as_dict(row.get("metadata")).get("title"),
        snippet=lambda row: first_text(row, "description", "markdown"),
        date=lambda row: as_dict(row.get("metadata")).get("publishedTime") or row.get("date"),
        snippet_limit=SNIPPET_CHARS,
    )
