"""Hacker News: stories and comments, through Algolia's HN Search API.

Endpoint: ``GET {base_url}/api/v1/search?query=<q>&tags=(story,comment)&hitsPerPage=<n>`` (by
relevance; ``/api/v1/search_by_date`` with ``[providers.hackernews] sort = "date"``), default
``https://hn.algolia.com``. Docs: https://hn.algolia.com/api (``tags``, ``numericFilters``,
``hitsPerPage``; 10,000 requests an hour per IP address). No key.

A story becomes a source with its own link (an Ask HN without one links its discussion), a comment
one with its discussion link titled ``Comment on: <story>``; both carry the author, the date and a
notes line (``312 points · 148 comments · discussion: https://news.ycombinator.com/item?id=...``)
before the text. A recency window becomes ``numericFilters=created_at_i>=<unix time>``.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

from websearch_tui.core.models import Metadata, SearchEvent, SearchRequest, SourcesFound
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.helpers.parse import (
    RECENCY_DAYS,
    SourceList,
    api_error_describer,
    as_dict,
    as_list,
    clamp_count,
    collect_sources,
    first_text,
    int_field,
    limit_sources,
    make_source,
)
from websearch_tui.providers.helpers.scholarly import notes_line, with_notes
from websearch_tui.providers.transport.http import HttpRequest, join_url, send
from websearch_tui.providers.transport.shape import Shape

PATHS = {"relevance": "/api/v1/search", "date": "/api/v1/search_by_date"}
DEFAULT_COUNT = 10
MAX_COUNT = 100
ITEM_URL = "https://news.ycombinator.com/item?id="

SHAPE = Shape.of("hits", "nbHits")
"""An Algolia search answer: ``{"hits": [...], "nbHits", "page", ...}``."""

describe_error = api_error_describer("Hacker News search error")
"""``Hacker News search error (<s>): <Algolia's message>``."""


async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[SearchEvent]:
    """Run one Hacker News search; yield ``Metadata`` then ``SourcesFound`` (when it found items).

    Raises:
        ProviderError: ``rate_limit`` (429), ``bad_request`` (400 with Algolia's ``message``),
            ``server``, ``timeout``, ``network``, ``protocol`` for a body that is not JSON,
            ``unrecognised_response`` for JSON without ``hits``.
    """
    sort = str(ctx.option("sort") or "relevance").strip().lower()
    reply = await send(
        ctx,
        HttpRequest(
            "GET",
            join_url(ctx.base_url(), PATHS.get(sort, PATHS["relevance"])),
            headers={"Accept": "application/json"},
            params=build_params(request),
            describe_error=describe_error,
            expect=SHAPE,
        ),
    )
    data = reply.json()
    yield Metadata(auth_mode="keyless")
    sources = parse_results(data)
    if sources or sources.dropped:
        yield SourcesFound(limit_sources(sources, request.max_results))


def build_params(request: SearchRequest, now: float | None = None) -> dict[str, str]:
    """``query``, ``tags=(story,comment)``, ``hitsPerPage`` (1-100) and, for a recency window,
    ``numericFilters=created_at_i>=<unix seconds>`` (``now`` defaults to the current time)."""
    params = {
        "query": request.query,
        "tags": "(story,comment)",
        "hitsPerPage": str(clamp_count(request.upstream_count, DEFAULT_COUNT, MAX_COUNT)),
    }
    days = RECENCY_DAYS.get(request.recency or "")
    if days:
        params["numericFilters"] = f"created_at_i>={int((now or time.time()) - days * 86_400)}"
    return params


def parse_results(data: Any) -> SourceList:
    """Sources from ``hits[]`` in Algolia's order; a hit without an id or link is dropped and counted."""
    return collect_sources(_hit_source(hit) for hit in as_list(as_dict(data).get("hits")))


def _hit_source(hit: object) -> Any:
    row = as_dict(hit)
    item_id = row.get("objectID")
    discussion = f"{ITEM_URL}{item_id}" if isinstance(item_id, str) and item_id.isdigit() else None
    if "comment" in as_list(row.get("_tags")) or first_text(row, "comment_text"):
        return _comment_source(row, discussion)
    return _story_source(row, discussion)


def _comment_source(row: dict[str, Any], discussion: str | None) -> Any:
    """A comment: its discussion link, ``Comment on: <story title>``, ``on <story link>`` as notes."""
    story = first_text(row, "story_title")
    story_url = first_text(row, "story_url")
    notes = notes_line(f"on {story_url}" if story_url else None)
    title = f"Comment on: {story}" if story else "Hacker News comment"
    text = with_notes(notes, row.get("comment_text"))
    return make_source(discussion, title, text, row.get("created_at"), row.get("author"))


def _story_source(row: dict[str, Any], discussion: str | None) -> Any:
    """A story: its own link (else its discussion), points, comments and the discussion as notes."""
    link = first_text(row, "url") or discussion
    points, comments = int_field(row, "points", minimum=0), int_field(row, "num_comments", minimum=0)
    notes = notes_line(
        f"{points:,} points" if points is not None else None,
        f"{comments:,} comments" if comments is not None else None,
        f"discussion: {discussion}" if discussion and discussion != link else None,
    )
    text = with_notes(notes, row.get("story_text"))
    return make_source(link, row.get("title"), text, row.get("created_at"), row.get("author"))
