"""The stdio transport's input side: every line the client sends is answered, and no line can take
more than :data:`MAX_LINE_BYTES` of memory.

The SDK's ``stdio_server`` reads lines of any length and drops a line it cannot read without a reply
(its client then waits for ever). Here the server's standard input is read by :class:`RequestLines`
(handed to ``stdio_server`` as its ``stdin``), which passes on each line the SDK accepts and answers
the others itself with a JSON-RPC 2.0 error (standard codes, the request's ``id`` where there is one):

- a line longer than :data:`MAX_LINE_BYTES`: ``-32600`` Invalid Request (``id`` null), the rest of the
  line read and dropped in pieces;
- a line that is not JSON: ``-32700`` Parse error (``id`` null);
- a batch (a JSON array; MCP has no batches since 2025-06-18): ``-32600`` for each request in it
  (one with ``id`` null when none has an id);
- anything but an object with ``"jsonrpc": "2.0"`` and a request, notification or response's
  members: ``-32600``.

A string holding a lone surrogate (``"\\ud800"``: valid JSON, not Unicode text, which the SDK's parser
refuses) has it replaced with U+FFFD, so the request is served. Blank lines are skipped.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import Any, BinaryIO

import anyio
from anyio.streams.memory import MemoryObjectSendStream
from mcp import types
from mcp.shared.message import SessionMessage

MAX_LINE_BYTES = 4 * 1024 * 1024
"""The longest line (one JSON-RPC message, in bytes, without its newline) the server reads."""
_CHUNK = 64 * 1024
"""Bytes read at a time while skipping the rest of a line that is too long."""
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_MESSAGE_KEYS = ("method", "result", "error")
"""An object carrying none of these is no JSON-RPC request, notification or response."""


class RequestLines:
    """The lines of ``source`` (a binary stream, read in a worker thread) as the SDK's stdio transport
    reads them (``async for line in stdin``): only lines it accepts; each other line is answered
    through ``replies`` (see the module's docstring).

    Args:
        source: the server's standard input.
        replies: where the error replies go (the server's write stream takes them from there).
        max_line: the longest line read, in bytes.
    """

    def __init__(
        self, source: BinaryIO, replies: MemoryObjectSendStream[SessionMessage], max_line: int = MAX_LINE_BYTES
    ) -> None:
        self._source, self._replies, self._max_line = source, replies, max_line

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        async with self._replies:
            while (raw := await anyio.to_thread.run_sync(self._read_line)) is not None:
                line, errors = check_line(raw, self._max_line)
                for error in errors:
                    await self._replies.send(SessionMessage(error))
                if line is not None:
                    yield line

    def _read_line(self) -> bytes | None:
        """The next line (at most ``max_line + 1`` bytes: one more means it was longer, and the rest of
        it has been read and dropped), or ``None`` at the end of the input. Blocking."""
        line = self._source.readline(self._max_line + 1)
        if not line:
            return None
        if len(line) > self._max_line and not line.endswith(b"\n"):
            while (rest := self._source.readline(_CHUNK)) and not rest.endswith(b"\n"):
                pass
        return line


def check_line(raw: bytes, max_line: int = MAX_LINE_BYTES) -> tuple[str | None, list[types.JSONRPCError]]:
    """``(line to pass to the SDK or None, error replies)`` for one line read from the client
    (``raw``, at most ``max_line + 1`` bytes; longer means it was cut). Invalid UTF-8 is replaced
    (as the SDK reads it). Linear in the line's length."""
    if len(raw.rstrip(b"\r\n")) > max_line:
        return None, [
            _error(None, types.INVALID_REQUEST, f"Invalid Request: a message may be at most {max_line} bytes long")
        ]
    line = raw.decode("utf-8", errors="replace").strip()
    if not line:
        return None, []
    try:
        types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValueError:
        return _repair(line)
    return line, []


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


@contextmanager
def claimed_stdin() -> Iterator[BinaryIO]:
    """The process's standard input as a binary stream of its own, while file descriptor 0 points at
    the null device (so a child process or stray read gets end-of-file, as the SDK does for the
    input it reads itself); descriptor 0 is restored after."""
    private = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
    finally:
        os.close(null)
    try:
        with os.fdopen(private, "rb", closefd=False) as stream:
            yield stream
    finally:
        os.dup2(private, 0)
        os.close(private)
