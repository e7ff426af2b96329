"""Brave Search web results.

Endpoint: ``GET {base_url}/res/v1/web/search`` (default ``https://api.search.brave.com``), header
``X-Subscription-Token: <key>``. Docs: https://api-dashboard.search.brave.com/app/documentation/web-search
(PROVIDERS.md §2.4). Link-only: no answer, citations or related questions.

API: Brave Web Search API v1, checked 2026-12-02 against its documentation: the endpoint and the
fields read here are unchanged (Brave added an LLM Context endpoint, ``/res/v1/llm/context``, not used).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from websearch_tui.core.errors import excerpt
from websearch_tui.core.models import Metadata, SearchEvent, SearchRequest, SourcesFound
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.helpers.parse import (
    SourceList,
    as_dict,
    as_list,
    clamp_count,
    header,
    join_texts,
    limit_sources,
    sources_from,
)
from websearch_tui.providers.transport.http import HttpRequest, join_url, send
from websearch_tui.providers.transport.shape import Shape

PATH = "/res/v1/web/search"
DEFAULT_COUNT = 10
MAX_COUNT = 20  # count > 20 is an HTTP 422
FRESHNESS = {"day": "pd", "week": "pw", "month": "pm", "year": "py"}


SHAPE = Shape.of("web", "results", "mixed", types=("search", "news"))
"""A Brave answer: a web-search body (``type: search``; no ``web`` when nothing was found) or a news body."""


async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[SearchEvent]:
    """Run one Brave web search and yield ``Metadata`` then ``SourcesFound`` (when there are results).

    Raises:
        ProviderError: ``config`` without a key; ``auth`` (401/403), ``rate_limit`` (429),
            ``bad_request`` (422 with Brave's validation details), ``server``, ``timeout``,
            ``network``, or ``protocol`` for a non-JSON body.
    """
    key = ctx.require_api_key()
    search = HttpRequest(
        "GET",
        join_url(ctx.base_url(), PATH),
        headers={"X-Subscription-Token": key, "Accept": "application/json"},
        params=build_params(request, ctx),
        describe_error=describe_error,
        expect=SHAPE,
    )
    reply = await send(ctx, search)
    data = reply.json()
    yield Metadata(request_id=header(reply.headers, "x-request-id", "request-id"), auth_mode="api_key")
    sources = parse_results(data)
    if sources or sources.dropped:
        yield SourcesFound(limit_sources(sources, request.max_results))


def build_params(request: SearchRequest, ctx: ProviderContext) -> dict[str, str]:
    """Query parameters: ``q``, ``count`` (1-20), ``freshness``, snippets and options from config."""
    params = {
        "q": request.query,
        "count": str(clamp_count(request.upstream_count, DEFAULT_COUNT, MAX_COUNT)),
        "extra_snippets": "true",
        "text_decorations": "false",
        "safesearch": str(ctx.option("safesearch") or "moderate"),
    }
    if request.recency in FRESHNESS:
        params["freshness"] = FRESHNESS[request.recency]
    for name in ("country", "search_lang"):
        value = ctx.option(name)
        if value:
            params[name] = str(value)
    return params


def parse_results(data: Any) -> SourceList:
    """Sources from a web-search body (``web.results[]``) or a news body (top-level ``results[]``).

    A 200 without a ``web`` key is zero results. Snippet = ``description`` plus de-duplicated
    ``extra_snippets`` joined with newlines; the date is ``page_age`` (ISO, UTC) else ``age``.
    """
    body = as_dict(data)
    rows = as_list(as_dict(body.get("web")).get("results")) if "web" in body else as_list(body.get("results"))
    return sources_from(
        rows,
        url="url",
        title="title",
        snippet=lambda row: join_texts([row.get("description"), *as_list(row.get("extra_snippets"))], "\n"),
        date=lambda row: row.get("page_age") or row.get("age"),
        author=lambda row: as_dict(row.get("profile")).get("name"),
    )


def describe_error(status: int, text: str, parsed: Any) -> str:
    """``Brave API error (<s>): <detail> (<loc>: <msg>; ...)`` from Brave's ``ErrorResponse`` envelope."""
    error = as_dict(as_dict(parsed).get("error"))
    detail = error.get("detail") if isinstance(error.get("detail"), str) else None
    problems = []
    for item in as_list(as_dict(error.get("meta")).get("errors")):
        if isinstance(item, dict):
            loc = ".".join(str(part) for part in as_list(item.get("loc")))
            msg = item.get("msg") if isinstance(item.get("msg"), str) else ""
            problems.append(f"{loc}: {msg}" if loc else msg)
    message = detail or (error.get("code") if isinstance(error.get("code"), str) else None) or text
    if problems:
        message = f"{message} ({'; '.join(p for p in problems if p)})"
    return f"Brave API error ({status}): {excerpt(message, 500) or 'no details'}"
