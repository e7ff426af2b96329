"""Anthropic Claude with the web search server tool, streamed over SSE.

Upstream endpoint: ``POST {base_url}/v1/messages`` (default ``https://api.anthropic.com``) with
``x-api-key`` + ``anthropic-version: 2023-06-01`` (a non-Anthropic gateway base URL also gets
``Authorization: Bearer``), ``stream: true`` and the ``web_search_20250305`` tool.
Docs: https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/web-search-tool and
https://docs.anthropic.com/en/docs/build-with-claude/streaming. Wire reference: PROVIDERS.md §2.17.

All logic is shared with ``deepseek`` in :mod:`websearch_tui.providers._messages`: text deltas
become ``AnswerDelta`` events as they arrive, ``citations_delta`` become citations, each
``web_search_tool_result`` becomes sources (or a warning note for its in-200 error object), each
``server_tool_use`` query a search query; ``pause_turn`` is continued; usage includes
``server_tool_use.web_search_requests``.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator

from websearch_tui.core.models import SearchEvent, SearchRequest
from websearch_tui.providers import _messages
from websearch_tui.providers.base import ProviderContext

FLAVOR = _messages.Flavor(stream=True, system=True, gateway_bearer=True, reject_oauth=True)


def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncGenerator[SearchEvent, None]:
    """Run one Anthropic web search; see :func:`websearch_tui.providers._messages.run`.

    Raises:
        ProviderError: as :func:`websearch_tui.providers._messages.run` (404 gives the seed message
            ``Anthropic web search returned 404 (model or endpoint not found).``).
    """
    return _messages.run(request, ctx, FLAVOR)
