"""Zhipu Web Search API (BigModel): a search engine built for LLMs, with optional intent recognition.

API: ``POST {base_url}/api/paas/v4/web_search`` (default ``https://open.bigmodel.cn``; Z.AI
international ``https://api.z.ai``, same path, different engine codes), header
``Authorization: Bearer <key>``. Checked 2026-12-02 against
https://docs.bigmodel.cn/api-reference/%E5%B7%A5%E5%85%B7-api/%E7%BD%91%E7%BB%9C%E6%90%9C%E7%B4%A2,
https://docs.bigmodel.cn/cn/guide/tools/web-search and the official SDK (zai-org/z-ai-sdk-python
``web_search``) (PROVIDERS.md §2.14).

Options (``[providers.zhipu_web_search]``): ``search_engine`` (mandatory upstream; default
``search_pro``; BigModel ``search_std | search_pro | search_pro_sogou | search_pro_quark``, Z.AI
``search-prime`` / ``search_pro_jina``; hyphenated spellings such as ``search-std`` appear too, so
the value is sent as given), ``content_size`` (``medium`` | ``high``, default ``medium``),
``search_intent`` (default false: whether we *ask* the API to recognise the intent).

Response: ``{id, created, request_id, search_intent: [{query, intent, keywords}], search_result:
[{title, content, link, media, icon, refer, publish_date, images?}]}``. The ``search_intent``
keywords are the searches the API ran: they are reported as ``SearchQueries`` whenever the answer
carries them. PROVIDERS.md ties that to the ``search_intent`` option; the docs list the field in
every answer, and reporting what came back does not depend on what we asked, so the docs win.
``publish_date`` is read by the shared date parser (ISO dates as documented, and CJK forms such
as ``2024年12月5日``).

Errors can arrive as ``{"error": {"code", "message"}}`` **with HTTP 200**; the business code decides
the kind (:data:`CODE_KINDS`). The row mapping, the intent keywords and the code table are shared
with the Z.AI MCP provider through :mod:`websearch_tui.providers.families.zhipu`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import Metadata, Note, SearchEvent, SearchQueries, SearchRequest, SourcesFound
from websearch_tui.core.text import plain_text
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.families.zhipu import (
    CODE_KINDS,
    RECENCY_FILTERS,
    envelope_error,
    error_describer,
    error_envelope,
    intent_queries,
    parse_results,
    with_code_kind,
)
from websearch_tui.providers.helpers.parse import as_dict, clamp_count, header, limit_sources
from websearch_tui.providers.transport.http import HttpRequest, join_url, send
from websearch_tui.providers.transport.shape import Shape

PATH = "/api/paas/v4/web_search"
DEFAULT_COUNT = 10
MAX_COUNT = 50
DEFAULT_ENGINE = "search_pro"
DEFAULT_CONTENT_SIZE = "medium"
PREFIX = "Zhipu Web Search API error"


SHAPE = Shape.of("search_result", "error")
"""A Zhipu Web Search answer: ``search_result``, or its ``error`` envelope."""


async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[SearchEvent]:
    """Run one Zhipu web search; yield ``Metadata``, the ``search_intent`` keywords as
    ``SearchQueries`` (whenever the answer has them) and the sources (sliced locally).

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
        url, describe = join_url(ctx.base_url(), PATH), error_describer(PREFIX, codes)
        search = HttpRequest.post_json(
            url, build_body(request, ctx), {"Authorization": f"Bearer {key}"}, describe_error=describe, expect=SHAPE
        )
        reply = await send(ctx, search)
        data = reply.json()
    except ProviderError as exc:
        raise with_code_kind(exc, codes) from None
    payload = as_dict(data)
    envelope = error_envelope(data)
    if envelope is not None and CODE_KINDS.get(envelope[0]) is not ErrorKind.EMPTY:
        raise envelope_error(ctx.spec.id, PREFIX, *envelope)
    if envelope is None and not isinstance(payload.get("search_result"), list):
        raise ProviderError(ctx.spec.id, ErrorKind.PROTOCOL, "Zhipu Web Search returned a body without search_result.")
    request_id = plain_text(payload.get("request_id") or payload.get("id"), collapse=True)
    yield Metadata(request_id=request_id or header(reply.headers, "x-request-id"), auth_mode="api_key")
    if envelope is not None:
        yield Note(f"Zhipu Web Search found no usable results (code {envelope[0]}): {envelope[1]}")
        return
    queries = intent_queries(payload)
    if queries:
        yield SearchQueries(tuple(queries))
    sources = parse_results(payload["search_result"])
    if sources or sources.dropped:
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
