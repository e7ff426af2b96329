"""Valyu search: web results plus academic, financial and other licensed sources from Valyu's index.

API: ``POST {base_url}/v1/search`` (default ``https://api.valyu.ai``), header ``X-API-Key: <key>``,
JSON body ``{"query", "search_type", "max_num_results", "response_length", "start_date",
"is_tool_call"}``. Checked 2026-12-03 against https://docs.valyu.ai (Search API, Pricing) and the
official SDK (valyuAI/valyu-py ``valyu/_request_builders.py``, ``valyu/types/response.py``): the
answer is ``{"success", "error", "tx_id", "query", "results": [{"title", "url", "content",
"description", "source", "publication_date", "relevance_score", "data_type", ...}],
"results_by_source", "total_deduction_dollars", "total_characters"}``. The older endpoint
``/v1/deepsearch`` is not used. Errors are ``{"success": false, "error"}``; a partial answer (some
sources left out, e.g. above ``max_price``) keeps ``success: true`` and says why in ``error``.
Valyu publishes no request-rate limit (it bills per result), so searches are not paced.
Not in PROVIDERS.md.

Each result's ``content`` is the page's whole text (or a structured record for financial data): the
snippet is the ``description`` else the first :data:`SNIPPET_CHARS` characters of text ``content``,
and ``response_length: "short"`` keeps what is sent small; the reader view (``v``) reads a page
itself. The search's cost (``total_deduction_dollars``) is the response's ``cost_usd``.
Option ``search_type`` (:data:`SEARCH_TYPES`, default ``all``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any

from websearch_tui.core.models import Metadata, Note, SearchEvent, SearchRequest, SourcesFound, Usage
from websearch_tui.core.text import plain_text
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.helpers.parse import (
    SourceList,
    api_error_describer,
    as_dict,
    choice_option,
    clamp_count,
    cost_field,
    find_message,
    first_text,
    header,
    join_texts,
    limit_sources,
    sources_from,
    start_date,
)
from websearch_tui.providers.transport.http import HttpRequest, join_url, send
from websearch_tui.providers.transport.shape import Shape

PATH = "/v1/search"
DEFAULT_COUNT = 10
MAX_COUNT = 20
SNIPPET_CHARS = 500
"""How much of a result's page text is kept as its snippet."""
SEARCH_TYPES = ("all", "web", "proprietary", "news")
"""Valyu's ``search_type`` values (the catalogue's ``option_choices`` lists the same)."""

SHAPE = Shape.of("results", "tx_id")
"""A Valyu answer: ``results`` (``tx_id``, its transaction id, is Valyu's own; ``query`` is an echo)."""

describe_error = api_error_describer(
    "Valyu API error", lambda parsed: find_message(parsed, ("error", "message", "detail"))
)
"""``Valyu API error (<s>): <error>``."""


async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[SearchEvent]:
    """Run one Valyu search; yield ``Metadata`` (transaction id, cost), notes, then sources.

    Raises:
        ProviderError: ``config`` without a key; ``auth`` (401/403), ``quota`` (402), ``rate_limit``
            (429), ``bad_request`` (400/422), ``server``, ``timeout``, ``network``, ``protocol``;
            ``unrecognised_response`` for a body without ``results``.
    """
    key = ctx.require_api_key()
    body, notes = build_body(request, ctx)
    search = HttpRequest.post_json(
        join_url(ctx.base_url(), PATH), body, {"X-API-Key": key}, describe_error=describe_error, expect=SHAPE
    )
    reply = await send(ctx, search)
    payload = as_dict(reply.json())
    request_id = plain_text(payload.get("tx_id"), collapse=True) or header(reply.headers, "x-request-id")
    yield Metadata(request_id=request_id, usage=usage(payload), auth_mode="api_key")
    warning = plain_text(payload.get("error"), collapse=True)
    for note in [*notes, *([f"Valyu: {warning}"] if warning else [])]:
        yield Note(note)
    sources = parse_results(payload)
    if sources or sources.dropped:
        yield SourcesFound(limit_sources(sources, request.max_results))


def build_body(request: SearchRequest, ctx: ProviderContext) -> tuple[dict[str, Any], list[str]]:
    """``(body, notes)``: ``search_type`` from the option (an invalid one a note), ``max_num_results``
    1-20 (default 10), short page texts, ``start_date`` (``YYYY-MM-DD``, UTC) from recency."""
    search_type, notes = choice_option(ctx.option("search_type") or "all", SEARCH_TYPES, "all", "Valyu search_type")
    body: dict[str, Any] = {
        "query": request.query,
        "search_type": search_type,
        "max_num_results": clamp_count(request.upstream_count, DEFAULT_COUNT, MAX_COUNT),
        "response_length": "short",
        "is_tool_call": True,
    }
    since = start_date(request.recency)
    if since:
        body["start_date"] = since
    return body, notes


def parse_results(payload: Any) -> SourceList:
    """Sources from ``results[]``: ``url``, ``title``, ``description`` else text ``content`` (at most
    :data:`SNIPPET_CHARS`), ``publication_date``, ``authors`` (a list or a string)."""
    return sources_from(
        as_dict(payload).get("results"),
        url="url",
        title="title",
        snippet=lambda row: first_text(row, "description", "content"),
        date="publication_date",
        author=authors,
        snippet_limit=SNIPPET_CHARS,
    )


def authors(row: Mapping[str, Any]) -> object:
    """A result's ``authors``: a list joined with ``", "``, a string as sent."""
    value = row.get("authors")
    return join_texts(value, ", ") if isinstance(value, list) else value


def usage(payload: dict[str, Any]) -> Usage | None:
    """``Usage(cost_usd=total_deduction_dollars)`` when the cost is a finite, non-negative number;
    ``None`` otherwise."""
    cost = cost_field(payload, "total_deduction_dollars")
    return Usage(cost_usd=cost) if cost is not None else None
