"""Perplexity Agent API: the answer engine the ``perplexity`` provider speaks by default.

Endpoint: ``POST {base_url}/v1/agent`` (default ``https://api.perplexity.ai``; ``/v1/responses`` is
an alias), ``Authorization: Bearer <key>``, ``stream: true``. Checked 2026-12-02 against the
docs.perplexity.ai agent-api docs (overview, presets, migrate-from-sonar, streaming citations) and
the Sept 2026 wire captures (a preset ``fast`` web-search response, whole and streamed, and a 401
body). It replaced Sonar chat completions, retired on 2026-09-27 (those stay reachable as
``api = "chat"``, :mod:`.perplexity`).

Request (:func:`build_body`)::

    {"input": "<bare query>", "stream": true,
     "preset": "low"                                  # or "model": "<provider>/<model>"
     "tools": [{"type": "web_search", "max_results": 10, "search_context_size": "medium",
                "filters": {"search_recency_filter": "week", "search_domain_filter": ["a.org", "-b.com"]}}],
     "tool_choice": {"type": "web_search"},           # search is forced: a model may skip it otherwise
     "max_output_tokens": 512, "instructions": "...", "temperature": 0.2}

- ``model`` in config is a preset (``fast``, ``low``, ``medium``, ``high``, ``xhigh``; the older
  names ``fast-search``, ``pro-search``, ``deep-research``, ``advanced-deep-research`` are accepted
  aliases) or a direct ``provider/model`` id; unset: preset ``low``, the official equivalent of
  Sonar Pro, the old default. A retired Sonar id still works: it becomes its official preset
  (:data:`SONAR_PRESETS`) and the search says so in one note.
- ``instructions`` (our system prompt) goes only with a direct model. With a preset it would
  *replace* the preset's own prompt (not add to it): that prompt is what makes a preset the
  documented equivalent of a Sonar model, and it is the one the wire captures show writing ``[n]``
  markers numbered by search result id, which the citations here are read from. A direct model has
  no prompt of its own, so it gets ours. ``temperature`` likewise only with a direct model (a
  preset picks its model and may pick one that refuses it: a 400 for the whole search).
- ``max_results`` is the request's ``num_search_results`` (default 10, at most 50; the sources
  shown are cut to ``max_results`` locally, keeping every cited one); ``search_context_size`` and
  ``search_domain_filter`` (hosts, ``-host`` excludes, at most 20) come from the options of the same
  names and are sent only when set; recency goes in ``filters.search_recency_filter``.
- The API refuses unknown fields (HTTP 400), so nothing of the Sonar body is sent
  (``search_mode``, ``return_related_questions``, ``web_search_options``, ``num_search_results``...).

Response: ``{"id": "resp_...", "status", "model" (the model that served), "output": [items],
"usage", "error"}``; items by ``type``: ``search_results`` ``{queries, results: [{id, url, title,
snippet, date?, last_updated, source}]}`` (one per search), ``message`` ``{id, content:
[{type: output_text, text, annotations}]}`` (``annotations`` is empty in practice), and an internal
``function_call`` named ``search_web`` (the server's own search call: ignored). ``usage``:
``input_tokens``, ``output_tokens``, ``total_tokens``, ``tool_calls_details.search_web.invocation``
and the reported cost ``cost.total_cost`` (USD). A failed run may come back as HTTP 200 with
``status: "failed"`` and ``error: {message, type, code}``.

Stream: SSE events named (and typed) ``response.created`` / ``response.in_progress`` (whose
``model`` is still the preset name), ``response.output_item.added`` / ``.done``,
``response.reasoning.search_queries`` ``{queries}``, ``response.reasoning.search_results``
``{results}``, ``response.output_text.delta`` ``{item_id, output_index, content_index, delta}``,
``response.output_text.done``, then one terminal event: ``response.completed`` (the whole response),
``response.incomplete`` (cut short), ``response.failed``, ``response.cancelled`` or ``error``. No
``[DONE]``; sequence numbers skip. A server that ignores ``stream: true`` and answers one JSON
body is read the same way.

Citations: the answer's ``[n]`` markers (also ``[web:n]``) name the search result whose ``id`` is
``n``. Citation ``n`` is that result, for every result, so ``[7]`` in the answer is citation 7 in
every front end, as Sonar's ``citations`` list was (every result it searched, in order; the text
formats then say in one line that the citations are the sources). A gap in the ids keeps its place
as a citation without a URL (:data:`UNKNOWN_TITLE`). Listing only the cited results would need a
placeholder row for every lower number the answer skips (the real capture cites only ``[7]``).

Errors (:class:`~websearch_tui.core.errors.ProviderError`): non-2xx ``{"error": {"message", "type",
"code"}}`` -> ``Perplexity API error (<status>): <message>`` (401/403: the seed auth message), a
400/404 about the model naming ``[providers.perplexity] model``; the same wording for an error
event or a 200 body with ``status: "failed"`` (kind from the code or type); ``protocol`` for a
stream that ends before its terminal event; ``unrecognised_response`` (the shared HTTP layer,
:data:`SHAPE`) for a 2xx answer in neither shape.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing
from dataclasses import field, replace
from typing import Any

from websearch_tui.core.errors import ErrorKind, ProviderError, excerpt, kind_for_status, mentions_quota
from websearch_tui.core.models import (
    AnswerDelta,
    Citation,
    CitationsFound,
    Note,
    SearchEvent,
    SearchQueries,
    SearchRequest,
    Source,
    Usage,
)
from websearch_tui.core.records import record
from websearch_tui.core.text import plain_text, truncate
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.families.perplexity_common import (
    domain_filter,
    is_model_error,
    stream_answer,
    with_model_hint,
)
from websearch_tui.providers.helpers import parse
from websearch_tui.providers.helpers.models import says_model_missing
from websearch_tui.providers.helpers.prompt import SYSTEM_PROMPT
from websearch_tui.providers.helpers.text_parts import Part, PartKey, add_delta, message_key, part_key, reconcile
from websearch_tui.providers.transport.shape import Shape
from websearch_tui.providers.transport.streaming import MetadataTracker

PATH = "/v1/agent"
PRESETS = ("fast", "low", "medium", "high", "xhigh")
"""The Agent API's preset names."""
PRESET_ALIASES = ("fast-search", "pro-search", "deep-research", "advanced-deep-research")
"""Older preset names the API still accepts (for ``fast`` .. ``high``): sent as they are."""
DEFAULT_PRESET = "low"
"""Sonar Pro's official equivalent (the old default model)."""
SONAR_PRESETS = {
    "sonar": "fast",
    "sonar-pro": "low",
    "sonar-reasoning": "low",
    "sonar-reasoning-pro": "low",
    "sonar-deep-research": "medium",
}
"""Retired Sonar model -> the preset Perplexity's migration guide names as its equivalent."""
DEFAULT_MAX_RESULTS = 10
MAX_RESULTS = 50
CONTEXT_SIZES = ("low", "medium", "high")
AUTH_MODE = "api_key"
MAX_RESULT_ID = 4 * MAX_RESULTS
"""The highest result ``id`` read as a citation number (the API numbers results from 1 up to the count
asked for, at most :data:`MAX_RESULTS`): citations ``1 .. max id`` stay a bounded list."""
SHORT_TEXT_CHARS = 80
"""The most of a provider's status, reason or error type that reaches a note or message."""
UNKNOWN_TITLE = "(no such search result)"
"""Title of the placeholder citation for a number below the highest result id that names no result."""
NO_RESULTS_NOTE = "Perplexity's web search returned no results; the answer is not grounded in sources."

