"""Ollama web search: the hosted search API that shares its key with Ollama Cloud.

API: ``POST {base_url}/api/web_search`` (default ``https://ollama.com``), header
``Authorization: Bearer <OLLAMA_API_KEY>``, JSON body ``{"query", "max_results"}`` (1-10, default 5).
Checked 2026-12-03 against https://docs.ollama.com/capabilities/web-search and the official SDK
(ollama/ollama-python ``web_search``): the answer is ``{"results": [{"title", "url", "content"}]}``,
``content`` being a relevant passage of the page; errors are ``{"error": "<message>"}``. The API
has no date filter (the engine says recency is ignored). Ollama publishes neither which index it
searches nor a request-rate limit (usage counts against the account's plan), so searches are not
paced. Not in PROVIDERS.md.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from websearch_tui.core.models import Metadata, SearchEvent, SearchRequest, SourcesFound
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.helpers.parse import (
    SourceList,
    api_error_describer,
    as_dict,
    clamp_count,
    header,
    limit_sources,
    sources_from,
)
from websearch_tui.providers.transport.http import HttpRequest, join_url, send
from websearch_tui.providers.transport.shape import Shape

PATH = "/api/web_search"
DEFAULT_COUNT = 5
MAX_COUNT = 10
SNIPPET_CHARS = 1000
"""``content`` can run to several thousand characters: its first 1,000 are kept as the snippet."""

SHAPE = Shape.of("results")
"""An Ollama web search answer: ``results``."""

describe_error = api_error_describer("Ollama API error")
"""``Ollama API error (<s>): <error>``."""


async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[SearchEvent]:
    """Run one Ollama web search; yield ``Metadata`` then ``SourcesFound`` (when any).

    Raises:
        ProviderError: ``config`` without a key; ``auth`` (401/403), ``rate_limit`` (429),
            ``bad_request`` (400), ``server``, ``timeout``, ``network``, ``protocol``;
            ``unrecognised_response`` for a body without ``results``.
    """
    key = ctx.require_api_key()
    search = HttpRequest.post_json(
        join_url(ctx.base_url(), PATH),
        build_body(request),
        {"Authorization": f"Bearer {key}"},
        describe_error=describe_error,
        expect=SHAPE,
    )
    reply = await send(ctx, search)
    yield Metadata(request_id=header(reply.headers, "x-request-id"), auth_mode="api_key")
    sources = parse_results(reply.json())
    if sources or sources.dropped:
        yield SourcesFound(limit_sources(sources, request.max_results))


def build_body(request: SearchRequest) -> dict[str, Any]:
    """``{"query", "max_results": 1-10 (default 5)}``."""
    return {"query": request.query, "max_results": clamp_count(request.upstream_count, DEFAULT_COUNT, MAX_COUNT)}


def parse_results(payload: Any) -> SourceList:
    """Sources from ``results[]``: ``url``, ``title``, ``content`` (at most :data:`SNIPPET_CHARS`)."""
    return sources_from(
        as_dict(payload).get("results"), url="url", title="title", snippet="content", snippet_limit=SNIPPET_CHARS
    )
