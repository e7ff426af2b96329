"""The Responses-API dialect shared by ``openai``, ``codex``, ``grok`` and ``ark``.

All four speak the OpenAI Responses shape (PROVIDERS.md §2.20, §2.21, §2.23, §2.24): a request
``{"model", "input", "tools", ...}`` and a response ``{"id", "model", "status", "output": [...],
"usage"}`` whose ``output`` holds ``web_search_call`` items (OpenAI: ``action.query/queries/sources``;
xAI: a JSON-string ``arguments``; Codex: also ``sources[]``/``results[]``), ``message`` items with
``output_text`` parts carrying ``url_citation`` annotations, and ``reasoning`` items (ignored).
Streamed, the same facts arrive as ``response.*`` events (§2.20 "Streaming").

This module holds everything the four providers share:

- request pieces: :func:`user_input`, :func:`system_input`, :func:`accepts_temperature`,
  :func:`search_context_size`;
- :class:`ResponsesParser`: turns stream events (or one whole response) into our events (the
  :class:`.transport.streaming.StreamParser` contract);
- :func:`stream_search` (notes + a fresh parser through the shared SSE loop
  :func:`.transport.streaming.feed_stream`, the whole ``stream`` of a provider), :func:`api_key_stream` (the
  same with an API key) and :func:`run_whole` (one JSON response);
- error wording: :func:`http_error_describer`, :func:`stream_error`; an HTTP answer saying the
  model does not exist fails as ``model_not_found`` (:mod:`.helpers.models`, each provider's predicate
  passed as ``model_gone``).

Checked 2026-12-02 against https://developers.openai.com/api/docs/guides/tools-web-search (the
``web_search`` tool, GA name; ``web_search_preview`` is the old one) and a recorded gpt-5 Responses
answer (pydantic-ai ``test_thinking_with_native_tool_wire_contract[openai-responses]``, 2026-06-10).
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncGenerator, Callable, Iterable, Mapping
from contextlib import aclosing
from dataclasses import field
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from websearch_tui.core.errors import ErrorKind, ProviderError, excerpt, mentions_quota
from websearch_tui.core.models import (
    AnswerDelta,
    Citation,
    CitationsFound,
    Metadata,
    Note,
    SearchEvent,
    SearchQueries,
    SearchRequest,
    Source,
    Usage,
)
from websearch_tui.core.records import record
from websearch_tui.core.text import canonical_url, plain_text, safe_url, sanitize
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.helpers import models, parse, prompt
from websearch_tui.providers.helpers.text_parts import Part, PartKey, add_delta, message_key, part_key, reconcile
from websearch_tui.providers.transport import http
from websearch_tui.providers.transport.shape import Shape
from websearch_tui.providers.transport.streaming import MetadataTracker, feed_stream

CITED_TEXT_CHARS = 300
"""At most this many characters of answer text before a citation become its ``cited_text``."""


CONTEXT_SIZES = ("low", "medium", "high")
"""Allowed values of the hosted ``web_search`` tool's ``search_context_size``."""
PAGE_ACTIONS = ("open_page", "find_in_page")
FINAL_EVENTS = ("response.completed", "response.done", "response.incomplete")
TRACKING_PARAMS = {("utm_source", "openai")}
NO_SEARCH_NOTE = "{label} answered without searching the web; the answer may be out of date."

_NO_TEMPERATURE = re.compile(r"^(?:o\d|gpt-(?:[5-9]|[1-9]\d)|codex|computer-use)", re.IGNORECASE)
_BARE_URL = re.compile(r"https?://[^\s<>\"'`\[\]{}|\\^]+")
_CITATION_LINK = re.compile(r"\(\[[^\[\]\n]*\]\([^\s()]+\)\)")
_SENTENCE_END = re.compile(r"(?:[.!?。！？]\s|\n)")


# --------------------------------------------------------------------------- request pieces


