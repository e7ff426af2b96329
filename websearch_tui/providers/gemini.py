"""Gemini Developer API with Google Search grounding, streamed over SSE.

Upstream endpoint: ``POST {base_url}/v1beta/models/{model}:streamGenerateContent?alt=sse`` (default
``https://generativelanguage.googleapis.com``), header ``x-goog-api-key: <key>`` (never in the URL).
Docs: https://ai.google.dev/gemini-api/docs/google-search and
https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent.
Wire reference: PROVIDERS.md §2.19 (prompt §1.5, errors §1.11, retries §1.12, SSE §1.9).
API version ``v1beta`` (``generateContent`` / ``streamGenerateContent`` with the ``google_search``
tool), checked 2026-12-02 against those docs, python-genai 2.18 (``GoogleSearch``, ``Part.toolCall``
/ ``toolResponse``) and a recorded Gemini 3 answer (pydantic-ai's
``test_thinking_with_native_tool_wire_contract[google]``, 2026-06-10).

Default model ``gemini-3.8-flash`` (the registry's ``default_model``; GA 2026-09-02, no shutdown
date) checked 2026-12-02 against https://ai.google.dev/gemini-api/docs/deprecations, which lists
``gemini-2.5-flash`` (PROVIDERS.md's default) as shut down on 2026-12-01: the docs win. An unknown
or retired model (404 ``NOT_FOUND`` "models/<id> is not found for API version v1beta ...") fails as
``model_not_found`` naming ``[providers.gemini] model``.

Gemini 3 answers the same ``groundingMetadata``; with ``toolConfig.includeServerSideToolInvocations``
(not sent here, but a gateway may) the parts also carry ``toolCall`` (``toolType``
``GOOGLE_SEARCH_WEB``, ``args.queries``: read as search queries) and ``toolResponse`` (Google's
search-suggestion HTML: never read); ``thoughtSignature`` fields are ignored and ``thought`` parts
are not part of the answer.

Every event is one ``GenerateContentResponse``; Gemini frames events with ``\\r\\n\\r\\n`` and simply
closes the stream after the chunk that carries ``finishReason``. Early chunks carry an empty
``groundingMetadata``; the last one carries ``webSearchQueries``, ``groundingChunks`` and
``groundingSupports``. The chunk ``uri``s are mostly ``vertexaisearch.cloud.google.com/grounding-api-redirect/...``
links: once the answer has streamed they are resolved (``HEAD``, redirects not followed, see
:mod:`.families.grounding`) and the sources and citations are sent again with the real URLs.

Count and recency have no native parameter: both go into the §1.5 prompt and the sources are sliced
locally, keeping every cited one. ``google_search.timeRangeFilter`` (Gemini API only, not Vertex)
exists in the API, but it is reported to leave the grounding results unfiltered on the Developer
API as late as May 2026 (googleapis/python-genai#1207, #2399, both closed without a fix), so it is
not sent: the capability stays "recency in the prompt" rather than claiming a filter that may not
filter.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Iterable
from contextlib import aclosing
from dataclasses import field, replace
from typing import Any, ClassVar
from urllib.parse import quote

from websearch_tui.core.errors import (
    ErrorKind,
    ProviderError,
    auth_failed_message,
    excerpt,
    kind_for_status,
)
from websearch_tui.core.models import (
    AnswerDelta,
    Citation,
    CitationsFound,
    Note,
    SearchEvent,
    SearchQueries,
    SearchRequest,
    Source,
    SourcesFound,
    Usage,
)
from websearch_tui.core.records import record
from websearch_tui.core.text import plain_text, safe_url, sanitize
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.families import grounding
from websearch_tui.providers.helpers import models, parse
from websearch_tui.providers.helpers.prompt import SYSTEM_PROMPT, user_prompt
from websearch_tui.providers.transport import http
from websearch_tui.providers.transport.shape import Shape
from websearch_tui.providers.transport.streaming import MetadataTracker, feed_stream

PATH = "/v1beta/models/{model}:streamGenerateContent"
AUTH_MODE = "api_key"
PREFIX = "Gemini API error"
EMPTY_MESSAGE = "Gemini API returned an empty grounded response"
NO_SEARCH_NOTE = "Gemini answered without running a Google Search; the answer is not grounded in web sources."
MAX_TOKENS_NOTE = "Gemini stopped at the max_tokens limit; the answer is cut short."
INVALID_KEY_MARKERS = ("API key not valid", "API_KEY_INVALID")
RESOLVE_MARGIN = 0.5
"""Seconds of the provider deadline left unused by redirect resolution (the engine's own deadline
must not fire while the resolved sources are being sent)."""


SHAPE = Shape.of("candidates", "promptFeedback", "error", "response", list_ok=True)
"""A ``generateContent`` chunk (or whole response): ``candidates``, ``promptFeedback`` or ``error``;
also the Cloud Code ``{"response": ...}`` wrapper and a JSON array of responses, which the parser
reads too (:meth:`ChunkParser.feed`)."""


def build_body(request: SearchRequest) -> dict[str, Any]:
    """The JSON body: ``{"contents": [user prompt], "tools": [{"google_search": {}}],
    "systemInstruction": {...}}`` plus ``generationConfig`` (``maxOutputTokens`` / ``temperature``)
    only when the request sets one of them."""
    body: dict[str, Any] = {
        "contents": [{"role": "user", "parts": [{"text": user_prompt(request)}]}],
        "tools": [{"google_search": {}}],
        "systemInstruction": {"parts": [{"text": SYSTEM_PROMPT}]},
    }
    config: dict[str, Any] = {}
    if request.max_tokens is not None:
        config["maxOutputTokens"] = request.max_tokens
    if request.temperature is not None:
        config["temperature"] = request.temperature
    if config:
        body["generationConfig"] = config
    return body


def stream_url(base_url: str, model: str) -> str:
    """``{base}/v1beta/models/{model}:streamGenerateContent?alt=sse`` (a ``models/`` prefix on the
    configured model name is tolerated)."""
    name = model.removeprefix("models/")
    return http.join_url(base_url, PATH.format(model=quote(name, safe="-._~"))) + "?alt=sse"


def _google_error(parsed: Any) -> tuple[int | None, str, str]:
    """``(code, STATUS, message)`` of Google's ``{"error": {"code", "status", "message"}}`` envelope."""
    error = parse.as_dict(parse.as_dict(parsed).get("error"))
    number = parse.int_field(error, "code")
    status = plain_text(error.get("status"), collapse=True) or ""
    message = parse.find_message(error, ("message",)) or ""
    return number, status, message


