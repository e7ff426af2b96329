"""The MCP server against anyone who can reach it (issue 27): log lines without terminal escapes,
slow requests closed, one stuck provider leaving the pool to the others, every stdio line answered,
no progress after a cancel. Over a real ``websearch-tui mcp`` process where the wire matters (raw
sockets and pipes), in process where a limit is made small to reach it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import sys
from asyncio.subprocess import PIPE
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e import test_mcp_server as mcp_e2e
from tests.e2e.test_mcp_server import QUERY, WAIT, hold_until_cancelled, http_server, http_session, log_file_text
from tests.fake_providers import FakeServer
from websearch_tui.engine.engine import Engine
from websearch_tui.mcp import http_limits
from websearch_tui.mcp.server import HttpOptions, serve_http
from websearch_tui.mcp.tools import SearchTools
from websearch_tui.session import Session
from websearch_tui.settings.config import load_config

fake_server, fake_config, token_file, own_log_file = (  # the MCP server tests' fixtures
    mcp_e2e.fake_server,
    mcp_e2e.fake_config,
    mcp_e2e.token_file,
    mcp_e2e.own_log_file,
)
CONTROLS = "\x1b\x07\x9b\x9d\x9c\x90\x9e\x9f"
FORGED = "websearch-tui mcp: WARNING server stopped"
ATTACK_PATH = b"/mcp%1b]52;c;ZXZpbA==%07%1b]0;pwned%07%1b[2J%c2%9b31m%0d%0a" + FORGED.replace(" ", "%20").encode()


def raw_request(url: str, head: bytes) -> bytes:
    """Send ``head`` (a request head without its blank line) to the server of ``url``; its answer."""
    host, port = url.split("//")[1].split("/")[0].rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=WAIT) as sock:
        sock.sendall(head + b"\r\nContent-Type: application/json\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        answer = b""
        with contextlib.suppress(ConnectionResetError):  # the server may close before reading all of it
            while chunk := sock.recv(65536):
                answer += chunk
    return answer


def tools_for(config: Path) -> SearchTools:
    return SearchTools(Session(load_config(config), Engine.from_config(load_config(config))))


async def test_http_log_lines_carry_no_terminal_escapes(fake_config: Path, token_file: tuple[Path, str]) -> None:
    """Escapes in the path, Host, Origin, User-Agent and token, refused by the gate, the SDK's Host check
    and h11: what reaches stderr and the log file is plain text, each entry on its own line."""
    path, token = token_file
    with http_server(fake_config, "--token-file", str(path)) as (url, stderr):
        answers = [
            raw_request(url, b"POST " + ATTACK_PATH + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: a\x9b2Jb"),
            raw_request(
                url,
                b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://x\x9d0;t\x9c\r\nAuthorization: Bearer \x9b2J",
            ),
            raw_request(
                url,
                b"POST /mcp HTTP/1.1\r\nHost: evil\x1b]52;c;eA==\x07.example\r\nAuthorization: Bearer "
                + token.encode(),
            ),
            raw_request(url, b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Bad\x1b]0;t\x07: 1"),
        ]
    assert [answer.split(b" ", 2)[1] for answer in answers] == [b"401", b"401", b"421", b"400"]
    logged = stderr.read_text() + log_file_text()
    assert "Invalid Host header" in logged and "Invalid HTTP request received" in logged  # the libraries' lines
    assert f"refused POST /mcp\\n{FORGED} from 127.0.0.1:" in logged  # the escapes gone, the newline written \\n
    assert not [char for char in CONTROLS if char in logged]
    assert not any(line.startswith(FORGED) for line in logged.splitlines())
    assert token not in logged


@contextlib.asynccontextmanager
async def in_process_http(config: Path, token: str | None = None) -> AsyncIterator[str]:
    """:func:`serve_http` in this process (so its limits can be made small); yields its URL."""
    announced: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    tools = tools_for(config)
    serving = asyncio.ensure_future(
        serve_http(tools, HttpOptions(port=0, token=token), lambda line: announced.set_result(line.split()[-4]))
    )
    try:
        yield await asyncio.wait_for(announced, WAIT)
    finally:
        serving.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await serving


async def half_request(url: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A connection that has sent half a request head."""
    host, port = url.split("//")[1].split("/")[0].rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
    await writer.drain()
    return reader, writer


async def closed_by_server(reader: asyncio.StreamReader) -> bool:
    """True once the server has closed the connection (end of stream, or reset: it left bytes unread)."""
    try:
        return await asyncio.wait_for(reader.read(), WAIT) == b""
    except ConnectionResetError:
        return True