SHAPE = Shape.of("output", "error", types=("error",), type_prefixes=("response.",))
"""An Agent API answer: a whole response (``output``), an ``error`` body, or ``response.*`` / ``error`` events."""

_TERMINAL_ERRORS = ("error", "response.failed", "response.cancelled")
_FINAL = ("response.completed", "response.incomplete")


# --------------------------------------------------------------------------- request


@record(frozen=True)
class Target:
    """What answers: ``field`` is ``"preset"`` or ``"model"``, ``value`` its value; ``note`` says how
    a retired Sonar id was mapped (``None`` otherwise)."""

    field: str
    value: str
    note: str | None = None


def resolve_model(configured: str | None) -> Target:
    """The preset or model for the configured ``model`` (see the module docstring)."""
    name = (configured or "").strip()
    lowered = name.lower()
    if not name:
        return Target("preset", DEFAULT_PRESET)
    if lowered in PRESETS or lowered in PRESET_ALIASES:
        return Target("preset", lowered)
    sonar = lowered.removeprefix("perplexity/") if lowered != "perplexity/sonar" else lowered
    if sonar in SONAR_PRESETS:
        preset = SONAR_PRESETS[sonar]
        return Target(
            "preset",
            preset,
            f"Perplexity retired its Sonar models on 2026-09-27: model {name!r} now runs the Agent API "
            f'preset {preset!r}, its official equivalent. Set [providers.perplexity] model = "{preset}" '
            'to keep this and drop this note (or api = "chat" for a gateway that still serves Sonar).',
        )
    return Target("model", name)