def describe_error(status: int, text: str, parsed: Any) -> str:
    """``"Gemini API error (<status> <STATUS>): <message>"`` from Google's error envelope, else a
    redacted excerpt of the body. 401/403 never reach it (they get the seed auth message)."""
    _, google_status, message = _google_error(parsed)
    head = f"{status} {google_status}".strip()
    return f"{PREFIX} ({head}): {excerpt(message or text, 500) or 'no details'}"


def _reclassify(error: ProviderError, label: str) -> ProviderError:
    """A 400 saying the API key is not valid is an ``auth`` failure (seed message), not ``bad_request``."""
    if error.status == 400 and any(marker in error.message for marker in INVALID_KEY_MARKERS):
        return ProviderError(error.provider, ErrorKind.AUTH, auth_failed_message(label, 400), status=400)
    return error


@record(frozen=True)
class _ChunkRef:
    """One grounding chunk: its usable URL (``None`` when ``uri`` is not http(s)) and title."""

    url: str | None
    title: str


@record
class ChunkParser:
    """Turns ``GenerateContentResponse`` payloads into events, remembering the grounding seen so far.

    The :class:`.transport.streaming.StreamParser` contract: ``feed(name, payload)`` returns the events one
    payload adds (the name is not used; a ``"json"`` body may be a list of responses): an
    ``AnswerDelta`` per text part (``thought`` parts skipped), ``Metadata`` when the model or
    response id first appears or changes, and, when a chunk carries grounding,
    ``SourcesFound``/``CitationsFound`` (``replace=True`` snapshots) and ``SearchQueries`` for new
    queries. ``finished`` turns true on the chunk with a ``finishReason``; ``done`` never does (the
    stream is read until Gemini closes it). :meth:`closing` gives the closing ``Metadata`` (last
    usage) and notes; :meth:`resolved` re-sends sources and citations with resolved redirect links.

    Sources: the grounding chunks' pages, selected by :class:`.helpers.parse.SourceSelection` (cut to
    ``max_results`` but keeping every cited one).

    Raises (from ``feed``):
        ProviderError: an ``{"error": ...}`` payload inside the stream (kind from its code), or a
            prompt blocked by safety filters (``bad_request``).
    """

    requested_model: str
    max_results: int
    provider_id: str = "gemini"
    usage: Usage | None = None
    finished: bool = False
    done: ClassVar[bool] = False  # Gemini closes the stream itself after its last chunk: read until it does
    finish_reason: str | None = None
    has_text: bool = False
    grounded: bool = False
    citations: list[Citation] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)
    _citation_keys: set[tuple[str, str | None]] = field(default_factory=set)
    _sources: parse.SourceSelection = field(init=False)
    _meta: MetadataTracker = field(init=False)

    def __post_init__(self) -> None:
        self._meta = MetadataTracker(self.requested_model, AUTH_MODE)
        self._sources = parse.SourceSelection(self.max_results)

    @property
    def sources(self) -> list[Source]:
        """Every distinct grounding page so far, in order (listed or not)."""
        return self._sources.sources

    def feed(self, name: str, payload: Any) -> list[SearchEvent]:
        """Events for one payload (a response dict, a ``{"response": ...}`` wrapper or a list of them)."""
        if isinstance(payload, list):
            return [event for item in payload for event in self.feed(name, item)]
        payload = _unwrap(payload)
        if not payload:
            return []
        self._raise_stream_error(payload)
        events: list[SearchEvent] = [*self._meta.update(payload.get("modelVersion"), payload.get("responseId"))]
        candidates = parse.as_list(payload.get("candidates"))
        candidate = parse.as_dict(candidates[0]) if candidates else {}
        if not candidate:
            self._raise_blocked(payload)
        events.extend(self._tool_call_queries(candidate))
        for text in _part_texts(candidate):
            # the empty error ("nothing was answered") reads the text as it will be shown: sanitized
            # here only until the first part that is not empty then
            self.has_text = self.has_text or bool(sanitize(text))
            events.append(AnswerDelta(text))
        events.extend(self._grounding(parse.as_dict(candidate.get("groundingMetadata"))))
        usage = _usage(payload.get("usageMetadata"))
        if usage is not None:
            self.usage = usage
        reason = candidate.get("finishReason")
        if isinstance(reason, str) and reason and reason != "FINISH_REASON_UNSPECIFIED":
            self.finished, self.finish_reason = True, reason
        return events

    def closing(self) -> list[SearchEvent]:
        """The closing ``Metadata`` (model, id, last usage with the number of searches) and notes."""
        usage = self.usage
        if self.queries:
            usage = replace(usage or Usage(), search_requests=len(self.queries))
        events: list[SearchEvent] = [self._meta.metadata(usage)]
        if self.finish_reason == "MAX_TOKENS":
            events.append(Note(MAX_TOKENS_NOTE))
        elif self.finish_reason not in (None, "STOP"):
            events.append(
                Note(f"Gemini stopped early (finishReason {self.finish_reason}); the answer may be incomplete.")
            )
        if not self.grounded:
            events.append(Note(NO_SEARCH_NOTE))
        return events

    def redirect_links(self, trusted: Iterable[grounding.Origin] = ()) -> dict[str, str]:
        """Every source and citation URL that is a grounding redirect link we may resolve, in order,
        mapped to the URL to request (see :func:`grounding.redirect_link`)."""
        urls = [s.url for s in self.sources] + [c.url for c in self.citations]
        targets = {url: grounding.redirect_link(url, trusted) for url in dict.fromkeys(urls)}
        return {url: target for url, target in targets.items() if target is not None}

    def resolved(self, mapping: dict[str, str]) -> list[SearchEvent]:
        """``SourcesFound``/``CitationsFound`` (replace) with redirect links swapped for the URLs in
        ``mapping``; titles are kept (a title that was the redirect link becomes the real URL)."""
        if not mapping:
            return []

        def swap(url: str, title: str) -> tuple[str, str]:
            target = mapping.get(url, url)
            return target, (target if title == url else title)

        selection = parse.SourceSelection(self.max_results)
        for source in self.sources:
            url, title = swap(source.url, source.title)
            selection.add([replace(source, url=url, title=title)])
        citations = []
        for citation in self.citations:
            url, title = swap(citation.url, citation.title)
            citations.append(replace(citation, url=url, title=title))
        selection.cite(citation.url for citation in citations)
        self._sources, self.citations = selection, citations
        return [SourcesFound(selection.selection(), replace=True), CitationsFound(tuple(citations), replace=True)]

    def _raise_stream_error(self, payload: dict[str, Any]) -> None:
        if not payload.get("error") or payload.get("candidates"):
            return
        code, status, message = _google_error(payload)
        kind = kind_for_status(code, message) if code is not None and code >= 400 else ErrorKind.SERVER
        head = " ".join(str(x) for x in (code, status) if x) or "in stream"
        text = excerpt(message or str(payload.get("error")), 500)
        raise ProviderError(self.provider_id, kind, f"{PREFIX} ({head}): {text}", status=code)

    def _raise_blocked(self, payload: dict[str, Any]) -> None:
        feedback = parse.as_dict(payload.get("promptFeedback"))
        reason = plain_text(feedback.get("blockReason"), collapse=True)
        if reason:
            detail = plain_text(feedback.get("blockReasonMessage"), collapse=True)
            message = f"Gemini blocked the prompt ({reason})" + (f": {detail}" if detail else ".")
            raise ProviderError(self.provider_id, ErrorKind.BAD_REQUEST, message)

    def _tool_call_queries(self, candidate: dict[str, Any]) -> list[SearchEvent]:
        """``SearchQueries`` for the new queries of the Google Search ``toolCall`` parts (Gemini 3 with
        ``includeServerSideToolInvocations``): ``{"toolCall": {"toolType": "GOOGLE_SEARCH_WEB",
        "args": {"queries": [...]}}}``. ``toolResponse`` parts are never read."""
        found: list[str] = []
        for part in parse.as_list(parse.as_dict(candidate.get("content")).get("parts")):
            call = parse.as_dict(parse.as_dict(part).get("toolCall"))
            tool_type = call.get("toolType")
            if not (isinstance(tool_type, str) and tool_type.startswith("GOOGLE_SEARCH")):
                continue
            for query in parse.text_list(parse.as_dict(call.get("args")).get("queries")):
                if query not in self.queries and query not in found:
                    found.append(query)
        if not found:
            return []
        self.grounded = True
        self.queries.extend(found)
        return [SearchQueries(tuple(found))]

    def _grounding(self, metadata: dict[str, Any]) -> list[SearchEvent]:
        """Events for one response's ``groundingMetadata`` (supports index into its own chunks)."""
        if not metadata:
            return []
        refs = [_chunk_ref(chunk) for chunk in parse.as_list(metadata.get("groundingChunks"))]
        queries = [q for q in parse.text_list(metadata.get("webSearchQueries")) if q not in self.queries]
        if refs or queries:
            self.grounded = True
        self._sources.add(Source(url=ref.url, title=ref.title or ref.url) for ref in refs if ref.url)
        new_citations: list[Citation] = []
        for support in parse.as_list(metadata.get("groundingSupports")):
            for citation in _support_citations(parse.as_dict(support), refs):
                key = (citation.url, citation.cited_text)
                if key not in self._citation_keys:
                    self._citation_keys.add(key)
                    self.citations.append(citation)
                    self._sources.cite([citation.url])
                    new_citations.append(citation)
        events: list[SearchEvent] = [*self._sources.sources_event()]
        if new_citations:  # only the new ones: appending costs what arrived, not the whole list again
            events.append(CitationsFound(tuple(new_citations)))
        if queries:
            self.queries.extend(queries)
            events.append(SearchQueries(tuple(queries)))
        return events


