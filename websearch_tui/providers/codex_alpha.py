"""Codex Alpha Search: a gateway's ``alpha/search`` route (experimental, search-only model output).

Endpoint: ``POST {base_url}/v1/alpha/search``; there is **no default** ``base_url`` (the route is
served by gateways that proxy the Codex backend's ``alpha/search``), headers
``Authorization: Bearer <key>`` and ``User-Agent: websearch-tui/<version>``. Body
``{"id", "model", "commands": {"search_query": [{"q"}]}, "settings": {...}}``.
Reference: agent-web-search's ``codex_alpha`` provider (PROVIDERS.md §2.22).

The route takes the bare query: no result count and no date filter, so both become notes and the
sources are sliced locally.

Default model ``gpt-5.6-luna`` (the registry's ``default_model``, kept) checked 2026-12-02 against
OpenAI's models page (the GPT-5.6 family, GA 2026-07-09, has no announced shutdown). A gateway that
forwards OpenAI's or the Codex backend's "no such model" answer (``model_not_found``, or "model is not
supported when using Codex") fails as ``model_not_found`` naming ``[providers.codex_alpha] model``.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

from websearch_tui.core.errors import ErrorKind, ProviderError, mentions_quota
from websearch_tui.core.models import (
    AnswerDelta,
    Metadata,
    Note,
    SearchEvent,
    SearchRequest,
    SourcesFound,
    Usage,
)
from websearch_tui.core.text import plain_text
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.helpers.models import ModelCheck, codex_gone
from websearch_tui.providers.helpers.parse import (
    SourceList,
    answer_text,
    api_error_describer,
    find_message,
    header,
    limit_sources,
    sources_from,
    usage_from,
)
from websearch_tui.providers.transport.http import USER_AGENT, HttpRequest, join_url, send
from websearch_tui.providers.transport.shape import Shape

PATH = "/v1/alpha/search"
DEFAULT_CONTEXT_SIZE = "low"
ERROR_KEYS = ("error", "message", "detail")

SHAPE = Shape.of("output", "output_text", "results", "error")
"""A Codex Alpha Search answer: ``output``/``output_text`` and ``results``, or an ``error`` envelope."""

describe_error = api_error_describer("Codex Alpha Search API error", lambda parsed: find_message(parsed, ERROR_KEYS))
"""``Codex Alpha Search API error (<s>): <message>`` from ``{"error": {"message"}}`` or ``{"detail"}`` bodies."""


async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[SearchEvent]:
    """Run one gateway search; yield ``Metadata``, a count note, sources, then the answer.

    Usable only with both a configured ``base_url`` and a key.

    Raises:
        ProviderError: ``config`` without ``base_url`` or key; ``auth`` (401/403), ``quota``,
            ``rate_limit``, ``bad_request``, ``not_found`` (gateway without the route), ``server``,
            ``timeout``, ``network``; an ``{"error": ...}`` body with HTTP 200 is raised as
            ``quota`` or ``server``; ``protocol`` for a non-JSON or non-object body;
            ``model_not_found`` when the gateway says the model does not exist.
    """
    url = join_url(ctx.base_url(), PATH)
    key = ctx.require_api_key()
    model = ctx.model() or ""
    headers = {"Authorization": f"Bearer {key}", "User-Agent": USER_AGENT}
    check = ModelCheck(ctx.spec.id, ctx.spec.label, model, codex_gone)
    search = HttpRequest.post_json(
        url, build_body(request, ctx, model), headers, describe_error=check.describer(describe_error), expect=SHAPE
    )
    try:
        reply = await send(ctx, search)
    except ProviderError as error:
        raise check.requalify(error) from None
    payload = check_body(ctx, reply.json())
    request_id = header(reply.headers, "x-request-id", "request-id") or plain_text(payload.get("id"), collapse=True)
    yield Metadata(
        model=plain_text(payload.get("model"), collapse=True) or model,
        request_id=request_id,
        usage=parse_usage(payload.get("usage")),
        auth_mode="api_key",
    )
    for note in notes(request, ctx.spec.label):
        yield note
    sources = parse_results(payload.get("results"))
    if sources or sources.dropped:
        yield SourcesFound(limit_sources(sources, request.max_results))
    answer = parse_answer(payload)
    if answer:
        yield AnswerDelta(answer)


def build_body(request: SearchRequest, ctx: ProviderContext, model: str) -> dict[str, Any]:
    """The JSON body: a fresh uuid4 ``id``, ``model``, the bare query, and search settings.

    ``settings.search_context_size`` comes from the config option (default ``"low"``).
    """
    size = str(ctx.option("search_context_size") or DEFAULT_CONTEXT_SIZE).strip().lower()
    return {
        "id": str(uuid.uuid4()),
        "model": model,
        "commands": {"search_query": [{"q": request.query}]},
        "settings": {"external_web_access": True, "search_context_size": size or DEFAULT_CONTEXT_SIZE},
    }


def notes(request: SearchRequest, label: str) -> list[Note]:
    """Notes for the options this route cannot take: an explicit upstream count (the engine notes recency)."""
    found = []
    if request.num_search_results:
        found.append(Note(f"{label} takes no result count; sources are trimmed locally to {request.max_results}."))
    return found


def check_body(ctx: ProviderContext, data: Any) -> dict[str, Any]:
    """The body as a dict; an error envelope delivered with HTTP 200 is raised.

    Raises:
        ProviderError: ``protocol`` for a non-object body; ``quota`` (quota wording) or ``server``
            for ``{"error": ...}`` without any ``output``/``output_text``/``results``.
    """
    if not isinstance(data, dict):
        raise ProviderError(ctx.spec.id, ErrorKind.PROTOCOL, f"{ctx.spec.label} returned JSON that is not an object.")
    has_content = any(data.get(name) for name in ("output", "output_text", "results"))
    if data.get("error") and not has_content:
        message = f"Codex Alpha Search API error: {find_message(data, ERROR_KEYS) or 'unknown error'}"
        kind = ErrorKind.QUOTA if mentions_quota(message) else ErrorKind.SERVER
        raise ProviderError(ctx.spec.id, kind, message, status=200)
    return data


def parse_answer(payload: dict[str, Any]) -> str | None:
    """``output`` when it is a non-blank string, else ``output_text``; sanitized, markdown kept."""
    return answer_text(payload.get("output")) or answer_text(payload.get("output_text"))


def parse_results(results: Any) -> SourceList:
    """Sources from rows with a ``url`` (snippet ``description|snippet|text``); other rows are dropped."""
    return sources_from(
        results,
        url="url",
        title="title",
        snippet=lambda row: next(
            (row[k] for k in ("description", "snippet", "text") if isinstance(row.get(k), str)), None
        ),
    )


def parse_usage(value: Any) -> Usage | None:
    """``usage`` with ``input_tokens``/``output_tokens``/``total_tokens`` (ints), else ``None``."""
    return usage_from(value, input="input_tokens", output="output_tokens", total="total_tokens")
