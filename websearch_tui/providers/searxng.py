"""SearXNG (self-hosted metasearch) JSON search.

Endpoint: ``GET {base_url}/search?q=<q>&format=json`` on the user's own instance (no default
``base_url``); optional HTTP Basic or Bearer auth. Docs: https://docs.searxng.org/dev/search_api.html
(PROVIDERS.md §2.6). The instance must list ``json`` in ``search.formats`` of its settings.yml.

API: the SearXNG search API (``format=json``), checked 2026-12-02: no change to the fields read here.
"""

from __future__ import annotations

import base64
import re
from collections.abc import AsyncIterator
from typing import Any

from websearch_tui.core.errors import ErrorKind, ProviderError, register_secret
from websearch_tui.core.models import (
    AnswerDelta,
    Metadata,
    Note,
    RelatedQuestions,
    SearchEvent,
    SearchRequest,
    SourcesFound,
)
from websearch_tui.core.text import has_control_chars, plain_text, sanitize
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.helpers.parse import (
    SourceList,
    answer_text,
    api_error_describer,
    as_dict,
    as_list,
    limit_sources,
    sources_from,
    text_list,
)
from websearch_tui.providers.transport.http import HttpRequest, join_url, send
from websearch_tui.providers.transport.shape import Shape

PATH = "/search"
TIME_RANGE = {"day": "day", "week": "month", "month": "month", "year": "year"}
MAX_ANSWERS = 3
JSON_DISABLED = "This SearXNG instance has JSON output disabled; add `json` to `search.formats` in settings.yml"
_BANG = re.compile(r"(?<!\S)!!\S*")

SHAPE = Shape.of("results", "answers")
"""A SearXNG ``format=json`` answer: ``results`` and ``answers`` (its ``query`` echo alone is not one)."""

describe_error = api_error_describer("SearXNG API error")
"""``SearXNG API error (<s>): <body excerpt>``."""


async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[SearchEvent]:
    """Run one SearXNG search; yield ``Metadata``, notes, sources, instant answers and suggestions.

    Raises:
        ProviderError: ``config`` without ``base_url``, for invalid credentials, for a query made
            only of ``!!bang`` tokens, or for a 403 (JSON output disabled on the instance);
            ``server`` (status 503) for zero results with failing upstream engines; ``auth``
            (401), ``rate_limit``, ``server``, ``timeout``, ``network``; ``protocol`` for a 2xx
            that is HTML or empty.
    """
    headers = {"Accept": "application/json"}
    authorization = auth_header(ctx)
    if authorization:
        headers["Authorization"] = authorization
    query, bangs = strip_bangs(request.query)
    if not query:
        raise ProviderError(
            ctx.spec.id,
            ErrorKind.CONFIG,
            "SearXNG: the query has only !!bang tokens, which SearXNG answers with a redirect.",
        )
    try:
        search = HttpRequest(
            "GET",
            join_url(ctx.base_url(), PATH),
            headers=headers,
            params=build_params(query, request, ctx),
            describe_error=describe_error,
            expect=SHAPE,
        )
        data = (await send(ctx, search)).json()
    except ProviderError as exc:
        if exc.status == 403 and not authorization:
            raise ProviderError(ctx.spec.id, ErrorKind.CONFIG, JSON_DISABLED, status=403) from None
        if exc.status == 403:
            raise ProviderError(
                ctx.spec.id,
                ErrorKind.AUTH,
                "SearXNG refused the request (403): check the SearXNG credentials; if they are right, "
                "the instance may have JSON output disabled (add `json` to search.formats in settings.yml).",
                status=403,
            ) from None
        raise
    payload = as_dict(data)
    if not isinstance(data, dict) or not isinstance(payload.get("results", []), list):
        raise ProviderError(
            ctx.spec.id, ErrorKind.PROTOCOL, "SearXNG returned JSON without a results list.", status=200
        )
    sources = parse_results(payload)
    answer = parse_answers(payload.get("answers"))
    failures = unresponsive_engines(payload.get("unresponsive_engines"))
    if failures and not sources and not answer:
        raise ProviderError(
            ctx.spec.id,
            ErrorKind.SERVER,
            "SearXNG returned no usable results; upstream engines failed: " + "; ".join(failures),
            status=503,
        )
    yield Metadata(auth_mode="api_key" if authorization else "keyless")
    if bangs:
        yield Note(f"Removed SearXNG bang {', '.join(bangs)} from the query (it would redirect instead of searching).")
    if request.recency == "week":
        yield Note("recency 'week' widened to 'month' by SearXNG (it has no one-week filter).")
    if failures:
        yield Note("Some SearXNG engines did not respond: " + "; ".join(failures))
    if sources or sources.dropped:
        yield SourcesFound(limit_sources(sources, request.max_results))
    if answer:
        yield AnswerDelta(answer)
    related = text_list(payload.get("suggestions"))
    if related:
        yield RelatedQuestions(tuple(related))