def _unwrap(payload: Any) -> dict[str, Any]:
    """The response dict, unwrapping the Cloud Code ``{"response": {...}}`` shape defensively."""
    response = parse.as_dict(payload)
    inner = response.get("response")
    if isinstance(inner, dict) and "candidates" not in response and "error" not in response:
        return inner
    return response


def _part_texts(candidate: dict[str, Any]) -> list[str]:
    """The non-empty ``text`` of each answer part (as sent), skipping ``thought`` parts."""
    return [
        part["text"]
        for part in parse.as_list(parse.as_dict(candidate.get("content")).get("parts"))
        if isinstance(part, dict)
        and part.get("thought") is not True
        and isinstance(part.get("text"), str)
        and part["text"]
    ]


def _chunk_ref(chunk: Any) -> _ChunkRef:
    """A grounding chunk of kind ``web`` or ``retrievedContext``: its http(s) URL (else ``None``) and
    title (``title``, else ``domain``, else the URL)."""
    chunk = parse.as_dict(chunk)
    body = parse.as_dict(chunk.get("web") or chunk.get("retrievedContext"))
    url = safe_url(body.get("uri"))
    title = plain_text(body.get("title"), collapse=True) or plain_text(body.get("domain"), collapse=True)
    return _ChunkRef(url=url, title=title or url or "")