def user_input(
    request: SearchRequest, *, typed: bool = True, scope: str = "web", item_type: bool = False
) -> dict[str, Any]:
    """The user message of ``input``: the §1.5 prompt.

    ``typed`` gives ``content: [{"type": "input_text", "text": ...}]`` (OpenAI, Codex, ARK), else
    ``content: "<text>"`` (xAI); ``item_type`` adds ``"type": "message"`` (Codex); ``scope`` is the
    :func:`prompt.user_prompt` scope (``web``, ``x``, ``both``).
    """
    text = prompt.user_prompt(request, scope=scope)
    content: Any = [{"type": "input_text", "text": text}] if typed else text
    message: dict[str, Any] = {"role": "user", "content": content}
    return {"type": "message", **message} if item_type else message


def system_input(*, typed: bool = True) -> dict[str, Any]:
    """The system prompt as a ``system`` input message (for APIs without ``instructions``)."""
    content: Any = [{"type": "input_text", "text": prompt.SYSTEM_PROMPT}] if typed else prompt.SYSTEM_PROMPT
    return {"role": "system", "content": content}


def search_context_size(ctx: ProviderContext, name: str, default: str) -> tuple[str, list[str]]:
    """The ``search_context_size`` option (``default`` when unset) and a note when it is not one of
    :data:`CONTEXT_SIZES` (then ``default`` is used): ``"<name> search_context_size ... used <default>."``."""
    value = ctx.option("search_context_size", default)
    return parse.choice_option(value, CONTEXT_SIZES, default, f"{name} search_context_size")


def accepts_temperature(model: str) -> bool:
    """False for reasoning models that reject ``temperature``: the o-series, GPT-5 and later
    (``gpt-5*``, ``gpt-6*``, ``gpt-6.1-terra``: reasoning models whose sampling is set by
    ``reasoning.effort``), codex models."""
    return not _NO_TEMPERATURE.match(model or "")


def sampling_fields(
    request: SearchRequest, model: str, label: str, *, temperature_ok: bool
) -> tuple[dict[str, Any], list[str]]:
    """``max_output_tokens`` / ``temperature`` for the body (only when the request sets them) and notes.

    ``temperature`` is dropped with a note when ``temperature_ok`` is false for ``model``.
    """
    fields: dict[str, Any] = {}
    notes: list[str] = []
    if request.max_tokens is not None:
        fields["max_output_tokens"] = request.max_tokens
    if request.temperature is not None:
        if temperature_ok:
            fields["temperature"] = request.temperature
        else:
            notes.append(f"{label}: temperature ignored ({model} does not accept it).")
    return fields, notes


# --------------------------------------------------------------------------- normalisation helpers


def clean_url(value: object) -> str | None:
    """An absolute http(s) URL with ``utm_source=openai`` removed, else ``None``."""
    url = safe_url(value)
    if url is None or "utm_source" not in url:
        return url
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if (k, v) not in TRACKING_PARAMS]
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), parts.fragment))


def cited_text(text: str, start: object) -> str | None:
    """The answer text just before ``start`` back to the previous sentence end or line break.

    At most :data:`CITED_TEXT_CHARS` characters of plain text (:func:`.helpers.parse.markdown_quote`: no
    link, emphasis or list syntax), an opening ``(`` of the citation link dropped; ``None`` without a
    usable ``start`` or text.
    """
    if isinstance(start, bool) or not isinstance(start, int) or start <= 0 or not text:
        return None
    before = text[: min(start, len(text))].rstrip().rstrip("(").rstrip()
    tail = before[-CITED_TEXT_CHARS * 2 :]
    previous = list(_CITATION_LINK.finditer(tail))
    if previous:  # an earlier "([site](url))" citation ends the span this one supports
        tail = tail[previous[-1].end() :]
    ends = list(_SENTENCE_END.finditer(tail[:-1])) if tail else []
    if ends:
        tail = tail[ends[-1].end() :]
    clean = parse.markdown_quote(tail)
    if not clean:
        return None
    return clean[-CITED_TEXT_CHARS:].lstrip()


