"""Perplexity: a cited answer from Perplexity's answer engine, streamed over SSE.

Two APIs, chosen by the ``api`` option of ``[providers.perplexity]``:

- ``api = "agent"`` (the default): the Perplexity Agent API, ``POST {base_url}/v1/agent`` with a
  preset (``model = "low"``, the default) or a ``provider/model`` id and a forced ``web_search``
  tool; checked 2026-12-02 against the docs.perplexity.ai agent-api docs and the Sept 2026 wire
  captures. Everything about it (request, events, citations by result id, errors) is in
  :mod:`.families.perplexity_agent`.
- ``api = "chat"``: Sonar chat completions, this module, for gateways that still serve them
  (OpenRouter and similar). Perplexity itself retired them on 2026-09-27.

Both use ``Authorization: Bearer <key>`` and the default ``base_url`` ``https://api.perplexity.ai``.
A 2xx answer in the other API's shape (an Agent API body replayed to ``api = "chat"``, or the
reverse) fails as ``unrecognised_response``, never as an empty result.

Sonar chat completions: ``POST {base_url}/chat/completions``, ``stream: true``.
Docs: https://docs.perplexity.ai/api-reference/chat-completions-post and
https://docs.perplexity.ai/docs/grounded-llm/chat-completions/pro-search/quickstart (reasoning steps).
Wire reference: PROVIDERS.md §2.7 (errors §1.11, retries §1.12, SSE §1.9).

Every ``chat.completion.chunk`` carries one ``choices[0].delta.content`` token and repeats the
full ``citations`` list and a cumulative ``usage``; ``search_results``, ``related_questions`` and
(Pro search) ``reasoning_steps`` may appear on any chunk. The stream ends with a chunk whose
``object`` is ``chat.completion.done``, with ``data: [DONE]`` or simply by closing; none of these
is required. A server that ignores ``stream: true`` and answers one ``application/json`` body is
accepted too (the same parser reads it as one big chunk).

Citations are never truncated or reordered: the answer's ``[n]`` marker is ``citations[n-1]``.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Iterable
from contextlib import aclosing
from dataclasses import field
from typing import Any

from websearch_tui.core.errors import ErrorKind, ProviderError, excerpt
from websearch_tui.core.models import (
    AnswerDelta,
    Citation,
    CitationsFound,
    Note,
    RelatedQuestions,
    SearchEvent,
    SearchQueries,
    SearchRequest,
    Source,
    SourcesFound,
    Usage,
)
from websearch_tui.core.records import record
from websearch_tui.core.text import canonical_url, plain_text, safe_url
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.families import perplexity_agent
from websearch_tui.providers.families.perplexity_common import ERROR_KEYS, domain_filter, stream_answer
from websearch_tui.providers.helpers import parse
from websearch_tui.providers.helpers.prompt import SYSTEM_PROMPT
from websearch_tui.providers.transport.shape import Shape
from websearch_tui.providers.transport.streaming import MetadataTracker

APIS = ("agent", "chat")
"""Values of the ``api`` option: the Agent API (default) or Sonar chat completions."""
PATH = "/chat/completions"
DEFAULT_MODEL = "sonar-pro"
DEFAULT_NUM_SEARCH_RESULTS = 10
CONTEXT_SIZES = ("low", "medium", "high")
AUTH_MODE = "api_key"
INVALID_CITATION_TITLE = "(citation without a usable http(s) URL)"
CHAT_SHAPE = Shape.of("choices", "citations", "search_results", "error")
"""A chat-completions answer (a chunk or a whole completion): what :class:`ChunkParser` reads."""


def build_body(request: SearchRequest, ctx: ProviderContext) -> tuple[dict[str, Any], list[str]]:
    """The JSON body for ``POST /chat/completions`` and any user-visible notes about it.

    Shape: ``{"model", "messages": [system, user=<bare query>], "stream": true,
    "stream_options": {"include_usage": true}, "num_search_results", "return_related_questions": true,
    "web_search_options": {"search_context_size"}}`` plus ``search_recency_filter``,
    ``max_tokens`` and ``temperature`` only when the request sets them, ``search_domain_filter``
    when the option has hosts. The model is the configured one, else ``sonar-pro`` (the spec's
    default, a preset, is for the Agent API).
    """
    size, notes = parse.choice_option(
        ctx.option("search_context_size", "medium"), CONTEXT_SIZES, "medium", "Perplexity search_context_size"
    )
    body: dict[str, Any] = {
        "model": perplexity_agent.configured_model(ctx) or DEFAULT_MODEL,
        "messages": [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": request.query},
        ],
        "stream": True,
        "stream_options": {"include_usage": True},
        "num_search_results": request.num_search_results or DEFAULT_NUM_SEARCH_RESULTS,
        "return_related_questions": True,
        "web_search_options": {"search_context_size": size},
    }
    if request.recency:
        body["search_recency_filter"] = request.recency
    domains, domain_notes = domain_filter(ctx.option("search_domain_filter"))
    notes += domain_notes
    if domains:
        body["search_domain_filter"] = domains
    if request.max_tokens is not None:
        body["max_tokens"] = request.max_tokens
    if request.temperature is not None:
        body["temperature"] = request.temperature
    return body, notes


@record
class ChunkParser:
    """Turns Perplexity chunks (or one whole response) into events, remembering what was sent.

    The :class:`.transport.streaming.StreamParser` contract: ``feed(name, payload)`` returns the events one
    payload adds (the name is not used): an ``AnswerDelta`` for its text,
    ``CitationsFound``/``SourcesFound`` (``replace=True``) when ``citations`` or ``search_results``
    first appear or change, ``RelatedQuestions`` and ``SearchQueries`` when they change, and
    ``Metadata`` when the model or id changes. The cumulative ``usage`` is only remembered;
    :meth:`closing` returns it (last value wins). ``chunks`` counts the payloads fed (dicts only);
    ``finished`` is true from the first one (no end marker is required), ``done`` on the
    ``chat.completion.done`` chunk.

    Sources: ``search_results`` (else the cited URLs), both repeated whole on every chunk, cut by
    :func:`.helpers.parse.limit_sources` (the :class:`.helpers.parse.SourceSelection` rule) when they change.

    Raises (from ``feed``):
        ProviderError: ``server``/``bad_request`` when a streamed payload is an error object.
    """

    requested_model: str
    max_results: int
    provider_id: str = "perplexity"
    usage: Usage | None = None
    chunks: int = 0
    done: bool = False
    _raw_citations: Any = None
    _raw_results: Any = None
    _raw_related: Any = None
    _raw_steps: Any = None
    _raw_usage: Any = None
    _citations: tuple[Citation, ...] | None = None
    _sources: tuple[Source, ...] | None = None
    _related: tuple[str, ...] | None = None
    _queries: tuple[str, ...] = ()
    _notes: set[str] = field(default_factory=set)
    _meta: MetadataTracker = field(init=False)

    def __post_init__(self) -> None:
        self._meta = MetadataTracker(self.requested_model, AUTH_MODE)

    @property
    def finished(self) -> bool:
        """True once a chunk was read: a stream may end without ``chat.completion.done`` or ``[DONE]``."""
        return self.chunks > 0

    def feed(self, name: str, payload: Any) -> list[SearchEvent]:
        """Events for one chunk payload (a dict); anything else gives no events."""
        if not isinstance(payload, dict):
            return []
        self.chunks += 1
        self.done = payload.get("object") == "chat.completion.done"
        self._raise_stream_error(payload)
        events: list[SearchEvent] = []
        events.extend(self._meta.update(payload.get("model"), payload.get("id")))
        choice = _first_choice(payload)
        text = _content_text(choice)
        if text:
            events.append(AnswerDelta(text))
        events.extend(self._grounding(payload))
        related = payload.get("related_questions")
        if related is not None and related != self._raw_related:
            self._raw_related = related
            questions = tuple(q for q in (plain_text(item, collapse=True) for item in parse.as_list(related)) if q)
            if questions != self._related:
                self._related = questions
                events.append(RelatedQuestions(questions))
        steps = payload.get("reasoning_steps")
        if steps is not None and steps != self._raw_steps:
            self._raw_steps = steps
            queries = tuple(q for q in _search_keywords(steps) if q not in self._queries)
            if queries:
                self._queries = self._queries + queries
                events.append(SearchQueries(queries))
        raw_usage = payload.get("usage")
        if raw_usage is not None and raw_usage != self._raw_usage:  # repeated on every chunk: read when it changes
            self._raw_usage = raw_usage
            usage = _usage(raw_usage)
            if usage is not None:
                self.usage = usage
        if isinstance(choice, dict) and choice.get("finish_reason") == "length":
            events.extend(self._note("Perplexity stopped at the max_tokens limit; the answer is cut short."))
        return events

    def closing(self) -> list[SearchEvent]:
        """The closing ``Metadata`` with the last usage seen (and model/id/auth_mode)."""
        return [self._meta.metadata(self.usage)]

    def _note(self, text: str) -> list[SearchEvent]:
        if text in self._notes:
            return []
        self._notes.add(text)
        return [Note(text)]

    def _raise_stream_error(self, payload: dict[str, Any]) -> None:
        error = payload.get("error")
        if error and not payload.get("choices"):
            message = parse.find_message(payload, ERROR_KEYS) or "unknown error"
            status = parse.int_field(error, "code")
            kind = ErrorKind.BAD_REQUEST if status is not None and 400 <= status < 500 else ErrorKind.SERVER
            shown = f"({status})" if status is not None else "in stream"
            raise ProviderError(
                self.provider_id, kind, f"Perplexity API error {shown}: {excerpt(message, 500)}", status=status
            )

    def _grounding(self, payload: dict[str, Any]) -> list[SearchEvent]:
        raw_citations = payload.get("citations")
        raw_results = payload.get("search_results")
        if raw_citations is None and raw_results is None:
            return []
        if raw_citations is None:
            raw_citations = self._raw_citations
        if raw_results is None:
            raw_results = self._raw_results
        if raw_citations == self._raw_citations and raw_results == self._raw_results:
            return []
        self._raw_citations, self._raw_results = raw_citations, raw_results
        results = _results(raw_results)
        citations = _citations(raw_citations, results)
        sources = parse.limit_sources(
            results or _citation_sources(citations), self.max_results, [c.url for c in citations]
        )
        events: list[SearchEvent] = []
        if raw_citations is not None and citations != self._citations:
            self._citations = citations
            events.append(CitationsFound(citations, replace=True))
        if sources != self._sources:
            self._sources = sources
            events.append(SourcesFound(sources, replace=True))
        return events


def _first_choice(payload: dict[str, Any]) -> Any:
    choices = payload.get("choices")
    return choices[0] if isinstance(choices, list) and choices else None


def _content_text(choice: Any) -> str:
    """The text of ``choice.delta.content`` or ``choice.message.content`` (string or list of parts)."""
    if not isinstance(choice, dict):
        return ""
    body = choice.get("delta")
    if not isinstance(body, dict):
        body = choice.get("message")
    if not isinstance(body, dict):
        return ""
    content = body.get("content")
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for part in parse.as_list(content):
        if isinstance(part, str):
            parts.append(part)
        elif isinstance(part, dict) and isinstance(part.get("text"), str) and part.get("type", "text") == "text":
            parts.append(part["text"])
    return "".join(parts)


def _results(raw: Any) -> tuple[Source, ...]:
    """``search_results`` entries as sources, provider order, de-duplicated by canonical URL; the
    result carries how many entries had no usable URL (``dropped``)."""
    rows = [parse.as_dict(item) for item in parse.as_list(raw)]
    sources = parse.collect_sources(
        parse.make_source(r.get("url"), r.get("title"), r.get("snippet"), r.get("date")) for r in rows
    )
    return parse.limit_sources(sources, len(sources))


def _citations(raw: Any, results: tuple[Source, ...]) -> tuple[Citation, ...]:
    """One citation per ``citations[i]``, same order, same length (``[n]`` -> index ``n-1``).

    Title and ``cited_text`` come from the ``search_results`` entry with the same URL. An entry
    that is not a usable http(s) URL keeps its slot (``url=""``) so later markers stay aligned; a
    list in which no entry is usable gives ``()`` (there is nothing to show or align).
    """
    by_url = {canonical_url(s.url): s for s in results}
    citations: list[Citation] = []
    for item in parse.as_list(raw):
        if isinstance(item, dict):  # tolerate {"url": ..., "title": ...} objects
            url = safe_url(item.get("url"))
            fallback_title = plain_text(item.get("title"), collapse=True)
        else:
            url, fallback_title = safe_url(item), None
        if url is None:
            citations.append(Citation(url="", title=INVALID_CITATION_TITLE))
            continue
        match = by_url.get(canonical_url(url))
        citations.append(
            Citation(
                url=url,
                title=(match.title if match else None) or fallback_title or url,
                cited_text=match.snippet if match else None,
            )
        )
    return tuple(citations) if any(c.url for c in citations) else ()


def _citation_sources(citations: tuple[Citation, ...]) -> list[Source]:
    """One source per usable citation URL (the fallback when there are no ``search_results``;
    :func:`parse.limit_sources` removes repeats)."""
    return [Source(url=c.url, title=c.title) for c in citations if c.url]


def _search_keywords(steps: Any) -> Iterable[str]:
    for step in parse.as_list(steps):
        web_search = step.get("web_search") if isinstance(step, dict) else None
        keywords = web_search.get("search_keywords") if isinstance(web_search, dict) else None
        for keyword in parse.as_list(keywords):
            text = plain_text(keyword, collapse=True)
            if text:
                yield text


def _usage(raw: Any) -> Usage | None:
    """``usage``: prompt -> input, completion -> output, total tokens, ``num_search_queries``."""
    return parse.usage_from(
        raw, input="prompt_tokens", output="completion_tokens", total="total_tokens", searches="num_search_queries"
    )


def api_choice(ctx: ProviderContext) -> str:
    """The ``api`` option: ``"agent"`` (default) or ``"chat"`` (config validation refuses others)."""
    value = ctx.option("api")
    return value.strip().lower() if isinstance(value, str) and value.strip().lower() in APIS else "agent"


async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncGenerator[SearchEvent, None]:
    """Run one Perplexity search and yield its events as they arrive: through the Agent API
    (:func:`.families.perplexity_agent.stream`, the default) or, with ``api = "chat"``, Sonar chat
    completions (:func:`stream_chat`)."""
    events = stream_chat(request, ctx) if api_choice(ctx) == "chat" else perplexity_agent.stream(request, ctx)
    async with aclosing(events) as running:
        async for event in running:
            yield event


async def stream_chat(request: SearchRequest, ctx: ProviderContext) -> AsyncGenerator[SearchEvent, None]:
    """Run one Perplexity Sonar chat-completions search and yield its events as they arrive.

    Yields ``AnswerDelta`` per token, ``CitationsFound``/``SourcesFound`` (replace) as soon as
    they appear and whenever they change, ``RelatedQuestions``, ``SearchQueries`` (Pro search),
    ``Metadata`` (model, request id, final cumulative usage, ``auth_mode="api_key"``) and ``Note``.

    Raises:
        ProviderError: ``config`` without a key; ``auth`` (401/403, seed message), ``rate_limit``,
            ``quota``, ``bad_request``, ``server`` with ``Perplexity API error (<s>): <msg>`` (and
            where to set the model when the message is about it);
            ``timeout``/``network`` (retried only before any HTTP response); ``protocol`` for a
            body that is neither an event stream nor JSON, and ``"Perplexity stream ended before it
            finished"`` for a stream that closed without a single readable chunk (empty, or nothing
            but malformed JSON); ``unrecognised_response`` for a 2xx answer without any field of
            :data:`CHAT_SHAPE` (an Agent API answer, say). A failure after the first event ends the
            stream; the events already yielded stand.
    """
    ctx.require_api_key()  # before any note: a missing key is the only thing to say
    body, notes = build_body(request, ctx)
    for note in notes:
        yield Note(note)
    parser = ChunkParser(requested_model=body["model"], max_results=request.max_results, provider_id=ctx.spec.id)
    events = stream_answer(ctx, PATH, body, parser, model=body["model"], expect=CHAT_SHAPE)
    async with aclosing(events) as running:
        async for event in running:
            yield event
