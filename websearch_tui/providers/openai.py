"""OpenAI: the Responses API with the hosted ``web_search`` tool, streamed over SSE.

Upstream endpoint: ``POST {base_url}/v1/responses`` (default ``https://api.openai.com``),
``Authorization: Bearer <key>``, ``stream: true``.
Docs: https://platform.openai.com/docs/api-reference/responses/create and
https://platform.openai.com/docs/guides/tools-web-search.
Wire reference: PROVIDERS.md §2.20 (prompt §1.5, errors §1.11, SSE §1.9).
API: Responses (``/v1/responses``) with the GA ``web_search`` tool, checked 2026-12-02 against
https://developers.openai.com/api/docs/guides/tools-web-search and a recorded gpt-5 answer.

Default model ``gpt-6.1-terra`` (the registry's ``default_model``) checked 2026-12-02 against
https://developers.openai.com/api/docs/deprecations: ``gpt-5-mini`` (PROVIDERS.md's default) is
deprecated and shuts down on 2026-12-11 with ``gpt-6.1-terra`` as its named replacement (web search
supported, ``reasoning.effort`` none-max, so no ``temperature`` is sent: see
:func:`.families.responses.accepts_temperature`). The docs win over PROVIDERS.md. An unknown or retired
model (``error.code`` ``model_not_found``, HTTP 400 on this endpoint) fails as ``model_not_found``
naming ``[providers.openai] model``.

The tool is forced (``tool_choice: {"type": "web_search"}``) and ``include`` asks for the pages each
search returned; an answer that still comes without any ``web_search_call`` gets a Note. Parsing
is shared with Codex, Grok and ARK in :mod:`websearch_tui.providers.families.responses`.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from websearch_tui.core.models import SearchEvent, SearchRequest
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.families import responses
from websearch_tui.providers.helpers import models, prompt

PATH = "/v1/responses"

describe_error = responses.http_error_describer("OpenAI API error")
"""``"OpenAI API error (<status>): <error.message>"``; 401/403 get the seed auth message."""


def build_body(request: SearchRequest, ctx: ProviderContext) -> tuple[dict[str, Any], list[str]]:
    """The ``POST /v1/responses`` body and user-visible notes about it.

    Shape: ``{"model", "stream": true, "store": false, "instructions": <system prompt>,
    "input": [user message with an input_text part], "tools": [{"type": "web_search",
    "search_context_size"}], "tool_choice": {"type": "web_search"}, "include":
    ["web_search_call.action.sources"]}`` plus ``max_output_tokens`` when the request sets
    ``max_tokens`` and ``temperature`` when it sets one and the model accepts it.
    """
    model = ctx.model() or ""
    size, notes = responses.search_context_size(ctx, "OpenAI", "medium")
    body: dict[str, Any] = {
        "model": model,
        "stream": True,
        "store": False,
        "instructions": prompt.SYSTEM_PROMPT,
        "input": [responses.user_input(request)],
        "tools": [{"type": "web_search", "search_context_size": size}],
        "tool_choice": {"type": "web_search"},
        "include": ["web_search_call.action.sources"],
    }
    sampling, sampling_notes = responses.sampling_fields(
        request, model, ctx.spec.label, temperature_ok=responses.accepts_temperature(model)
    )
    body.update(sampling)
    return body, notes + sampling_notes


def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncGenerator[SearchEvent, None]:
    """Run one OpenAI web search and yield its events as they arrive.

    Yields ``AnswerDelta`` per text delta, ``SearchQueries`` and ``SourcesFound`` (replace; capped at
    ``max_results`` but keeping every cited source) as each search call completes,
    ``CitationsFound`` per ``url_citation`` annotation (``utm_source=openai`` removed), ``Metadata``
    (model, response id, usage with ``tool_usage.web_search.num_requests``, ``auth_mode="api_key"``)
    and a ``Note`` when the model answered without searching.

    Raises:
        ProviderError: ``config`` without a key; ``auth`` (401/403), ``quota`` (``insufficient_quota``),
            ``rate_limit``, ``bad_request``, ``server`` with ``OpenAI API error (<s>): <msg>``; an
            ``error``/``response.failed`` event as ``OpenAI error (<code>): <msg>`` after the partial
            events; ``protocol`` "OpenAI stream ended before it finished"; ``model_not_found``
            (``OpenAI: model '<id>' is not available (400). Set [providers.openai] model, or run
            websearch-tui doctor openai``).
    """
    return responses.api_key_stream(request, ctx, PATH, build_body, describe_error, models.openai_gone)
