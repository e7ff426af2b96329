"""The stdio transport's two ends as the SDK's ``stdio_server`` is handed them.

Input: every line the client sends is answered, and no line can take more than
:data:`MAX_LINE_BYTES` of memory. The SDK's ``stdio_server`` reads lines of any length and drops a
line it cannot read without a reply (its client then waits for ever). Here the server's standard input
is read by :class:`RequestLines` (handed to ``stdio_server`` as its ``stdin``), which passes on each
line the SDK accepts and answers the others itself with a JSON-RPC 2.0 error
(:func:`~websearch_tui.mcp.messages.check_message`); the rest of a line longer than
:data:`MAX_LINE_BYTES` is read and dropped in pieces. Blank lines are skipped.

Output: when standard output is a pipe or a socket (as an MCP client starts the server), the messages
are written by the event loop (:func:`claimed_stdout`, :class:`PipeOut`) instead of by the SDK's worker
thread, which took two thread hand-offs per message (write, then flush).
"""

from __future__ import annotations

import asyncio
import os
import stat
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager, suppress
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


def _dup_above_std(fd: int) -> int:
    """A private duplicate of ``fd`` numbered 3 or more (so it can never be taken for a standard
    stream when one of them is closed), not inherited by child processes.

    Raises:
        OSError: ``fd`` is not open, or no descriptor is free.
    """
    if sys.platform == "win32":
        return os.dup(fd)  # non-inheritable already
    import fcntl

    return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)


@contextmanager
def _diverted(fd: int, open_target: Callable[[], int]) -> Iterator[None]:
    """Within the block, descriptor ``fd`` points at what ``open_target()`` opens (the null device,
    standard error); after it, also on an error or a cancel, at what it pointed at before. When it
    cannot be diverted (no descriptor free, the target closed) it is left as it is.

    Raises:
        OSError: ``fd`` is not open.
    """
    saved = _dup_above_std(fd)
    try:
        target = open_target()
        try:
            os.dup2(target, fd)
        finally:
            os.close(target)
    except OSError:
        pass  # not diverted: stray output still reaches the descriptor, nothing else changes
    try:
        yield
    finally:
        os.dup2(saved, fd)
        os.close(saved)


def _null_input() -> int:
    return os.open(os.devnull, os.O_RDONLY)


def _error_output() -> int:
    try:
        return os.dup(2)
    except OSError:  # no standard error: stray output is dropped
        return os.open(os.devnull, os.O_WRONLY)


@contextmanager
def claimed_stdin() -> Iterator[BinaryIO]:
    """The process's standard input as a binary stream of its own, while file descriptor 0 points at
    the null device (so a child process or stray read gets end-of-file, as the SDK does for the
    input it reads itself); descriptor 0 is restored after."""
    private = _dup_above_std(0)
    try:
        with _diverted(0, _null_input), os.fdopen(private, "rb", closefd=False) as stream:
            yield stream
    finally:
        os.close(private)


CLOSE_SECONDS = 2.0
"""How long, at the end, the server waits for what is still queued for standard output to be written."""


class _Flow(asyncio.Protocol):
    """The pipe transport's protocol: holds writers back while the transport is paused (more than its
    high-water mark queued) and tells when the pipe has closed."""

    def __init__(self) -> None:
        loop = asyncio.get_running_loop()
        self.closed: asyncio.Future[None] = loop.create_future()
        self._resumed: asyncio.Future[None] = loop.create_future()
        self._resumed.set_result(None)
        self._lost: BaseException | None = None

    def pause_writing(self) -> None:
        if self._resumed.done():
            self._resumed = asyncio.get_running_loop().create_future()

    def resume_writing(self) -> None:
        if not self._resumed.done():
            self._resumed.set_result(None)

    def connection_lost(self, exc: Exception | None) -> None:
        self._lost = exc or ConnectionResetError("the client closed the server's standard output")
        self.resume_writing()
        if not self.closed.done():
            self.closed.set_result(None)

    async def drain(self) -> None:
        """Return once the transport takes more (at once unless paused).

        Raises:
            ConnectionResetError (or the transport's error): the pipe has closed.
        """
        await self._resumed
        if self._lost is not None:
            raise self._lost


class PipeOut:
    """Standard output as the SDK's stdio transport writes it (``await write(text)`` then ``await
    flush()`` per message), over asyncio's pipe transport: ``write`` queues the UTF-8 bytes (written
    at once while the pipe has room); ``flush`` waits while more than the transport's high-water mark
    is queued, so a client that stops reading holds the server's replies back, as a blocking write
    did. ``flush`` raises :class:`ConnectionResetError` once the client has closed its end.
    """

    def __init__(self, transport: asyncio.WriteTransport, flow: _Flow) -> None:
        self._transport, self._flow = transport, flow

    async def write(self, text: str) -> None:
        """Queue ``text``."""
        self._transport.write(text.encode("utf-8"))

    async def flush(self) -> None:
        """Wait until the queue is below the high-water mark.

        Raises:
            ConnectionResetError (or the transport's error): the client closed its end.
        """
        if self._transport.is_closing():
            await asyncio.sleep(0)  # a failed write closes the transport: let it tell the protocol first
        await self._flow.drain()

    async def aclose(self) -> None:
        """Write what is queued (at most :data:`CLOSE_SECONDS`) and close the private descriptor; a
        cancel while waiting drops what is left at once."""
        self._transport.close()
        try:
            with suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._flow.closed), CLOSE_SECONDS)
        finally:
            if not self._flow.closed.done():  # a client that stopped reading, or a cancel: dropped
                self._transport.abort()


def _private_pipe() -> BinaryIO | None:
    """A private duplicate of file descriptor 1 when it is a pipe or a socket, else ``None`` (a
    terminal or a file: the SDK writes it itself; asyncio would leave a terminal non-blocking; and on
    Windows, where asyncio cannot write a pipe this way)."""
    if sys.platform == "win32":
        return None
    try:
        mode = os.fstat(1).st_mode
        if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
            return None
        return os.fdopen(_dup_above_std(1), "wb", buffering=0)
    except OSError:
        return None


@asynccontextmanager
async def claimed_stdout() -> AsyncIterator[PipeOut | None]:
    """Standard output as a :class:`PipeOut` of its own, while file descriptor 1 points at standard
    error (a stray print, a library's or a child process's output, goes there, never into the
    protocol, as the SDK does for the output it writes itself); descriptor 1 is restored after, with
    the blocking mode it had, also when the server is cancelled while it closes. ``None`` when it is
    not a pipe or a socket, or asyncio cannot write it (the SDK then writes it itself)."""
    wire = _private_pipe()
    if wire is None:
        yield None
        return
    blocking = os.get_blocking(1)  # the pipe transport makes the shared file description non-blocking
    with suppress(OSError, ValueError):
        sys.stdout.flush()
    try:
        try:
            transport, flow = await asyncio.get_running_loop().connect_write_pipe(_Flow, wire)
        except (OSError, ValueError):
            wire.close()
            yield None
            return
        with _diverted(1, _error_output):
            out = PipeOut(transport, flow)
            try:
                yield out
            finally:
                await out.aclose()
    finally:
        with suppress(OSError):
            os.set_blocking(1, blocking)
