"""Linkup search: ranked results from Linkup's own index, or a sourced answer with its sources.

API: ``POST {base_url}/v1/search`` (default ``https://api.linkup.so``), header
``Authorization: Bearer <key>``, JSON body ``{"q", "depth", "outputType", "maxResults", "fromDate"}``.
Checked 2026-12-03 against https://docs.linkup.so/pages/documentation/get-started/concepts and the
official SDK (LinkupPlatform/linkup-python-sdk ``tests/unit/client_test.py``): ``depth`` is
``standard``, ``deep`` (searches again until it has enough, tens of seconds) or ``fast`` (beta);
``outputType`` ``searchResults`` answers ``{"results": [{"type": "text"|"image", "name", "url",
"content"}]}``, ``sourcedAnswer`` answers ``{"answer", "sources": [{"name", "url", "snippet"}]}``.
Errors are ``{"statusCode", "error": {"code", "message", "details": [{"field", "message"}]}}``
(https://docs.linkup.so/pages/documentation/platform/errors); an empty balance is a 429
(``INSUFFICIENT_FUNDS_CREDITS``, read as a quota error). Linkup publishes no request-rate figure
(it answers 429 when an account goes too fast), so searches are not paced. Not in PROVIDERS.md.

Options: ``depth`` (:data:`DEPTHS`, default ``standard``) and ``output`` (:data:`OUTPUTS`: ``answer``
asks for a sourced answer, the default; ``results`` for results only). An invalid value that
bypassed config validation falls back to the default with a note.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from websearch_tui.core.models import (
    AnswerDelta,
    Citation,
    CitationsFound,
    Metadata,
    Note,
    SearchEvent,
    SearchRequest,
    SourcesFound,
)
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.helpers.parse import (
    SourceList,
    answer_text,
    api_error_describer,
    as_dict,
    as_list,
    choice_option,
    clamp_count,
    find_message,
    first_text,
    header,
    limit_sources,
    sources_from,
    start_date,
)
from websearch_tui.providers.transport.http import HttpRequest, join_url, send
from websearch_tui.providers.transport.shape import Shape

PATH = "/v1/search"
DEFAULT_COUNT = 10
MAX_COUNT = 50
SNIPPET_CHARS = 1000
"""A search result's ``content`` can be a page's worth of text: its first 1,000 characters are kept."""
DEPTHS = ("standard", "deep", "fast")
"""Linkup's ``depth`` values (the catalogue's ``option_choices`` lists the same)."""
OUTPUTS = {"answer": "sourcedAnswer", "results": "searchResults"}
"""The ``output`` option's values and the ``outputType`` each sends."""

SHAPE = Shape.of("results", "answer", "sources")
"""A Linkup answer: ``results`` (search results) or ``answer``/``sources`` (a sourced answer)."""


def error_message(parsed: Any) -> str | None:
    """``error.message`` followed by the ``details`` that name a field (``"Validation failed
    (outputType: outputType must be one of ...)"``); any other body's message as
    :func:`find_message` finds it."""
    error = as_dict(as_dict(parsed).get("error"))
    message = error.get("message") if isinstance(error.get("message"), str) else None
    if message is None:
        return find_message(parsed, ("error", "message", "details"))
    details = [
        f"{item['field']}: {item['message']}"
        for item in as_list(error.get("details"))
        if isinstance(item, dict) and isinstance(item.get("field"), str) and isinstance(item.get("message"), str)
    ]
    return f"{message} ({'; '.join(details)})" if details else message


describe_error = api_error_describer("Linkup API error", error_message)
"""``Linkup API error (<s>): <error.message> (<field>: <message>; ...)``."""


async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[SearchEvent]:
    """Run one Linkup search; yield ``Metadata``, option notes, sources, then the answer and one
    citation per source of a sourced answer (every source of an answer stays listed: it is cited).

    Raises:
        ProviderError: ``config`` without a key; ``auth`` (401/403), ``quota`` (402, or a 429 for an
            empty balance), ``rate_limit`` (429), ``bad_request`` (400/422), ``server``,
            ``timeout``, ``network``, ``protocol``; ``unrecognised_response`` for a body that has
            none of its fields.
    """
    key = ctx.require_api_key()
    body, notes = build_body(request, ctx)
    search = HttpRequest.post_json(
        join_url(ctx.base_url(), PATH),
        body,
        {"Authorization": f"Bearer {key}"},
        describe_error=describe_error,
        expect=SHAPE,
    )
    reply = await send(ctx, search)
    payload = as_dict(reply.json())
    yield Metadata(request_id=header(reply.headers, "x-request-id"), auth_mode="api_key")
    for note in notes:
        yield Note(note)
    sources = parse_sources(payload)
    answer = answer_text(payload.get("answer"))
    cited = [source.url for source in sources] if answer else []
    if sources or sources.dropped:
        yield SourcesFound(limit_sources(sources, request.max_results, cited))
    if answer:
        yield AnswerDelta(answer)
    if cited:
        yield CitationsFound(tuple(Citation(url=source.url, title=source.title) for source in sources))


def build_body(request: SearchRequest, ctx: ProviderContext) -> tuple[dict[str, Any], list[str]]:
    """``(body, notes)``: ``q``, ``depth`` and ``outputType`` from the options (each invalid one a
    note), ``maxResults`` 1-50 (default 10), ``fromDate`` (``YYYY-MM-DD``, UTC) from recency."""
    depth, notes = choice_option(ctx.option("depth") or "standard", DEPTHS, "standard", "Linkup depth")
    output, output_notes = choice_option(ctx.option("output") or "answer", tuple(OUTPUTS), "answer", "Linkup output")
    body: dict[str, Any] = {
        "q": request.query,
        "depth": depth,
        "outputType": OUTPUTS[output],
        "maxResults": clamp_count(request.upstream_count, DEFAULT_COUNT, MAX_COUNT),
        "includeImages": False,
    }
    since = start_date(request.recency)
    if since:
        body["fromDate"] = since
    return body, [*notes, *output_notes]


def parse_sources(payload: Any) -> SourceList:
    """Sources from ``results[]`` (text results; image results are left out, not counted as dropped)
    or from a sourced answer's ``sources[]``: ``name`` is the title, ``snippet`` else ``content`` the
    snippet (at most :data:`SNIPPET_CHARS`)."""
    body = as_dict(payload)
    rows = body["results"] if "results" in body else body.get("sources")
    texts = [row for row in as_list(rows) if not (isinstance(row, dict) and row.get("type") == "image")]
    return sources_from(
        texts,
        url="url",
        title="name",
        snippet=lambda row: first_text(row, "snippet", "content"),
        snippet_limit=SNIPPET_CHARS,
    )
