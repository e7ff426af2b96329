"""DeepSeek with web search through its Anthropic-compatible Messages API (one JSON reply).

Upstream endpoint: ``POST {base_url}/v1/messages`` (default ``https://api.deepseek.com/anthropic``)
with ``x-api-key``, ``anthropic-version: 2023-06-01``, ``Accept: application/json``,
``stream: false`` and the ``web_search_20250305`` tool. Checked 2026-12-02 against
https://api-docs.deepseek.com/guides/anthropic_api and https://api-docs.deepseek.com/guides/web_tools.
Wire reference: PROVIDERS.md §2.18.

Default model ``deepseek-flash`` (the registry's ``default_model``) checked 2026-12-02 against
https://api-docs.deepseek.com/quick_start/your_first_api_call: "Use ``deepseek-flash`` as the model
name. It is now served by DeepSeek-V4.1-Flash ... The legacy names ``deepseek-v4-flash`` ... are
still accepted, but the corresponding models have been retired" (PROVIDERS.md still names
``deepseek-v4-flash``: the docs win). An unknown model name that does not start with ``claude``
answers 400: it fails as ``model_not_found`` naming ``[providers.deepseek] model``.

Which search tool: DeepSeek now documents its own server tool, ``{"type": "deepseek_web_search",
"name": "deepseek_web_search"}`` (web_tools guide, thinking disabled), but not the content blocks
it answers with, and no recorded answer of it is public; DeepSeek's own harness
(deepseek-ai/deepseek-harness, ``web-search-deepseek``) still searches with ``web_search_20250305``
on this endpoint and reads the ``web_search_tool_result`` blocks. So this provider keeps
``web_search_20250305`` (what we can parse exactly) and does not offer ``deepseek_web_search`` yet:
an answer in an unknown shape would lose its sources. The newer Anthropic tool versions
(``web_search_20260209``/``20260318``) are not sent to DeepSeek.

Streaming together with the search tool is not confirmed for DeepSeek, so the request is not
streamed and the whole answer arrives as one ``AnswerDelta``. The reply is parsed by exactly the
Anthropic code (:mod:`websearch_tui.providers.families.messages`): every text block (not only the last),
citations, ``web_search_tool_result`` lists or error objects, top-level ``web_search_result``
blocks with ``description``/``snippet``, ``server_tool_use`` queries, ``page_age``. No system
prompt is sent (PROVIDERS.md §2.18). Errors keep an Anthropic-style envelope's ``request_id``.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator

from websearch_tui.core.models import SearchEvent, SearchRequest
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.families import messages
from websearch_tui.providers.helpers import models

FLAVOR = messages.Flavor(stream=False, system=False, model_gone=models.deepseek_gone)


def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncGenerator[SearchEvent, None]:
    """Run one DeepSeek web search; see :func:`websearch_tui.providers.families.messages.run`.

    Raises:
        ProviderError: as :func:`websearch_tui.providers.families.messages.run` (non-2xx as
            ``DeepSeek API error (<status>): <message>``; an unknown model as ``DeepSeek: model
            '<id>' is not available (400). Set [providers.deepseek] model, or run websearch-tui
            doctor deepseek``; another 404 as ``DeepSeek web search returned 404 (model or endpoint
            not found).``).
    """
    return messages.run(request, ctx, FLAVOR)
