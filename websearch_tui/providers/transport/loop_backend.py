"""An httpcore network backend built straight on asyncio's transports and protocols.

httpcore runs on asyncio through anyio (``httpcore.AnyIOBackend``), and every socket operation pays
for it: each ``read`` opens an anyio cancel scope with its own loop timer, maps exceptions through a
context manager and toggles the transport's reading off and on (two ``epoll_ctl`` calls), and each
``write`` adds a checkpoint. A streamed answer is one small read per token, so with many providers
streaming at once this is the largest single cost of an SSE event (about a third of the event
loop's time per event, measured in ``benchmarks/terminal.py``).

:class:`LoopBackend` implements httpcore's public ``AsyncNetworkBackend`` interface instead:

- a read returns what the protocol already buffered at once, and otherwise waits on one future with
  a ``call_later`` timer for the timeout;
- the protocol keeps reading while a connection is idle (up to :data:`HIGH_WATER` bytes buffered,
  then reading pauses until the buffer drains below :data:`LOW_WATER`), so ``is_readable`` (how
  httpcore's pool tells that a server closed a kept-alive connection) is answered from state;
- a write hands the bytes to the transport and waits only when the transport asks it to
  (``pause_writing``);
- TLS is ``loop.start_tls`` under the connect timeout.

Errors are httpcore's own (``ConnectError``/``ConnectTimeout``, ``ReadError``/``ReadTimeout``,
``WriteError``/``WriteTimeout``), exactly as the anyio backend raises them, so httpx maps them as
before.
"""

from __future__ import annotations

import asyncio
import collections
import ssl
from collections.abc import Coroutine, Iterable
from typing import Any

import httpcore

HIGH_WATER = 256 * 1024
"""Bytes buffered from a connection before reading from it pauses (nobody is reading them)."""
LOW_WATER = 64 * 1024
"""Reading resumes once the buffer drains below this many bytes."""


