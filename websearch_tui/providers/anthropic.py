"""Anthropic Claude with the web search server tool, streamed over SSE.

Upstream endpoint: ``POST {base_url}/v1/messages`` (default ``https://api.anthropic.com``) with
``x-api-key`` + ``anthropic-version: 2023-06-01`` (a non-Anthropic gateway base URL also gets
``Authorization: Bearer``) and ``stream: true``. API version ``2023-06-01`` with the web search tool
``web_search_20260318`` for models that accept dynamic filtering (Claude Opus/Sonnet/Haiku 4.6 and
later, Mythos, Fable) and ``web_search_20250305`` otherwise, checked 2026-12-02 against
https://platform.claude.com/docs/en/build-with-claude/tool-use/web-search-tool (PROVIDERS.md §2.17
still shows only ``web_search_20250305``: the docs win). A 400 saying the sent version is not
supported is retried once with ``web_search_20250305`` (a Note says so).
Docs: https://docs.anthropic.com/en/docs/build-with-claude/streaming. Wire reference: PROVIDERS.md §2.17.

Default model ``claude-haiku-4-5`` (the registry's ``default_model``) checked 2026-12-02 against the
web search tool docs' supported models (``claude-haiku-4-5-20251001`` is listed; no retirement date
announced; it takes ``web_search_20250305`` only). ``claude-haiku-5-5`` is newer but rejects
``temperature``.

All logic is shared with ``deepseek`` in :mod:`websearch_tui.providers.families.messages`: text deltas
become ``AnswerDelta`` events as they arrive, ``citations_delta`` become citations, each
``web_search_tool_result`` (also those nested in dynamic filtering's code execution) becomes
sources (or a warning note for its in-200 error object), each ``server_tool_use`` query a search
query; ``pause_turn`` is continued; usage includes ``server_tool_use.web_search_requests``. Errors
keep the envelope's ``request_id`` (``... (request id req_...)``); an unknown or retired model
(404 ``not_found_error`` ``"model: <id>"``) fails as ``model_not_found`` naming
``[providers.anthropic] model``.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator

from websearch_tui.core.models import SearchEvent, SearchRequest
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.families import messages

FLAVOR = messages.Flavor(stream=True, system=True, gateway_bearer=True, reject_oauth=True, newest_tool=True)


def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncGenerator[SearchEvent, None]:
    """Run one Anthropic web search; see :func:`websearch_tui.providers.families.messages.run`.

    Raises:
        ProviderError: as :func:`websearch_tui.providers.families.messages.run` (an unknown model gives
            ``Anthropic: model '<id>' is not available (404). Set [providers.anthropic] model, or run
            websearch-tui doctor anthropic``; another 404 the seed message ``Anthropic web search
            returned 404 (model or endpoint not found).``).
    """
    return messages.run(request, ctx, FLAVOR)
