"""The stdio transport's input side: every line the client sends is answered, and no line can take
more than :data:`MAX_LINE_BYTES` of memory.

The SDK's ``stdio_server`` reads lines of any length and drops a line it cannot read without a reply
(its client then waits for ever). Here the server's standard input is read by :class:`RequestLines`
(handed to ``stdio_server`` as its ``stdin``), which passes on each line the SDK accepts and answers
the others itself with a JSON-RPC 2.0 error (:func:`~websearch_tui.mcp.messages.check_message`); the
rest of a line longer than :data:`MAX_LINE_BYTES` is read and dropped in pieces. Blank lines are skipped.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import BinaryIO

import anyio
from anyio.streams.memory import MemoryObjectSendStream
from mcp.shared.message import SessionMessage

from websearch_tui.mcp.messages import MAX_MESSAGE_BYTES, check_message

MAX_LINE_BYTES = MAX_MESSAGE_BYTES
"""The longest line (one JSON-RPC message, in bytes, without its newline) the server reads."""
_CHUNK = 64 * 1024
"""Bytes read at a time while skipping the rest of a line that is too long."""


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
                line, errors = check_message(raw, self._max_line)
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
