"""Synthetic Search: web results with page text, no count, no date filter, no answer.

Endpoint: ``POST {base_url}/v2/search`` (default ``https://api.synthetic.new``), header
``Authorization: Bearer <key>``. Docs: https://synthetic.new (no public reference page for this
endpoint; the shape follows oh-my-pi's ``synthetic`` search provider, PROVIDERS.md §2.12).
The body is ``{"query"}`` only; results are sliced locally to ``max_results``.

API: Synthetic ``/v2/search``, checked 2026-12-02 against public clients of it: unchanged
(``{"results": [{"url", "title", "text", "published"}]}``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from websearch_tui.core.models import Metadata, Note, SearchEvent, SearchRequest, SourcesFound
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.helpers.parse import SourceList, api_error_describer, as_dict, limit_sources, sources_from
from websearch_tui.providers.transport.http import HttpRequest, join_url, send
from websearch_tui.providers.transport.shape import Shape

PATH = "/v2/search"

SHAPE = Shape.of("results")
"""A Synthetic answer: ``results``."""

describe_error = api_error_describer("Synthetic API error")
"""``Synthetic API error (<s>): <error.message | message | detail | body>``."""


async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[SearchEvent]:
    """Run one Synthetic search; yield ``Metadata``, ``Note`` for ignored options, ``SourcesFound``.

    Notes: ``num_search_results`` is ignored (no count); the engine notes that recency is ignored.

    Raises:
        ProviderError: ``config`` without a key; ``auth`` (401/403, seed message), ``rate_limit``,
            ``quota``, ``bad_request``, ``server`` as ``Synthetic API error (<s>): <message>``;
            ``timeout``, ``network``, ``protocol``.
    """
    key = ctx.require_api_key()
    url = join_url(ctx.base_url(), PATH)
    search = HttpRequest.post_json(
        url, {"query": request.query}, {"Authorization": f"Bearer {key}"}, describe_error=describe_error, expect=SHAPE
    )
    data = (await send(ctx, search)).json()
    yield Metadata(auth_mode="api_key")
    if request.num_search_results is not None:
        yield Note(
            f"{ctx.spec.label} has no result-count parameter; num_search_results is ignored "
            f"and results are cut to {request.max_results} locally."
        )
    sources = parse_results(data)
    if sources or sources.dropped:
        yield SourcesFound(limit_sources(sources, request.max_results))


def parse_results(data: Any) -> SourceList:
    """Sources from ``results[]``: ``title``, ``url``, ``text`` as snippet, ``published`` (age computed)."""
    return sources_from(as_dict(data).get("results"), url="url", title="title", snippet="text", date="published")
