"""Parallel search: REST with an API key, keyless Search MCP otherwise.

- REST: ``POST {base_url}/v1/search`` (GA; default ``https://api.parallel.ai``), header ``x-api-key``.
  Docs: https://docs.parallel.ai/search/search-quickstart and
  https://docs.parallel.ai/search/advanced-search-settings (count and freshness live under
  ``advanced_settings``).
- Keyless: MCP tool ``web_search`` at ``mcp_url`` (default ``https://search.parallel.ai/mcp``), stateful
  (full handshake). Docs: https://docs.parallel.ai/integrations/mcp/search-mcp

API: Parallel Search API v1 (GA), checked 2026-12-02 against https://docs.parallel.ai/search/modes,
https://docs.parallel.ai/search/migrate-to-parallel and the official SDK (parallel-web/parallel-sdk-python,
``mode`` ``turbo`` added 2026-06) (PROVIDERS.md §2.3).

``mode``: the docs now list ``turbo | basic | advanced`` (default ``advanced``) and say the legacy
``fast``, ``one-shot`` and ``agentic`` values were removed (``fast``/``one-shot`` map to ``basic``,
``agentic`` to ``advanced``). PROVIDERS.md's example body sends ``"mode": "fast"``, which the API no
longer accepts; the docs win. We send no ``mode`` at all, so the API's documented default
(``advanced``, its best results) applies and no retired value can be sent; the request body is
``{"objective", "search_queries", "advanced_settings": {"max_results", "source_policy"}}``.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

from websearch_tui.core.models import Metadata, Note, SearchEvent, SearchRequest, SourcesFound, Usage
from websearch_tui.core.text import plain_text
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.families.mcp import call_tool, mcp_error_describer
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
    start_date,
)
from websearch_tui.providers.transport.http import HttpRequest, join_url, send
from websearch_tui.providers.transport.shape import Shape, ShapeSeen, unrecognised

PATH = "/v1/search"
TOOL = "web_search"
DEFAULT_COUNT = 10
MAX_COUNT = 40
MAX_OBJECTIVE = 5000
MAX_SEARCH_QUERY = 200
RATE_LIMIT_MESSAGE = "Parallel MCP rate limit reached (429); configure a Parallel API key"
RECENCY_IGNORED = "Parallel keyless MCP ignores recency; add a Parallel API key"


SHAPE = Shape.of("results", list_ok=True)
"""A Parallel search answer: ``results`` (a bare list of results is read too)."""


def error_message(parsed: Any) -> str | None:
    """Parallel's error text: ``message``, ``detail``, ``error`` (string), ``error.message``, ``error.detail``."""
    body = as_dict(parsed)
    for key in ("message", "detail"):
        found = find_message(body.get(key), ("msg", "message"))
        if found:
            return found
    error = body.get("error")
    if isinstance(error, str) and error.strip():
        return error.strip()
    return find_message(as_dict(error), ("message", "detail"))


describe_error = api_error_describer("Parallel API error", error_message)
"""``Parallel API error (<s>): <msg>``."""


async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[SearchEvent]:
    """Run one Parallel search (REST with a key, else keyless MCP); yield metadata, warnings, sources.

    Raises:
        ProviderError: ``auth``, ``rate_limit`` (MCP 429 suggests a key), ``quota``,
            ``bad_request`` (422 validation), ``server``, ``timeout``, ``network``; ``protocol``
            for an unexpected body or any MCP failure case (bad handshake, null/empty result,
            mismatched id), ``MCP error ...`` for JSON-RPC errors and ``isError`` results.
    """
    key = ctx.api_key
    if key:
        url = join_url(ctx.base_url(), PATH)
        search = HttpRequest.post_json(
            url, build_body(request), {"x-api-key": key}, describe_error=describe_error, expect=SHAPE
        )
        reply = await send(ctx, search)
        payload = _results_payload(ctx, reply.json())
        request_id = plain_text(payload.get("search_id"), collapse=True) or header(reply.headers, "x-request-id")
        yield Metadata(request_id=request_id, usage=parse_usage(payload.get("usage")), auth_mode="api_key")
    else:
        arguments = {
            "objective": request.query[:MAX_OBJECTIVE],
            "search_queries": [search_query(request.query)],
            "session_id": str(uuid.uuid4()),
        }
        payload = _results_payload(
            ctx,
            await call_tool(
                ctx,
                ctx.mcp_url(),
                TOOL,
                arguments,
                handshake=True,
                describe_error=mcp_error_describer(ctx.spec.label, RATE_LIMIT_MESSAGE),
            ),
        )
        yield Metadata(request_id=plain_text(payload.get("search_id"), collapse=True), auth_mode="keyless")
        if request.recency:
            yield Note(RECENCY_IGNORED)
    for warning in parse_warnings(payload.get("warnings")):
        yield Note(f"Parallel: {warning}")
    sources = parse_results(payload.get("results"))
    if sources or sources.dropped:
        yield SourcesFound(limit_sources(sources, request.max_results))


def search_query(query: str) -> str:
    """The query cut to Parallel's 200-character keyword-query cap, at a word boundary when possible."""
    if len(query) <= MAX_SEARCH_QUERY:
        return query
    cut = query[:MAX_SEARCH_QUERY]
    space = cut.rfind(" ")
    return cut[:space] if space > MAX_SEARCH_QUERY // 2 else cut


def build_body(request: SearchRequest) -> dict[str, Any]:
    """REST body: objective + one keyword query, ``advanced_settings.max_results`` (1-40), ``after_date``."""
    settings: dict[str, Any] = {"max_results": clamp_count(request.upstream_count, DEFAULT_COUNT, MAX_COUNT)}
    since = start_date(request.recency)
    if since:
        settings["source_policy"] = {"after_date": since}
    return {
        "objective": request.query[:MAX_OBJECTIVE],
        "search_queries": [search_query(request.query)],
        "advanced_settings": settings,
    }


def _results_payload(ctx: ProviderContext, data: Any) -> dict[str, Any]:
    if isinstance(data, list):
        return {"results": data}
    if isinstance(data, dict) and isinstance(data.get("results", []), list):
        return data
    seen = ShapeSeen(content_type="search result")
    seen.observe(None, "json", data)
    raise unrecognised(ctx.spec, seen)


def parse_results(rows: object) -> SourceList:
    """Sources from ``results[]``: excerpts joined with blank lines, ``publish_date`` often ``null``."""
    return sources_from(
        rows,
        url="url",
        title="title",
        snippet=lambda row: join_texts(as_list(row.get("excerpts")), "\n\n"),
        date="publish_date",
    )


def parse_warnings(value: object) -> list[str]:
    """Warnings as text: ``null``, a list of strings, or a list of ``{message | warning}`` objects."""
    items = value if isinstance(value, list) else [value] if value else []
    warnings = []
    for item in items:
        text = item if isinstance(item, str) else find_message(item, ("message", "warning", "detail"))
        clean = plain_text(text, collapse=True)
        if clean and clean not in warnings:
            warnings.append(clean)
    return warnings


def parse_usage(value: object) -> Usage | None:
    """``Usage(search_requests=...)`` from ``usage: [{"name": "sku_search", "count": 1}]``."""
    total = sum(
        item["count"]
        for item in as_list(value)
        if isinstance(item, dict)
        and "search" in str(item.get("name", ""))
        and isinstance(item.get("count"), int)
        and not isinstance(item.get("count"), bool)
    )
    return Usage(search_requests=total) if total else None