def links_in(text: str) -> list[tuple[str, str | None, int]]:
    """``(url, title or None, offset)`` for markdown links and bare URLs in ``text``, in order.

    Bare URLs lose trailing punctuation and unbalanced closing brackets; URLs inside a markdown
    link are not reported twice.
    """
    found: list[tuple[str, str | None, int]] = []
    spans: list[tuple[int, int]] = []
    for match in parse.MARKDOWN_LINK.finditer(text):
        spans.append(match.span())
        found.append((match.group(2), match.group(1), match.start()))
    for match in _BARE_URL.finditer(text):
        if any(a <= match.start() < b for a, b in spans):
            continue
        found.append((_trim_url(match.group(0)), None, match.start()))
    found.sort(key=lambda item: item[2])
    return found


def _trim_url(url: str) -> str:
    url = url.rstrip(".,;:!?'\"*_~")
    while url.endswith(")") and url.count(")") > url.count("("):
        url = url[:-1].rstrip(".,;:!?'\"*_~")
    return url


# --------------------------------------------------------------------------- errors


def http_error_describer(prefix: str) -> http.ErrorDescriber:
    """``"<prefix> (<status>): <message>"`` from an OpenAI-style ``{"error": {...}}`` body, a string
    ``error`` (xAI) or a top-level ``message``; a redacted excerpt of the body otherwise."""
    return parse.api_error_describer(prefix, lambda parsed: parse.find_message(parsed, ("error", "message", "detail")))


