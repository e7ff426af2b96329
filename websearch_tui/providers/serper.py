"""Serper: Google's results page as JSON (organic results, answer box, knowledge graph, questions).

API: ``POST {base_url}/search`` (default ``https://google.serper.dev``), header ``X-API-KEY: <key>``,
JSON body ``{"q", "num", "tbs", "gl", "hl"}``. Checked 2026-12-03 against https://serper.dev (the
playground's request shape) and a recorded answer in LangChain's Serper notebook
(langchain-ai/langchain ``docs/docs/integrations/tools/google_serper.ipynb``): ``organic[]`` (``title``,
``link``, ``snippet``, ``date``, ``sitelinks``), ``answerBox`` (``answer``/``snippet``, ``title``,
``link``), ``knowledgeGraph`` (``title``, ``type``, ``description``, ``descriptionSource``,
``descriptionLink``), ``peopleAlsoAsk[].question``, ``relatedSearches[].query``. Recency is Google's
``tbs=qdr:d|w|m|y``. Errors are ``{"message", "statusCode"}`` (a bad key: 403 ``"Unauthorized."``). Serper
publishes no request-rate limit for searches, so they are not paced (a 429 is retried as usual).
Not in PROVIDERS.md.

Mapping: organic results are the sources; the answer box is the answer (its link a citation); the
knowledge graph is a note; "people also ask" and then the related searches are the related questions.
Options: ``gl`` (country) and ``hl`` (interface language), sent when set.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from websearch_tui.core.models import (
    AnswerDelta,
    Citation,
    CitationsFound,
    Metadata,
    Note,
    RelatedQuestions,
    SearchEvent,
    SearchRequest,
    SourcesFound,
)
from websearch_tui.core.text import plain_text, safe_url
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.helpers.parse import (
    SourceList,
    answer_text,
    api_error_describer,
    as_dict,
    as_list,
    clamp_count,
    first_text,
    header,
    join_texts,
    limit_sources,
    sources_from,
    text_list,
)
from websearch_tui.providers.transport.http import HttpRequest, join_url, send
from websearch_tui.providers.transport.shape import Shape

PATH = "/search"
DEFAULT_COUNT = 10
MAX_COUNT = 100
TBS = {"day": "qdr:d", "week": "qdr:w", "month": "qdr:m", "year": "qdr:y"}
"""Google's ``tbs`` time filter for each recency window."""

SHAPE = Shape.of("organic", "answerBox", "knowledgeGraph", "peopleAlsoAsk", "relatedSearches")
"""A Serper answer: any of its result blocks (``searchParameters`` and ``credits`` are echoes)."""

describe_error = api_error_describer("Serper API error")
"""``Serper API error (<s>): <message>``."""


async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[SearchEvent]:
    """Run one Serper search; yield ``Metadata``, the knowledge-graph note, sources, the answer box
    (answer and citation), then related questions.

    Raises:
        ProviderError: ``config`` without a key; ``auth`` (401/403), ``quota`` (402, or a message
            about credits), ``rate_limit`` (429), ``bad_request`` (400), ``server``, ``timeout``,
            ``network``, ``protocol``; ``unrecognised_response`` for a body without result blocks.
    """
    key = ctx.require_api_key()
    search = HttpRequest.post_json(
        join_url(ctx.base_url(), PATH),
        build_body(request, ctx),
        {"X-API-KEY": key},
        describe_error=describe_error,
        expect=SHAPE,
    )
    reply = await send(ctx, search)
    payload = as_dict(reply.json())
    yield Metadata(request_id=header(reply.headers, "x-request-id"), auth_mode="api_key")
    note = knowledge_graph_note(payload.get("knowledgeGraph"))
    if note:
        yield Note(note)
    box = as_dict(payload.get("answerBox"))
    link = safe_url(box.get("link"))
    sources = parse_results(payload)
    if sources or sources.dropped:
        yield SourcesFound(limit_sources(sources, request.max_results, [link] if link else []))
    answer = answer_text(first_text(box, "answer", "snippet"))
    if answer:
        yield AnswerDelta(answer)
        if link:
            title = plain_text(box.get("title"), collapse=True) or link
            yield CitationsFound((Citation(url=link, title=title, cited_text=plain_text(answer, collapse=True)),))
    related = related_questions(payload)
    if related:
        yield RelatedQuestions(tuple(related))


def build_body(request: SearchRequest, ctx: ProviderContext) -> dict[str, Any]:
    """``q``, ``num`` 1-100 (default 10), ``tbs`` from recency, ``gl``/``hl`` from the options."""
    body: dict[str, Any] = {"q": request.query, "num": clamp_count(request.upstream_count, DEFAULT_COUNT, MAX_COUNT)}
    if request.recency in TBS:
        body["tbs"] = TBS[request.recency]
    for name in ("gl", "hl"):
        value = ctx.option(name)
        if value:
            body[name] = str(value)
    return body


def parse_results(payload: Any) -> SourceList:
    """Sources from ``organic[]``: ``link``, ``title``, ``snippet``, ``date``."""
    return sources_from(as_dict(payload).get("organic"), url="link", title="title", snippet="snippet", date="date")


def knowledge_graph_note(value: object) -> str | None:
    """``"Knowledge graph: <title> (<type>): <description> (<source>)"`` from ``knowledgeGraph``, the
    parts it has; ``None`` without a title or description."""
    graph = as_dict(value)
    title = plain_text(graph.get("title"), collapse=True)
    description = plain_text(graph.get("description"), collapse=True)
    if not (title or description):
        return None
    kind = plain_text(graph.get("type"), collapse=True)
    source = plain_text(graph.get("descriptionSource"), collapse=True)
    head = join_texts([title, f"({kind})" if kind else None], " ")
    text = join_texts([head, description], ": ")
    return f"Knowledge graph: {text}" + (f" ({source})" if source else "")


def related_questions(payload: Any) -> list[str]:
    """``peopleAlsoAsk[].question`` then ``relatedSearches[].query``, cleaned and de-duplicated."""
    body = as_dict(payload)
    asked = [as_dict(row).get("question") for row in as_list(body.get("peopleAlsoAsk"))]
    searched = [as_dict(row).get("query") for row in as_list(body.get("relatedSearches"))]
    return text_list([*asked, *searched])
