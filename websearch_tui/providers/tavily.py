"""Tavily search with an optional generated answer and follow-up questions.

API: ``POST {base_url}/search`` (default ``https://api.tavily.com``), header
``Authorization: Bearer <key>``. Checked 2026-12-02 against
https://docs.tavily.com/documentation/api-reference/endpoint/search and the official SDK
(tavily-ai/tavily-python ``search()``) (PROVIDERS.md §2.5).

``search_depth`` (option, default ``basic``) is one of :data:`SEARCH_DEPTHS`: ``basic``,
``advanced``, ``fast`` and ``ultra-fast`` (the two fast depths trade relevance for latency;
``ultra-fast`` gives one summary per URL as ``content``). PROVIDERS.md lists only basic and advanced;
the docs and the SDK (since 2026-01) have four, so the docs win. Config validation and the settings
form offer the same four (``option_choices`` in the registry); a value that bypassed them (the
Python API) falls back to ``basic`` with a note.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

from websearch_tui.core.models import (
    AnswerDelta,
    Metadata,
    Note,
    RelatedQuestions,
    SearchEvent,
    SearchRequest,
    SourcesFound,
)
from websearch_tui.core.text import plain_text
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.helpers.parse import (
    SourceList,
    answer_text,
    api_error_describer,
    as_dict,
    choice_option,
    clamp_count,
    find_message,
    header,
    limit_sources,
    sources_from,
    text_list,
)
from websearch_tui.providers.transport.http import HttpRequest, join_url, send
from websearch_tui.providers.transport.shape import Shape

PATH = "/search"
DEFAULT_COUNT = 5
MAX_COUNT = 20
TIME_FILTERS = ("time_range", "start_date", "end_date")
SEARCH_DEPTHS = ("basic", "advanced", "fast", "ultra-fast")
"""Tavily's ``search_depth`` values (the registry's ``option_choices`` lists the same)."""
DEFAULT_DEPTH = "basic"
ANSWER_MODES = {"basic": "basic", "advanced": "advanced", "true": "basic", "false": False, "none": False, "": False}

SHAPE = Shape.of("results", "answer")
"""A Tavily answer: ``results`` (and ``answer``; the ``query`` echo alone is not one)."""

describe_error = api_error_describer(
    "Tavily API error", lambda parsed: find_message(parsed, ("detail", "error", "message"))
)
"""``Tavily API error (<s>): <msg>``, the message found in ``{"detail": {"error": ...}}``."""


async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[SearchEvent]:
    """Run one Tavily search; yield ``Metadata``, notes (an invalid ``search_depth``, a widening),
    sources, answer, follow-ups.

    A time-filtered search that returns neither an answer nor results is retried once without the
    time filter, and a ``Note`` says so (PROVIDERS.md §1.12).

    Raises:
        ProviderError: ``config`` without a key; ``auth`` (401), ``rate_limit`` (429), ``quota``
            (432 plan limit, 433 pay-as-you-go limit), ``bad_request`` (400), ``server`` (5xx),
            ``timeout``, ``network``, ``protocol``.
    """
    key = ctx.require_api_key()
    depth_notes = search_depth(ctx)[1]
    body = build_body(request, ctx)
    url = join_url(ctx.base_url(), PATH)
    search = HttpRequest.post_json(
        url, body, {"Authorization": f"Bearer {key}"}, describe_error=describe_error, expect=SHAPE
    )
    reply = await send(ctx, search)
    data = reply.json()
    note = None
    if any(name in body for name in TIME_FILTERS) and not has_content(data):
        wide = {name: value for name, value in body.items() if name not in TIME_FILTERS}
        reply = await send(ctx, replace(search, json_body=wide))
        data = reply.json()
        note = (
            f"Tavily found nothing from the past {request.recency}; "
            "retried without a time filter, so results may be older."
        )
    payload = as_dict(data)
    request_id = plain_text(payload.get("request_id"), collapse=True) or header(reply.headers, "x-request-id")
    yield Metadata(request_id=request_id, auth_mode="api_key")
    for text in [*depth_notes, *([note] if note else [])]:
        yield Note(text)
    sources = parse_results(payload)
    if sources or sources.dropped:
        yield SourcesFound(limit_sources(sources, request.max_results))
    answer = answer_text(payload.get("answer"))
    if answer:
        yield AnswerDelta(answer)
    related = text_list(payload.get("follow_up_questions"))
    if related:
        yield RelatedQuestions(tuple(related))


def search_depth(ctx: ProviderContext) -> tuple[str, list[str]]:
    """``(depth, notes)``: the ``search_depth`` option lower-cased when it is one of
    :data:`SEARCH_DEPTHS` (unset: ``basic``), else ``basic`` and a note naming the valid values."""
    value = ctx.option("search_depth")
    value = value.strip() if isinstance(value, str) else value
    return choice_option(value or DEFAULT_DEPTH, SEARCH_DEPTHS, DEFAULT_DEPTH, "Tavily search_depth")


def build_body(request: SearchRequest, ctx: ProviderContext) -> dict[str, Any]:
    """The JSON body: ``max_results`` 1-20, ``time_range`` from recency, answer and depth options
    (``search_depth`` from :func:`search_depth`).

    ``topic`` stays ``"general"`` (recency is never coupled to ``news``).
    """
    answer_mode = str(ctx.option("include_answer", "advanced") or "").strip().lower()
    body: dict[str, Any] = {
        "query": request.query,
        "search_depth": search_depth(ctx)[0],
        "topic": "general",
        "max_results": clamp_count(request.upstream_count, DEFAULT_COUNT, MAX_COUNT),
        "include_answer": ANSWER_MODES.get(answer_mode, "advanced"),
        "include_raw_content": False,
        "include_images": False,
    }
    if request.recency:
        body["time_range"] = request.recency
    return body


def has_content(data: Any) -> bool:
    """True when a body has a non-blank answer or at least one usable (http(s)) result."""
    payload = as_dict(data)
    answer = payload.get("answer")
    return bool((isinstance(answer, str) and answer.strip()) or parse_results(payload))


def parse_results(payload: Any) -> SourceList:
    """Sources from ``results[]``: ``title``/``url``/``content``/``published_date``."""
    return sources_from(
        as_dict(payload).get("results"), url="url", title="title", snippet="content", date="published_date"
    )