def _error_fields(payload: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """``(code, message)`` of a stream error in any of its three nestings: ``{error: {...}}``,
    ``{response: {error: {...}}}`` or top-level ``{code, message}`` (Codex, PROVIDERS.md §2.21)."""
    response = parse.as_dict(payload.get("response"))
    for candidate in (payload.get("error"), response.get("error"), payload):
        if isinstance(candidate, str) and candidate.strip():
            return None, candidate.strip()
        if not isinstance(candidate, dict):
            continue
        code = parse.code_text(candidate.get("code")) or parse.code_text(
            candidate.get("type") if candidate is not payload else None
        )
        message = parse.find_message(candidate, ("message", "detail"))
        if code or message:
            return code, message
    return None, None


_KINDS: tuple[tuple[tuple[str, ...], ErrorKind, int], ...] = (
    (("insufficient_quota", "quota", "billing", "credit"), ErrorKind.QUOTA, 429),
    (("rate_limit", "rate limit", "too many requests", "429"), ErrorKind.RATE_LIMIT, 429),
    (("unauthorized", "invalid_api_key", "authentication", "401"), ErrorKind.AUTH, 401),
    (("forbidden", "permission", "403"), ErrorKind.AUTH, 403),
    (("timeout", "timed out"), ErrorKind.TIMEOUT, 504),
    (
        ("invalid_request", "invalid_prompt", "context_length", "not supported", "unsupported_parameter"),
        ErrorKind.BAD_REQUEST,
        400,
    ),
)


def stream_error(provider_id: str, label: str, payload: Mapping[str, Any]) -> ProviderError:
    """The :class:`ProviderError` for an ``error`` / ``response.failed`` event (or an error body).

    Message ``"<Label> error (<code>): <message>"``; kind by code and message: quota (also any
    "insufficient"/"quota" wording), rate_limit, auth (401/403), timeout, bad_request, else server.
    """
    code, message = _error_fields(payload)
    text = f"{code or ''} {message or ''}".lower()
    kind, status = ErrorKind.SERVER, 500
    for words, candidate, candidate_status in _KINDS:
        if any(word in text for word in words) or (candidate is ErrorKind.QUOTA and mentions_quota(text)):
            kind, status = candidate, candidate_status
            break
    shown = excerpt(message or "no details", 500)
    head = f"{label} error ({code})" if code else f"{label} error"
    return ProviderError(provider_id, kind, f"{head}: {shown}", status=status)


# --------------------------------------------------------------------------- the parser


@record
class ResponsesParser:
    """Turns Responses events (or a whole response object) into :data:`SearchEvent` values.

    The :class:`.transport.streaming.StreamParser` contract: ``feed(name, payload)`` returns the events one
    stream event adds (``"json"`` names a whole response body); ``finished`` (and ``done``) turns
    true with the final event (``response.completed`` / ``.done`` / ``.incomplete``) or a whole
    response; ``closing()`` gives the closing events (fallback citations, the no-search note, the
    final ``Metadata``). ``whole(response)`` gives the events of a complete response body.

    Sources: every search-call row and cited URL, selected by :class:`.helpers.parse.SourceSelection` (cut
    to ``max_results`` but keeping every cited one; a cited URL's source takes the title a search
    row gives it).

    Options: ``join_messages`` (all message texts joined with a blank line; ``False`` keeps only the
    last non-blank one, as ARK), ``require_search`` (Codex: a completion without any search call is
    a failure, ``server`` 502, given by :meth:`failure` after the closing events).

    Raises (from ``feed``/``whole``): :class:`ProviderError` for ``error`` and ``response.failed``
    events and for error bodies (see :func:`stream_error`).
    """

    provider_id: str
    label: str
    requested_model: str
    max_results: int
    auth_mode: str = "api_key"
    join_messages: bool = True
    require_search: bool = False
    usage: Usage | None = None
    searched: bool = False
    finished: bool = False
    incomplete_reason: str | None = None
    _parts: dict[PartKey, Part] = field(default_factory=dict)
    _answer: list[str] = field(default_factory=list)
    _sources: parse.SourceSelection = field(init=False)
    _cited: bool = False
    _queries: list[str] = field(default_factory=list)
    _search_calls: int = 0
    _seen_calls: set[str] = field(default_factory=set)
    _meta: MetadataTracker = field(init=False)

    def __post_init__(self) -> None:
        self._meta = MetadataTracker(self.requested_model, self.auth_mode)
        self._sources = parse.SourceSelection(self.max_results, fill_titles=True)

    # ---- public

    @property
    def done(self) -> bool:
        """The final event arrived (the same as :attr:`finished`)."""
        return self.finished

    @property
    def model(self) -> str | None:
        """The model the stream reported, if any."""
        return self._meta.model

    @property
    def request_id(self) -> str | None:
        """The response id the stream reported, if any."""
        return self._meta.request_id

    @property
    def answer(self) -> str:
        """The answer text emitted so far, as sent (the reducer sanitizes it)."""
        return "".join(self._answer)

    def feed(self, name: str, payload: Any) -> list[SearchEvent]:
        """Events for one stream event; ``name`` is the SSE event name (``payload.type`` wins)."""
        if not isinstance(payload, dict):
            return []
        kind: str = payload["type"] if isinstance(payload.get("type"), str) else name
        if kind == "json":  # a server that ignored stream: true
            return self.whole(payload)
        if kind == "error" or kind == "response.failed":
            raise stream_error(self.provider_id, self.label, payload)
        if kind in ("response.created", "response.in_progress", "response.queued"):
            return self._metadata(parse.as_dict(payload.get("response")))
        if kind == "response.output_text.delta":
            return self._delta(part_key(payload), payload.get("delta"))
        if kind == "response.output_text.annotation.added":
            index = parse.int_field(payload, "annotation_index", minimum=0)
            return self._annotations(part_key(payload), [payload.get("annotation")], index)
        if kind == "response.output_text.done":
            return self._reconcile_part(part_key(payload), payload.get("text"))
        if kind.startswith("response.web_search_call.") or kind.startswith("response.x_search_call."):
            self.searched = True
            return []
        if kind in ("response.output_item.added", "response.output_item.done"):
            return self._item(payload.get("item"), payload.get("output_index"), done=kind.endswith(".done"))
        if kind in FINAL_EVENTS:
            return self._final(parse.as_dict(payload.get("response")))
        return []

    def whole(self, response: Any) -> list[SearchEvent]:
        """Events for one complete response object (non-streaming, or a JSON fallback)."""
        response = parse.as_dict(response)
        if response.get("error") and not response.get("output"):
            raise stream_error(self.provider_id, self.label, response)
        return self._final(response)

    def replace_answer(self, response: Any) -> tuple[list[SearchEvent], bool]:
        """Events for a continuation response whose answer replaces the current one (ARK).

        Returns ``(events, replaced)``: when the new response has no visible answer, the old
        answer is kept and no ``AnswerDelta`` is returned. Sources and citations merge.
        """
        saved_answer, saved_parts = self._answer, self._parts
        self._answer, self._parts = [], {}
        events = self.whole(response)
        if self.answer.strip():
            return events, True
        self._answer, self._parts = saved_answer, saved_parts
        return [e for e in events if not isinstance(e, AnswerDelta)], False

    def closing(self) -> list[SearchEvent]:
        """The closing events (after the final event: see :attr:`finished`).

        After the returned events, call :meth:`failure` (Codex without a search).
        """
        events: list[SearchEvent] = []
        if not self._cited:
            events.extend(self._citations_from_links())
        if self.incomplete_reason:
            reason = self.incomplete_reason.replace("_", " ")
            events.append(Note(f"{self.label} stopped early ({reason}); the answer is cut short."))
        if not self.searched and not self.require_search:
            events.append(Note(NO_SEARCH_NOTE.format(label=self.label)))
        events.append(self._final_metadata())
        return events

    def failure(self) -> ProviderError | None:
        """The error to raise after :meth:`closing` (Codex completion without any web search)."""
        if self.require_search and not self.searched:
            return ProviderError(
                self.provider_id,
                ErrorKind.SERVER,
                f"{self.label} returned a completion without running web search",
                status=502,
            )
        return None

    # ---- text

    def _emit_text(self, text: str) -> list[SearchEvent]:
        if not text:
            return []
        self._answer.append(text)
        return [AnswerDelta(text)]

    def _delta(self, key: PartKey, delta: object) -> list[SearchEvent]:
        pieces = add_delta(self._parts, key, delta, after_text=bool(self.answer.strip()))
        return [event for piece in pieces for event in self._emit_text(piece)]

    def _reconcile_part(self, key: PartKey, full: object) -> list[SearchEvent]:
        """Emit what the final text of a part adds to its streamed deltas (all of it when none came)."""
        pieces = reconcile(self._parts, key, full, after_text=bool(self.answer.strip()))
        return [event for piece in pieces for event in self._emit_text(piece)]

    # ---- items

    def _item(self, item: Any, output_index: Any, *, done: bool) -> list[SearchEvent]:
        item = parse.as_dict(item)
        item_type = str(item.get("type") or "")
        if item_type.endswith("search_call"):
            self.searched = True
            return self._search_call(item) if done else []
        if item_type == "message" and done:
            return self._message(item, output_index)
        return []

    def _search_call(self, item: dict[str, Any]) -> list[SearchEvent]:
        call_id = str(item.get("id") or "") or json.dumps(item, sort_keys=True)[:500]
        if call_id in self._seen_calls:
            return []
        self._seen_calls.add(call_id)
        action = parse.as_dict(item.get("action"))
        queries: list[str] = []
        sources: list[Source] = []
        if action.get("type") in PAGE_ACTIONS:  # a page visit, not a search
            sources.extend(_rows([{"url": action.get("url")}]))
        else:
            self._search_calls += 1
        queries.extend(_texts([action.get("query"), *parse.as_list(action.get("queries"))]))
        sources.extend(_rows(row for row in parse.as_list(action.get("sources")) if _is_url_row(row)))
        arguments = _arguments(item.get("arguments"))
        queries.extend(_texts([arguments.get("query"), *parse.as_list(arguments.get("queries"))]))
        for key in ("sources", "results"):
            sources.extend(_rows(row for row in parse.as_list(item.get(key)) if _is_url_row(row)))
        events: list[SearchEvent] = []
        new_queries = [q for q in dict.fromkeys(queries) if q not in self._queries]
        if new_queries:
            self._queries.extend(new_queries)
            events.append(SearchQueries(tuple(new_queries)))
        self._sources.add(sources)
        events.extend(self._sources.sources_event())
        return events

    def _message(self, item: dict[str, Any], output_index: Any) -> list[SearchEvent]:
        events: list[SearchEvent] = []
        for index, content in enumerate(parse.as_list(item.get("content"))):
            content = parse.as_dict(content)
            if content.get("type") not in ("output_text", "text"):
                continue
            # deltas may have been keyed by the item id or, without one, by the output position:
            # reconcile with whichever already exists so the answer is never repeated
            key = message_key(item.get("id"), output_index, index, self._parts)
            if self.join_messages:
                events.extend(self._reconcile_part(key, content.get("text")))
            elif isinstance(content.get("text"), str) and not self._parts.get(key, Part()).text:
                self._parts.setdefault(key, Part()).text = content["text"]  # offsets only; see _final
            annotations = parse.as_list(content.get("annotations"))
            part = self._parts.get(key) or Part()
            events.extend(self._annotations(key, annotations[part.annotations :], part.annotations))
        return events

    # ---- citations and sources

    def _annotations(self, key: PartKey, annotations: list[Any], first_index: int | None) -> list[SearchEvent]:
        part = self._parts.setdefault(key, Part())
        base = part.annotations if first_index is None else first_index
        citations: list[Citation] = []
        for offset, annotation in enumerate(annotations):
            index = base + offset
            if index < part.annotations:
                continue  # already taken from an earlier event
            part.annotations = index + 1
            annotation = parse.as_dict(annotation)
            if annotation.get("type", "url_citation") != "url_citation":
                continue
            url = clean_url(annotation.get("url"))
            if url is None:
                continue
            title = plain_text(annotation.get("title"), collapse=True) or url
            citations.append(
                Citation(url=url, title=title, cited_text=cited_text(part.text, annotation.get("start_index")))
            )
        return self._add_citations(citations)

    def _add_citations(self, citations: list[Citation]) -> list[SearchEvent]:
        if not citations:
            return []
        self._cited = True
        self._sources.add(Source(url=citation.url, title=citation.title) for citation in citations)
        self._sources.cite(citation.url for citation in citations)
        return [CitationsFound(tuple(citations)), *self._sources.sources_event()]

    def _citations_from_links(self) -> list[SearchEvent]:
        """Citations (and sources) from the markdown links and bare URLs of the answer, when the
        response had no ``url_citation`` annotations at all (PROVIDERS.md §2.20, §2.21)."""
        # Read from the answer as it is shown, once: an escape sequence inside a link must neither
        # cut the URL short nor end up in it, and the cited_text offsets are into this same text.
        text = sanitize(self.answer)
        citations: list[Citation] = []
        seen: set[str] = set()
        for raw_url, title, offset in links_in(text):
            url = clean_url(raw_url)
            if url is None or canonical_url(url) in seen:
                continue
            seen.add(canonical_url(url))
            name = plain_text(title, collapse=True) if title else None
            citations.append(Citation(url=url, title=name or url, cited_text=cited_text(text, offset)))
        return self._add_citations(citations)

    # ---- metadata and the final response

    def _metadata(self, response: dict[str, Any]) -> list[SearchEvent]:
        return self._meta.update(response.get("model"), response.get("id"))

    def _final(self, response: dict[str, Any]) -> list[SearchEvent]:
        """Reconcile with the complete response: items, text and annotations not seen streamed, usage."""
        status = response.get("status")
        if status == "failed" or (response.get("error") and status not in ("completed", "incomplete")):
            raise stream_error(self.provider_id, self.label, {"response": response})
        self.finished = True
        if status == "incomplete":
            details = parse.as_dict(response.get("incomplete_details"))
            self.incomplete_reason = plain_text(details.get("reason"), collapse=True) or "incomplete"
        events = self._metadata(response)
        output = [parse.as_dict(item) for item in parse.as_list(response.get("output"))]
        for index, item in enumerate(output):
            events.extend(self._item(item, index, done=True))
        if not self.join_messages and not self.answer.strip():
            events.extend(self._emit_text(_last_message_text(output)))
        if not self.answer.strip() and isinstance(response.get("output_text"), str):
            events.extend(self._emit_text(response["output_text"]))
        self.usage = _usage(response, self._search_calls) or self.usage
        if self.usage is not None and (self.usage.search_requests or 0) > 0:
            self.searched = True
        return events

    def _final_metadata(self) -> Metadata:
        return self._meta.metadata(self.usage)


def _texts(values: Iterable[object]) -> list[str]:
    return [text for text in (plain_text(v, collapse=True) for v in values) if text]


def _is_url_row(row: object) -> bool:
    return isinstance(row, dict) and row.get("type", "url") == "url"


def _rows(rows: Iterable[Any]) -> list[Source]:
    """Sources from ``{url | source_website_url, title | caption, snippet}`` rows (tracking removed)."""
    sources = []
    for row in rows:
        url = clean_url(row.get("url") or row.get("source_website_url"))
        source = parse.make_source(url, row.get("title") or row.get("caption"), row.get("snippet"))
        if source is not None:
            sources.append(source)
    return sources


def _arguments(value: object) -> dict[str, Any]:
    """xAI's JSON-string ``arguments`` of a search call, parsed (``{}`` when unusable)."""
    if isinstance(value, dict):
        return value
    if not isinstance(value, str) or not value.strip():
        return {}
    try:
        parsed = json.loads(value)
    except (ValueError, RecursionError):
        return {}
    return parsed if isinstance(parsed, dict) else {}


def _last_message_text(output: list[dict[str, Any]]) -> str:
    """The last non-blank ``output_text`` of the ``message`` items (ARK's answer rule)."""
    texts: list[str] = [
        content["text"]
        for item in output
        if item.get("type") == "message"
        for content in map(parse.as_dict, parse.as_list(item.get("content")))
        if content.get("type") in ("output_text", "text") and isinstance(content.get("text"), str)
    ]
    blank_free = [t for t in texts if t.strip()]
    return blank_free[-1] if blank_free else ""


def _usage(response: dict[str, Any], search_calls: int) -> Usage | None:
    """Tokens from ``usage``; searches from ``tool_usage.web_search.num_requests`` (OpenAI), else
    ``usage.num_server_side_tools_used`` (xAI), else the number of search calls seen."""
    raw = response.get("usage")
    tool_usage = parse.as_dict(response.get("tool_usage")).get("web_search")
    searches = parse.int_field(tool_usage, "num_requests", minimum=0)
    if searches is None:
        searches = parse.int_field(raw, "num_server_side_tools_used", minimum=0)
    if searches is None and search_calls:
        searches = search_calls
    return parse.usage_from(raw, input="input_tokens", output="output_tokens", total="total_tokens", searches=searches)


# --------------------------------------------------------------------------- running


SHAPE = Shape.of("output", "error", types=("error",), type_prefixes=("response.",))
"""A Responses answer: a whole response (``output``), an ``{"error": ...}`` body (read by
:meth:`ResponsesParser.whole`, ARK sends one with HTTP 200) or ``response.*`` / ``error`` events."""


async def stream_search(
    request: SearchRequest,
    ctx: ProviderContext,
    url: str,
    *,
    headers: Mapping[str, str],
    body: Mapping[str, Any],
    notes: Iterable[str],
    describe_error: http.ErrorDescriber,
    model_gone: models.ModelGone | None = None,
    **parser_options: Any,
) -> AsyncGenerator[SearchEvent, None]:
    """A Responses provider's whole ``stream``: ``Note`` per note, then a fresh
    :class:`ResponsesParser` for ``ctx.spec`` (``parser_options`` such as ``auth_mode`` or
    ``require_search`` go to it) through :func:`.transport.streaming.feed_stream`: ``body`` POSTed to ``url``,
    the parser's events as the SSE stream arrives (a 2xx JSON body, from a server that ignored
    ``stream: true``, is parsed as one whole response), then its closing events. The HTTP stream
    closes even if the consumer stops early.

    Raises:
        ProviderError: HTTP errors (``describe_error`` wording; 401/403 the seed message; an answer
            ``model_gone`` recognises as ``model_not_found``, :mod:`.helpers.models`),
            ``error``/``response.failed`` events, ``protocol`` when the stream ends before its
            final event, and :meth:`ResponsesParser.failure` (after the closing events).
    """
    for note in notes:
        yield Note(note)
    parser = ResponsesParser(
        provider_id=ctx.spec.id,
        label=ctx.spec.label,
        requested_model=body["model"],
        max_results=request.max_results,
        **parser_options,
    )
    check = models.ModelCheck(ctx.spec.id, ctx.spec.label, str(body["model"]), model_gone or _never_gone)
    events = feed_stream(
        ctx,
        url,
        headers=headers,
        body=dict(body),
        describe_error=check.describer(describe_error),
        parser=parser,
        on_error=check.requalify,
        expect=SHAPE,
    )
    async with aclosing(events) as stream_events:
        async for event in stream_events:
            yield event
    failure = parser.failure()
    if failure is not None:
        raise failure


async def api_key_stream(
    request: SearchRequest,
    ctx: ProviderContext,
    path: str,
    build_body: Callable[[SearchRequest, ProviderContext], tuple[dict[str, Any], list[str]]],
    describe_error: http.ErrorDescriber,
    model_gone: models.ModelGone | None = None,
) -> AsyncGenerator[SearchEvent, None]:
    """The whole ``stream`` of an API-key Responses provider (OpenAI, Grok): the key as
    ``Authorization: Bearer``, ``build_body(request, ctx) -> (body, notes)`` POSTed to ``path`` under
    the configured base URL, then :func:`stream_search` (``model_gone`` as there).

    Raises:
        ProviderError: ``config`` without a key; otherwise as :func:`stream_search`.
    """
    key = ctx.require_api_key()
    body, notes = build_body(request, ctx)
    headers = {"Authorization": f"Bearer {key}", "Accept": "text/event-stream"}
    url = http.join_url(ctx.base_url(), path)
    events = stream_search(
        request, ctx, url, headers=headers, body=body, notes=notes, describe_error=describe_error, model_gone=model_gone
    )
    async with aclosing(events) as stream_events:
        async for event in stream_events:
            yield event


async def run_whole(
    ctx: ProviderContext,
    url: str,
    *,
    headers: Mapping[str, str],
    body: Mapping[str, Any],
    parser: ResponsesParser,
    describe_error: http.ErrorDescriber,
    model_gone: models.ModelGone | None = None,
) -> tuple[list[SearchEvent], Any]:
    """POST ``body`` (``stream: false``) and return the parser's events for the whole response and
    the parsed body (the closing events are left to the caller: call ``parser.closing()``).

    Raises:
        ProviderError: as :func:`.transport.http.send` (``describe_error`` wording); an answer
            ``model_gone`` recognises as ``model_not_found`` (:mod:`.helpers.models`); ``reply.json()``
            shape errors; an error object in the body (:meth:`ResponsesParser.whole`).
    """
    check = models.ModelCheck(ctx.spec.id, ctx.spec.label, str(body["model"]), model_gone or _never_gone)
    whole = http.HttpRequest(
        "POST",
        url,
        headers=headers,
        json_body=dict(body),
        describe_error=check.describer(describe_error),
        expect=SHAPE,
    )
    try:
        payload = (await http.send(ctx, whole)).json()
    except ProviderError as error:
        raise check.requalify(error) from None
    return parser.whole(payload), payload


def _never_gone(status: int, parsed: Any) -> bool:
    """The :data:`.helpers.models.ModelGone` of a provider that recognises no "no such model" answer."""
    return False
