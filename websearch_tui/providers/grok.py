"""Grok: the xAI Responses API with the server-side ``web_search`` and/or ``x_search`` tools, streamed.

Upstream endpoint: ``POST {base_url}/v1/responses`` (default ``https://api.x.ai``),
``Authorization: Bearer <key>``, ``stream: true``.
Docs: https://docs.x.ai/docs/guides/tools/search-tools and https://docs.x.ai/docs/api-reference.
Wire reference: PROVIDERS.md §2.23 (OpenAI-style events, §2.20).
API: xAI Responses (``/v1/responses``) with the ``web_search`` / ``x_search`` server tools, checked
2026-12-02 against https://docs.x.ai/docs/guides/tools/search-tools.

Default model ``grok-4.3`` (the registry's ``default_model``) checked 2026-12-02 against
https://docs.x.ai/developers/migration/may-15-retirement: ``grok-4-fast-reasoning`` (the model of
PROVIDERS.md's fixture) was retired on 2026-05-15 with ``grok-4.3`` as its replacement (the docs
win). An unknown or retired model (404 ``"The model <id> does not exist or your team ... does not
have access to it"``) fails as ``model_not_found`` naming ``[providers.grok] model``.

Option ``search_mode`` = ``"web"`` (default) | ``"x"`` | ``"both"`` picks the tools and the prompt
scope. A recency becomes the prompt's date window and, for ``x_search``, ``from_date``/``to_date``.
The retired Live Search option (``search_parameters``) is never sent; its HTTP 410 is reported as
a ``deprecated`` error. Search calls carry a JSON-string ``arguments``; citations carry only a URL.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from websearch_tui.core.errors import excerpt
from websearch_tui.core.models import SearchEvent, SearchRequest
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.families import responses
from websearch_tui.providers.helpers import models, parse, prompt

PATH = "/v1/responses"
SEARCH_MODES = ("web", "x", "both")
LIVE_SEARCH_RETIRED = (
    "xAI retired the Live Search API (410); Grok here uses the Responses API with web_search/x_search. "
    "Upstream said: {message}"
)

_describe = responses.http_error_describer("Grok API error")


def describe_error(status: int, text: str, parsed: Any) -> str:
    """``"Grok API error (<status>): <message>"`` (OpenAI-style or string ``error``); 410 (Live Search
    retired) gets :data:`LIVE_SEARCH_RETIRED`."""
    if status == 410:
        message = parse.find_message(parsed, ("error", "message")) if parsed is not None else None
        return LIVE_SEARCH_RETIRED.format(message=excerpt(message or text, 300) or "no details")
    return _describe(status, text, parsed)


def search_mode(ctx: ProviderContext) -> tuple[str, list[str]]:
    """The configured ``search_mode`` (``web`` when unset) and a note when it was invalid."""
    return parse.choice_option(ctx.option("search_mode", "web"), SEARCH_MODES, "web", "Grok search_mode")


def build_tools(request: SearchRequest, mode: str) -> list[dict[str, Any]]:
    """``web_search`` and/or ``x_search`` (with ``from_date``/``to_date`` for a recency)."""
    tools: list[dict[str, Any]] = []
    if mode in ("web", "both"):
        tools.append({"type": "web_search"})
    if mode in ("x", "both"):
        x_search: dict[str, Any] = {"type": "x_search"}
        if request.recency:
            start, end = prompt.date_window(request.recency)
            x_search.update(from_date=start.isoformat(), to_date=end.isoformat())
        tools.append(x_search)
    return tools


def build_body(request: SearchRequest, ctx: ProviderContext) -> tuple[dict[str, Any], list[str]]:
    """The ``POST /v1/responses`` body and notes.

    Shape: ``{"model", "input": [system message, user message (content string, scoped prompt)],
    "tools": [...], "stream": true}`` plus ``max_output_tokens`` / ``temperature`` when the request
    sets them (and the model accepts temperature).
    """
    mode, notes = search_mode(ctx)
    model = ctx.model() or ""
    body: dict[str, Any] = {
        "model": model,
        "input": [responses.system_input(typed=False), responses.user_input(request, typed=False, scope=mode)],
        "tools": build_tools(request, mode),
        "stream": True,
    }
    sampling, sampling_notes = responses.sampling_fields(request, model, ctx.spec.label, temperature_ok=True)
    body.update(sampling)
    return body, notes + sampling_notes


def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncGenerator[SearchEvent, None]:
    """Run one Grok search and yield its events as they arrive.

    Yields ``AnswerDelta`` per text delta, ``SearchQueries`` from each search call's ``arguments``,
    ``CitationsFound`` per ``url_citation`` (title = URL), ``SourcesFound`` (the cited URLs),
    ``Metadata`` (model, id, usage with ``num_server_side_tools_used`` as searches) and a ``Note``
    when no search ran.

    Raises:
        ProviderError: ``config`` without a key; ``deprecated`` for the Live Search 410; ``auth``,
            ``rate_limit``, ``quota``, ``bad_request``, ``server`` as ``Grok API error (<s>): <msg>``;
            stream errors after the partial events; ``protocol`` when the stream ends early;
            ``model_not_found`` (``Grok: model '<id>' is not available (404). Set
            [providers.grok] model, or run websearch-tui doctor grok``).
    """
    return responses.api_key_stream(request, ctx, PATH, build_body, describe_error, models.grok_gone)
