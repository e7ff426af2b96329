"""Zhipu Web Search API (BigModel): a search engine built for LLMs, with optional intent recognition.

Endpoint: ``POST {base_url}/api/paas/v4/web_search`` (default ``https://open.bigmodel.cn``; Z.AI
international ``https://api.z.ai``, same path, different engine codes), header
``Authorization: Bearer <key>``.
Docs: https://docs.bigmodel.cn/api-reference/%E5%B7%A5%E5%85%B7-api/%E7%BD%91%E7%BB%9C%E6%90%9C%E7%B4%A2
(PROVIDERS.md §2.14).

Options (``[providers.zhipu_web_search]``): ``search_engine`` (mandatory upstream; default
``search_pro``; BigModel ``search_std | search_pro | search_pro_sogou | search_pro_quark``, Z.AI
``search-prime`` / ``search_pro_jina``), ``content_size`` (``medium`` | ``high``, default
``medium``), ``search_intent`` (default false; when true the intent keywords become ``SearchQueries``).

Errors can arrive as ``{"error": {"code", "message"}}`` **with HTTP 200**; the business code decides
the kind (:data:`CODE_KINDS`). The row mapping and the code table are shared with the Z.AI MCP
provider (``zai.py`` imports them from here).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from websearch_tui.core.errors import ErrorKind, ProviderError, excerpt, kind_for_status, mentions_quota
from websearch_tui.core.models import Metadata, Note, SearchEvent, SearchQueries, SearchRequest, Source, SourcesFound
from websearch_tui.core.text import plain_text, safe_url
from websearch_tui.providers._http import ErrorDescriber, join_url, request_json
from websearch_tui.providers._parse import (
    as_dict,
    as_list,
    clamp_count,
    find_message,
    header,
    limit_sources,
    make_source,
    text_list,
)
from websearch_tui.providers.base import ProviderContext

PATH = "/api/paas/v4/web_search"
DEFAULT_COUNT = 10
MAX_COUNT = 50
DEFAULT_ENGINE = "search_pro"
DEFAULT_CONTENT_SIZE = "medium"
PREFIX = "Zhipu Web Search API error"

RECENCY_FILTERS = {"day": "oneDay", "week": "oneWeek", "month": "oneMonth", "year": "oneYear"}
"""Our recency -> Zhipu ``search_recency_filter`` (``noLimit`` = no filter, never sent)."""

CODE_KINDS: dict[str, ErrorKind] = {
    **dict.fromkeys(("1000", "1001", "1002", "1003", "1004"), ErrorKind.AUTH),
    "1113": ErrorKind.QUOTA,
    **dict.fromkeys(("1210", "1213", "1214"), ErrorKind.BAD_REQUEST),
    **dict.fromkeys(("1302", "1303", "1701"), ErrorKind.RATE_LIMIT),
    "1305": ErrorKind.SERVER,
    "1702": ErrorKind.CONFIG,
    "1703": ErrorKind.EMPTY,
}
"""Zhipu / Z.AI business error codes: 1000-1004 authentication, 1113 no balance or resource
package, 1210/1213/1214 bad parameters, 1302/1303 request concurrency/frequency, 1305 overloaded,
1701 search concurrency limit, 1702 no search engine available, 1703 engine returned no valid data."""


async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[SearchEvent]:
    """Run one Zhipu web search; yield ``Metadata``, sources (sliced locally) and, when
    ``search_intent`` is on, the intent keywords as ``SearchQueries``.

    Raises:
        ProviderError: ``config`` without a key or for code 1702; ``auth`` (401/403, codes
            1000-1004); ``rate_limit`` (429, codes 1302/1303/1701); ``quota`` (code 1113);
            ``bad_request`` (400, code 1214); ``server``; ``timeout``; ``network``; ``protocol``
            for a body that is not JSON or has no ``search_result`` array. Code 1703 is not an
            error: an empty result with a ``Note``.
    """
    key = ctx.require_api_key()
    codes: list[str] = []
    try:
        data, response = await request_json(
            ctx,
            "POST",
            join_url(ctx.base_url(), PATH),
            headers={"Authorization": f"Bearer {key}", "Accept": "application/json"},
            json_body=build_body(request, ctx),
            describe_error=error_describer(codes),
        )
    except ProviderError as exc:
        raise with_code_kind(exc, codes) from None
    payload = as_dict(data)
    envelope = error_envelope(data)
    if envelope is not None and CODE_KINDS.get(envelope[0]) is not ErrorKind.EMPTY:
        raise envelope_error(ctx, *envelope)
    if envelope is None and not isinstance(payload.get("search_result"), list):
        raise ProviderError(ctx.spec.id, ErrorKind.PROTOCOL, "Zhipu Web Search returned a body without search_result.")
    request_id = plain_text(payload.get("request_id") or payload.get("id"), collapse=True)
    yield Metadata(request_id=request_id or header(response.headers, "x-request-id"), auth_mode="api_key")
    if envelope is not None:
        yield Note(f"Zhipu Web Search found no usable results (code {envelope[0]}): {envelope[1]}")
        return
    if ctx.option("search_intent", False) is True:
        queries = text_list([as_dict(item).get("keywords") for item in as_list(payload.get("search_intent"))])
        if queries:
            yield SearchQueries(tuple(queries))
    sources = parse_results(payload["search_result"])
    if sources:
        yield SourcesFound(limit_sources(sources, request.max_results))


def build_body(request: SearchRequest, ctx: ProviderContext) -> dict[str, Any]:
    """The JSON body: the query verbatim, the (mandatory) engine, ``search_intent`` sent explicitly,
    ``count`` clamped to 1-50 (ignored upstream; we slice locally), ``content_size`` and the
    recency filter (omitted when unset)."""
    body: dict[str, Any] = {
        "search_query": request.query,
        "search_engine": str(ctx.option("search_engine") or DEFAULT_ENGINE),
        "search_intent": ctx.option("search_intent", False) is True,
        "count": clamp_count(request.upstream_count, DEFAULT_COUNT, MAX_COUNT),
        "content_size": str(ctx.option("content_size") or DEFAULT_CONTENT_SIZE),
    }
    if request.recency:
        body["search_recency_filter"] = RECENCY_FILTERS[request.recency]
    return body


def parse_results(rows: object) -> list[Source]:
    """Sources from Zhipu / Z.AI result rows.

    Row: ``{title, content | summary, link | url, media, publish_date | date, icon, refer}`` ->
    title (falls back to the URL), url (first http(s) one of ``link``/``url``; rows without one are
    dropped), snippet, published_date (``""`` -> None), author = ``media``.
    """
    sources = []
    for row in as_list(rows):
        if not isinstance(row, dict):
            continue
        url = next((u for u in (row.get("link"), row.get("url")) if safe_url(u)), None)
        source = make_source(
            url,
            row.get("title"),
            row.get("content") or row.get("summary"),
            row.get("publish_date") or row.get("date"),
            row.get("media"),
        )
        if source is not None:
            sources.append(source)
    return sources


def error_envelope(parsed: Any) -> tuple[str, str] | None:
    """``(code, message)`` of a ``{"error": {"code": ..., "message": ...}}`` body, else ``None``.

    The code is returned as text (``1701`` and ``"1701"`` both give ``"1701"``; absent -> ``""``);
    a bare ``{"error": "text"}`` gives ``("", "text")``.
    """
    error = parsed.get("error") if isinstance(parsed, dict) else None
    if error is None or error == {}:
        return None
    code = as_dict(error).get("code")
    code_text = plain_text(str(code), collapse=True) if code is not None and not isinstance(code, bool) else None
    message = find_message(error, ("message", "msg", "error_message")) or "no message"
    return code_text or "", excerpt(message, 500)


def code_kind(code: str, message: str = "") -> ErrorKind:
    """The :class:`ErrorKind` of a Zhipu / Z.AI business code (:data:`CODE_KINDS`); an HTTP-like
    code (400-599) is classified as a status; otherwise quota wording gives ``quota``, else ``server``."""
    if code in CODE_KINDS:
        return CODE_KINDS[code]
    if code.isdigit() and 400 <= int(code) <= 599:
        return kind_for_status(int(code), message)
    return ErrorKind.QUOTA if mentions_quota(message) else ErrorKind.SERVER


def envelope_error(ctx: ProviderContext, code: str, message: str) -> ProviderError:
    """``Zhipu Web Search API error (code <code>): <message>`` for an error envelope that came with 200."""
    shown = f"code {code}" if code else "no code"
    return ProviderError(ctx.spec.id, code_kind(code, message), f"{PREFIX} ({shown}): {message}")


def error_describer(codes: list[str]) -> ErrorDescriber:
    """An ``_http`` describer for non-2xx replies: ``Zhipu Web Search API error (<status>, code
    <code>): <message>`` (``(<status>): <excerpt>`` without an envelope). Each envelope code it sees
    is appended to ``codes`` so :func:`with_code_kind` can correct the kind afterwards."""

    def describe(status: int, text: str, parsed: Any) -> str:
        envelope = error_envelope(parsed)
        if envelope is None:
            return f"{PREFIX} ({status}): {excerpt(plain_text(text, collapse=True) or '', 500) or 'no details'}"
        code, message = envelope
        codes.append(code)
        return f"{PREFIX} ({status}{f', code {code}' if code else ''}): {message}"

    return describe


def with_code_kind(error: ProviderError, codes: list[str]) -> ProviderError:
    """``error`` with its kind taken from the last business code seen (BigModel sends code 1113,
    no balance, with HTTP 429: that is ``quota``, not ``rate_limit``); 401/403 stay ``auth``."""
    kind = CODE_KINDS.get(codes[-1]) if codes else None
    if kind is None or kind is error.kind or error.kind is ErrorKind.AUTH or kind is ErrorKind.EMPTY:
        return error
    return ProviderError(error.provider, kind, error.message, status=error.status, retry_after=error.retry_after)