def _support_citations(support: dict[str, Any], refs: list[_ChunkRef]) -> list[Citation]:
    """One citation per usable chunk index of a ``groundingSupports`` entry, ``cited_text`` = the
    segment text (a span of the Markdown answer) as plain text (:func:`.helpers.parse.markdown_quote`).
    Indices out of range and chunks without an http(s) URL give nothing."""
    segment = parse.as_dict(support.get("segment"))
    cited = parse.markdown_quote(segment.get("text"))
    citations = []
    for index in parse.as_list(support.get("groundingChunkIndices")):
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(refs):
            continue
        ref = refs[index]
        if ref.url:
            citations.append(Citation(url=ref.url, title=ref.title or ref.url, cited_text=cited))
    return citations


def _usage(raw: Any) -> Usage | None:
    """``usageMetadata``: prompt -> input, candidates -> output, total -> total tokens."""
    return parse.usage_from(raw, input="promptTokenCount", output="candidatesTokenCount", total="totalTokenCount")


async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncGenerator[SearchEvent, None]:
    """Run one grounded Gemini search and yield its events as they arrive.

    Yields ``Metadata`` (model, response id), one ``AnswerDelta`` per text part, then with the last
    chunk ``SourcesFound``/``CitationsFound`` (replace) and ``SearchQueries``; after the stream the
    closing ``Metadata`` (usage, ``search_requests`` = number of queries) and, once redirect links
    are resolved, ``SourcesFound``/``CitationsFound`` (replace) with the real URLs. A ``Note`` flags
    an answer produced without any Google Search, or cut short.

    Raises:
        ProviderError: ``config`` without a key; ``auth`` (401/403, or 400 "API key not valid"),
            ``rate_limit`` (429 with ``RetryInfo``, retried with its delay), ``quota`` (429 without a
            hint), ``bad_request`` (400, or a blocked prompt), ``model_not_found`` (an unknown or
            retired model: ``Gemini: model '<id>' is not available (404). Set [providers.gemini]
            model, or run websearch-tui doctor gemini``), ``not_found`` (another 404),
            ``server``, ``timeout``, ``network``; ``protocol`` when the stream ends before the chunk
            with ``finishReason``; ``empty`` (status 502) when nothing was answered or found. A
            failure after the first event comes after the events already yielded.
    """
    key = ctx.require_api_key()
    model = ctx.model() or ""
    url = stream_url(ctx.base_url(), model)
    headers = {"x-goog-api-key": key, "Accept": "text/event-stream"}
    parser = ChunkParser(requested_model=model, max_results=request.max_results, provider_id=ctx.spec.id)
    check = models.ModelCheck(ctx.spec.id, ctx.spec.label, model.removeprefix("models/"), models.gemini_gone)
    events = feed_stream(
        ctx,
        url,
        headers=headers,
        body=build_body(request),
        describe_error=check.describer(describe_error),
        parser=parser,
        on_error=lambda exc: _reclassify(check.requalify(exc), ctx.spec.label),
        expect=SHAPE,
    )
    async with aclosing(events) as running:
        async for event in running:
            yield event
    if not parser.has_text and not parser.sources:
        raise ProviderError(ctx.spec.id, ErrorKind.EMPTY, EMPTY_MESSAGE, status=502)
    deadline = ctx.deadline - RESOLVE_MARGIN
    endpoint = grounding.origin_of(ctx.base_url())
    links = parser.redirect_links(trusted=[endpoint] if endpoint else [])
    mapping = await grounding.resolve_redirects(ctx.client, links, deadline=deadline, clock=ctx.clock)
    for event in parser.resolved(mapping):
        yield event
