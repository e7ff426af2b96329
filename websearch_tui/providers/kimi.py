"""Kimi Code Search: the search endpoint of the Kimi Code (coding plan) API, no answer.

Endpoint: ``POST {base_url}/v1/search`` (default ``https://api.kimi.com/coding``), headers
``Authorization: Bearer <key>`` and ``Accept: application/json``. Only Kimi Code console keys
work here; Moonshot Open Platform keys get 401. Docs: https://www.kimi.com/code (keys; no public
reference page for this endpoint, the shape follows oh-my-pi's ``kimi`` search provider,
PROVIDERS.md §2.10). Checked 2026-12-02: no public change note for this endpoint was found; an
answer without ``search_results`` fails as ``unrecognised_response`` rather than reading as empty.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import Metadata, SearchEvent, SearchRequest, SourcesFound
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.helpers.parse import (
    SourceList,
    api_error_describer,
    as_dict,
    clamp_count,
    first_text,
    header,
    limit_sources,
    sources_from,
)
from websearch_tui.providers.transport.http import HttpRequest, join_url, send
from websearch_tui.providers.transport.shape import Shape

PATH = "/v1/search"
DEFAULT_COUNT = 10
MAX_COUNT = 20
SERVER_TIMEOUT_SECONDS = 30
KEY_HINT = (
    "Kimi Code Search accepts only a Kimi Code console key (KIMI_SEARCH_API_KEY), "
    "not a Moonshot Open Platform key (MOONSHOT_API_KEY)."
)

SHAPE = Shape.of("search_results")
"""A Kimi Code search answer: ``search_results``."""

describe_error = api_error_describer("Kimi search API error")
"""``Kimi search API error (<s>): <error.message | message | detail | body>``."""


async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[SearchEvent]:
    """Run one Kimi Code search; yield ``Metadata`` and ``SourcesFound`` (the engine notes that recency is ignored).

    Raises:
        ProviderError: ``config`` without a key; ``auth`` (401/403: the seed message plus which key
            kind the endpoint accepts), ``rate_limit``, ``quota``, ``bad_request``, ``server`` as
            ``Kimi search API error (<s>): <message>``; ``timeout``, ``network``, ``protocol``.
    """
    key = ctx.require_api_key()
    try:
        url = join_url(ctx.base_url(), PATH)
        search = HttpRequest.post_json(
            url, build_body(request), {"Authorization": f"Bearer {key}"}, describe_error=describe_error, expect=SHAPE
        )
        reply = await send(ctx, search)
        data = reply.json()
    except ProviderError as exc:
        raise with_key_hint(exc) from None
    yield Metadata(request_id=header(reply.headers, "x-request-id", "x-msh-request-id"), auth_mode="api_key")
    sources = parse_results(data)
    if sources or sources.dropped:
        yield SourcesFound(limit_sources(sources, request.max_results))


def build_body(request: SearchRequest) -> dict[str, Any]:
    """``{"text_query", "limit": 1-20 (default 10), "enable_page_crawling": false, "timeout_seconds": 30}``."""
    return {
        "text_query": request.query,
        "limit": clamp_count(request.upstream_count, DEFAULT_COUNT, MAX_COUNT),
        "enable_page_crawling": False,
        "timeout_seconds": SERVER_TIMEOUT_SECONDS,
    }


def with_key_hint(error: ProviderError) -> ProviderError:
    """``error`` unchanged, or for ``auth`` the same error with :data:`KEY_HINT` appended."""
    return error.with_hint(KEY_HINT) if error.kind is ErrorKind.AUTH else error


def parse_results(data: Any) -> SourceList:
    """Sources from ``search_results[]``: ``title``, ``url``, ``snippet`` else ``content``, ``date``,
    ``site_name`` as the author; every string trimmed and cleaned."""
    return sources_from(
        as_dict(data).get("search_results"),
        url="url",
        title="title",
        snippet=lambda row: first_text(row, "snippet") or row.get("content"),
        date="date",
        author="site_name",
    )
