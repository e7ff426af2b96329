"""Loopback fake of the Anthropic Messages API with the web search tool: ``POST /anthropic/v1/messages``.

Like the real API it needs ``x-api-key`` (or, as gateways take it, ``Authorization: Bearer``) and
``anthropic-version``; it rejects a body without ``model``/``max_tokens``/``messages`` or a search
tool not named exactly ``web_search`` (400 ``invalid_request_error``, the real wording), answers
SSE for ``stream: true`` (``event:`` + ``data:`` lines, data padded with trailing spaces, one
``ping``, no ``[DONE]``) and one JSON message otherwise. The answer (``data/anthropic_message.json``)
(read with ``load_data``, the tool's ``{query}`` filled in) is streamed as one ``text_delta`` per word, dripped by ``request.server.token_delay``, with the
``server_tool_use`` query sent as ``input_json_delta`` pieces, the ``web_search_tool_result`` block
complete in its ``content_block_start`` and ``citations_delta`` events before the cited text.

:class:`MessagesFake` is shared with ``fake_deepseek`` (same wire shape under another prefix).
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

from .server import FakeRequest, FakeResponse, load_data, split_at, sse_frames, sse_response, utf8_split_offsets

KEY = "fake-anthropic-key"
FAKE_KEYS = {"ANTHROPIC_SEARCH_API_KEY": KEY}
PATH = "/anthropic/v1/messages"
SEARCH_ROUTE = ("POST", PATH)
DATA = "anthropic_message.json"
ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}
ERROR_MESSAGES = {
    401: "invalid x-api-key",
    402: "Insufficient Balance",
    403: "Your API key does not have permission to use the specified resource.",
    404: "The requested resource could not be found.",
    413: "Request exceeds the maximum allowed number of bytes.",
    429: "Number of request tokens has exceeded your per-minute rate limit.",
    500: "Internal server error",
    529: "Overloaded",
}
STREAM_VARIANTS = ("split", "crlf", "fail_midway", "dropped", "no_final")
BODY_VARIANTS = ("pause_turn", "search_error", "no_search", "flat_results")
ERROR_VARIANTS = tuple(f"error_{status}" for status in ERROR_TYPES)
VARIANTS = ("default", "json", *STREAM_VARIANTS, *BODY_VARIANTS, "credit_balance", *ERROR_VARIANTS)
"""``json``: a gateway that ignores ``stream: true``; ``split``/``crlf``: framing; ``fail_midway``:
an ``overloaded_error`` event after some tokens; ``dropped``: the connection closes mid-stream;
``no_final``: no ``message_stop``; ``pause_turn``: a paused turn, continued when the request ends
with an assistant message; ``search_error``: a ``web_search_tool_result_error`` block inside the
200; ``no_search``: an answer without any search; ``flat_results``: top-level ``web_search_result``
blocks with ``description`` (as some compatible servers send); ``credit_balance``: the 400 of an
empty account; ``error_<status>``: the documented error envelope."""
_WORD = re.compile(r"\S+\s*|\s+")


def error_body(status: int, message: str) -> dict[str, Any]:
    """The documented error envelope ``{"type": "error", "error": {"type", "message"}, "request_id"}``."""
    error_type = ERROR_TYPES.get(status, "api_error" if status >= 500 else "invalid_request_error")
    return {"type": "error", "error": {"type": error_type, "message": message}, "request_id": "req_fake_0001"}


def error_response(status: int, message: str) -> FakeResponse:
    """A non-2xx reply with the Anthropic error envelope (``request-id`` header as the API sends)."""
    return FakeResponse(status, {"request-id": "req_fake_0001"}, error_body(status, message))


def config(base_url: str) -> dict[str, Any]:
    """The ``[providers.anthropic]`` table for a fake at ``base_url``."""
    return {"base_url": f"{base_url}/anthropic"}


def routes() -> dict[tuple[str, str], Any]:
    """The default Messages route."""
    return {SEARCH_ROUTE: MessagesFake(KEY)}


def variant_routes(variant: str) -> dict[tuple[str, str], Any]:
    """The Messages route answering one of :data:`VARIANTS`."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown anthropic variant {variant!r}")
    return {SEARCH_ROUTE: MessagesFake(KEY, variant)}