def configured_model(ctx: ProviderContext) -> str | None:
    """The model the config names (the first of ``models``, else ``model``), without the spec default."""
    settings = ctx.settings
    return (settings.models[0] if settings.models else None) or settings.model


def build_body(request: SearchRequest, ctx: ProviderContext) -> tuple[dict[str, Any], list[str]]:
    """The JSON body for ``POST /v1/agent`` and the user-visible notes about it (module docstring)."""
    target = resolve_model(configured_model(ctx))
    notes = [target.note] if target.note else []
    tool: dict[str, Any] = {
        "type": "web_search",
        "max_results": parse.clamp_count(request.num_search_results, DEFAULT_MAX_RESULTS, MAX_RESULTS),
    }
    size = ctx.option("search_context_size")
    if size is not None:
        tool["search_context_size"], size_notes = parse.choice_option(
            size, CONTEXT_SIZES, "medium", "Perplexity search_context_size"
        )
        notes += size_notes
    filters: dict[str, Any] = {}
    if request.recency:
        filters["search_recency_filter"] = request.recency
    domains, domain_notes = domain_filter(ctx.option("search_domain_filter"))
    notes += domain_notes
    if domains:
        filters["search_domain_filter"] = domains
    if filters:
        tool["filters"] = filters
    body: dict[str, Any] = {
        "input": request.query,
        "stream": True,
        target.field: target.value,
        "tools": [tool],
        "tool_choice": {"type": "web_search"},
    }
    if target.field == "model":
        body["instructions"] = SYSTEM_PROMPT
    if request.max_tokens is not None:
        body["max_output_tokens"] = request.max_tokens
    if request.temperature is not None:
        if target.field == "model":
            body["temperature"] = request.temperature
        else:
            notes.append(f"Perplexity: temperature is not sent with a preset ({target.value} picks its own model).")
    return body, notes


# --------------------------------------------------------------------------- errors


_TYPE_KINDS: tuple[tuple[tuple[str, ...], ErrorKind], ...] = (
    (("invalid_api_key", "unauthorized", "forbidden", "authentication"), ErrorKind.AUTH),
    (("rate_limit",), ErrorKind.RATE_LIMIT),
    (("invalid", "bad_request", "not_supported", "unknown_field"), ErrorKind.BAD_REQUEST),
    (("not_found",), ErrorKind.NOT_FOUND),
    (("timeout",), ErrorKind.TIMEOUT),
)


