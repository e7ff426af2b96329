"""Zhipu GLM chat completions with the built-in ``web_search`` tool, streamed over SSE.

Upstream endpoint: ``POST {base_url}/api/paas/v4/chat/completions`` (default ``https://open.bigmodel.cn``;
Z.AI international ``https://api.z.ai``), header ``Authorization: Bearer <key>``, ``stream: true``.
Docs: https://docs.bigmodel.cn/cn/guide/tools/web-search and https://docs.z.ai/guides/tools/web-search.
Wire reference: PROVIDERS.md §2.15 (row mapping and error codes §2.14, prompt §1.5, SSE §1.9).
API ``/api/paas/v4`` checked 2026-12-02.

Default model ``glm-5.3-flash`` (the registry's ``default_model``, kept) checked 2026-12-02 against
Z.AI's model page (https://docs.z.ai/guides/vlm/glm-5.3-flash, released 2026-08-26); whether it is
free on BigModel as earlier ``*-flash`` models were is not confirmed. An unknown model (400, code
``1211`` "模型不存在" / "Unknown Model") fails as ``model_not_found`` naming
``[providers.zhipu_chat_search] model``.

The tool is the nested ``{"type": "web_search", "web_search": {...}}`` object with the raw query as
``search_query`` (so the model cannot rewrite it), ``count`` from the request (1-50) and the native
``search_recency_filter``; the §1.5 prompt carries the date window and source cap as well.

Search results arrive as a top-level ``web_search`` array on a chunk and/or in a
``choices[].delta.tool_calls[]`` entry of ``type: "web_search"`` (``search_intent`` -> queries,
``search_result`` -> sources, ``search_recommend`` -> related questions). Mistyped fields in those
entries are skipped, never fatal. Citations come from the ``ref_N`` markers in the answer
(``[Source: ref_1]``, ``[来源：ref_1]``; a bare ``[N]`` when the answer has no ``ref_N`` marker at
all), matched to the result whose ``refer`` is ``ref_N``, in first-appearance order. The answer's
bracketed markers are rewritten as the app's ``[n]`` (:class:`MarkerRewriter`), ``n`` being the
citation's number, like every other provider's answer.

Errors can come as ``{"error": {"code", "message"}}`` with HTTP 200 (as the whole body or as a
stream event); the business code decides the kind (:mod:`.families.zhipu`).
"""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator, Iterable
from contextlib import aclosing
from dataclasses import field, replace
from typing import Any, ClassVar

from websearch_tui.core.errors import ErrorKind, ProviderError
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
    Usage,
)
from websearch_tui.core.records import record
from websearch_tui.core.text import plain_text, sanitize
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.families import zhipu
from websearch_tui.providers.helpers import models, parse
from websearch_tui.providers.helpers.prompt import SYSTEM_PROMPT, user_prompt
from websearch_tui.providers.transport import http
from websearch_tui.providers.transport.shape import Shape
from websearch_tui.providers.transport.streaming import MetadataTracker, feed_stream

PATH = "/api/paas/v4/chat/completions"
DEFAULT_ENGINE = "search_pro"
DEFAULT_CONTENT_SIZE = "medium"
DEFAULT_COUNT = 10
MAX_COUNT = 50
MAX_TEMPERATURE = 1.0
AUTH_MODE = "api_key"
PREFIX = "Zhipu Chat Search API error"
NO_SEARCH_NOTE = "Zhipu Chat Search returned no web_search results; the answer's web search was not confirmed."
LENGTH_NOTE = "Zhipu Chat Search stopped at the max_tokens limit; the answer is cut short."
SENSITIVE_NOTE = "Zhipu Chat Search stopped: the answer was blocked by content moderation (finish_reason sensitive)."

