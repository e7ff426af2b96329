"""One JSON-RPC message from a client, checked before the SDK reads it (:func:`check_message`), so
that every message is answered: the SDK drops a stdio line it cannot read without a reply, and answers
such an HTTP body with a non-standard code. Used by the stdio input
(:class:`~websearch_tui.mcp.stdio.RequestLines`) and, over HTTP, by :class:`MessageCheck`.

A message the SDK refuses gets a JSON-RPC 2.0 error (standard codes, the request's ``id`` where there
is one):

- longer than :data:`MAX_MESSAGE_BYTES`: ``-32600`` Invalid Request (``id`` null);
- not JSON: ``-32700`` Parse error (``id`` null);
- a batch (a JSON array; MCP has no batches since 2025-06-18): ``-32600`` for each request in it
  (one with ``id`` null when none has an id);
- anything but an object with ``"jsonrpc": "2.0"`` and a request, notification or response's
  members: ``-32600``.

A string holding a lone surrogate (``"\\ud800"``: valid JSON, not Unicode text, which the SDK's parser
refuses) has it replaced with U+FFFD, so the request is served.
"""

from __future__ import annotations

import json
import re
from typing import Any

from mcp import types
from starlette.types import ASGIApp, Message, Receive, Scope, Send

MAX_MESSAGE_BYTES = 4 * 1024 * 1024
"""The largest message (a stdio line without its newline, an HTTP body) read: the SDK's own HTTP body limit."""
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_MESSAGE_KEYS = ("method", "result", "error")
"""An object carrying none of these is no JSON-RPC request, notification or response."""


def check_message(raw: bytes, max_bytes: int = MAX_MESSAGE_BYTES) -> tuple[str | None, list[types.JSONRPCError]]:
    """``(message to pass to the SDK or None, error replies)`` for one message from the client
    (``raw``: a stdio line or an HTTP body, at most ``max_bytes + 1`` bytes; longer means it was cut).
    Invalid UTF-8 is replaced (as the SDK reads it). Linear in the message's length."""
    if len(raw.rstrip(b"\r\n")) > max_bytes:
        return None, [
            _error(None, types.INVALID_REQUEST, f"Invalid Request: a message may be at most {max_bytes} bytes long")
        ]
    line = raw.decode("utf-8", errors="replace").strip()
    if not line:
        return None, []
    try:
        parsed = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValueError:
        return _repair(line)
    if isinstance(parsed, types.JSONRPCNotification) and '"id"' in line and _bad_id(json.loads(line)):
        return None, [_error(None, types.INVALID_REQUEST, "Invalid Request: an id must be a string or a whole number")]
    return line, []


def _bad_id(message: Any) -> bool:
    """True when ``message`` (a JSON object the SDK read as a notification) carries an ``id`` that
    JSON-RPC does not allow (``true``, ``1.5``, an object): the sender expects an answer that a
    notification never gets."""
    return isinstance(message, dict) and "id" in message and _id_of(message) is None


def _repair(line: str) -> tuple[str | None, list[types.JSONRPCError]]:
    """A line the SDK refuses: the same message without lone surrogates if that is all that was
    wrong, else the error replies."""
    try:
        message = json.loads(line)
    except ValueError:  # also a number too long to convert
        return None, [_error(None, types.PARSE_ERROR, "Parse error: the line is not JSON")]
    if isinstance(message, list):
        return None, _batch_errors(message)
    problem = _problem(message)
    if problem is None:
        repaired = json.dumps(_without_surrogates(message), ensure_ascii=False)
        try:
            types.jsonrpc_message_adapter.validate_json(repaired, by_name=False)
        except ValueError:
            problem = "not a valid JSON-RPC 2.0 request, notification or response"
        else:
            return repaired, []
    return None, [_error(_id_of(message), types.INVALID_REQUEST, f"Invalid Request: {problem}")]


