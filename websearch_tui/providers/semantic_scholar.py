"""Semantic Scholar: the Allen Institute's academic graph (papers across every field).

Endpoint: ``GET {base_url}/graph/v1/paper/search?query=<q>&limit=<n>&fields=<fields>`` (default
``https://api.semanticscholar.org``). Docs: https://api.semanticscholar.org/api-docs/graph (paper
relevance search: ``fields``, ``limit`` up to 100, ``publicationDateOrYear=<from>:``).

Keys and limits (checked 2026-12-03): the API runs without a key, but unauthenticated requests share
one pool with every other keyless user and often get 429; a free key (``SEMANTIC_SCHOLAR_API_KEY``,
sent as ``x-api-key``) has its own limit, one request a second to start with, which the spec's
default pacing keeps.

Each paper becomes a source: its DOI link (else its arXiv page, else its Semantic Scholar page), so
the merged view sees the same work OpenAlex or arXiv found; its title, first authors, publication
date, and a snippet that starts with a notes line (venue, year, cited-by count, the open-access PDF)
and goes on with the abstract.
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
    as_list,
    clamp_count,
    collect_sources,
    limit_sources,
    make_source,
    start_date,
)
from websearch_tui.providers.helpers.scholarly import author_list, cited_by, doi_url, notes_line, with_notes, year_text
from websearch_tui.providers.transport.http import HttpRequest, join_url, send
from websearch_tui.providers.transport.shape import Shape

PATH = "/graph/v1/paper/search"
DEFAULT_COUNT = 10
MAX_COUNT = 100
FIELDS = "title,url,abstract,venue,year,publicationDate,authors,citationCount,externalIds,openAccessPdf,journal"

SHAPE = Shape.of("data", "total")
"""A paper search answer: ``{"total", "offset", "next", "data": [...]}`` (no ``data`` when nothing matched)."""

describe_error = api_error_describer("Semantic Scholar API error")
"""``Semantic Scholar API error (<s>): <message or error>``."""


async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[SearchEvent]:
    """Run one Semantic Scholar paper search; yield ``Metadata`` then ``SourcesFound`` (when it found papers).

    Raises:
        ProviderError: ``rate_limit`` (429: the shared keyless pool or the key's limit), ``bad_request``
            (400 with S2's ``error``), ``auth`` (401/403: a wrong key), ``server``, ``timeout``,
            ``network``, ``protocol`` for a body that is not JSON, ``unrecognised_response`` for
            JSON without ``data`` or ``total``.
    """
    headers = {"Accept": "application/json"}
    if ctx.api_key:
        headers["x-api-key"] = ctx.require_api_key()
    reply = await send(
        ctx,
        HttpRequest(
            "GET",
            join_url(ctx.base_url(), PATH),
            headers=headers,
            params=build_params(request),
            describe_error=describe_error,
            expect=SHAPE,
        ),
    )
    data = reply.json()
    yield Metadata(auth_mode="api_key" if ctx.api_key else "keyless")
    sources = parse_results(data)
    if sources or sources.dropped:
        yield SourcesFound(limit_sources(sources, request.max_results))


def build_params(request: SearchRequest) -> dict[str, str]:
    """``query``, ``limit`` (1-100), ``fields`` and, for a recency window, ``publicationDateOrYear=<from>:``."""
    params = {
        "query": request.query,
        "limit": str(clamp_count(request.upstream_count, DEFAULT_COUNT, MAX_COUNT)),
        "fields": FIELDS,
    }
    since = start_date(request.recency)
    if since:
        params["publicationDateOrYear"] = f"{since}:"
    return params


def parse_results(data: Any) -> SourceList:
    """Sources from ``data[]`` in Semantic Scholar's order (its relevance); a paper without a usable
    link is dropped and counted."""
    return collect_sources(_paper_source(paper) for paper in as_list(as_dict(data).get("data")))


def _paper_source(paper: object) -> Any:
    row = as_dict(paper)
    ids = as_dict(row.get("externalIds"))
    arxiv = ids.get("ArXiv")
    arxiv_link = f"https://arxiv.org/abs/{arxiv}" if isinstance(arxiv, str) and arxiv.strip() else None
    link = doi_url(ids.get("DOI")) or arxiv_link or row.get("url")
    pdf = as_dict(row.get("openAccessPdf")).get("url")
    year = row.get("year")
    notes = notes_line(
        row.get("venue") or as_dict(row.get("journal")).get("name"),
        year_text(year),
        cited_by(row.get("citationCount")),
        f"open access: {pdf}" if isinstance(pdf, str) and pdf and pdf != link else None,
    )
    return make_source(
        link,
        row.get("title"),
        with_notes(notes, row.get("abstract")),
        row.get("publicationDate") or (year_text(year)),
        author_list(as_dict(author).get("name") for author in as_list(row.get("authors"))),
    )
