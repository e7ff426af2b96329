"""Jina Search (``s.jina.ai``): web results with titles and descriptions, no answer.

API: Jina's Search API (SERP), ``POST {base_url}/`` (default ``https://s.jina.ai``) with the JSON
body ``{"q", "num", "page", "gl"?, "hl"?}``, headers ``Authorization: Bearer <key>``,
``Accept: application/json``, ``X-Respond-With: no-content`` (titles and descriptions only, no page
bodies), ``X-Retain-Images: none`` and, for a query with one ``site:`` operator, ``X-Site: <host>``.
Checked 2026-12-02 against Jina's API docs (https://jina.ai/reader and its LLM-facing reference,
jina-ai/meta-prompt v9 "Search API") and the service's source (jina-ai/reader ``src/api/searcher.ts``,
which serves ``GET|POST /search`` and ``GET|POST /<query>``; PROVIDERS.md §2.9).

Where the docs and PROVIDERS.md differ, the docs win: PROVIDERS.md describes ``GET /<query>?count=``;
the documented request is now the ``POST`` with a JSON body, and the count is ``num`` (0-20; ``count``
is an alias the service still reads). ``gl`` (country) and ``hl`` (language) are sent when the config
sets them (``[providers.jina] gl = "us"``, ``hl = "en"``); ``page`` is always 1 (we never page).

Response: ``{"code": 200, "status": 20000, "data": [{"title", "url", "description", "content"?,
"date"?, "usage": {"tokens"}}], "meta": {"usage": {"tokens"}}}`` (a bare list of rows is read too);
``date`` is the text the upstream SERP printed ("3 days ago", "Dec 5, 2024"). Errors use Jina's envelope
``{"data": null, "code", "name", "status", "message", "readableMessage"}`` (``readableMessage``,
``"<name>: <message>"``, is the message shown); a 422 ``AssertionFailureError`` (``status`` 42206)
means "no results" and is reported as an empty result.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

from websearch_tui.core.errors import ErrorKind, ProviderError, excerpt, kind_for_status
from websearch_tui.core.models import Metadata, Note, SearchEvent, SearchRequest, SourcesFound
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.helpers.parse import (
    SourceList,
    api_error_describer,
    as_dict,
    as_list,
    clamp_count,
    find_message,
    first_text,
    header,
    limit_sources,
    sources_from,
)
from websearch_tui.providers.transport.http import HttpRequest, RetryPolicy, join_url, send
from websearch_tui.providers.transport.shape import Shape

PATH = "/"
DEFAULT_COUNT = 5
MAX_COUNT = 20
SNIPPET_CHARS = 1000
NO_RESULTS_NAME = "AssertionFailureError"
NO_RESULTS_STATUS = 42206
MESSAGE_KEYS = ("readableMessage", "message", "error", "detail")
_SITE = re.compile(r"(?<!\S)site:(\S+)", re.IGNORECASE)

SHAPE = Shape.of("data", list_ok=True)
"""A Jina answer: ``{"code", "status", "data": [...]}`` (its error envelope has ``"data": null``), or a list."""

describe_error = api_error_describer("Jina API error", lambda parsed: find_message(parsed, MESSAGE_KEYS))
"""``Jina API error (<s>): <readableMessage | message>`` (nested error objects searched too)."""


async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[SearchEvent]:
    """Run one Jina search; yield ``Metadata``, ``Note`` (no results), ``SourcesFound``.

    A 422 ``AssertionFailureError`` (or the same envelope with HTTP 200) ends the run with a
    "no results" note and no sources instead of failing.

    Raises:
        ProviderError: ``config`` without a key; ``auth`` (401/403, seed message), ``quota`` (402,
            insufficient balance), ``rate_limit`` (429), ``bad_request``, ``server`` (5xx) as
            ``Jina API error (<s>): <message>``; a body ``code`` other than 200 as
            ``Jina API response reported failure (<code>)``; ``timeout``, ``network``, ``protocol``.
    """
    key = ctx.require_api_key()
    query, site = split_site(request.query)
    watcher = NoResultsWatcher()
    try:
        reply = await send(
            ctx,
            HttpRequest.post_json(
                join_url(ctx.base_url(), PATH),
                build_body(query, request, ctx),
                build_headers(key, site),
                describe_error=watcher.describe,
                retry=RetryPolicy(max_retries=1),  # site-restricted searches can 500 repeatedly (jina-ai/reader#1258)
                expect=SHAPE,
            ),
        )
        data = reply.json()
    except ProviderError as exc:
        if not watcher.matches(exc):
            raise
        data, request_id = None, None
    else:
        request_id = header(reply.headers, "x-request-id")
    yield Metadata(request_id=request_id, auth_mode="api_key")
    if data is None or is_no_results(data):
        yield Note(f"{ctx.spec.label} found no results for \u201c{request.query}\u201d.")
        return
    check_body(ctx, data)
    sources = parse_results(data)
    if sources or sources.dropped:
        yield SourcesFound(limit_sources(sources, request.max_results))


def split_site(query: str) -> tuple[str, str | None]:
    """Move a single ``site:<host>`` operator out of the query: ``(query without it, host)``.

    With no or several ``site:`` operators, or nothing left besides the operator, the query is
    returned unchanged with ``None``.
    """
    found = _SITE.findall(query)
    if len(found) != 1:
        return query, None
    rest = " ".join(_SITE.sub(" ", query).split())
    return (rest, found[0]) if rest else (query, None)


def build_headers(key: str, site: str | None) -> dict[str, str]:
    """Bearer auth, JSON, ``X-Respond-With: no-content``, ``X-Retain-Images: none`` (+ ``X-Site``)."""
    headers = {
        "Authorization": f"Bearer {key}",
        "Accept": "application/json",
        "X-Respond-With": "no-content",
        "X-Retain-Images": "none",
    }
    if site:
        headers["X-Site"] = site
    return headers


def build_body(query: str, request: SearchRequest, ctx: ProviderContext) -> dict[str, Any]:
    """The JSON body: ``q`` (the query, ``site:`` moved out by :func:`split_site`), ``num`` (1-20,
    default 5), ``page`` 1, and ``gl`` / ``hl`` when the config sets them (stripped; blank ones are
    not sent)."""
    body: dict[str, Any] = {"q": query, "num": clamp_count(request.upstream_count, DEFAULT_COUNT, MAX_COUNT), "page": 1}
    for name in ("gl", "hl"):
        value = ctx.option(name)
        if isinstance(value, str) and value.strip():
            body[name] = value.strip()
    return body


class NoResultsWatcher:
    """An error describer that remembers whether the error body was Jina's "no results" envelope.

    ``describe`` is the request's ``describe_error``; ``matches(error)`` then tells whether the raised
    :class:`ProviderError` was that envelope (and so an empty result, not a failure).
    """

    def __init__(self) -> None:
        self.status: int | None = None

    def describe(self, status: int, text: str, parsed: Any) -> str:
        """``Jina API error (<s>): <message>``; records ``status`` when the body means "no results"."""
        self.status = status if is_no_results(parsed) else None
        return describe_error(status, text, parsed)

    def matches(self, error: ProviderError) -> bool:
        """True when ``error`` came from the last described response and that was "no results"."""
        return self.status is not None and error.status == self.status


def is_no_results(parsed: Any) -> bool:
    """True for ``{"name": "AssertionFailureError", ...}`` or ``{"status": 42206, ...}``."""
    body = as_dict(parsed)
    return body.get("name") == NO_RESULTS_NAME or body.get("status") == NO_RESULTS_STATUS


def check_body(ctx: ProviderContext, data: Any) -> None:
    """Raise when a 2xx envelope reports failure (``code`` other than 200).

    Raises:
        ProviderError: kind from the body ``code`` (as an HTTP status), message
            ``Jina API response reported failure (<code>): <message>``.
    """
    body = as_dict(data)
    code = body.get("code")
    if not isinstance(code, int) or isinstance(code, bool) or code == 200:
        return
    message = find_message(body, MESSAGE_KEYS)
    text = f"Jina API response reported failure ({code})" + (f": {excerpt(message, 500)}" if message else "")
    kind = kind_for_status(code, message or "") if 400 <= code <= 599 else ErrorKind.PROTOCOL
    raise ProviderError(ctx.spec.id, kind, text, status=code if 400 <= code <= 599 else None)


def parse_results(data: Any) -> SourceList:
    """Sources from ``data[]`` (or a bare array): ``title``, ``url``, ``description`` else ``content``.

    ``content`` (a whole page when the service ignores ``no-content``) is cut to
    :data:`SNIPPET_CHARS`; ``date`` (else ``publishedTime``) is the published date.
    """
    rows = data if isinstance(data, list) else as_list(as_dict(data).get("data"))
    return sources_from(
        rows,
        url="url",
        title="title",
        snippet=lambda row: first_text(row, "description") or row.get("content"),
        date=lambda row: row.get("date") or row.get("publishedTime"),
        snippet_limit=SNIPPET_CHARS,
    )