class _Protocol(asyncio.Protocol):
    """Buffers what a connection receives and wakes the one reader waiting for it."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.chunks: collections.deque[bytes] = collections.deque()
        self.buffered = 0
        self.eof = False
        self.error: BaseException | None = None
        self.reading_paused = False
        self.waiter: asyncio.Future[bool] | None = None
        self.drain: asyncio.Future[bool] | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.chunks.append(data)
        self.buffered += len(data)
        if self.buffered > HIGH_WATER and not self.reading_paused and self.transport is not None:
            self.reading_paused = True
            self.transport.pause_reading()
        self._wake()

    def eof_received(self) -> bool:
        self.eof = True
        self._wake()
        return False  # the transport closes itself: httpcore reads nothing after the server's end

    def connection_lost(self, exc: Exception | None) -> None:
        self.eof = True
        self.error = exc
        self._wake()
        if self.drain is not None and not self.drain.done():
            self.drain.set_result(True)

    def pause_writing(self) -> None:
        if self.drain is None or self.drain.done():
            self.drain = asyncio.get_running_loop().create_future()

    def resume_writing(self) -> None:
        if self.drain is not None and not self.drain.done():
            self.drain.set_result(True)

    def _wake(self) -> None:
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(True)

    def take(self, max_bytes: int) -> bytes:
        """Up to ``max_bytes`` of the oldest buffered data (b"" when nothing is buffered)."""
        if not self.chunks:
            return b""
        chunk = self.chunks.popleft()
        if len(chunk) > max_bytes:
            chunk, rest = chunk[:max_bytes], chunk[max_bytes:]
            self.chunks.appendleft(rest)
        self.buffered -= len(chunk)
        if self.reading_paused and self.buffered < LOW_WATER and self.transport is not None:
            self.reading_paused = False
            self.transport.resume_reading()
        return chunk


async def _wait(future: asyncio.Future[bool], timeout: float | None) -> bool:
    """Wait for ``future`` (set to True by whoever wakes it); False once ``timeout`` seconds (None: no
    limit) passed first. A cancel of the waiting task propagates as usual."""
    if timeout is None:
        return await future
    timer = asyncio.get_running_loop().call_later(timeout, _expire, future)
    try:
        return await future
    finally:
        timer.cancel()


def _expire(future: asyncio.Future[bool]) -> None:
    if not future.done():
        future.set_result(False)


class LoopStream(httpcore.AsyncNetworkStream):
    """One connection: an asyncio transport and the :class:`_Protocol` buffering what it receives."""

    def __init__(self, transport: asyncio.Transport, protocol: _Protocol) -> None:
        self._transport = transport
        self._protocol = protocol

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        """Up to ``max_bytes`` bytes; b"" once the server has closed its side.

        Raises:
            httpcore.ReadTimeout: nothing arrived within ``timeout`` seconds.
            httpcore.ReadError: the connection failed.
        """
        protocol = self._protocol
        if not protocol.chunks and not protocol.eof:
            protocol.waiter = asyncio.get_running_loop().create_future()
            try:
                if not await _wait(protocol.waiter, timeout):
                    raise httpcore.ReadTimeout(f"no data within {timeout} s")
            finally:
                protocol.waiter = None
        if protocol.chunks:
            return protocol.take(max_bytes)
        if protocol.error is not None:
            raise httpcore.ReadError(str(protocol.error)) from protocol.error
        return b""

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        """Send ``buffer``, waiting only while the transport's write buffer is full.

        Raises:
            httpcore.WriteTimeout: the transport stayed full for ``timeout`` seconds.
            httpcore.WriteError: the connection is closed or failed.
        """
        if not buffer:
            return
        protocol = self._protocol
        if self._transport.is_closing():
            raise httpcore.WriteError(str(protocol.error or "the connection is closed"))
        try:
            self._transport.write(buffer)
        except (OSError, RuntimeError) as exc:
            raise httpcore.WriteError(str(exc)) from exc
        drain = protocol.drain
        if drain is not None and not drain.done() and not await _wait(drain, timeout):
            raise httpcore.WriteTimeout(f"could not send within {timeout} s")
        if protocol.error is not None:
            raise httpcore.WriteError(str(protocol.error)) from protocol.error

    async def aclose(self) -> None:
        """Close the connection (at once: what was not sent is dropped, as httpcore expects)."""
        self._transport.abort()

    async def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> LoopStream:
        """This connection with TLS on it (for an ``https`` request through a proxy tunnel).

        Raises:
            httpcore.ConnectTimeout: the handshake took longer than ``timeout`` seconds.
            httpcore.ConnectError: the handshake failed (a certificate, a closed connection).
        """
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout):
                transport = await loop.start_tls(
                    self._transport, self._protocol, ssl_context, server_hostname=server_hostname
                )
        except TimeoutError:
            self._transport.abort()
            raise httpcore.ConnectTimeout(f"the TLS handshake took longer than {timeout} s") from None
        except (OSError, ssl.SSLError, ConnectionError) as exc:
            self._transport.abort()
            raise httpcore.ConnectError(str(exc)) from exc
        assert isinstance(transport, asyncio.Transport)
        self._protocol.transport = transport
        return LoopStream(transport, self._protocol)

    def get_extra_info(self, info: str) -> Any:
        """What httpcore asks of a stream: ``ssl_object``, ``client_addr``, ``server_addr``,
        ``socket`` and ``is_readable`` (data or the server's close is waiting: the pool drops such
        an idle connection); None for anything else."""
        if info == "is_readable":
            return bool(self._protocol.chunks) or self._protocol.eof
        if info == "client_addr":
            return self._transport.get_extra_info("sockname")
        if info == "server_addr":
            return self._transport.get_extra_info("peername")
        if info in ("ssl_object", "socket"):
            return self._transport.get_extra_info(info)
        return None


class LoopBackend(httpcore.AsyncNetworkBackend):
    """httpcore's network backend on the running asyncio loop (see the module)."""

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> LoopStream:
        """Connect to ``host:port`` (asyncio turns Nagle's algorithm off, as httpcore's backends do).

        Raises:
            httpcore.ConnectTimeout: not connected within ``timeout`` seconds.
            httpcore.ConnectError: the name did not resolve or the connection was refused.
        """
        local = (local_address, 0) if local_address else None
        opening = asyncio.get_running_loop().create_connection(_Protocol, host, port, local_addr=local)
        return await _connected(opening, f"{host}:{port}", timeout, socket_options)

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None
    ) -> LoopStream:
        """Connect to the Unix socket at ``path``.

        Raises:
            httpcore.ConnectTimeout: not connected within ``timeout`` seconds.
            httpcore.ConnectError: no such socket, or it refused the connection.
        """
        opening = asyncio.get_running_loop().create_unix_connection(_Protocol, path)
        return await _connected(opening, path, timeout, socket_options)

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` (httpcore's retry backoff)."""
        await asyncio.sleep(seconds)


async def _connected(
    opening: Coroutine[Any, Any, tuple[asyncio.Transport, _Protocol]],
    where: str,
    timeout: float | None,
    options: Iterable[httpcore.SOCKET_OPTION] | None,
) -> LoopStream:
    """The stream over the connection ``opening`` makes (to ``where``, for messages), with ``options``.

    Raises:
        httpcore.ConnectTimeout: not connected within ``timeout`` seconds (None: no limit).
        httpcore.ConnectError: it failed (a name that does not resolve, a refusal, no such socket).
    """
    try:
        async with asyncio.timeout(timeout):
            transport, protocol = await opening
    except TimeoutError:
        raise httpcore.ConnectTimeout(f"could not connect to {where} within {timeout} s") from None
    except OSError as exc:
        raise httpcore.ConnectError(str(exc)) from exc
    _apply(transport, options)
    return LoopStream(transport, protocol)


def _apply(transport: asyncio.BaseTransport, options: Iterable[httpcore.SOCKET_OPTION] | None) -> None:
    """Set each of httpx's ``socket_options`` (none by default) on the connection's socket."""
    sock = transport.get_extra_info("socket")
    if sock is None or not options:
        return
    for option in options:
        try:
            sock.setsockopt(*option)
        except OSError:
            continue  # TCP_NODELAY on a Unix socket, say: not every option applies to every socket
