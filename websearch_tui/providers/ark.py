"""Volcengine ARK: the ARK Responses API with the ``web_search`` tool (Doubao, GLM, DeepSeek models).

Upstream endpoint: ``POST {base_url}/api/v3/responses`` (default ``https://ark.cn-beijing.volces.com``),
``Authorization: Bearer <key>``, ``stream: false`` (streaming is not documented for this use).
Docs: https://www.volcengine.com/docs/82379/1569618 (Responses API) and
https://www.volcengine.com/docs/82379/1756990 (web_search tool).
Wire reference: PROVIDERS.md §2.24. API: ARK Responses (``/api/v3``), checked 2026-12-02.

Default model ``doubao-seed-2-1-turbo-260628`` (the registry's ``default_model``, kept) checked
2026-12-02 against agent-web-search's ARK model rotation and 2026 client model lists (no official
ARK page in reach names a recommended id); the standard endpoint needs the dated model id or an
``ep-...`` endpoint id. An unknown model (404 ``InvalidEndpointOrModel.NotFound``) fails as
``model_not_found`` naming ``[providers.ark] model``; ``ModelNotOpen`` (not activated in the
console) stays ARK's own error.

``ARK_API_KEY`` may hold several keys separated by commas or newlines; one is picked at random per
search and reused by the continuation. The count goes to ``tools[0].limit`` (results per search).
The answer is the last non-blank ``output_text``. Optional continuation (``[providers.ark]
continuation = true``): when a search ran but the answer is shorter than 100 characters, a second,
billed call with ``previous_response_id`` asks for the complete answer; a Note says so.
"""

from __future__ import annotations

import random
import re
from collections.abc import AsyncGenerator
from typing import Any

from websearch_tui.core.errors import ProviderError, register_secret
from websearch_tui.core.models import AnswerDelta, Note, SearchEvent, SearchRequest
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.families import responses
from websearch_tui.providers.helpers import models, parse
from websearch_tui.providers.transport import http

PATH = "/api/v3/responses"
DEFAULT_LIMIT = 4
MAX_LIMIT = 50
MAX_TOOL_CALLS = 2
SHORT_ANSWER_CHARS = 100
MIN_CONTINUATION_SECONDS = 25.0
"""A continuation takes 20-30 s; with less time than this left before the deadline it is not asked for."""
CONTINUATION_PROMPT = (
    "Based on the web searches you just made, write the complete answer to the question now, citing the pages you used."
)

describe_error = responses.http_error_describer("Volcengine ARK API error")
"""``"Volcengine ARK API error (<status>): <error.message>"``; 401/403 get the seed auth message."""


def pick_key(value: str) -> str:
    """One key from a comma- or newline-separated list (at random); each key is registered for redaction."""
    keys = [k.strip() for k in re.split(r"[,\n]", value) if k.strip()]
    for key in keys:
        register_secret(key)
    return random.choice(keys) if keys else value.strip()


def build_body(request: SearchRequest, ctx: ProviderContext) -> dict[str, Any]:
    """The first ``POST /api/v3/responses`` body.

    Shape: ``{"model", "input": [system, user (input_text)], "tools": [{"type": "web_search",
    "limit": n}], "max_tool_calls": 2, "stream": false, "thinking": {"type": "enabled"},
    "reasoning": {"effort": "low"}}`` plus ``max_output_tokens`` / ``temperature`` when the
    request sets them. ``n`` = ``num_search_results or max_results``, clamped to 1-50.
    """
    model = ctx.model() or ""
    body: dict[str, Any] = {
        "model": model,
        "input": [responses.system_input(), responses.user_input(request)],
        "tools": [{"type": "web_search", "limit": parse.clamp_count(request.upstream_count, DEFAULT_LIMIT, MAX_LIMIT)}],
        "max_tool_calls": MAX_TOOL_CALLS,
        "stream": False,
        "thinking": {"type": "enabled"},
        "reasoning": {"effort": "low"},
    }
    sampling, _ = responses.sampling_fields(request, model, ctx.spec.label, temperature_ok=True)
    body.update(sampling)
    return body


def continuation_body(request: SearchRequest, model: str, response_id: str) -> dict[str, Any]:
    """The second call: ``{"model", "previous_response_id", "input": <instruction>, "stream": false}``
    (plus ``max_output_tokens`` when the request sets ``max_tokens``)."""
    body: dict[str, Any] = {
        "model": model,
        "previous_response_id": response_id,
        "input": CONTINUATION_PROMPT,
        "stream": False,
    }
    if request.max_tokens is not None:
        body["max_output_tokens"] = request.max_tokens
    return body


async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncGenerator[SearchEvent, None]:
    """Run one ARK web search (one JSON response, optionally a continuation) and yield its events.

    Yields ``AnswerDelta`` (the whole answer once), ``CitationsFound``/``SourcesFound`` from the
    ``url_citation`` annotations, ``Metadata`` (model, id, usage, ``auth_mode="api_key"``), and
    Notes for a continuation, a short answer left as is, or an answer given without searching.

    Raises:
        ProviderError: ``config`` without a key; ``auth`` (401/403), ``rate_limit``, ``quota``,
            ``bad_request``, ``server`` as ``Volcengine ARK API error (<s>): <msg>``; ``timeout``;
            ``protocol`` for a non-JSON body; an error object in a 200 body; ``model_not_found``
            (``Volcengine ARK: model '<id>' is not available (404). Set [providers.ark] model, or
            run websearch-tui doctor ark``).
    """
    key = pick_key(ctx.require_api_key())
    body = build_body(request, ctx)
    parser = responses.ResponsesParser(
        provider_id=ctx.spec.id,
        label=ctx.spec.label,
        requested_model=body["model"],
        max_results=request.max_results,
        join_messages=False,
    )
    headers = {"Authorization": f"Bearer {key}"}
    url = http.join_url(ctx.base_url(), PATH)
    events, _payload = await responses.run_whole(
        ctx, url, headers=headers, body=body, parser=parser, describe_error=describe_error, model_gone=models.ark_gone
    )
    short = parser.searched and len(parser.answer.strip()) < SHORT_ANSWER_CHARS and parser.request_id
    if short and ctx.option("continuation", False) is True and ctx.remaining() >= MIN_CONTINUATION_SECONDS:
        yield Note(
            f"ARK's first answer was short ({len(parser.answer.strip())} characters); asked for the complete "
            "answer in a second, billed call (continuation = true)."
        )
        second = continuation_body(request, parser.model or body["model"], str(parser.request_id))
        try:
            continuation = http.HttpRequest(
                "POST",
                url,
                headers=headers,
                json_body=second,
                describe_error=describe_error,
                read_timeout=ctx.remaining(),
                expect=responses.SHAPE,
            )
            payload = (await http.send(ctx, continuation)).json()
        except ProviderError as error:  # keep the first answer, which is already paid for
            events.append(Note(f"ARK's continuation failed ({error.message}); showing the first answer."))
        else:
            more, replaced = parser.replace_answer(payload)
            if replaced:
                events = [event for event in events if not isinstance(event, AnswerDelta)]
            events = events + more
    elif short:
        events.append(
            Note("ARK's answer is short; set continuation = true in [providers.ark] to ask for a complete one.")
        )
    for event in events:
        yield event
    for event in parser.closing():
        yield event
