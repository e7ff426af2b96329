"""Exa search: REST with an API key, keyless MCP otherwise.

- REST: ``POST {base_url}/search`` (default ``https://api.exa.ai``), header ``x-api-key``.
  Docs: https://docs.exa.ai/reference/search
- Keyless: MCP tool ``web_search_exa`` at ``mcp_url`` (default ``https://mcp.exa.ai/mcp``), stateless
  (no ``initialize``). Docs: https://docs.exa.ai/reference/exa-mcp

PROVIDERS.md §2.2. All Exa requests of this process are paced at least 1 s apart
(can1357/oh-my-pi#3271).

API: Exa ``/search`` and the Exa MCP server, checked 2026-12-02 against the exa-py SDK: ``type``
now takes ``auto``, ``fast``, ``deep-lite``, ``deep``, ``deep-reasoning``, ``neural`` and ``instant``;
we send ``auto``, which is still the default, and read the same ``results`` fields.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import Metadata, Note, SearchEvent, SearchRequest, SourcesFound, Usage
from websearch_tui.core.text import plain_text
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.families.mcp import call_tool, mcp_error_describer
from websearch_tui.providers.helpers.parse import (
    SourceList,
    api_error_describer,
    as_dict,
    as_list,
    clamp_count,
    cost_field,
    find_message,
    first_text,
    header,
    join_texts,
    limit_sources,
    make_source,
    sources_from,
    start_date,
)
from websearch_tui.providers.transport.http import HttpRequest, join_url, send
from websearch_tui.providers.transport.shape import Shape, unrecognised

PATH = "/search"
TOOL = "web_search_exa"
DEFAULT_COUNT = 10
MAX_COUNT = 100
SNIPPET_CHARS = 500
NO_RESULTS_TEXT = "no search results found"
RATE_LIMIT_MESSAGE = "Exa free MCP rate limit reached (429); add an Exa API key for higher limits"
RECENCY_IGNORED = "Exa keyless MCP ignores recency; add an Exa API key"
AUTO_NEEDS_KEY = "Exa: keyless MCP is not used in auto mode (it can hang before failing over); add an Exa API key"


SHAPE = Shape.of("results")
"""An Exa ``/search`` answer: ``results`` (``requestId`` alone is an echo, not an answer)."""

describe_error = api_error_describer(
    "Exa API error", lambda parsed: find_message(parsed, ("error", "message", "detail"))
)
"""``Exa API error (<s>): <message or body>``."""

_KEY_LINE = re.compile(
    r"^(title|url|published date|published|author|highlights|text|summary)\s*:\s?(.*)$", re.IGNORECASE
)


async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[SearchEvent]:
    """Run one Exa search (REST with a key, else keyless MCP); yield ``Metadata``, notes, sources.

    In ``auto`` mode the keyless path is refused (can1357/oh-my-pi#1695: it hung ~30 s before the
    chain could fail over), so the chain moves on at once.

    Raises:
        ProviderError: ``config`` for keyless use in auto mode; ``auth``, ``rate_limit`` (MCP free
            tier: the message suggests a key), ``bad_request``, ``server``, ``timeout``, ``network``;
            ``protocol`` for an unexpected body or MCP reply; MCP ``isError`` and JSON-RPC errors as
            ``families.mcp`` maps them.
    """
    key = ctx.api_key
    if not key and request.mode == "auto":
        raise ProviderError(ctx.spec.id, ErrorKind.CONFIG, AUTO_NEEDS_KEY)
    if key:
        async for event in _rest(request, ctx, key):
            yield event
    else:
        async for event in _mcp(request, ctx):
            yield event


async def _rest(request: SearchRequest, ctx: ProviderContext, key: str) -> AsyncIterator[SearchEvent]:
    url = join_url(ctx.base_url(), PATH)
    search = HttpRequest.post_json(
        url, build_body(request), {"x-api-key": key}, describe_error=describe_error, expect=SHAPE
    )
    reply = await send(ctx, search)
    payload = as_dict(reply.json())
    if not isinstance(payload.get("results", []), list):
        raise ProviderError(ctx.spec.id, ErrorKind.PROTOCOL, "Exa returned JSON without a results list.", status=200)
    request_id = plain_text(payload.get("requestId"), collapse=True) or header(reply.headers, "x-request-id")
    yield Metadata(request_id=request_id, usage=parse_usage(payload), auth_mode="api_key")
    sources = parse_results(payload.get("results"))
    if sources or sources.dropped:
        yield SourcesFound(limit_sources(sources, request.max_results))


async def _mcp(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[SearchEvent]:
    arguments = {"query": request.query, "numResults": clamp_count(request.upstream_count, DEFAULT_COUNT, MAX_COUNT)}
    payload = await call_tool(
        ctx,
        ctx.mcp_url(),
        TOOL,
        arguments,
        handshake=False,
        describe_error=mcp_error_describer(ctx.spec.label, RATE_LIMIT_MESSAGE),
    )
    sources = parse_mcp_payload(ctx, payload)
    yield Metadata(auth_mode="keyless")
    if request.recency:
        yield Note(RECENCY_IGNORED)
    if sources or sources.dropped:
        yield SourcesFound(limit_sources(sources, request.max_results))


def build_body(request: SearchRequest) -> dict[str, Any]:
    """REST body: ``numResults`` (1-100), highlights, ``startPublishedDate`` from recency (UTC date)."""
    body: dict[str, Any] = {
        "query": request.query,
        "type": "auto",
        "numResults": clamp_count(request.upstream_count, DEFAULT_COUNT, MAX_COUNT),
        "contents": {"highlights": True},
    }
    since = start_date(request.recency)
    if since:
        body["startPublishedDate"] = since
    return body


def parse_usage(payload: dict[str, Any]) -> Usage | None:
    """``Usage(cost_usd=costDollars.total)``: what Exa charged for the request, in US dollars; ``None``
    when the answer has no finite, non-negative total."""
    cost = cost_field(payload.get("costDollars"), "total")
    return Usage(cost_usd=cost) if cost is not None else None


def parse_results(rows: object) -> SourceList:
    """Sources from REST/MCP JSON ``results[]``; snippet = summary, else text, else highlights (≤ 500 chars)."""
    return sources_from(
        rows,
        url="url",
        title="title",
        snippet=lambda row: first_text(row, "summary", "text") or join_texts(as_list(row.get("highlights")), " "),
        date="publishedDate",
        author="author",
        snippet_limit=SNIPPET_CHARS,
    )


def parse_mcp_payload(ctx: ProviderContext, payload: Any) -> SourceList:
    """Sources from an MCP payload: ``{"results": [...]}``, a bare list, or plain-text blocks.

    Raises:
        ProviderError: ``unrecognised_response`` for a JSON payload without results or text that
            has neither blocks nor the no-results line.
    """
    if isinstance(payload, dict) and isinstance(payload.get("results"), list):
        return parse_results(payload["results"])
    if isinstance(payload, list):
        return parse_results(payload)
    if isinstance(payload, str):
        blocks = parse_text_blocks(payload)
        if not blocks and payload.strip().lower().startswith(NO_RESULTS_TEXT):
            return SourceList()
        if blocks or _KEY_LINE.search(payload.strip().splitlines()[0] if payload.strip() else ""):
            return blocks
    raise unrecognised(ctx.spec, "MCP tool result: neither a results list nor result blocks")


def parse_text_blocks(text: str) -> SourceList:
    """Parse Exa MCP plain-text result blocks (PROVIDERS.md §2.2).

    Blocks are separated by a ``---`` line, or (older servers) by a blank line followed by
    ``Title:``. Keys are case-insensitive: ``Title``, ``URL``, ``Published`` / ``Published Date``,
    ``Author``; ``Highlights:`` and ``Text:`` take the rest of the block as the snippet. ``N/A``
    means missing; a block without a usable URL is skipped.
    """
    sources = SourceList()
    for block in _split_blocks(text):
        fields: dict[str, str] = {}
        body_key: str | None = None
        body: list[str] = []
        for line in block:
            if body_key is not None:
                body.append(line)
                continue
            match = _KEY_LINE.match(line.strip())
            if not match:
                continue
            name, value = match.group(1).lower(), match.group(2).strip()
            if name in ("highlights", "text", "summary"):
                body_key = name
                body = [value] if value else []
            else:
                fields.setdefault("published" if name.startswith("published") else name, value)
        snippet = "\n".join(body).strip() or None
        source = make_source(
            fields.get("url"),
            fields.get("title"),
            snippet,
            fields.get("published"),
            fields.get("author"),
            snippet_limit=SNIPPET_CHARS,
        )
        if source is None:
            sources.dropped += 1
        else:
            sources.append(source)
    return sources


def _split_blocks(text: str) -> list[list[str]]:
    blocks: list[list[str]] = [[]]
    previous_blank = True
    for raw in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        line = raw.rstrip()
        if line.strip() == "---":
            blocks.append([])
            previous_blank = True
            continue
        starts_title = line.lower().startswith("title:")
        if starts_title and previous_blank and any(_KEY_LINE.match(x.strip()) for x in blocks[-1]):
            blocks.append([])
        blocks[-1].append(line)
        previous_blank = not line.strip()
    return [block for block in blocks if any(line.strip() for line in block)]