def api_error(provider_id: str, error: Any, what: str = "failed") -> ProviderError:
    """The :class:`ProviderError` for an error the API reports inside a 2xx answer (an ``error`` or
    ``response.failed`` event, a 200 body with ``status: "failed"``): ``error`` is its
    ``{message, type, code}`` object (or a string). ``"Perplexity API error (<code or type>):
    <message>"``, kind from the code (an HTTP status) else the type; ``what`` words a missing message
    (``"Perplexity API error: the response failed"``)."""
    body = error if isinstance(error, dict) else {}
    message = parse.find_message(error, ("message", "detail", "error"))
    code = parse.int_field(body, "code")
    error_type = truncate(plain_text(body.get("type"), collapse=True) or "", SHORT_TEXT_CHARS) or None
    status = code if code is not None and 400 <= code <= 599 else None
    if error_type == "invalid_model" or says_model_missing(message):
        kind = ErrorKind.MODEL_NOT_FOUND
    elif status is not None:
        kind = kind_for_status(status, message or "")
    elif mentions_quota(f"{error_type or ''} {message or ''}"):
        kind = ErrorKind.QUOTA
    else:
        words = (error_type or "").lower()
        kind = next((k for names, k in _TYPE_KINDS if any(n in words for n in names)), ErrorKind.SERVER)
    shown = str(status) if status is not None else error_type
    head = f"Perplexity API error ({shown})" if shown else "Perplexity API error"
    text = f"{head}: {excerpt(message, 500)}" if message else f"{head}: the response {what}"
    if kind is ErrorKind.MODEL_NOT_FOUND or is_model_error(message, status):
        text = with_model_hint(text)
    return ProviderError(provider_id, kind, text, status=status)


# --------------------------------------------------------------------------- the parser