def _problem(message: Any) -> str | None:
    """Why ``message`` (parsed JSON) is no JSON-RPC 2.0 message, or ``None`` if its frame is right."""
    if not isinstance(message, dict):
        return "a message must be a JSON object"
    if message.get("jsonrpc") != "2.0":
        return 'a message must have "jsonrpc": "2.0"'
    if not any(key in message for key in _MESSAGE_KEYS):
        return "a message needs a method (request, notification) or a result or error (response)"
    return None


def _batch_errors(batch: list[Any]) -> list[types.JSONRPCError]:
    """One ``-32600`` per request in a batch (one with ``id`` null when none has an id)."""
    message = "Invalid Request: batches are not supported; send one message per line"
    ids = [_id_of(item) for item in batch if isinstance(item, dict) and "method" in item]
    targets: list[str | int | None] = [request_id for request_id in ids if request_id is not None] or [None]
    return [_error(request_id, types.INVALID_REQUEST, message) for request_id in targets]


def _id_of(message: Any) -> str | int | None:
    """The message's ``id`` when it is one JSON-RPC allows (a string or a whole number), else ``None``."""
    request_id = message.get("id") if isinstance(message, dict) else None
    if isinstance(request_id, bool) or not isinstance(request_id, (str, int)):
        return None
    return _SURROGATE.sub("\ufffd", request_id) if isinstance(request_id, str) else request_id


def _without_surrogates(value: Any) -> Any:
    """``value`` (parsed JSON) with every lone surrogate in its strings (keys too) replaced by U+FFFD."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_without_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {_without_surrogates(key): _without_surrogates(item) for key, item in value.items()}
    return value


def _error(request_id: str | int | None, code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message))


class MessageCheck:
    """ASGI middleware in front of the SDK's Streamable HTTP endpoint (``path``): a ``POST`` body is read
    (up to :data:`MAX_MESSAGE_BYTES`; a longer one goes to the SDK as it came, which answers 413) and
    checked with :func:`check_message`: a body it answers gets HTTP 400 with the error (an array of them
    for a batch), the others go on to the SDK (with lone surrogates replaced)."""

    def __init__(self, app: ASGIApp, path: str) -> None:
        self._app, self._path = app, path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] != self._path:
            await self._app(scope, receive, send)
            return
        messages, body = await _read_body(receive)
        if body is None:  # too long, or the client went away: the SDK answers as it does
            await self._app(scope, _replay(messages, receive), send)
            return
        message, errors = check_message(body)
        if errors:
            await _answer(send, errors)
            return
        checked = (message or "").encode()
        headers = [(name, value) for name, value in scope["headers"] if name.lower() != b"content-length"]
        scope = {**scope, "headers": [*headers, (b"content-length", str(len(checked)).encode())]}
        await self._app(scope, _replay([{"type": "http.request", "body": checked, "more_body": False}], receive), send)


async def _read_body(receive: Receive) -> tuple[list[Message], bytes | None]:
    """``(the messages received, the whole body)``; the body is ``None`` once it passes
    :data:`MAX_MESSAGE_BYTES` or the client disconnects (reading stops there)."""
    messages: list[Message] = []
    size = 0
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            return messages, None
        size += len(message.get("body", b""))
        if size > MAX_MESSAGE_BYTES:
            return messages, None
        if not message.get("more_body", False):
            return messages, b"".join(m.get("body", b"") for m in messages)


def _replay(messages: list[Message], receive: Receive) -> Receive:
    """A ``receive`` that gives ``messages`` first, then what ``receive`` gives."""
    pending = list(messages)

    async def replayed() -> Message:
        return pending.pop(0) if pending else await receive()

    return replayed


async def _answer(send: Send, errors: list[types.JSONRPCError]) -> None:
    """HTTP 400 with ``errors`` as JSON (one object, or an array for several)."""
    dumped = [error.model_dump(by_alias=True, exclude_unset=True) for error in errors]
    body = json.dumps(dumped[0] if len(dumped) == 1 else dumped).encode()
    await send({"type": "http.response.start", "status": 400, "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": body})
