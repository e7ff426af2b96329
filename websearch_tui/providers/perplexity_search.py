"""Perplexity Search API: ranked web results with long markdown excerpts, no answer.

Endpoint: ``POST {base_url}/search`` (default ``https://api.perplexity.ai``), headers
``Authorization: Bearer <key>`` and ``Accept: application/json``.
Docs: https://docs.perplexity.ai/api-reference/search-post (PROVIDERS.md §2.8; errors as §2.7).

API: the Perplexity Search API, checked 2026-12-02: still served (the retirement of 2026-09-27
concerned Sonar chat completions only, see :mod:`.perplexity`); unchanged fields.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from websearch_tui.core.models import Metadata, SearchEvent, SearchRequest, SourcesFound
from websearch_tui.core.text import plain_text
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.families.perplexity_common import describe_error
from websearch_tui.providers.helpers.parse import SourceList, as_dict, clamp_count, header, limit_sources, sources_from
from websearch_tui.providers.transport.http import HttpRequest, RetryPolicy, join_url, send
from websearch_tui.providers.transport.shape import Shape

PATH = "/search"
DEFAULT_COUNT = 10
MAX_COUNT = 20
RECENCY_FILTERS = {"day": "day", "week": "week", "month": "month", "year": "year"}
FINAL_ANSWERS = RetryPolicy(max_retries=1, retry_http_errors=False)
"""Any HTTP answer from Perplexity is final (PROVIDERS.md §1.12); one resend after a failed connection."""


SHAPE = Shape.of("results")
"""A Perplexity Search API answer: ``results`` (and ``id``)."""


async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[SearchEvent]:
    """Run one Perplexity Search API query; yield ``Metadata`` then ``SourcesFound`` (when any).

    Raises:
        ProviderError: ``config`` without a key; ``auth`` (401/403, seed message), ``rate_limit``
            (429), ``quota``, ``bad_request`` (400/422), ``server`` (5xx) as
            ``Perplexity API error (<s>): <error.message>``; ``timeout``, ``network``, ``protocol``.
    """
    key = ctx.require_api_key()
    url, body = join_url(ctx.base_url(), PATH), build_body(request)
    search = HttpRequest.post_json(
        url, body, {"Authorization": f"Bearer {key}"}, describe_error=describe_error, retry=FINAL_ANSWERS, expect=SHAPE
    )
    reply = await send(ctx, search)
    payload = as_dict(reply.json())
    request_id = plain_text(payload.get("id"), collapse=True) or header(reply.headers, "x-request-id")
    yield Metadata(request_id=request_id, auth_mode="api_key")
    sources = parse_results(payload)
    if sources or sources.dropped:
        yield SourcesFound(limit_sources(sources, request.max_results))


def build_body(request: SearchRequest) -> dict[str, Any]:
    """``{"query", "max_results": 1-20 (default 10), "search_recency_filter"}`` (the filter only when set)."""
    body: dict[str, Any] = {
        "query": request.query,
        "max_results": clamp_count(request.upstream_count, DEFAULT_COUNT, MAX_COUNT),
    }
    if request.recency in RECENCY_FILTERS:
        body["search_recency_filter"] = RECENCY_FILTERS[request.recency]
    return body


def parse_results(payload: Any) -> SourceList:
    """Sources from ``results[]``: ``title``, ``url``, ``snippet`` (markdown, kept whole), ``date``.

    ``last_updated`` is ignored; rows without an http(s) URL are dropped.
    """
    return sources_from(as_dict(payload).get("results"), url="url", title="title", snippet="snippet", date="date")
