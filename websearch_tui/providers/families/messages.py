"""Shared Anthropic Messages logic for the ``anthropic`` and ``deepseek`` providers.

Both speak ``POST {base_url}/v1/messages`` (``anthropic-version: 2023-06-01``) with a web search
server tool (PROVIDERS.md §2.17 and §2.18). API and tool versions checked 2026-12-02 against
https://platform.claude.com/docs/en/build-with-claude/tool-use/web-search-tool, which lists three
tool versions: ``web_search_20250305`` (basic), ``web_search_20260209`` (adds dynamic filtering:
Claude writes and runs code that filters the results) and ``web_search_20260318`` (adds
``response_inclusion``); the dynamic-filtering versions are "available with Claude 4.6 and later
models and Claude Mythos Preview". Where PROVIDERS.md (written for ``web_search_20250305`` only)
and these docs disagree, the docs win. This module holds everything the two providers share:

- :func:`build_body` / :func:`build_headers`: the request (model, ``max_tokens``, the §1.5 prompt,
  the system prompt in ``system``, the tool with ``max_uses``, ``temperature`` only when set and
  accepted by the model). The tool is :data:`TOOL_NEWEST` for a model that accepts it
  (:func:`web_search_tool`, Anthropic only), else :data:`TOOL_BASIC`; a 400 saying the sent version
  is not supported is answered by one retry with :data:`TOOL_BASIC` and a Note;
- :class:`MessageParser`: one parser for streamed events *and* whole (non-streamed) messages. A
  whole message is replayed as the events a stream would have carried, so both paths share every
  rule (answer joining, citations, sources, queries, usage, in-200 tool errors);
- :func:`run`: the request loop, including ``pause_turn`` continuations (the assistant content
  received so far is sent back, at most :data:`MAX_CONTINUATIONS` times, within the deadline);
  every turn, streamed or not, runs through the shared loop :func:`.transport.streaming.feed_payloads`;
- errors: the envelope's top-level ``request_id`` is kept in the message (``... (request id
  req_...)``); a model the API does not know fails as ``model_not_found`` (:mod:`.helpers.models`).

The dynamic-filtering tool versions add blocks around the search: a ``server_tool_use`` named
``code_execution``, ``web_search`` calls and results nested in it (with a ``caller``), their
``code_execution_tool_result`` and a top-level ``container``. The search calls and results are read
as any others, the code blocks are not part of the answer, and a ``pause_turn`` continuation names
the ``container`` id so the paused code can resume (as pydantic-ai's Anthropic model does).

Answer joining: consecutive text blocks are concatenated with ``""`` (Claude splits cited prose
into many blocks); when a tool block sits between two text blocks, they are separated by a blank
line. ``thinking`` blocks are never part of the answer.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import AsyncGenerator, Iterable
from contextlib import aclosing
from dataclasses import field
from typing import Any
from urllib.parse import urlsplit

from websearch_tui.core.errors import ErrorKind, ProviderError, excerpt
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
    SourcesFound,
)
from websearch_tui.core.records import record
from websearch_tui.core.text import plain_text, safe_url, sanitize
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.helpers import models, parse
from websearch_tui.providers.helpers.prompt import SYSTEM_PROMPT, user_prompt
from websearch_tui.providers.transport import http, streaming
from websearch_tui.providers.transport.shape import Shape

PATH = "/v1/messages"
ANTHROPIC_VERSION = "2023-06-01"
TOOL_BASIC = "web_search_20250305"
"""The basic web search tool every Messages server (and every Claude model with web search) accepts."""
TOOL_NEWEST = "web_search_20260318"
"""The newest tool version (dynamic filtering + ``response_inclusion``), for the models of
:func:`web_search_tool`."""
TOOL_NAME = "web_search"  # must be exactly this (can1357/oh-my-pi#102)
DEFAULT_MAX_TOKENS = 4096
DEFAULT_MAX_USES = 5
MAX_CONTINUATIONS = 3
MIN_CONTINUE_SECONDS = 12.0
AUTH_MODE = "api_key"
OAUTH_PREFIX = "sk-ant-oat"
ERROR_KEYS = ("error", "message", "detail")

SEARCH_ERROR_TEXT = {
    "too_many_requests": "rate limited",
    "invalid_input": "invalid search query",
    "max_uses_exceeded": "the search limit (max_uses) was reached",
    "query_too_long": "search query too long",
    "unavailable": "search temporarily unavailable",
}
"""``web_search_tool_result_error.error_code`` -> words for the pane warning."""

STREAM_ERROR_KINDS = {
    "invalid_request_error": ErrorKind.BAD_REQUEST,
    "authentication_error": ErrorKind.AUTH,
    "permission_error": ErrorKind.AUTH,
    "not_found_error": ErrorKind.NOT_FOUND,
    "request_too_large": ErrorKind.BAD_REQUEST,
    "rate_limit_error": ErrorKind.RATE_LIMIT,
    "billing_error": ErrorKind.QUOTA,
    "api_error": ErrorKind.SERVER,
    "overloaded_error": ErrorKind.SERVER,
    "timeout_error": ErrorKind.TIMEOUT,
}
"""Anthropic ``error.type`` -> :class:`ErrorKind` for an ``error`` event inside a 200 stream."""

_NON_ANSWER_BLOCKS = frozenset({"text", "thinking", "redacted_thinking"})
_CLAUDE_MODEL = re.compile(r"claude-(opus|sonnet|haiku)-(\d+)(?:[-.](\d{1,2})(?!\d))?")
_DYNAMIC_FILTERING_FAMILIES = re.compile(r"claude-(?:mythos|fable)\b")
_ID_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,100}")
_CREDIT_TEXT = re.compile(r"credit balance is too low|billing", re.IGNORECASE)


SHAPE = Shape.of(
    "content",
    "stop_reason",
    types=("message", "message_start", "content_block_start", "content_block_delta", "message_delta", "error"),
)
"""A Messages answer: a whole ``message`` (``content``, ``stop_reason``) or its stream events."""


@record(frozen=True)
class Flavor:
    """How one provider uses the shared Messages code.

    Attributes:
        stream: send ``stream: true`` and read SSE (a JSON answer is still accepted); else
            ``stream: false`` and read one JSON body.
        system: send :data:`SYSTEM_PROMPT` in ``system``.
        gateway_bearer: for a base URL that is not ``*.anthropic.com``, also send
            ``Authorization: Bearer <key>`` (gateways differ in which header they read).
        reject_oauth: refuse Claude OAuth tokens (``sk-ant-oat…``) with a clear message.
        accept: the ``Accept`` header for non-streamed requests.
        newest_tool: send :data:`TOOL_NEWEST` to the models that accept it (:func:`web_search_tool`);
            else always :data:`TOOL_BASIC`.
        model_gone: how the API says the model does not exist (:data:`.helpers.models.ModelGone`).
    """

    stream: bool
    system: bool = True
    gateway_bearer: bool = False
    reject_oauth: bool = False
    accept: str = "application/json"
    newest_tool: bool = False
    model_gone: models.ModelGone = models.anthropic_gone


# --------------------------------------------------------------------------- request


def model_rejects_temperature(model: str) -> bool:
    """True for Claude models that reject ``temperature``: Opus >= 4.7, Sonnet >= 5, Haiku >= 5.

    (Haiku >= 5 is an assumption that it follows Sonnet; PROVIDERS.md §2.17, can1357/oh-my-pi#7195.)
    """
    match = _CLAUDE_MODEL.search(model.lower())
    if not match:
        return False
    family, major, minor = match.group(1), int(match.group(2)), int(match.group(3) or 0)
    if family == "opus":
        return (major, minor) >= (4, 7)
    return major >= 5


def accepts_dynamic_filtering(model: str) -> bool:
    """True for the models that take the dynamic-filtering web search versions: Claude Opus, Sonnet
    and Haiku >= 4.6, and the Mythos and Fable families ("Claude 4.6 and later models and Claude
    Mythos Preview", the web search tool docs, checked 2026-12-02). ``claude-haiku-4-5``,
    ``claude-sonnet-4-5``, older Claude ids and non-Claude ids are False."""
    lowered = model.lower()
    if _DYNAMIC_FILTERING_FAMILIES.search(lowered):
        return True
    match = _CLAUDE_MODEL.search(lowered)
    if not match:
        return False
    return (int(match.group(2)), int(match.group(3) or 0)) >= (4, 6)


def web_search_tool(model: str, flavor: Flavor) -> str:
    """The tool type to send: :data:`TOOL_NEWEST` when the flavor uses it and ``model``
    :func:`accepts_dynamic_filtering`, else :data:`TOOL_BASIC`."""
    return TOOL_NEWEST if flavor.newest_tool and accepts_dynamic_filtering(model) else TOOL_BASIC


def max_uses(ctx: ProviderContext) -> tuple[int, str | None]:
    """The tool's ``max_uses`` from option ``max_uses`` (default 5) and a note when it was invalid."""
    value = ctx.option("max_uses", DEFAULT_MAX_USES)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        note = f"{ctx.spec.label} max_uses {value!r} is not a whole number >= 1; used {DEFAULT_MAX_USES}."
        return DEFAULT_MAX_USES, note
    return value, None


def build_body(request: SearchRequest, ctx: ProviderContext, flavor: Flavor) -> tuple[dict[str, Any], list[str]]:
    """The JSON body for ``POST /v1/messages`` and any user-visible notes about it.

    Shape: ``{"model", "max_tokens", "stream", ["system": [{"type": "text", "text"}]],
    "messages": [{"role": "user", "content": <§1.5 prompt>}],
    "tools": [{"type": <web_search_tool()>, "name": "web_search", "max_uses"}], ["temperature"]}``.
    ``max_tokens`` is required by the API: the request's value, else 4096. ``temperature`` only
    when the request sets it and the model accepts it (otherwise a note says it was dropped). The
    tool type is :func:`web_search_tool`, or :data:`TOOL_BASIC` for a model whose server already
    refused :data:`TOOL_NEWEST` in this session (see :func:`run`).
    """
    notes: list[str] = []
    model = ctx.model() or ctx.spec.default_model or ""
    uses, note = max_uses(ctx)
    if note:
        notes.append(note)
    body: dict[str, Any] = {
        "model": model,
        "max_tokens": request.max_tokens or DEFAULT_MAX_TOKENS,
        "stream": flavor.stream,
    }
    if flavor.system:
        body["system"] = [{"type": "text", "text": SYSTEM_PROMPT}]
    body["messages"] = [{"role": "user", "content": user_prompt(request)}]
    tool = TOOL_BASIC if model in ctx.state.get(_ToolMemory).refused else web_search_tool(model, flavor)
    body["tools"] = [{"type": tool, "name": TOOL_NAME, "max_uses": uses}]
    if request.temperature is not None:
        if model_rejects_temperature(model):
            notes.append(f"{ctx.spec.label} model {model} does not accept temperature; sent without it.")
        else:
            body["temperature"] = request.temperature
    return body, notes


def is_anthropic_host(url: str) -> bool:
    """True when ``url`` points at Anthropic itself (``anthropic.com`` or a subdomain)."""
    host = (urlsplit(url).hostname or "").lower()
    return host == "anthropic.com" or host.endswith(".anthropic.com")


def build_headers(ctx: ProviderContext, key: str, flavor: Flavor) -> dict[str, str]:
    """``x-api-key`` + ``anthropic-version`` (+ ``Authorization: Bearer`` for gateways, + ``Accept``).

    Raises:
        ProviderError: ``config`` for a Claude OAuth token when the flavor rejects them.
    """
    if flavor.reject_oauth and key.startswith(OAUTH_PREFIX):
        raise ProviderError(
            ctx.spec.id,
            ErrorKind.CONFIG,
            f"{ctx.spec.label}: Claude OAuth tokens (sk-ant-oat…) are not supported; use an API key "
            "from the Anthropic Console.",
        )
    headers = {"x-api-key": key, "anthropic-version": ANTHROPIC_VERSION}
    if flavor.gateway_bearer and not is_anthropic_host(ctx.base_url()):
        headers["Authorization"] = f"Bearer {key}"
    if not flavor.stream:
        headers["Accept"] = flavor.accept
    return headers


# --------------------------------------------------------------------------- errors


def request_id_of(parsed: Any) -> str | None:
    """The top-level ``request_id`` of an error envelope (``req_...``), when it is a plain token."""
    value = parse.as_dict(parsed).get("request_id")
    return value if isinstance(value, str) and _ID_TOKEN.fullmatch(value) else None


def with_request_id(message: str, parsed: Any) -> str:
    """``message`` followed by `` (request id <id>)`` when the envelope carries a ``request_id``."""
    request_id = request_id_of(parsed)
    return f"{message} (request id {request_id})" if request_id else message


def error_describer(label: str) -> http.ErrorDescriber:
    """Words non-2xx replies: 404 -> ``"<Label> web search returned 404 (model or endpoint not found)."``
    (the seed message), else ``"<Label> API error (<status>): <error.message>"`` from the envelope
    ``{"type": "error", "error": {"type", "message"}, "request_id"}`` (or a redacted body excerpt);
    either followed by `` (request id req_...)`` when the envelope has one (:func:`with_request_id`)."""
    generic = parse.api_error_describer(f"{label} API error", lambda parsed: parse.find_message(parsed, ERROR_KEYS))

    def describe(status: int, text: str, parsed: Any) -> str:
        if status == 404:
            return with_request_id(f"{label} web search returned 404 (model or endpoint not found).", parsed)
        return with_request_id(generic(status, text, parsed), parsed)

    return describe


def requalify(error: ProviderError) -> ProviderError:
    """Anthropic reports an empty credit balance as a 400 ``invalid_request_error``: make it ``quota``."""
    if error.kind is ErrorKind.BAD_REQUEST and _CREDIT_TEXT.search(error.message):
        return ProviderError(error.provider, ErrorKind.QUOTA, error.message, status=error.status)
    return error


def stream_error(provider: str, label: str, payload: dict[str, Any]) -> ProviderError:
    """The :class:`ProviderError` for an ``error`` event (or an error body inside a 200):
    ``"<Label> API error (<error.type>): <message>"`` (+ `` (request id req_...)``)."""
    error = parse.as_dict(payload.get("error"))
    error_type = plain_text(error.get("type"), collapse=True) or "error"
    message = parse.find_message(payload, ERROR_KEYS) or "unknown error"
    kind = STREAM_ERROR_KINDS.get(error_type, ErrorKind.SERVER)
    text = with_request_id(f"{label} API error ({error_type}): {excerpt(message, 500)}", payload)
    return requalify(ProviderError(provider, kind, text))


def tool_refused(error: ProviderError, tool_type: str) -> bool:
    """True for the 400 that says the sent web search tool version is not supported (for this
    model): the tool type and "support" ("not supported", "does not support") in the message. The
    exact first-party wording is not documented; Bedrock says ``tool type 'web_search_20260209' is not
    supported for this model``."""
    text = error.message.lower()
    return (
        error.status == 400 and error.kind is ErrorKind.BAD_REQUEST and tool_type.lower() in text and "support" in text
    )


# --------------------------------------------------------------------------- parsing


def _usage_fields(raw: Any) -> dict[str, int]:
    """``input_tokens``, ``output_tokens`` and ``server_tool_use.web_search_requests`` present in ``raw``."""
    found = {
        "input_tokens": parse.int_field(raw, "input_tokens"),
        "output_tokens": parse.int_field(raw, "output_tokens"),
        "search_requests": parse.int_field(parse.as_dict(raw).get("server_tool_use"), "web_search_requests"),
    }
    return {name: value for name, value in found.items() if value is not None}


def _citation(raw: Any) -> Citation | None:
    """A ``web_search_result_location`` (or any citation with a URL) as a :class:`Citation`."""
    raw = parse.as_dict(raw)
    url = safe_url(raw.get("url"))
    if url is None:
        return None
    return Citation(
        url=url,
        title=plain_text(raw.get("title"), collapse=True) or url,
        cited_text=plain_text(raw.get("cited_text")),
    )


def _result_source(raw: Any) -> Source | None:
    """A ``web_search_result`` as a :class:`Source`; ``description``/``snippet`` accepted (DeepSeek)."""
    raw = parse.as_dict(raw)
    if raw.get("type", "web_search_result") != "web_search_result":
        return None
    snippet = raw.get("snippet") or raw.get("description") or raw.get("content_snippet")
    return parse.make_source(raw.get("url"), raw.get("title"), snippet, raw.get("page_age"))


def message_events(message: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """A whole Messages response as the ``(event_name, payload)`` list a stream would have sent."""
    start = {key: value for key, value in message.items() if key != "content"}
    events: list[tuple[str, dict[str, Any]]] = [("message_start", {"type": "message_start", "message": start})]
    for index, block in enumerate(parse.as_list(message.get("content"))):
        events.append(("content_block_start", {"type": "content_block_start", "index": index, "content_block": block}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    delta = {"stop_reason": message.get("stop_reason"), "stop_sequence": message.get("stop_sequence")}
    events.append(("message_delta", {"type": "message_delta", "delta": delta, "usage": message.get("usage")}))
    events.append(("message_stop", {"type": "message_stop"}))
    return events


def coalesce(events: Iterable[SearchEvent]) -> list[SearchEvent]:
    """One turn of a non-streamed answer as few events: metadata and notes, queries, the last
    source snapshot, **one** ``AnswerDelta`` with the whole text, then all citations at once."""
    others: list[SearchEvent] = []
    queries: list[str] = []
    sources: SourcesFound | None = None
    text: list[str] = []
    citations: list[Citation] = []
    for event in events:
        if isinstance(event, AnswerDelta):
            text.append(event.text)
        elif isinstance(event, CitationsFound):
            citations.extend(event.citations)
        elif isinstance(event, SourcesFound):
            sources = event
        elif isinstance(event, SearchQueries):
            queries.extend(event.queries)
        else:
            others.append(event)
    out = others
    if queries:
        out.append(SearchQueries(tuple(queries)))
    if sources is not None:
        out.append(sources)
    if text:
        out.append(AnswerDelta("".join(text)))
    if citations:
        out.append(CitationsFound(tuple(citations)))
    return out


@record
class MessageParser:
    """Turns Messages events (or whole messages) into search events, across ``pause_turn`` turns.

    ``feed(name, payload)`` handles one streamed event and returns the events it adds: ``Metadata``
    (model and id, on ``message_start``), ``AnswerDelta`` per ``text_delta``, ``CitationsFound``
    per ``citations_delta``, ``SearchQueries`` when a ``server_tool_use`` block closes,
    ``SourcesFound`` (replace) whenever the selection changes, ``Note`` for a
    ``web_search_tool_result_error`` and for ``max_tokens``/``refusal`` stops. ``feed_message``
    does the same for a whole message (coalesced, see :func:`coalesce`); ``feed("json", message)``
    too. ``finished`` (and ``done``) turns true on the turn's ``message_stop``; :meth:`start_turn`
    begins the next turn. ``closing`` returns the closing ``Metadata`` (usage summed over turns) and
    the "answered without searching" note. (The :class:`.transport.streaming.StreamParser` contract.)

    Sources: every ``web_search_result``, selected by :class:`.helpers.parse.SourceSelection` (cut to
    ``max_results`` but keeping every cited one). Citations: all, in answer order.

    Raises (from ``feed``):
        ProviderError: for an ``error`` event (kind from ``error.type``).
    """

    provider: str
    label: str
    max_results: int
    requested_model: str
    model: str | None = None
    request_id: str | None = None
    stop_reason: str | None = None
    finished: bool = False
    searched: bool = False
    container_id: str | None = None
    _answer_tail: str = ""
    _pending_gap: bool = False
    _blocks: dict[int, dict[str, Any]] = field(default_factory=dict)
    _partial_json: dict[int, str] = field(default_factory=dict)
    _content: list[dict[str, Any]] = field(default_factory=list)
    _sources: parse.SourceSelection = field(init=False)
    _queries: set[str] = field(default_factory=set)
    _turn_usage: dict[str, int] = field(default_factory=dict)
    _usage_total: dict[str, int] = field(default_factory=dict)
    _notes: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self._sources = parse.SourceSelection(self.max_results)

    @property
    def done(self) -> bool:
        """The turn's ``message_stop`` arrived (the same as :attr:`finished`)."""
        return self.finished

    # ---- turns

    def start_turn(self) -> None:
        """Begin a new request/response turn (the first one or a ``pause_turn`` continuation)."""
        self._close_turn()
        self.stop_reason = None
        self.finished = False

    def _close_turn(self) -> None:
        for index in sorted(self._blocks):
            self._content.append(self._blocks[index])
        self._blocks = {}
        self._partial_json = {}
        for name, value in self._turn_usage.items():
            self._usage_total[name] = self._usage_total.get(name, 0) + value
        self._turn_usage = {}

    def continuation_content(self) -> list[dict[str, Any]]:
        """Every assistant block received so far, to send back after ``pause_turn``.

        Empty uncited text blocks are left out (the API rejects empty text blocks) and empty
        ``citations`` fields are dropped; everything else is sent as received.

        Raises:
            ProviderError: ``protocol`` when the blocks cannot be sent back as JSON (a ``NaN`` or
                ``Infinity`` number, a lone surrogate): the paid continuation is not sent.
        """
        self._close_turn()
        content: list[dict[str, Any]] = []
        for block in self._content:
            block = dict(block)
            if block.get("type") == "text":
                if not block.get("citations"):
                    block.pop("citations", None)
                    if not block.get("text"):
                        continue
            content.append(block)
        try:
            json.dumps(content, allow_nan=False, ensure_ascii=False).encode("utf-8")  # as httpx will send it
        except ValueError:  # UnicodeEncodeError included
            raise ProviderError(
                self.provider, ErrorKind.PROTOCOL, f"{self.label} paused on content that cannot be sent back to resume."
            ) from None
        return content

    def closing(self) -> list[SearchEvent]:
        """The closing ``Metadata`` (usage summed over all turns) and a note when no search ran."""
        self._close_turn()
        events: list[SearchEvent] = []
        if not self.searched and self._answer_tail:
            events.extend(self._note(f"{self.label} answered without searching the web."))
        total = self._usage_total
        both = ("input_tokens", "output_tokens")
        usage = parse.usage_from(
            total,
            input="input_tokens",
            output="output_tokens",
            total=sum(total[n] for n in both) if all(n in total for n in both) else None,
            searches="search_requests",
        )
        events.append(
            Metadata(
                model=self.model or self.requested_model,
                request_id=self.request_id,
                usage=usage,
                auth_mode=AUTH_MODE,
            )
        )
        return events

    # ---- input

    def feed_message(self, message: Any) -> list[SearchEvent]:
        """Events for one whole (non-streamed) Messages response.

        Raises:
            ProviderError: ``protocol`` when ``message`` is not a message object; the mapped kind
                when it is an error envelope.
        """
        if not isinstance(message, dict):
            raise ProviderError(
                self.provider, ErrorKind.PROTOCOL, f"{self.label} returned JSON that is not a message object."
            )
        if message.get("type") == "error":
            raise stream_error(self.provider, self.label, message)
        if not isinstance(message.get("content"), list):
            raise ProviderError(
                self.provider, ErrorKind.PROTOCOL, f"{self.label} returned a message without a content list."
            )
        events: list[SearchEvent] = []
        for name, payload in message_events(message):
            events.extend(self.feed(name, payload))
        return coalesce(events)

    def feed(self, name: str, payload: Any) -> list[SearchEvent]:
        """Events for one streamed ``(event_name, payload)``; the payload's ``type`` wins over the name."""
        if name == "json":  # a whole message: not streamed, or a server that ignored stream: true
            return self.feed_message(payload)
        if not isinstance(payload, dict):
            return []
        # an untyped payload of an unnamed event ("message" is the SSE default) is no Messages event
        kind = payload["type"] if isinstance(payload.get("type"), str) else name if name != "message" else ""
        if kind == "message":
            return self.feed_message(payload)
        handler = {
            "message_start": self._message_start,
            "content_block_start": self._block_start,
            "content_block_delta": self._block_delta,
            "content_block_stop": self._block_stop,
            "message_delta": self._message_delta,
            "message_stop": self._message_stop,
        }.get(kind)
        if kind == "error":
            raise stream_error(self.provider, self.label, payload)
        return handler(payload) if handler else []

    # ---- events

    def _message_start(self, payload: dict[str, Any]) -> list[SearchEvent]:
        message = parse.as_dict(payload.get("message"))
        self._turn_usage.update(_usage_fields(message.get("usage")))
        self._container(message.get("container"))
        model = plain_text(message.get("model"), collapse=True)
        request_id = plain_text(message.get("id"), collapse=True)
        if (model and model != self.model) or (request_id and request_id != self.request_id):
            self.model = model or self.model
            self.request_id = request_id or self.request_id
            return [Metadata(model=self.model or self.requested_model, request_id=self.request_id, auth_mode=AUTH_MODE)]
        return []

    def _block_start(self, payload: dict[str, Any]) -> list[SearchEvent]:
        block = payload.get("content_block")
        index = parse.int_field(payload, "index")
        if not isinstance(block, dict):
            return []
        block = copy.deepcopy(block)
        if index is None:
            index = max(self._blocks, default=-1) + 1
        self._blocks[index] = block
        kind = block.get("type") if isinstance(block.get("type"), str) else None
        if kind == "text":
            events = self._text(block.get("text"))
            events.extend(self._citations(parse.as_list(block.get("citations"))))
            return events
        if kind not in _NON_ANSWER_BLOCKS and self._answer_tail:
            self._pending_gap = True
        if kind == "server_tool_use":
            if block.get("name") == TOOL_NAME:
                self.searched = True
            self._partial_json[index] = ""
            return []
        if kind == "web_search_tool_result":
            self.searched = True
            return self._tool_result(block.get("content"))
        if kind == "web_search_result":  # some compatible servers put results at top level
            self.searched = True
            return self._add_sources([_result_source(block)])
        return []

    def _block_delta(self, payload: dict[str, Any]) -> list[SearchEvent]:
        index = parse.int_field(payload, "index")
        delta = parse.as_dict(payload.get("delta"))
        block = self._blocks.get(index if index is not None else -1)
        kind = delta.get("type")
        if kind == "text_delta":
            text = delta["text"] if isinstance(delta.get("text"), str) else ""
            if block is not None:
                prior = block.get("text")  # a block's start may carry anything in "text"
                block["text"] = (prior if isinstance(prior, str) else "") + text
            return self._text(text)
        if kind == "citations_delta":
            if block is not None:
                if not isinstance(block.get("citations"), list):
                    block["citations"] = []
                block["citations"].append(delta.get("citation"))  # in place: O(1) per citation
            return self._citations([delta.get("citation")])
        if kind == "input_json_delta" and index in self._partial_json:
            piece = delta.get("partial_json")
            self._partial_json[index] += piece if isinstance(piece, str) else ""
        elif kind == "thinking_delta" and block is not None and isinstance(delta.get("thinking"), str):
            block["thinking"] = (block.get("thinking") or "") + delta["thinking"]
        elif kind == "signature_delta" and block is not None and isinstance(delta.get("signature"), str):
            block["signature"] = delta["signature"]
        return []

    def _block_stop(self, payload: dict[str, Any]) -> list[SearchEvent]:
        index = parse.int_field(payload, "index")
        block = self._blocks.get(index if index is not None else -1)
        if block is None or block.get("type") != "server_tool_use":
            return []
        raw = self._partial_json.pop(index, "") if index is not None else ""
        if raw.strip():
            try:
                parsed = json.loads(raw)
            except (ValueError, RecursionError):
                parsed = None
            block["input"] = parsed if isinstance(parsed, dict) else {}
        elif not isinstance(block.get("input"), dict):
            block["input"] = {}
        if block.get("name") != TOOL_NAME:
            return []
        query = plain_text(block["input"].get("query"), collapse=True)
        if not query or query in self._queries:
            return []
        self._queries.add(query)
        return [SearchQueries((query,))]

    def _message_delta(self, payload: dict[str, Any]) -> list[SearchEvent]:
        self._turn_usage.update(_usage_fields(payload.get("usage")))
        self._container(parse.as_dict(payload.get("delta")).get("container"))
        reason = parse.as_dict(payload.get("delta")).get("stop_reason")
        if isinstance(reason, str):
            self.stop_reason = reason
        if reason == "max_tokens":
            return self._note(f"{self.label} stopped at the max_tokens limit; the answer is cut short.")
        if reason == "refusal":
            return self._note(f"{self.label} declined to answer (stop_reason refusal).")
        return []

    def _message_stop(self, payload: dict[str, Any]) -> list[SearchEvent]:
        self.finished = True
        return []

    # ---- pieces

    def _container(self, raw: Any) -> None:
        """Remember the code execution ``container`` id a dynamic-filtering search ran in."""
        container_id = parse.as_dict(raw).get("id")
        if isinstance(container_id, str) and _ID_TOKEN.fullmatch(container_id):
            self.container_id = container_id

    def _text(self, text: Any) -> list[SearchEvent]:
        # Sanitized here, not only by the reducer: the blank-line rule below reads the answer's last
        # two characters as they are shown ("\r\n" shown as "\n", escape sequences removed).
        clean = sanitize(text) if isinstance(text, str) else ""
        if not clean:
            return []
        if self._pending_gap:
            self._pending_gap = False
            tail = self._answer_tail
            gap = "" if tail.endswith("\n\n") or clean.startswith("\n\n") else "\n" if tail.endswith("\n") else "\n\n"
            clean = gap + clean
        self._answer_tail = (self._answer_tail + clean)[-2:]
        return [AnswerDelta(clean)]

    def _citations(self, raw: list[Any]) -> list[SearchEvent]:
        citations = tuple(c for c in (_citation(item) for item in raw) if c is not None)
        if not citations:
            return []
        self._sources.cite(c.url for c in citations)
        return [CitationsFound(citations), *self._sources.sources_event()]

    def _tool_result(self, content: Any) -> list[SearchEvent]:
        if isinstance(content, dict):  # web_search_tool_result_error inside a 200
            code = plain_text(content.get("error_code"), collapse=True) or "unknown"
            words = SEARCH_ERROR_TEXT.get(code, "the search failed")
            return self._note(f"{self.label} web search error: {code} ({words}); the answer may be incomplete.")
        return self._add_sources([_result_source(item) for item in parse.as_list(content)])

    def _add_sources(self, sources: list[Source | None]) -> list[SearchEvent]:
        self._sources.add(source for source in sources if source is not None)
        return self._sources.sources_event()

    def _note(self, text: str) -> list[SearchEvent]:
        if text in self._notes:
            return []
        self._notes.add(text)
        return [Note(text)]


# --------------------------------------------------------------------------- the run


async def run(request: SearchRequest, ctx: ProviderContext, flavor: Flavor) -> AsyncGenerator[SearchEvent, None]:
    """Run one search over the Messages API and yield its events as they arrive.

    Sends the request, streams (or reads) the reply, and on ``stop_reason: pause_turn`` sends the
    same request again with the assistant content received so far appended (and the code execution
    ``container`` named, when the turn ran in one), at most :data:`MAX_CONTINUATIONS` times and only
    while the deadline leaves time; a search still paused after that ends with a note. When the
    first request sent :data:`TOOL_NEWEST` and the API answers 400 that this tool version is not
    supported (:func:`tool_refused`), it is sent once more with :data:`TOOL_BASIC` and a Note says
    so (later searches of the same model send :data:`TOOL_BASIC` directly). Ends with the closing
    ``Metadata``. The HTTP stream is closed when the returned generator is.

    Raises:
        ProviderError: ``config`` (no key, OAuth token, bad base URL); ``auth`` (401/403, seed
            message); ``model_not_found`` (the API does not know the model: :mod:`.helpers.models`
            message naming ``[providers.<id>] model``); ``not_found`` (other 404s, seed message);
            ``quota``, ``rate_limit``, ``bad_request``, ``server`` as ``<Label> API error
            (<status>): <message> (request id req_...)``; an ``error`` event after the stream
            started (the events already yielded stand); ``protocol`` for a stream that ends before
            ``message_stop`` or a body that is not a message; ``timeout``/``network``.
    """
    key = ctx.require_api_key()
    headers = build_headers(ctx, key, flavor)
    body, notes = build_body(request, ctx, flavor)
    for note in notes:
        yield Note(note)
    url = http.join_url(ctx.base_url(), PATH)
    check = models.ModelCheck(ctx.spec.id, ctx.spec.label, body["model"], flavor.model_gone)
    describe = check.describer(error_describer(ctx.spec.label))
    parser = MessageParser(
        provider=ctx.spec.id, label=ctx.spec.label, max_results=request.max_results, requested_model=body["model"]
    )
    first_message = body["messages"][0]
    turn = 0
    while True:
        if turn:
            assistant = {"role": "assistant", "content": parser.continuation_content()}
            body = {**body, "messages": [first_message, assistant]}
            if parser.container_id:
                body["container"] = parser.container_id
        parser.start_turn()
        if flavor.stream:
            payloads = streaming.sse_payloads(
                ctx, url, headers=headers, body=body, describe_error=describe, expect=SHAPE
            )
        else:
            payloads = _whole_message(ctx, url, headers, body, describe)
        sent_tool = body["tools"][0]["type"]
        try:
            events = streaming.feed_payloads(ctx, parser, payloads, on_error=lambda e: requalify(check.requalify(e)))
            async with aclosing(events) as running:
                async for event in running:
                    yield event
        except ProviderError as error:
            if turn or sent_tool == TOOL_BASIC or not tool_refused(error, sent_tool):
                raise
            ctx.state.get(_ToolMemory).refused.add(body["model"])
            body = {**body, "tools": [{**body["tools"][0], "type": TOOL_BASIC}]}
            yield Note(
                f"{ctx.spec.label} does not accept the {sent_tool} web search tool for {body['model']}; "
                f"searched with {TOOL_BASIC} instead."
            )
            continue
        if parser.stop_reason != "pause_turn":
            break
        if turn == MAX_CONTINUATIONS or ctx.remaining() < MIN_CONTINUE_SECONDS:
            yield Note(f"{ctx.spec.label} paused its search and was not resumed again; the answer may be incomplete.")
            break
        turn += 1
    for event in parser.closing():
        yield event


@record
class _ToolMemory:
    """Per provider (``ctx.state``): the models whose server refused :data:`TOOL_NEWEST`, sent
    :data:`TOOL_BASIC` directly from then on."""

    refused: set[str] = field(default_factory=set)


async def _whole_message(
    ctx: ProviderContext, url: str, headers: dict[str, str], body: dict[str, Any], describe: http.ErrorDescriber
) -> streaming.Payloads:
    """One non-streamed turn (``stream: false``) as the payloads of a stream: the reply body, once,
    named ``"json"``."""
    whole = http.HttpRequest("POST", url, headers=headers, json_body=body, describe_error=describe, expect=SHAPE)
    yield "json", (await http.send(ctx, whole)).json()