@record
class AgentParser:
    """Turns Agent API events (or one whole response) into search events.

    The :class:`.transport.streaming.StreamParser` contract: ``feed(name, payload)`` returns what one event adds
    (``payload.type``, else the SSE event ``name``; ``"json"``: a whole response body): an
    ``AnswerDelta`` per text delta, ``SearchQueries`` for new queries, ``SourcesFound`` (replace:
    the :class:`.helpers.parse.SourceSelection` of the results) and ``CitationsFound`` (replace, numbered
    by result id; see the module docstring) when they change, ``Metadata`` when the response id
    first appears and when the final response names the model. ``finished`` (and ``done``) turns
    true with ``response.completed`` / ``response.incomplete`` or a whole response; ``closing()``
    gives the notes on how it ended and the closing ``Metadata`` with the usage.

    Raises (from ``feed``): :class:`ProviderError` (:func:`api_error`) for ``error``,
    ``response.failed`` and ``response.cancelled`` events and a response whose status is
    ``failed`` or ``cancelled``.
    """

    requested_model: str
    max_results: int
    provider_id: str = "perplexity"
    usage: Usage | None = None
    finished: bool = False
    incomplete_reason: str | None = None
    status: str | None = None
    _parts: dict[PartKey, Part] = field(default_factory=dict)
    _answered: bool = False
    _by_id: dict[int, Source] = field(default_factory=dict)
    _seen_rows: set[str] = field(default_factory=set)
    _queries: set[str] = field(default_factory=set)
    _sent_citations: tuple[Citation, ...] = ()
    _citations_changed: bool = False
    _sources: parse.SourceSelection = field(init=False)
    _meta: MetadataTracker = field(init=False)

    def __post_init__(self) -> None:
        self._meta = MetadataTracker(self.requested_model, AUTH_MODE)
        self._sources = parse.SourceSelection(self.max_results)

    @property
    def done(self) -> bool:
        """The terminal event arrived (the same as :attr:`finished`)."""
        return self.finished

    def feed(self, name: str, payload: Any) -> list[SearchEvent]:
        """Events for one stream event (or, named ``"json"``, one whole response)."""
        if not isinstance(payload, dict):
            return []
        kind = payload["type"] if isinstance(payload.get("type"), str) else name
        if kind == "json":
            return self.whole(payload)
        if kind in _TERMINAL_ERRORS:
            response = parse.as_dict(payload.get("response"))
            error = payload.get("error") or response.get("error")
            if error is None and kind == "error":  # {"type": "error", "code", "message"}
                error = {name: value for name, value in payload.items() if name != "type"}
            raise api_error(self.provider_id, error, "was cancelled" if kind.endswith("cancelled") else "failed")
        if kind in ("response.created", "response.in_progress", "response.queued"):
            # the model named here is the preset's name; the one that served comes with the final response
            return self._meta.update(None, parse.as_dict(payload.get("response")).get("id"))
        if kind == "response.output_text.delta":
            return self._delta(part_key(payload), payload.get("delta"))
        if kind == "response.output_text.done":
            return self._reconcile(part_key(payload), payload.get("text"))
        if kind == "response.reasoning.search_queries":
            return self._new_queries(payload.get("queries"))
        if kind == "response.reasoning.search_results":
            return self._results(payload.get("results"))
        if kind == "response.reasoning.fetch_url_results":
            return self._results(payload.get("contents"))
        if kind == "response.output_item.done":
            return self._item(payload.get("item"), payload.get("output_index"))
        if kind in _FINAL:
            return self._final(parse.as_dict(payload.get("response")), incomplete=kind == "response.incomplete")
        return []

    def whole(self, response: Any) -> list[SearchEvent]:
        """Events for one complete response body (a server that ignored ``stream: true``)."""
        return self._final(parse.as_dict(response), incomplete=False)

    def closing(self) -> list[SearchEvent]:
        """Notes on how the response ended (cut short, no search results, an unknown status), then
        the closing ``Metadata`` with the usage."""
        events: list[SearchEvent] = []
        if self.incomplete_reason:
            events.append(Note(f"Perplexity stopped early ({self.incomplete_reason}); the answer is cut short."))
        elif self.status not in (None, "completed"):
            events.append(Note(f"Perplexity answered with status {self.status!r}; the answer may be incomplete."))
        if not self._seen_rows:
            events.append(Note(NO_RESULTS_NOTE))
        events.append(self._meta.metadata(self.usage))
        return events

    # ---- text and markers

    def _emit(self, text: str) -> list[SearchEvent]:
        """``AnswerDelta(text)``."""
        self._answered = True
        return [AnswerDelta(text)]

    def _delta(self, key: PartKey, delta: object) -> list[SearchEvent]:
        return [
            event
            for piece in add_delta(self._parts, key, delta, after_text=self._answered)
            for event in self._emit(piece)
        ]

    def _reconcile(self, key: PartKey, full: object) -> list[SearchEvent]:
        """What the final text of a part adds to its streamed deltas (all of it when none came)."""
        return [
            event
            for piece in reconcile(self._parts, key, full, after_text=self._answered)
            for event in self._emit(piece)
        ]

    # ---- items, results, queries

    def _item(self, item: Any, output_index: Any) -> list[SearchEvent]:
        item = parse.as_dict(item)
        item_type = item.get("type")
        if item_type == "search_results":
            return [*self._new_queries(item.get("queries")), *self._results(item.get("results"))]
        if item_type == "fetch_url_results":
            return self._results(item.get("contents"))
        if item_type == "message":
            events: list[SearchEvent] = []
            for index, content in enumerate(parse.as_list(item.get("content"))):
                content = parse.as_dict(content)
                if content.get("type") in ("output_text", "text"):
                    key = message_key(item.get("id"), output_index, index, self._parts)
                    events += self._reconcile(key, content.get("text"))
            return events
        return []  # function_call "search_web": the server's own search call, not one for us

    def _new_queries(self, raw: Any) -> list[SearchEvent]:
        fresh = list(dict.fromkeys(q for q in parse.text_list(raw) if q not in self._queries))
        if not fresh:
            return []
        self._queries.update(fresh)
        return [SearchQueries(tuple(fresh))]

    def _results(self, rows: Any) -> list[SearchEvent]:
        """Remember each new result row (by its ``id``, else its URL) as a source; the source and
        citation changes it makes."""
        added: list[Source] = []
        for row in parse.as_list(rows):
            if not isinstance(row, dict):
                continue
            number = parse.int_field(row, "id", minimum=0)
            if number is not None and number > MAX_RESULT_ID:
                number = None  # a source, but no citation number: the list of citations stays bounded
            mark = f"#{number}" if number is not None else f"url:{row.get('url')}"
            if mark in self._seen_rows:
                continue
            self._seen_rows.add(mark)
            source = parse.make_source(row.get("url"), row.get("title"), row.get("snippet"), row.get("date"))
            if source is None:
                self._sources.dropped += 1
                continue
            added.append(source)
            if number is not None and number not in self._by_id:
                self._by_id[number] = source
                self._citations_changed = True
        if not added:
            return []
        self._sources.add(added)
        return [*self._citations(), *self._sources.sources_event()]

    def _citations(self) -> list[SearchEvent]:
        """``CitationsFound`` (replace) when results with new ids came: citation ``n`` for ``n`` = 1 ..
        the highest result id (see :data:`UNKNOWN_TITLE`)."""
        if not self._citations_changed or not self._by_id:
            return []
        self._citations_changed = False
        citations = tuple(self._citation(number) for number in range(1, max(self._by_id) + 1))
        if citations == self._sent_citations:
            return []
        self._sent_citations = citations
        self._sources.cite(c.url for c in citations if c.url)
        return [CitationsFound(citations, replace=True), *self._sources.sources_event()]

    def _citation(self, number: int) -> Citation:
        source = self._by_id.get(number)
        if source is None:
            return Citation(url="", title=UNKNOWN_TITLE)
        return Citation(url=source.url, title=source.title, cited_text=source.snippet)

    # ---- the final response

    def _final(self, response: dict[str, Any], *, incomplete: bool) -> list[SearchEvent]:
        status = response.get("status")
        self.status = truncate(plain_text(status, collapse=True) or "", SHORT_TEXT_CHARS) or None
        if status in ("failed", "cancelled") or (response.get("error") and status not in ("completed", "incomplete")):
            what = "was cancelled" if status == "cancelled" else "failed"
            raise api_error(self.provider_id, response.get("error"), what)
        self.finished = True
        if incomplete or status == "incomplete":
            details = parse.as_dict(response.get("incomplete_details"))
            reason = plain_text(details.get("reason"), collapse=True) or "incomplete"
            self.incomplete_reason = truncate(reason.replace("_", " "), SHORT_TEXT_CHARS)
        events = self._meta.update(response.get("model"), response.get("id"))
        for index, item in enumerate(parse.as_list(response.get("output"))):
            events += self._item(item, index)
        self.usage = usage_from(response.get("usage")) or self.usage
        return events