_REF = re.compile(r"(?<![A-Za-z0-9_])ref_(\d{1,4})(?!\d)")
_BARE = re.compile(r"\[(\d{1,3})\]")
_MARKER = re.compile(
    r"\[\s*(?:source|来源)\s*[:：]\s*(ref_\d{1,4}(?:\s*[,，、]\s*ref_\d{1,4}){0,9})\s*\]", re.IGNORECASE
)
_MARKER_START = re.compile(r"\[[\sA-Za-z来源:：_0-9,，、]{0,63}$")
"""The tail of a text that may still grow into a :data:`_MARKER` (``[Sour``, ``[来源：ref_1``)."""
UNMATCHED_REF_TITLE = "{ref}: not among the search results"
"""Title of the citation kept for a numbered marker whose result has not arrived (or never does)."""
MARKER_OVERLAP = 16
"""Characters of already-scanned answer text scanned again with each new chunk, so a marker split
across chunks (``ref_`` + ``12``) is still found; longer than any marker (``[Source: ref_1234]``)."""


SHAPE = Shape.of("choices", "web_search", "error")
"""A GLM chat-completion chunk (or whole response): ``choices``, ``web_search`` results, or ``error``."""


def build_body(request: SearchRequest, ctx: ProviderContext) -> tuple[dict[str, Any], list[str]]:
    """The JSON body and any user-visible notes about it.

    Shape: ``{"model", "messages": [system, user=<§1.5 prompt>], "tools": [{"type": "web_search",
    "web_search": {"enable", "search_engine", "search_query", "search_result", "require_search",
    "result_sequence", "count", "content_size"[, "search_recency_filter"]}}], "stream": true}`` plus
    ``max_tokens`` / ``temperature`` (capped at 1.0, GLM's maximum) only when the request sets them.
    """
    notes: list[str] = []
    tool: dict[str, Any] = {
        "enable": True,
        "search_engine": str(ctx.option("search_engine") or DEFAULT_ENGINE),
        "search_query": request.query,
        "search_result": True,
        "require_search": True,
        "result_sequence": "after",
        "count": parse.clamp_count(request.upstream_count, DEFAULT_COUNT, MAX_COUNT),
        "content_size": DEFAULT_CONTENT_SIZE,
    }
    if request.recency:
        tool["search_recency_filter"] = zhipu.RECENCY_FILTERS[request.recency]
    body: dict[str, Any] = {
        "model": ctx.model() or "",
        "messages": [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": user_prompt(request)},
        ],
        "tools": [{"type": "web_search", "web_search": tool}],
        "stream": True,
    }
    if request.max_tokens is not None:
        body["max_tokens"] = request.max_tokens
    if request.temperature is not None:
        body["temperature"] = min(float(request.temperature), MAX_TEMPERATURE)
        if request.temperature > MAX_TEMPERATURE:
            notes.append(f"Zhipu Chat Search accepts temperature up to {MAX_TEMPERATURE:g}; sent {MAX_TEMPERATURE:g}.")
    return body, notes


def cited_refs(answer: str) -> list[str]:
    """``ref_N`` markers of ``answer`` in first-appearance order (``ref_1``, ...), de-duplicated.

    When the answer has no ``ref_N`` marker at all, bare ``[N]`` markers are read as ``ref_N``.
    """
    scanner = RefScanner()
    scanner.feed(answer)
    return scanner.refs()


@record
class _Markers:
    """The refs one marker pattern found in a growing text, in first-appearance order."""

    pattern: re.Pattern[str]
    stable: dict[str, None] = field(default_factory=dict)
    tail: list[str] = field(default_factory=list)
    resume: int = 0
    scanned: int = 0

    def scan(self, window: str, offset: int) -> None:
        """Scan the text's end ``window`` (starting at index ``offset`` of the whole text) from the last
        stable match's end, or from :data:`MARKER_OVERLAP` characters before the previous end of the
        text when that is later. A match ending at the end of the text may still grow (``ref_1`` ->
        ``ref_12``): it is only kept in ``tail`` until a later scan finds it again."""
        start = max(self.resume, self.scanned - MARKER_OVERLAP)
        end = offset + len(window)
        self.scanned = end
        self.tail = []
        for match in self.pattern.finditer(window, max(0, start - offset)):
            ref = f"ref_{int(match.group(1))}"
            if offset + match.end() < end:
                self.stable.setdefault(ref, None)
                self.resume = offset + match.end()
            else:
                self.tail.append(ref)

    def refs(self) -> list[str]:
        """Stable refs then provisional ones (repeats included; the caller de-duplicates)."""
        return [*self.stable, *self.tail]