def strip_bangs(query: str) -> tuple[str, list[str]]:
    """Remove ``!!bang`` tokens (external redirects); return the query and the removed tokens."""
    bangs = _BANG.findall(query)
    return " ".join(_BANG.sub(" ", query).split()), bangs


def build_params(query: str, request: SearchRequest, ctx: ProviderContext) -> dict[str, str]:
    """``q``, ``format=json``, ``pageno=1``, ``time_range`` (week -> month) and configured options."""
    params = {"q": query, "format": "json", "pageno": "1"}
    if request.recency in TIME_RANGE:
        params["time_range"] = TIME_RANGE[request.recency]
    for name in ("categories", "language", "engines", "safesearch"):
        value = ctx.option(name)
        if value is not None and str(value).strip():
            params[name] = str(value).strip()
    return params


def auth_header(ctx: ProviderContext) -> str | None:
    """``Basic base64(user:pass)`` when a username or password is set, else ``Bearer <token>``, else ``None``.

    Raises:
        ProviderError: ``config`` when only one of username/password is set (an empty string
            counts as set), the username contains ``:``, or a value has control characters.
    """
    creds = ctx.credentials
    if "username" in creds or "password" in creds:
        username, password = creds.get("username"), creds.get("password")
        if username is None or password is None:
            raise _config(ctx, "SearXNG Basic auth needs both a username and a password.")
        if ":" in username:
            raise _config(ctx, "SearXNG Basic auth username must not contain ':'.")
        if has_control_chars(username) or has_control_chars(password):
            raise _config(ctx, "SearXNG Basic auth username and password must not contain control characters.")
        token = base64.b64encode(f"{username}:{password}".encode()).decode("ascii")
        register_secret(token)  # a server that echoes the header must not reveal the password
        return f"Basic {token}"
    bearer = creds.get("token")
    if bearer:
        if has_control_chars(bearer):
            raise _config(ctx, "SearXNG token must not contain control characters.")
        return f"Bearer {bearer}"
    return None


def _config(ctx: ProviderContext, message: str) -> ProviderError:
    return ProviderError(ctx.spec.id, ErrorKind.CONFIG, message)


def parse_results(payload: dict[str, Any]) -> SourceList:
    """Sources from ``results[]`` (``number_of_results`` is unreliable and ignored)."""
    return sources_from(
        payload.get("results"),
        url="url",
        title="title",
        snippet="content",
        date=lambda row: row.get("publishedDate") or row.get("published_date"),
    )


def parse_answers(value: object) -> str | None:
    """Instant answers (strings, ``{answer}``, ``{translations[].text}``, weather) joined by blank lines, at most 3."""
    texts: list[str] = []
    for item in as_list(value):
        text = _answer_text(item)
        if text and text not in texts:
            texts.append(text)
        if len(texts) >= MAX_ANSWERS:
            break
    return "\n\n".join(texts) or None


def _answer_text(item: object) -> str | None:
    if isinstance(item, str):
        return answer_text(item)
    if not isinstance(item, dict):
        return None
    if isinstance(item.get("answer"), str):
        return answer_text(item["answer"])
    translations = [t.get("text") for t in as_list(item.get("translations")) if isinstance(t, dict)]
    joined = "\n".join(sanitize(t).strip() for t in translations if isinstance(t, str) and t.strip())
    if joined:
        return joined
    current = as_dict(item.get("current"))
    if current:
        parts = [plain_text(item.get("location"), collapse=True) or plain_text(current.get("location"), collapse=True)]
        parts.append(plain_text(current.get("summary") or current.get("condition"), collapse=True))
        temperature = current.get("temperature")
        if isinstance(temperature, dict):
            temperature = " ".join(str(v) for v in (temperature.get("value"), temperature.get("unit")) if v is not None)
        parts.append(plain_text(str(temperature), collapse=True) if temperature is not None else None)
        text = ", ".join(p for p in parts if p)
        return f"Weather: {text}" if text else None
    return None


def unresponsive_engines(value: object) -> list[str]:
    """``"<engine>: <reason>"`` for each ``[engine, reason]`` pair (or ``{engine, reason}`` object)."""
    failures = []
    for item in as_list(value):
        if isinstance(item, (list, tuple)) and item:
            engine, reason = item[0], item[1] if len(item) > 1 else ""
        elif isinstance(item, dict):
            engine, reason = item.get("engine") or item.get("name"), item.get("reason") or item.get("error")
        else:
            engine, reason = item, ""
        name = plain_text(str(engine), collapse=True) if engine is not None else None
        if name:
            why = plain_text(str(reason), collapse=True) if reason else None
            failures.append(f"{name}: {why}" if why else name)
    return failures