def usage_from(raw: Any) -> Usage | None:
    """``usage``: input, output and total tokens, searches (``tool_calls_details.search_web.invocation``)
    and the reported cost (``cost.total_cost``, USD)."""
    details = parse.as_dict(parse.as_dict(parse.as_dict(raw).get("tool_calls_details")).get("search_web"))
    searches = parse.int_field(details, "invocation", minimum=0)
    usage = parse.usage_from(raw, input="input_tokens", output="output_tokens", total="total_tokens", searches=searches)
    cost = parse.cost_field(parse.as_dict(raw).get("cost"), "total_cost")
    if cost is not None:
        usage = replace(usage or Usage(), cost_usd=cost)
    return usage


# --------------------------------------------------------------------------- running


async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncGenerator[SearchEvent, None]:
    """Run one Agent API search and yield its events as they arrive.

    Yields the body's notes (a mapped Sonar id, an ignored option), then ``Metadata`` (response id),
    ``SearchQueries``, ``SourcesFound`` / ``CitationsFound`` (replace) as the search results and the
    ``[n]`` markers arrive, ``AnswerDelta`` per token, and the closing notes and ``Metadata`` (the
    model that served, usage with the reported cost).

    Raises:
        ProviderError: ``config`` without a key; as the module docstring says otherwise. Any HTTP
            answer is final (a paid call is never sent twice); a failure after the first event ends
            the stream, the events already yielded stand.
    """
    ctx.require_api_key()  # before any note: a missing key is the only thing to say
    body, notes = build_body(request, ctx)
    for note in notes:
        yield Note(note)
    parser = AgentParser(
        requested_model=body.get("preset") or body["model"], max_results=request.max_results, provider_id=ctx.spec.id
    )
    events = stream_answer(ctx, PATH, body, parser, model=body.get("preset") or body["model"], expect=SHAPE)
    async with aclosing(events) as running:
        async for event in running:
            yield event