@record
class RefScanner:
    """:func:`cited_refs` of a growing answer, fed one piece at a time: each piece is scanned with
    only the :data:`MARKER_OVERLAP` characters before it (for markers split across pieces), and only
    those are kept, so the work and memory per piece do not grow with the answer."""

    _refs: _Markers = field(default_factory=lambda: _Markers(_REF))
    _bare: _Markers = field(default_factory=lambda: _Markers(_BARE))
    _window: str = ""
    _offset: int = 0

    def feed(self, text: str) -> None:
        """Read the markers of the next piece ``text`` of the answer."""
        window = self._window + text
        self._refs.scan(window, self._offset)
        self._bare.scan(window, self._offset)
        keep = min(len(window), MARKER_OVERLAP + 1)  # + the character a marker's look-behind reads
        self._offset += len(window) - keep
        self._window = window[len(window) - keep :]

    def refs(self) -> list[str]:
        """The cited refs so far, equal to :func:`cited_refs` of the whole text."""
        return list(dict.fromkeys(self._refs.refs() or self._bare.refs()))


@record
class MarkerRewriter:
    """Rewrites the answer's ``[Source: ref_3]`` / ``[来源：ref_3]`` (or ``[Source: ref_1, ref_2]``)
    markers as ``[n]`` while it streams: ``n`` numbers the refs in first-appearance order, so
    ``[n]`` is citation ``n`` (:attr:`numbers`). A chunk's tail that may still grow into a marker
    (from its last ``[``, at most 64 characters, no ``]`` yet) is held back until the next chunk or
    :meth:`flush`, so a marker split across chunks is rewritten whole."""

    numbers: dict[str, int] = field(default_factory=dict)
    _held: str = ""

    def feed(self, text: str) -> str:
        """The text of ``text`` (after what was held back) that can be shown now, markers rewritten."""
        text = self._held + text
        start = text.rfind("[")
        if start >= 0 and _MARKER_START.match(text, start):
            text, self._held = text[:start], text[start:]
        else:
            self._held = ""
        return _MARKER.sub(self._numbered, text)

    def flush(self) -> str:
        """What is still held back (the stream has ended), markers rewritten."""
        held, self._held = self._held, ""
        return _MARKER.sub(self._numbered, held)

    def _numbered(self, match: re.Match[str]) -> str:
        refs = (f"ref_{int(number)}" for number in re.findall(r"\d+", match.group(1)))
        return "".join(f"[{self.numbers.setdefault(ref, len(self.numbers) + 1)}]" for ref in refs)


