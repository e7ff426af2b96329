"""The asyncio network backend under httpcore: reads, writes, timeouts, the server's close, flow
control, TLS (a throwaway CA from trustme) and the shared client over it, all on loopback."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable

import httpcore
import httpx
import pytest
import trustme

from websearch_tui.providers.transport import http
from websearch_tui.providers.transport.loop_backend import HIGH_WATER, LOW_WATER, LoopBackend, LoopStream

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def serve(handler: Handler, context: ssl.SSLContext | None = None) -> tuple[asyncio.Server, int]:
    """A loopback server running ``handler`` per connection, and its port."""
    server = await asyncio.start_server(handler, "127.0.0.1", 0, ssl=context)
    return server, server.sockets[0].getsockname()[1]


@pytest.fixture
async def connected() -> AsyncIterator[tuple[LoopStream, asyncio.Queue[asyncio.StreamWriter]]]:
    """A stream connected to a server that hands each connection's writer to the test."""
    writers: asyncio.Queue[asyncio.StreamWriter] = asyncio.Queue()

    async def hold(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await writers.put(writer)
        await reader.read()  # until the client closes

    server, port = await serve(hold)
    stream = await LoopBackend().connect_tcp("127.0.0.1", port, timeout=5)
    try:
        yield stream, writers
    finally:
        await stream.aclose()
        server.close()


async def test_a_read_returns_what_arrived_and_empty_bytes_after_the_servers_close(connected) -> None:
    stream, writers = connected
    writer = await writers.get()
    writer.write(b"data: one\n\n")
    assert await stream.read(65536, timeout=5) == b"data: one\n\n"
    writer.write(b"abcdef")
    await asyncio.sleep(0.05)
    assert [await stream.read(4, timeout=5), await stream.read(4, timeout=5)] == [b"abcd", b"ef"]
    writer.close()
    assert await stream.read(65536, timeout=5) == b""
    assert await stream.read(65536, timeout=5) == b""


async def test_a_read_with_nothing_arriving_times_out_and_the_stream_still_reads_afterwards(connected) -> None:
    stream, writers = connected
    writer = await writers.get()
    with pytest.raises(httpcore.ReadTimeout):
        await stream.read(100, timeout=0.05)
    writer.write(b"late")
    assert await stream.read(100, timeout=5) == b"late"


async def test_cancelling_a_waiting_read_cancels_it_and_leaves_no_waiter(connected) -> None:
    stream, writers = connected
    writer = await writers.get()
    task = asyncio.ensure_future(stream.read(100, timeout=None))
    await asyncio.sleep(0.02)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    writer.write(b"next")
    assert await stream.read(100, timeout=5) == b"next"


async def test_is_readable_tells_an_idle_connection_the_server_closed(connected) -> None:
    stream, writers = connected
    writer = await writers.get()
    assert stream.get_extra_info("is_readable") is False
    writer.close()
    await asyncio.sleep(0.05)
    assert stream.get_extra_info("is_readable") is True  # httpcore's pool drops such a connection
    assert stream.get_extra_info("server_addr")[0] == "127.0.0.1"
    assert stream.get_extra_info("ssl_object") is None
    assert stream.get_extra_info("nothing") is None


async def test_reading_pauses_while_nobody_reads_and_resumes_as_the_buffer_drains(connected) -> None:
    stream, writers = connected
    writer = await writers.get()
    writer.write(b"x" * (HIGH_WATER * 4))
    await asyncio.sleep(0.2)
    transport = stream._transport
    assert not transport.is_reading()  # bounded: the rest waits in the kernel, not in our memory
    assert stream._protocol.buffered <= HIGH_WATER + 65536 * 4
    received = 0
    while stream._protocol.buffered >= LOW_WATER:
        received += len(await stream.read(65536, timeout=5))
    assert transport.is_reading()
    while received < HIGH_WATER * 4:
        received += len(await stream.read(65536, timeout=5))
    assert received == HIGH_WATER * 4


async def test_writes_arrive_and_a_write_after_the_close_is_a_write_error(connected) -> None:
    stream, _ = connected
    await stream.write(b"")
    await stream.aclose()
    with pytest.raises(httpcore.WriteError):
        await stream.write(b"GET / HTTP/1.1\r\n\r\n", timeout=1)


async def test_connecting_to_a_closed_port_is_a_connect_error() -> None:
    server, port = await serve(lambda reader, writer: asyncio.sleep(0))
    server.close()
    await server.wait_closed()
    with pytest.raises(httpcore.ConnectError):
        await LoopBackend().connect_tcp("127.0.0.1", port, timeout=5)


async def test_connecting_longer_than_the_timeout_is_a_connect_timeout(monkeypatch) -> None:
    loop = asyncio.get_running_loop()

    async def never(*args: object, **kwargs: object) -> None:
        await asyncio.sleep(60)

    monkeypatch.setattr(loop, "create_connection", never)
    with pytest.raises(httpcore.ConnectTimeout):
        await LoopBackend().connect_tcp("127.0.0.1", 9, timeout=0.05)


async def test_a_unix_socket_connects_and_reads(tmp_path) -> None:
    async def greet(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"hello")
        await writer.drain()
        writer.close()

    server = await asyncio.start_unix_server(greet, str(tmp_path / "s"))
    stream = await LoopBackend().connect_unix_socket(str(tmp_path / "s"), timeout=5)
    try:
        assert await stream.read(100, timeout=5) == b"hello"
    finally:
        await stream.aclose()
        server.close()


@pytest.fixture(scope="module")
def authority() -> trustme.CA:
    return trustme.CA()


async def https_server(authority: trustme.CA, body: bytes) -> tuple[asyncio.Server, int]:
    """An HTTPS server on loopback with a certificate for ``localhost`` from ``authority``,
    answering every request with ``body`` as an event stream."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("localhost").configure_cert(context)

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()
            return
        head = f"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {len(body)}\r\n\r\n"
        writer.write(head.encode() + body)
        await writer.drain()
        writer.close()

    return await serve(answer, context)


async def test_the_shared_client_streams_over_tls_with_a_trusted_certificate(authority, monkeypatch) -> None:
    client_context = ssl.create_default_context()
    authority.configure_trust(client_context)
    monkeypatch.setattr(httpx, "create_ssl_context", lambda: client_context)
    server, port = await https_server(authority, b'data: {"a": 1}\n\n')
    client = http.build_client()
    try:
        async with client.stream("GET", f"https://localhost:{port}/") as response:
            body = b"".join([chunk async for chunk in response.aiter_bytes()])
            assert response.extensions["network_stream"].get_extra_info("ssl_object") is not None
        assert (response.status_code, body) == (200, b'data: {"a": 1}\n\n')
    finally:
        await client.aclose()
        server.close()


async def test_an_untrusted_certificate_is_a_connect_error(authority) -> None:
    server, port = await https_server(authority, b"")  # the client trusts the system's CAs, not this one
    client = http.build_client()
    try:
        with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
            await client.get(f"https://localhost:{port}/")
    finally:
        await client.aclose()
        server.close()


async def test_a_tls_handshake_longer_than_the_timeout_is_a_connect_timeout(authority) -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()  # accepts the connection, never answers the handshake

    server, port = await serve(silent)
    stream = await LoopBackend().connect_tcp("127.0.0.1", port, timeout=5)
    context = ssl.create_default_context()
    authority.configure_trust(context)
    try:
        with pytest.raises(httpcore.ConnectTimeout):
            await stream.start_tls(context, server_hostname="localhost", timeout=0.1)
    finally:
        server.close()