async def test_slow_requests_are_closed_and_a_client_with_the_token_still_gets_in(
    fake_config: Path, token_file: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(http_limits, "REQUEST_TIMEOUT", 2.0)
    monkeypatch.setattr(http_limits, "MAX_CONNECTIONS", 4)
    monkeypatch.setattr(http_limits, "EVICTABLE_AFTER", 0.0)
    token = token_file[1]
    async with in_process_http(fake_config, token) as url:
        slow = [await half_request(url) for _ in range(6)]  # more than the server keeps open
        async with http_session(url, token) as client:
            listed = await client.list_tools()
        for reader, writer in slow:
            writer.write(b"x")  # a byte now and then does not keep the connection
            assert await closed_by_server(reader)
            writer.close()
    assert "web_search" in [tool.name for tool in listed.tools]


async def test_a_stuck_provider_leaves_the_pool_to_the_others(fake_server: FakeServer, fake_config: Path) -> None:
    """60 searches wait on Perplexity (more than the pool's 48 connections); Tavily's search still runs."""
    arrived = hold_until_cancelled(fake_server, "perplexity")
    tools = tools_for(fake_config)
    stuck = [
        asyncio.ensure_future(tools.call("web_search", {"query": QUERY, "providers": ["perplexity"]}, no_progress))
        for _ in range(60)
    ]
    try:
        assert await asyncio.to_thread(arrived.wait, WAIT)
        healthy = await asyncio.wait_for(
            tools.call("web_search", {"query": QUERY, "providers": ["tavily"]}, no_progress), WAIT
        )
        assert healthy.structured_content["results"][0]["status"] == "done"
        assert not any(task.done() for task in stuck)
    finally:
        for task in stuck:
            task.cancel()
        await asyncio.gather(*stuck, return_exceptions=True)
        await tools.aclose()


async def no_progress(done: float, total: float | None, message: str | None) -> None:
    pass


async def test_a_cancelled_call_reports_no_progress_after_the_cancel(
    fake_server: FakeServer, fake_config: Path
) -> None:
    hold_until_cancelled(fake_server, "perplexity")
    tools = tools_for(fake_config)
    sent: list[tuple[str | None, bool]] = []
    tavily_done, cancelled = asyncio.Event(), False

    async def progress(done: float, total: float | None, message: str | None) -> None:
        sent.append((message, cancelled))
        if (message or "").endswith("Tavily done"):
            tavily_done.set()

    call = asyncio.ensure_future(
        tools.call("web_search", {"query": QUERY, "providers": ["perplexity", "tavily"]}, progress)
    )
    await asyncio.wait_for(tavily_done.wait(), WAIT)
    cancelled = True
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    await tools.aclose()
    assert sent == [("1/2 done: Tavily done", False)]


async def test_stdio_answers_every_line_and_caps_its_length(fake_config: Path, tmp_path: Path) -> None:
    """Malformed JSON, a batch, a wrong version, a line past the cap: each gets a JSON-RPC error; a
    query with a lone surrogate is searched; the server answers after all of them."""
    argv = ["-m", "websearch_tui", "mcp", "--config", str(fake_config)]
    with (tmp_path / "stderr.txt").open("wb") as err:
        process = await asyncio.create_subprocess_exec(
            sys.executable, *argv, stdin=PIPE, stdout=PIPE, stderr=err, env=mcp_e2e.server_env(), limit=1 << 20
        )
    assert process.stdin is not None and process.stdout is not None
    initialize = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    process.stdin.write(
        b"\n".join(
            [
                json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize}).encode(),
                b'{"jsonrpc": "2.0", "method": "notifications/initialized"}',
                b"{not json",
                b'[{"jsonrpc": "2.0", "id": 2, "method": "ping"}, {"jsonrpc": "2.0", "id": 3, "method": "ping"}]',
                b'{"jsonrpc": "1.0", "id": 4, "method": "ping"}',
                b"x" * (5 * 1024 * 1024),
                b'{"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "web_search", '
                b'"arguments": {"query": "caf\\ud800e", "providers": ["tavily"]}}}',
                b'{"jsonrpc": "2.0", "id": 6, "method": "ping"}',
            ]
        )
        + b"\n"
    )
    replies: dict[str, Any] = {}
    try:
        while not {"5None", "6None"} <= set(replies):
            reply = json.loads(await asyncio.wait_for(process.stdout.readline(), WAIT))
            replies[json.dumps(reply.get("id")) + str(reply.get("error", {}).get("code"))] = reply
    finally:
        process.stdin.close()
        await asyncio.wait_for(process.wait(), WAIT)
    assert set(replies) == {"1None", "null-32700", "2-32600", "3-32600", "4-32600", "null-32600", "5None", "6None"}
    assert replies["null-32600"]["error"]["message"].startswith("Invalid Request: a message may be at most")
    document = replies["5None"]["result"]["structuredContent"]
    assert document["query"] == "caf\ufffde" and document["results"][0]["status"] == "done"


def test_http_answers_each_message_with_the_standard_error(fake_config: Path) -> None:
    """Over HTTP too: a batch gets -32600 per request, a wrong version -32600 with the request's id, and
    an ``initialize`` holding a lone surrogate is served."""
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    surrogate = (
        b'{"jsonrpc": "2.0", "id": 5, "method": "initialize", "params": {"protocolVersion": "2025-11-25", '
        b'"capabilities": {}, "clientInfo": {"name": "caf\\ud800e", "version": "1"}}}'
    )
    bodies = [
        b'[{"jsonrpc": "2.0", "id": 2, "method": "ping"}, {"jsonrpc": "2.0", "id": 3, "method": "ping"}]',
        b'{"jsonrpc": "1.0", "id": 4, "method": "ping"}',
        b"{not json",
        surrogate,
    ]
    with http_server(fake_config) as (url, _):
        answers = [httpx.post(url, content=body, headers=headers, timeout=WAIT) for body in bodies]
    batch, version, malformed, served = answers
    assert [(error["id"], error["error"]["code"]) for error in batch.json()] == [(2, -32600), (3, -32600)]
    assert (version.json()["id"], version.json()["error"]["code"]) == (4, -32600)
    assert (malformed.json()["id"], malformed.json()["error"]["code"]) == (None, -32700)
    assert [answer.status_code for answer in answers] == [400, 400, 400, 200]
    [event] = [json.loads(line[5:]) for line in served.text.splitlines() if line.startswith("data:")]  # SSE
    assert event["id"] == 5 and event["result"]["serverInfo"]["name"] == "websearch-tui"