@record
class ChunkParser:
    """Turns chat-completion chunks (or one whole completion) into events.

    The :class:`.transport.streaming.StreamParser` contract: ``feed(name, payload)`` returns what one payload
    adds (the name is not used): ``Metadata`` when the model or id first appears or changes, an
    ``AnswerDelta`` for its text, ``SourcesFound`` (replace: results selected by
    :class:`.helpers.parse.SourceSelection`, sliced to ``max_results`` plus every cited one) and
    ``CitationsFound`` (replace) when they change, ``SearchQueries`` for new search intents and
    ``RelatedQuestions`` for recommendations. ``finished`` turns true on a choice with a
    ``finish_reason``; ``done`` never does (usage may follow). :meth:`closing` gives the answer text
    still held back by the :class:`MarkerRewriter`, the closing ``Metadata`` (last usage) and notes.
    The ``AnswerDelta`` texts carry the rewritten ``[n]`` markers; :attr:`answer` is the answer as
    sent, which the :class:`RefScanner` reads.

    Raises (from ``feed``):
        ProviderError: an error envelope (kind from its business code), or ``finish_reason``
            ``network_error`` (``server``).
    """

    requested_model: str
    max_results: int
    provider_id: str = "zhipu_chat_search"
    usage: Usage | None = None
    finished: bool = False
    done: ClassVar[bool] = False  # usage may come after the chunk with the finish_reason: read until the server closes
    finish_reason: str | None = None
    queries: list[str] = field(default_factory=list)
    _by_ref: dict[str, Source] = field(default_factory=dict)
    _related: tuple[str, ...] = ()
    _sent_citations: tuple[Citation, ...] = ()
    _searched: bool = False
    _sources: parse.SourceSelection = field(init=False)
    _meta: MetadataTracker = field(init=False)
    _refs: RefScanner = field(default_factory=RefScanner)
    _markers: MarkerRewriter = field(default_factory=MarkerRewriter)

    def __post_init__(self) -> None:
        self._meta = MetadataTracker(self.requested_model, AUTH_MODE)
        self._sources = parse.SourceSelection(self.max_results)

    def feed(self, name: str, payload: Any) -> list[SearchEvent]:
        """Events for one payload (a dict); anything else gives no events."""
        if not isinstance(payload, dict):
            return []
        envelope = zhipu.error_envelope(payload) if not payload.get("choices") else None
        if envelope is not None:
            raise zhipu.envelope_error(self.provider_id, PREFIX, *envelope)
        request_id = plain_text(payload.get("request_id"), collapse=True) or payload.get("id")
        events: list[SearchEvent] = [*self._meta.update(payload.get("model"), request_id)]
        choices = parse.as_list(payload.get("choices"))
        choice = parse.as_dict(choices[0]) if choices else {}
        body = parse.as_dict(choice.get("delta")) or parse.as_dict(choice.get("message"))
        content = body.get("content")
        # Sanitized here, not only by the reducer: the ref_N markers are read from the answer as it
        # is shown (an escape sequence before "ref_1" would otherwise hide the marker).
        text = sanitize(content) if isinstance(content, str) else ""
        if text:
            self._refs.feed(text)
            shown = self._markers.feed(text)
            if shown:
                events.append(AnswerDelta(shown))
        grounding = self._grounding(payload, body)
        events.extend(grounding)
        usage = _usage(payload.get("usage"))
        if usage is not None:
            self.usage = usage
        reason = choice.get("finish_reason")
        if isinstance(reason, str) and reason:
            self.finished, self.finish_reason = True, reason
            if reason == "network_error":
                raise ProviderError(
                    self.provider_id,
                    ErrorKind.SERVER,
                    f"{PREFIX}: the model stopped with a network error; retry later.",
                )
        return events

    def closing(self) -> list[SearchEvent]:
        """The closing ``Metadata`` (usage; ``search_requests`` = 1 when the search returned data) and notes."""
        usage = self.usage
        if self._searched:
            usage = replace(usage or Usage(), search_requests=1)
        held = self._markers.flush()
        events: list[SearchEvent] = [AnswerDelta(held)] if held else []
        events.append(self._meta.metadata(usage))
        if self.finish_reason == "length":
            events.append(Note(LENGTH_NOTE))
        if self.finish_reason == "sensitive":
            events.append(Note(SENSITIVE_NOTE))
        if not self._sources.sources:
            events.append(Note(NO_SEARCH_NOTE))
        return events

    def _grounding(self, payload: dict[str, Any], body: dict[str, Any]) -> list[SearchEvent]:
        """Search data of one payload (top-level ``web_search``, ``tool_calls`` web_search entries)
        and the citation/source snapshots they (or new answer text) change."""
        events: list[SearchEvent] = []
        self._add_rows(payload.get("web_search"))
        new_queries: list[str] = []
        for call in parse.as_list(body.get("tool_calls")):
            search = parse.as_dict(parse.as_dict(call).get("web_search"))
            if not search:
                continue
            self._add_rows(search.get("search_result"))
            new_queries += [
                q for q in _intent_queries(search.get("search_intent")) if q not in self.queries + new_queries
            ]
            related = tuple(_recommendations(search.get("search_recommend")))
            if related and related != self._related:
                self._related = related
                events.append(RelatedQuestions(related))
        if new_queries:
            self._searched = True
            self.queries += new_queries
            events.append(SearchQueries(tuple(new_queries)))
        citations = self._citations()
        if citations != self._sent_citations:
            self._sent_citations = citations
            self._sources.cite_only(c.url for c in citations if c.url)  # a marker may vanish (ref_1 -> ref_12)
            events.append(CitationsFound(citations, replace=True))
        return [*self._sources.sources_event(), *events]

    def _add_rows(self, rows: Any) -> None:
        """Remember each usable result row as a source (de-duplicated) and by its ``refer`` id."""
        for row in parse.as_list(rows):
            if not isinstance(row, dict):
                continue
            parsed = zhipu.parse_results([row])
            if not parsed:
                continue
            source = parsed[0]
            self._searched = True
            self._sources.add([source])
            refer = plain_text(row.get("refer"), collapse=True)
            if refer and refer not in self._by_ref:
                self._by_ref[refer] = source

    def _citations(self) -> tuple[Citation, ...]:
        """Citation ``n`` for the ``n``-th numbered marker (:class:`MarkerRewriter`), a placeholder
        without a URL while its result is unknown, so later numbers stay aligned; then the results
        of other ``ref_N`` mentions (or, with no ``ref_N`` at all, of bare ``[N]`` markers)."""
        numbered = self._markers.numbers
        citations = [self._citation(ref) for ref in numbered]
        citations += [self._citation(ref) for ref in self._refs.refs() if ref not in numbered and ref in self._by_ref]
        return tuple(citations)

    def _citation(self, ref: str) -> Citation:
        source = self._by_ref.get(ref)
        if source is None:
            return Citation(url="", title=UNMATCHED_REF_TITLE.format(ref=ref))
        return Citation(url=source.url, title=source.title)


