"""You.com Search: ranked web and news results (link-only).

Endpoint: ``POST {base_url}/v1/search`` (default ``https://ydc-index.io``), headers
``X-API-Key: <key>`` and ``Accept: application/json``, JSON body ``{"query", "count", "freshness"}``.
Docs: https://documentation.you.com/api-reference/search (PROVIDERS.md §2.13).

The response has a ``web`` and a ``news`` section (``count`` applies to each); they are merged in
that order, de-duplicated by URL and capped to the count, then sliced to ``max_results``.

API: You.com Search API v1, checked 2026-12-02 against you.com's search guide: unchanged endpoint
and fields; a ``results.knowledge`` section (asked for with ``"knowledge": "core"``) is new and is
neither asked for nor read here.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import Metadata, SearchEvent, SearchRequest, SourcesFound
from websearch_tui.core.text import plain_text
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.helpers.parse import (
    SourceList,
    api_error_describer,
    as_dict,
    as_list,
    clamp_count,
    find_message,
    header,
    join_texts,
    limit_sources,
    sources_from,
)
from websearch_tui.providers.transport.http import HttpRequest, join_url, send
from websearch_tui.providers.transport.shape import Shape

PATH = "/v1/search"
DEFAULT_COUNT = 10
MAX_COUNT = 20
SECTIONS = ("web", "news")
FRESHNESS = {"day": "day", "week": "week", "month": "month", "year": "year"}

SHAPE = Shape.of("results")
"""A You.com answer: ``results`` (``{"web": [...], "news": [...]}``)."""

describe_error = api_error_describer(
    "You.com API error", lambda parsed: find_message(parsed, ("detail", "message", "error", "title"))
)
"""``You.com API error (<s>): <detail>``; ``detail`` may be a string or a FastAPI list of ``{msg}``."""


async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[SearchEvent]:
    """Run one You.com search and yield ``Metadata`` then ``SourcesFound`` (when there are results).

    Raises:
        ProviderError: ``config`` without a key; ``auth`` (401 invalid key, 403 missing scope),
            ``quota`` (402), ``bad_request`` (400/422), ``rate_limit`` (429), ``server``, ``timeout``,
            ``network``; ``protocol`` for a non-JSON body or a ``results`` field that is not an object.
    """
    key = ctx.require_api_key()
    body = build_body(request)
    url = join_url(ctx.base_url(), PATH)
    search = HttpRequest.post_json(url, body, {"X-API-Key": key}, describe_error=describe_error, expect=SHAPE)
    reply = await send(ctx, search)
    data = reply.json()
    payload = as_dict(data)
    check_shape(ctx, data)
    yield Metadata(request_id=request_id(payload, reply.headers), auth_mode="api_key")
    sources = parse_results(payload)
    if sources or sources.dropped:
        yield SourcesFound(limit_sources(sources, min(body["count"], request.max_results)))


def build_body(request: SearchRequest) -> dict[str, Any]:
    """The JSON body: ``query``, ``count`` (1-20, per section) and ``freshness`` when recency is set."""
    body: dict[str, Any] = {
        "query": request.query,
        "count": clamp_count(request.upstream_count, DEFAULT_COUNT, MAX_COUNT),
    }
    if request.recency in FRESHNESS:
        body["freshness"] = FRESHNESS[request.recency]
    return body


def check_shape(ctx: ProviderContext, data: Any) -> None:
    """Raise ``protocol`` when a 2xx body is not an object or its ``results`` is not an object."""
    results = as_dict(data).get("results") if isinstance(data, dict) else []
    if results is not None and not isinstance(results, dict):
        raise ProviderError(
            ctx.spec.id, ErrorKind.PROTOCOL, "You.com returned JSON without a results object.", status=200
        )


def parse_results(payload: Any) -> SourceList:
    """Sources from ``results.web`` then ``results.news`` (duplicates are removed later by URL).

    Snippet = ``snippets`` joined with blank lines, else ``description``; date = ``page_age``, else
    ``published_at``, else ``date``; author = ``authors`` joined with ``", "``.
    """
    results = as_dict(as_dict(payload).get("results"))
    sections = [parse_rows(results.get(section)) for section in SECTIONS]
    return SourceList([s for part in sections for s in part], sum(part.dropped for part in sections))


def parse_rows(rows: Any) -> SourceList:
    """The web or news rows of one section (rows without a usable URL are dropped)."""
    return sources_from(
        rows,
        url="url",
        title="title",
        snippet=lambda row: join_texts(as_list(row.get("snippets")), "\n\n") or row.get("description"),
        date=lambda row: row.get("page_age") or row.get("published_at") or row.get("date"),
        author=lambda row: join_texts(as_list(row.get("authors")), ", "),
    )


def request_id(payload: dict[str, Any], headers: Any) -> str | None:
    """``metadata.request_uuid`` (or ``search_uuid``), else the ``x-request-id`` header."""
    meta = as_dict(payload.get("metadata"))
    for name in ("request_uuid", "search_uuid"):
        value = plain_text(meta.get(name), collapse=True)
        if value:
            return value
    return header(headers, "x-request-id", "request-id")