# --------------------------------------------------------------------------- the answer


def message(query: str, variant: str = "default") -> dict[str, Any]:
    """The whole Messages response for ``query`` in a body-shape ``variant``."""
    data = load_data(DATA, query)
    if variant == "search_error":
        data["content"][1]["content"] = {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}
        for block in data["content"]:
            block.pop("citations", None)
        data["usage"]["server_tool_use"]["web_search_requests"] = 0
    elif variant == "no_search":
        data["content"] = [{"type": "text", "text": "asyncio is Python's library for async I/O.", "citations": None}]
        data["usage"].pop("server_tool_use")
    elif variant == "flat_results":
        results = data["content"].pop(1)["content"]
        for result in results:
            result["description"] = f"About {result['title']}"
        data["content"][1:1] = results
    return data


def split_turns(whole: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``whole`` as a paused first turn (ending with the ``server_tool_use``) and its continuation."""
    first, second = copy.deepcopy(whole), copy.deepcopy(whole)
    first["content"] = [{"type": "text", "text": "Let me search for that:", "citations": None}, whole["content"][0]]
    first["stop_reason"], first["id"] = "pause_turn", whole["id"] + "_p1"
    second["content"] = whole["content"][1:]
    return first, second


def stream_events(data: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The streamed events of one message: start, ping, blocks with their deltas, delta, stop."""
    start = {key: value for key, value in data.items() if key != "content"}
    start.update(
        content=[], stop_reason=None, usage={"input_tokens": data["usage"]["input_tokens"], "output_tokens": 1}
    )
    events = [("message_start", {"type": "message_start", "message": start}), ("ping", {"type": "ping"})]
    for index, block in enumerate(data["content"]):
        events += _block_events(index, block)
    delta = {"stop_reason": data["stop_reason"], "stop_sequence": None}
    events.append(("message_delta", {"type": "message_delta", "delta": delta, "usage": data["usage"]}))
    events.append(("message_stop", {"type": "message_stop"}))
    return events


def _block_events(index: int, block: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    def delta(body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        return "content_block_delta", {"type": "content_block_delta", "index": index, "delta": body}

    kind = block["type"]
    if kind == "text":
        opening: dict[str, Any] = {"type": "text", "text": ""}
        if block.get("citations"):
            opening = {"citations": [], **opening}
        deltas = [delta({"type": "citations_delta", "citation": c}) for c in block.get("citations") or []]
        deltas += [delta({"type": "text_delta", "text": word}) for word in _WORD.findall(block["text"])]
    elif kind == "server_tool_use":
        opening = {**block, "input": {}}
        raw = json.dumps(block["input"], ensure_ascii=False)
        deltas = [delta({"type": "input_json_delta", "partial_json": raw[i : i + 9]}) for i in range(0, len(raw), 9)]
    else:
        opening, deltas = block, []
    start = ("content_block_start", {"type": "content_block_start", "index": index, "content_block": opening})
    return [start, *deltas, ("content_block_stop", {"type": "content_block_stop", "index": index})]


def _padded(events: list[tuple[str, dict[str, Any]]]) -> list[bytes]:
    """SSE frames with the data lines padded with trailing spaces, as Anthropic sends them."""
    frames = sse_frames(events)
    return [frame.replace(b"\n\n", b"   \n\n", 1) if frame.endswith(b"\n\n") else frame for frame in frames]


# --------------------------------------------------------------------------- the handler


class MessagesFake:
    """The ``POST …/v1/messages`` handler for one variant.

    ``bearer_ok`` accepts ``Authorization: Bearer <key>`` as well as ``x-api-key``;
    ``needs_version`` requires ``anthropic-version`` (DeepSeek ignores it).
    """

    def __init__(self, key: str, variant: str = "default", *, bearer_ok: bool = True, needs_version: bool = True):
        self.key = key
        self.variant = variant
        self.bearer_ok = bearer_ok
        self.needs_version = needs_version

    def __call__(self, request: FakeRequest) -> FakeResponse:
        problem = self._check(request)
        if problem is not None:
            return problem
        if self.variant.startswith("error_"):
            status = int(self.variant.removeprefix("error_"))
            response = error_response(status, ERROR_MESSAGES.get(status, "Invalid request"))
            if status == 429:
                response.headers["retry-after"] = "1"
            return response
        if self.variant == "credit_balance":
            msg = "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing."
            return error_response(400, msg)
        body = request.json()
        data = self._answer(body)
        if body.get("stream") and self.variant != "json":
            return self._stream(request, data)
        return self._json(data)

    def _check(self, request: FakeRequest) -> FakeResponse | None:
        key = request.header("x-api-key") or (request.bearer() if self.bearer_ok else None)
        if key != self.key:
            return error_response(401, "invalid x-api-key")
        if self.needs_version and not request.header("anthropic-version"):
            return error_response(400, "anthropic-version: header is required")
        try:
            body = request.json()
        except ValueError:
            return error_response(400, "There was an issue with the request body: not valid JSON")
        if not isinstance(body, dict):
            return error_response(400, "The request body is not a JSON object")
        for name in ("model", "max_tokens", "messages"):
            if name not in body:
                return error_response(400, f"{name}: Field required")
        tools = body.get("tools") or []
        for i, tool in enumerate(tools):
            if tool.get("type") == "web_search_20250305" and tool.get("name") != "web_search":
                return error_response(400, f"tools.{i}.web_search_20250305.name: Input should be 'web_search'")
        return None

    def _answer(self, body: dict[str, Any]) -> dict[str, Any]:
        messages = body.get("messages") or [{}]
        prompt = messages[0].get("content")
        prompt = prompt if isinstance(prompt, str) else "python asyncio"
        query = prompt.rsplit("Question:", 1)[-1].strip() or "python asyncio"
        data = message(query, self.variant if self.variant in BODY_VARIANTS else "default")
        data["model"] = body.get("model") or data["model"]
        if self.variant == "pause_turn":
            first, second = split_turns(data)
            return second if messages[-1].get("role") == "assistant" else first
        return data

    def _stream(self, request: FakeRequest, data: dict[str, Any]) -> FakeResponse:
        events = stream_events(data)
        if self.variant == "fail_midway":
            cut = next(i for i, (_, e) in enumerate(events) if e.get("delta", {}).get("type") == "text_delta") + 8
            error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
            events = [*events[:cut], ("error", error)]
        elif self.variant == "no_final":
            events = events[:-1]
        delay = request.server.token_delay if request.server else 0.0
        response = sse_response(_padded(events), chunk_delay=delay)
        response.chunks = response.chunks or []
        if self.variant == "split":
            whole = b"".join(response.chunks)
            response.chunks = split_at(whole, [*range(7, len(whole), 97), *utf8_split_offsets(whole)])
            response.chunk_delay = max(delay, 0.001)  # separate reads, so events really arrive in pieces
        elif self.variant == "crlf":
            response.chunks = [c.replace(b"\n", b"\r\n") for c in response.chunks]
        elif self.variant == "dropped":
            response.truncate_at = len(b"".join(response.chunks)) // 2
        return response

    def _json(self, data: dict[str, Any]) -> FakeResponse:
        response = FakeResponse(200, {"request-id": "req_fake_0001"}, data)
        raw = response.body_bytes()
        if self.variant == "split":
            return response.with_body(raw, split_at(raw, [*range(5, len(raw), 64), *utf8_split_offsets(raw)]))
        if self.variant in ("fail_midway", "dropped"):
            response.truncate_at = len(raw) // 2
        elif self.variant == "no_final":
            response.truncate_at = len(raw) - 3
        return response