def _items(value: Any) -> list[Any]:
    """A list as is, a single object as a one-item list, anything else as ``[]``."""
    return value if isinstance(value, list) else [value] if isinstance(value, dict) else []


def _intent_queries(value: Any) -> Iterable[str]:
    """``search_intent`` entries ``{query, intent, keywords}`` -> their keywords (else query)."""
    for item in _items(value):
        entry = parse.as_dict(item)
        text = plain_text(entry.get("keywords"), collapse=True) or plain_text(entry.get("query"), collapse=True)
        if text:
            yield text


def _recommendations(value: Any) -> Iterable[str]:
    """``search_recommend`` entries ``{query}`` (or bare strings) -> follow-up questions."""
    seen: set[str] = set()
    for item in _items(value):
        text = plain_text(item.get("query") if isinstance(item, dict) else item, collapse=True)
        if text and text not in seen:
            seen.add(text)
            yield text


def _usage(raw: Any) -> Usage | None:
    """``usage``: prompt -> input, completion -> output, total tokens."""
    return parse.usage_from(raw, input="prompt_tokens", output="completion_tokens", total="total_tokens")


async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncGenerator[SearchEvent, None]:
    """Run one Zhipu GLM chat with web search and yield its events as they arrive.

    Yields ``Metadata``, ``AnswerDelta`` per token, ``SourcesFound``/``CitationsFound`` (replace)
    as results and ``ref_N`` markers appear, ``SearchQueries`` (search intents), ``RelatedQuestions``
    (recommendations), the closing ``Metadata`` with usage, and ``Note`` for an unconfirmed search,
    a cut-short or moderated answer, or a capped temperature. A server that ignores ``stream: true``
    and answers one JSON completion is read the same way.

    Raises:
        ProviderError: ``config`` without a key; ``auth`` (401/403 seed message, codes 1000-1004),
            ``rate_limit`` (429, codes 1302/1303/1701), ``quota`` (code 1113), ``bad_request`` (400,
            code 1214), ``server``, ``timeout``, ``network`` — also for an error envelope sent with
            HTTP 200; ``protocol`` when the stream ends before a ``finish_reason``;
            ``model_not_found`` (400, code 1211 about the model). A failure after
            the first event comes after the events already yielded.
    """
    key = ctx.require_api_key()
    body, notes = build_body(request, ctx)
    for note in notes:
        yield Note(note)
    codes: list[str] = []
    parser = ChunkParser(requested_model=body["model"], max_results=request.max_results, provider_id=ctx.spec.id)
    check = models.ModelCheck(ctx.spec.id, ctx.spec.label, body["model"], models.zhipu_gone)
    events = feed_stream(
        ctx,
        http.join_url(ctx.base_url(), PATH),
        headers={"Authorization": f"Bearer {key}", "Accept": "text/event-stream"},
        body=body,
        describe_error=check.describer(zhipu.error_describer(PREFIX, codes)),
        parser=parser,
        on_error=lambda exc: check.requalify(zhipu.with_code_kind(exc, codes)),
        expect=SHAPE,
    )
    async with aclosing(events) as running:
        async for event in running:
            yield event
