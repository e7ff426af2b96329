"""DeepSeek with web search through its Anthropic-compatible Messages API (one JSON reply).

Upstream endpoint: ``POST {base_url}/v1/messages`` (default ``https://api.deepseek.com/anthropic``)
with ``x-api-key``, ``anthropic-version: 2023-06-01``, ``Accept: application/json``,
``stream: false`` and the ``web_search_20250305`` tool.
Docs: https://api-docs.deepseek.com/guides/anthropic_api. Wire reference: PROVIDERS.md §2.18.

Streaming together with the search tool is not confirmed for DeepSeek, so the request is not
streamed and the whole answer arrives as one ``AnswerDelta``. The reply is parsed by exactly the
Anthropic code (:mod:`websearch_tui.providers._messages`): every text block (not only the last),
citations, ``web_search_tool_result`` lists or error objects, top-level ``web_search_result``
blocks with ``description``/``snippet``, ``server_tool_use`` queries, ``page_age``. No system
prompt is sent (PROVIDERS.md §2.18).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator

from websearch_tui.core.models import SearchEvent, SearchRequest
from websearch_tui.providers import _messages
from websearch_tui.providers.base import ProviderContext

FLAVOR = _messages.Flavor(stream=False, system=False)


def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncGenerator[SearchEvent, None]:
    """Run one DeepSeek web search; see :func:`websearch_tui.providers._messages.run`.

    Raises:
        ProviderError: as :func:`websearch_tui.providers._messages.run` (non-2xx as
            ``DeepSeek API error (<status>): <message>``; 404 as ``DeepSeek web search returned 404
            (model or endpoint not found).``).
    """
    return _messages.run(request, ctx, FLAVOR)
