"""OpenAlex: the open scholarly graph (works: articles, preprints, books, datasets).

Endpoint: ``GET {base_url}/works?search=<q>&per_page=<n>&select=<fields>`` (default
``https://api.openalex.org``). Docs: https://developers.openalex.org/api-reference/works (the work
object, ``search``, ``filter=from_publication_date:``) and /guides/authentication.

Keys and limits (checked 2026-12-03): the API runs without a key on a small free allowance (search
costs $1 per 1,000 calls; no key gets about a cent a day, a handful of searches); a free key
(``OPENALEX_API_KEY``, sent as the ``api_key`` parameter OpenAlex documents: its only way; httpx's
own log line of the URL is redacted, :mod:`~websearch_tui.providers.transport.log_guard`) gives $1 a
day, about 1,000 searches. At most 100 requests a second. ``[search] contact`` (or ``[providers.openalex]
contact``), when it is an e-mail address, goes out as ``mailto`` (OpenAlex's polite pool).

Each work becomes a source: its DOI link (else its landing page, else its OpenAlex page), its title,
its first authors, its publication date, and a snippet that starts with a notes line (venue, year,
cited-by count, the open-access copy) and goes on with the abstract, rebuilt from OpenAlex's
inverted index.
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
from websearch_tui.providers.helpers.scholarly import (
    author_list,
    cited_by,
    contact,
    doi_url,
    notes_line,
    user_agent,
    with_notes,
    year_text,
)
from websearch_tui.providers.transport.http import HttpRequest, join_url, send
from websearch_tui.providers.transport.log_guard import guard_httpx_log
from websearch_tui.providers.transport.shape import Shape

PATH = "/works"
DEFAULT_COUNT = 10
MAX_COUNT = 100
FIELDS = (
    "id,doi,display_name,publication_year,publication_date,authorships,primary_location,"
    "open_access,cited_by_count,abstract_inverted_index"
)
ABSTRACT_WORDS = 300
"""Words of an abstract rebuilt (positions past this are not read: the snippet is cut anyway)."""

SHAPE = Shape.of("results")
"""An OpenAlex list answer: ``{"meta": {...}, "results": [...]}``."""


async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[SearchEvent]:
    """Run one OpenAlex works search; yield ``Metadata`` then ``SourcesFound`` (when it found works).

    Raises:
        ProviderError: ``config`` for a key that is not plain ASCII (nothing is sent); ``rate_limit``
            (429: the daily allowance is spent or more than 100 requests a
            second), ``bad_request`` (400/422 with OpenAlex's ``error``/``message``), ``auth``
            (401/403: a wrong key), ``server``, ``timeout``, ``network``, ``protocol`` for a body
            that is not JSON, ``unrecognised_response`` for JSON without ``results``.
    """
    if ctx.api_key:
        guard_httpx_log()  # the key travels in the URL, which httpx logs
    reply = await send(
        ctx,
        HttpRequest(
            "GET",
            join_url(ctx.base_url(), PATH),
            headers={"Accept": "application/json", "User-Agent": user_agent(ctx)},
            params=build_params(request, ctx),
            describe_error=describe_error,
            expect=SHAPE,
        ),
    )
    data = reply.json()
    yield Metadata(auth_mode="api_key" if ctx.api_key else "keyless")
    sources = parse_results(data)
    if sources or sources.dropped:
        yield SourcesFound(limit_sources(sources, request.max_results))


def build_params(request: SearchRequest, ctx: ProviderContext) -> dict[str, str]:
    """``search``, ``per_page`` (1-100), ``select``, ``filter=from_publication_date:<date>`` for a
    recency window, ``mailto`` when the contact is an e-mail address and ``api_key`` when there is one."""
    params = {
        "search": request.query,
        "per_page": str(clamp_count(request.upstream_count, DEFAULT_COUNT, MAX_COUNT)),
        "select": FIELDS,
    }
    since = start_date(request.recency)
    if since:
        params["filter"] = f"from_publication_date:{since}"
    mail = contact(ctx)
    if mail and "@" in mail and "://" not in mail:
        params["mailto"] = mail
    if ctx.api_key:
        params["api_key"] = ctx.require_api_key()  # a pasted key with a no-break space is refused, named
    return params


def parse_results(data: Any) -> SourceList:
    """Sources from ``results[]`` in OpenAlex's order (its relevance); a work without a usable link is
    dropped and counted."""
    return collect_sources(_work_source(work) for work in as_list(as_dict(data).get("results")))


def _work_source(work: object) -> Any:
    row = as_dict(work)
    location = as_dict(row.get("primary_location"))
    link = doi_url(row.get("doi")) or location.get("landing_page_url") or row.get("id")
    oa_url = as_dict(row.get("open_access")).get("oa_url")
    year = row.get("publication_year")
    notes = notes_line(
        as_dict(location.get("source")).get("display_name"),
        year_text(year),
        cited_by(row.get("cited_by_count")),
        f"open access: {oa_url}" if isinstance(oa_url, str) and oa_url and oa_url != link else None,
    )
    authors = (as_dict(authorship).get("author") for authorship in as_list(row.get("authorships")))
    return make_source(
        link,
        row.get("display_name") or row.get("title"),
        with_notes(notes, abstract(row.get("abstract_inverted_index"))),
        row.get("publication_date"),
        author_list(as_dict(author).get("display_name") for author in authors),
    )


def abstract(inverted: object, limit: int = ABSTRACT_WORDS) -> str | None:
    """The abstract's first ``limit`` words from OpenAlex's inverted index (``{"word": [positions]}``);
    ``None`` when there is none. Linear in the positions listed; a position is a list index only
    below ``limit``, so a hostile index cannot make a large list."""
    words: list[str | None] = [None] * limit
    for word, positions in as_dict(inverted).items():
        for position in as_list(positions):
            if isinstance(position, int) and not isinstance(position, bool) and 0 <= position < limit:
                words[position] = word
    text = " ".join(word for word in words if word)
    return text or None


def _error_text(parsed: Any) -> str | None:
    """``"<error>: <message>"`` from OpenAlex's error body ``{"error": ..., "message": ...}``."""
    body = as_dict(parsed)
    parts = [body.get(name) for name in ("error", "message")]
    return ": ".join(part.strip() for part in parts if isinstance(part, str) and part.strip()) or None


describe_error = api_error_describer("OpenAlex API error", _error_text)
"""``OpenAlex API error (<s>): <error>: <message>``."""
