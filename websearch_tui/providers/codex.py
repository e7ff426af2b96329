"""Codex: the ChatGPT Codex backend's Responses stream, using an existing Codex CLI login.

Upstream endpoint: ``POST {base_url}/codex/responses`` (default ``https://chatgpt.com/backend-api``),
``Authorization: Bearer <ChatGPT access token>``, ``chatgpt-account-id``, ``OpenAI-Beta:
responses=experimental``, SSE only. Login: ``$CODEX_HOME/auth.json`` of the Codex CLI
(https://github.com/openai/codex, read by :mod:`websearch_tui.providers.helpers.codex_auth`, never written).
Wire reference: PROVIDERS.md §2.21 (event shapes as §2.20). Checked 2026-12-02.

Default model ``gpt-6-luna`` (the registry's ``default_model``) checked 2026-12-02: the backend's
model catalog (``GET /backend-api/codex/models``, as read live by thezillo/codex-proxy v0.3.2 on
2026-09-22) lists gpt-6-astra, gpt-6-sol, gpt-6-luna and gpt-5.5; ``gpt-5.1-codex-mini`` and the other
``*-codex`` models are retired (OpenAI staff on openai/codex#26053 and #25838). Which models a
ChatGPT plan may use differs per plan. A model the backend refuses (400 ``"The '<id>' model is not
supported when using Codex with a ChatGPT account."``, or ``model_not_found``) fails as
``model_not_found`` naming ``[providers.codex] model``.

The token goes only to the default ChatGPT host, or to a configured ``base_url`` when
``[providers.codex] trust_base_url = true``. ``web_search`` is forced; a completion without any
search call is a failure (502). No count, ``max_tokens`` or ``temperature`` (noted when set).
"""

from __future__ import annotations

import platform
from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import Any

from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import SearchEvent, SearchRequest
from websearch_tui.core.version import __version__
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.families import responses as _responses
from websearch_tui.providers.helpers import codex_auth, models, prompt
from websearch_tui.providers.transport import http

PATH = "/codex/responses"
ORIGINATOR = "websearch_tui"
AUTH_MODE = "oauth"
REFRESH_HINT = "Your ChatGPT login may have expired: run any `codex` command (or `codex login`) to refresh it."

describe_error = _responses.http_error_describer("Codex API error")
"""``"Codex API error (<status>): <message>"`` for non-2xx replies (401/403: see :func:`stream`)."""


def build_body(request: SearchRequest, ctx: ProviderContext) -> tuple[dict[str, Any], list[str]]:
    """The ``POST /codex/responses`` body (PROVIDERS.md §2.21) and notes about ignored inputs.

    Shape: ``{"model", "stream": true, "store": false, "instructions", "input": [{"type": "message",
    "role": "user", "content": [input_text]}], "tools": [{"type": "web_search",
    "search_context_size": "high"}], "tool_choice": {"type": "web_search"}, "include":
    ["web_search_call.action.sources"], "parallel_tool_calls": true}``.
    """
    size, notes = _responses.search_context_size(ctx, "Codex", "high")
    if request.max_tokens is not None or request.temperature is not None:
        notes.append("Codex: max_tokens and temperature are not accepted by the Codex backend; ignored.")
    body = {
        "model": ctx.model() or "",
        "stream": True,
        "store": False,
        "instructions": prompt.SYSTEM_PROMPT,
        "input": [_responses.user_input(request, item_type=True)],
        "tools": [{"type": "web_search", "search_context_size": size}],
        "tool_choice": {"type": "web_search"},
        "include": ["web_search_call.action.sources"],
        "parallel_tool_calls": True,
    }
    return body, notes


def _os() -> str:
    return platform.system().lower() or "unknown"


def build_headers(login: codex_auth.CodexLogin) -> dict[str, str]:
    """Request headers: bearer token, account id (when known), beta flag, originator, UA, SSE accept."""
    headers = {
        "Authorization": f"Bearer {login.access_token}",
        "OpenAI-Beta": "responses=experimental",
        "originator": ORIGINATOR,
        "User-Agent": f"websearch-tui/{__version__} ({_os()}; {platform.machine() or 'unknown'})",
        "Accept": "text/event-stream",
        "Content-Type": "application/json",
    }
    if login.account_id:
        headers["chatgpt-account-id"] = login.account_id
    return headers


async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncGenerator[SearchEvent, None]:
    """Run one Codex web search with the stored ChatGPT login and yield its events.

    Events as :func:`websearch_tui.providers.openai.stream` (``auth_mode="oauth"``); markdown links
    in the answer become citations when the backend sent no annotations.

    Raises:
        ProviderError: ``config`` without a usable login file or for an untrusted ``base_url``;
            ``auth`` for an expired token or 401/403 (with a refresh hint); other HTTP errors as
            ``Codex API error (<s>): <body>``; stream errors in any of the three nestings as
            ``Codex error (<code>): <message>``; ``server`` (502) "Codex returned a completion
            without running web search"; ``protocol`` when the stream ends early;
            ``model_not_found`` for a model the backend does not serve to this login.
    """
    url = http.join_url(ctx.base_url(), PATH)
    if not codex_auth.endpoint_allowed(url, ctx.spec.default_base_url, ctx.option(codex_auth.TRUST_OPTION) is True):
        raise codex_auth.refuse_endpoint(url)
    login = codex_auth.read_login()
    body, notes = build_body(request, ctx)
    events = _responses.stream_search(
        request,
        ctx,
        url,
        headers=build_headers(login),
        body=body,
        notes=notes,
        describe_error=describe_error,
        model_gone=models.codex_gone,
        auth_mode=AUTH_MODE,
        require_search=True,
    )
    try:
        async with aclosing(events) as running:
            async for event in running:
                yield event
    except ProviderError as error:
        if error.kind is ErrorKind.AUTH and error.status in (401, 403):
            raise error.with_hint(REFRESH_HINT) from None
        raise
