"""Tests of the loopback fake provider server itself (plain httpx against 127.0.0.1)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import tomlkit

from tests.fake_providers import (
    PROVIDERS,
    VARIANTS,
    FakeResponse,
    FakeServer,
    data_json,
    perplexity_answer,
    perplexity_chunks,
    split_at,
    split_every,
    sse,
    utf8_split_offsets,
)

REPO = Path(__file__).resolve().parents[2]
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
PPLX_BODY = {"model": "sonar-pro", "messages": [{"role": "user", "content": "what is asyncio"}], "stream": True}


@pytest.fixture
def srv() -> Iterator[FakeServer]:
    """A fresh fake server per test."""
    with FakeServer() as server:
        yield server


@pytest.fixture
def client(srv: FakeServer) -> Iterator[httpx.Client]:
    """A sync httpx client rooted at the fake."""
    with httpx.Client(base_url=srv.base_url, timeout=10) as c:
        yield c


def sse_data(raw: bytes) -> list[dict]:
    """JSON payloads of every ``data:`` line (LF or CRLF framing)."""
    lines = raw.replace(b"\r\n", b"\n").decode("utf-8").split("\n")
    return [json.loads(line[6:]) for line in lines if line.startswith("data: ") and line != "data: [DONE]"]


def raw_body(client: httpx.Client, method: str, path: str, **kwargs) -> tuple[httpx.Response, bytes, int]:
    """Status, raw (undecoded) bytes and the number of reads, via a streaming request."""
    with client.stream(method, path, **kwargs) as response:
        pieces = list(response.iter_raw())
    return response, b"".join(pieces), len(pieces)


# --------------------------------------------------------------------------- default routes


def test_every_provider_answers(client: httpx.Client) -> None:
    ddgs = client.post("/ddgs/html/", data={"q": "asyncio", "b": "", "l": "wt-wt"})
    assert ddgs.status_code == 200 and ddgs.headers["content-type"].startswith("text/html")
    assert "duckduckgo.com/l/?uddg=https%3A%2F%2Fdocs.python.org" in ddgs.text
    assert "result--ad" in ddgs.text and "duckduckgo.com/y.js" in ddgs.text
    assert ddgs.text.count("result__body") == 3 and ddgs.text.count("web-result") == 2

    exa = client.post("/exa/search", json={"query": "asyncio", "numResults": 2}, headers={"x-api-key": "k"})
    assert [r["title"] for r in exa.json()["results"]] == [
        "Async IO in Python: A Complete Walkthrough",
        "Coroutines and Tasks — Python 3.13 documentation",
    ]
    parallel = client.post("/parallel/v1/search", json={"objective": "asyncio"}, headers={"x-api-key": "k"})
    assert parallel.json()["search_id"] == "search_fake0001" and len(parallel.json()["results"]) == 3

    brave = client.get("/brave/res/v1/web/search", params={"q": "asyncio"}, headers={"X-Subscription-Token": "k"})
    assert brave.headers["content-encoding"] == "gzip"  # Brave compresses by default
    web = brave.json()["web"]["results"]
    assert "<strong>" in web[0]["description"] and "&quot;" in web[0]["description"]
    assert web[0]["page_age"] == "2025-01-15T08:30:00" and web[0]["extra_snippets"]
    assert "page_age" not in web[2] and brave.json()["query"]["original"] == "asyncio"

    tavily = client.post(
        "/tavily/search", json={"query": "asyncio", "include_answer": "advanced"}, headers={"Authorization": "Bearer k"}
    ).json()
    assert tavily["answer"].startswith("asyncio is Python's standard library")
    assert tavily["request_id"] == "fake-tavily-req-0001" and len(tavily["follow_up_questions"]) == 2
    assert len(tavily["results"]) == 3 and tavily["query"] == "asyncio"

    searxng = client.get("/searxng/search", params={"q": "asyncio", "format": "json"}).json()
    assert searxng["number_of_results"] == 0 and len(searxng["results"]) == 3
    assert searxng["suggestions"] and searxng["unresponsive_engines"] == [["brave", "timeout"]]

    pplx = client.post(
        "/perplexity/chat/completions", json={**PPLX_BODY, "stream": False}, headers={"Authorization": "Bearer k"}
    ).json()
    assert pplx["object"] == "chat.completion" and pplx["choices"][0]["message"]["content"] == perplexity_answer()
    assert len(pplx["citations"]) == 4 and "[4]" in perplexity_answer()


def test_auth_and_validation_use_provider_error_shapes(client: httpx.Client) -> None:
    brave = client.get("/brave/res/v1/web/search", params={"q": "x"})
    assert brave.status_code == 401 and brave.json()["error"]["code"] == "SUBSCRIPTION_TOKEN_INVALID"
    brave = client.get(
        "/brave/res/v1/web/search", params={"q": "x", "count": "50"}, headers={"X-Subscription-Token": "k"}
    )
    assert brave.status_code == 422 and brave.json()["error"]["meta"]["errors"][0]["loc"] == ["query", "count"]
    tavily = client.post("/tavily/search", json={"query": "x"})
    assert tavily.status_code == 401 and tavily.json() == {
        "detail": {"error": "Unauthorized: missing or invalid API key."}
    }
    pplx = client.post("/perplexity/chat/completions", json=PPLX_BODY, headers={"Authorization": "Basic abc"})
    assert pplx.status_code == 401 and pplx.json()["error"]["type"] == "invalid_api_key"
    assert client.post("/exa/search", json={"query": "x"}).status_code == 401
    assert client.post("/parallel/v1/search", json={}, headers={"x-api-key": "k"}).status_code == 422
    no_format = client.get("/searxng/search", params={"q": "x"})
    assert no_format.status_code == 200 and no_format.headers["content-type"].startswith("text/html")
    assert client.get("/nope").status_code == 404
    assert client.get("/tavily/search").status_code == 405


def test_requests_are_recorded(srv: FakeServer, client: httpx.Client) -> None:
    client.get(
        "/brave/res/v1/web/search", params={"q": "hello world", "count": "5"}, headers={"X-Subscription-Token": "tok"}
    )
    client.post("/tavily/search", json={"query": "q1"}, headers={"Authorization": "Bearer t"})
    first, second = srv.requests
    assert (first.method, first.path, first.query) == (
        "GET",
        "/brave/res/v1/web/search",
        {"q": "hello world", "count": "5"},
    )
    assert first.headers["x-subscription-token"] == "tok" and first.header("X-Subscription-Token") == "tok"
    assert second.json() == {"query": "q1"} and second.body == b'{"query":"q1"}' and second.bearer() == "t"
    assert srv.last_request("/tavily/search") is second
    srv.clear_requests()
    assert srv.requests == []


# --------------------------------------------------------------------------- knobs and faults


async def test_global_and_prefix_delay_still_deliver() -> None:
    async with FakeServer(delay=0.2) as server:
        server.set_delay(0.2, prefix="/searxng")
        async with httpx.AsyncClient(base_url=server.base_url, timeout=10) as client:
            started = time.monotonic()
            response = await client.get("/searxng/search", params={"q": "x", "format": "json"})
            assert response.status_code == 200 and response.json()["results"]
            assert time.monotonic() - started >= 0.35  # both delays applied (a lower bound only)


def test_split_delivers_exact_bytes_even_inside_utf8(srv: FakeServer, client: httpx.Client) -> None:
    data = sse([{"text": "event loop — ünïcode"}, {"text": "second"}])
    offsets = utf8_split_offsets(data)
    assert offsets and all(0x80 <= data[o] < 0xC0 for o in offsets)
    pieces = split_at(data, offsets)
    assert b"".join(pieces) == data and len(pieces) == len(offsets) + 1
    srv.set("GET", "/custom", FakeResponse(200, {"Content-Type": "text/event-stream"}, chunks=pieces, chunk_delay=0.01))
    _, raw, reads = raw_body(client, "GET", "/custom")
    assert raw == data and reads > 1
    assert split_every(b"abcdefg", 3) == [b"abc", b"def", b"g"]


def test_split_helper_on_sse_route(srv: FakeServer, client: httpx.Client) -> None:
    srv.split("perplexity", every=7, inside_utf8=True, chunk_delay=0)
    response, raw, _ = raw_body(
        client, "POST", "/perplexity/chat/completions", json=PPLX_BODY, headers={"Authorization": "Bearer k"}
    )
    assert response.headers["transfer-encoding"] == "chunked"
    assert raw == sse(perplexity_chunks())


def test_gzip_decodes(srv: FakeServer, client: httpx.Client) -> None:
    srv.gzip("tavily")
    headers = {"Authorization": "Bearer k"}
    response = client.post("/tavily/search", json={"query": "x"}, headers=headers)
    assert response.headers["content-encoding"] == "gzip" and response.json()["results"]
    _, raw, _ = raw_body(client, "POST", "/tavily/search", json={"query": "x"}, headers=headers)
    assert raw[:2] == b"\x1f\x8b"


def test_truncated_body_is_an_httpx_error(srv: FakeServer, client: httpx.Client) -> None:
    srv.truncate("tavily", at=20)
    with pytest.raises(httpx.RemoteProtocolError):
        client.post("/tavily/search", json={"query": "x"}, headers={"Authorization": "Bearer k"})


def test_stream_cut_mid_event(srv: FakeServer, client: httpx.Client) -> None:
    srv.cut_stream("perplexity", after_events=3)
    received = b""
    with pytest.raises(httpx.RemoteProtocolError):
        with client.stream(
            "POST", "/perplexity/chat/completions", json=PPLX_BODY, headers={"Authorization": "Bearer k"}
        ) as r:
            for piece in r.iter_raw():
                received += piece
    full = sse(perplexity_chunks())
    assert full.startswith(received) and received.count(b"\n\n") == 3 and not received.endswith(b"\n\n")


def test_crlf_framing_is_preserved_byte_for_byte(srv: FakeServer, client: httpx.Client) -> None:
    srv.crlf("perplexity")
    _, raw, _ = raw_body(
        client, "POST", "/perplexity/chat/completions", json=PPLX_BODY, headers={"Authorization": "Bearer k"}
    )
    assert raw == sse(perplexity_chunks(), crlf=True) and b"\r\n\r\n" in raw and b"\n\n" not in raw
    body = sse([("message", {"a": 1})], crlf=True, done=True)
    assert body == b'event: message\r\ndata: {"a": 1}\r\n\r\ndata: [DONE]\r\n\r\n'
    srv.set("GET", "/crlf", FakeResponse(200, {"Content-Type": "text/event-stream"}, body))
    assert raw_body(client, "GET", "/crlf")[1] == body


def test_fail_html_and_empty(srv: FakeServer, client: httpx.Client) -> None:
    srv.fail("brave", 429, retry_after=2, times=1)
    params, headers = {"q": "x"}, {"X-Subscription-Token": "k"}
    limited = client.get("/brave/res/v1/web/search", params=params, headers=headers)
    assert limited.status_code == 429 and limited.headers["retry-after"] == "2"
    assert limited.json()["error"]["code"] == "RATE_LIMITED"
    assert client.get("/brave/res/v1/web/search", params=params, headers=headers).status_code == 200

    srv.fail("tavily", 432)
    assert client.post("/tavily/search", json={}).json()["detail"]["error"].startswith("This request exceeds")
    srv.html_page("tavily", 403)
    page = client.post("/tavily/search", json={})
    assert page.status_code == 403 and page.headers["content-type"].startswith("text/html") and "<html>" in page.text
    srv.empty("searxng")
    empty = client.get("/searxng/search")
    assert empty.status_code == 200 and empty.content == b""
    srv.fail("exa", 429, retry_after=60)
    mcp = client.post("/exa/mcp", json={})
    assert mcp.json()["id"] is None and mcp.json()["error"]["code"] == -32000


def test_override_sequence_and_reset(srv: FakeServer, client: httpx.Client) -> None:
    srv.set(
        "GET",
        "/brave/res/v1/web/search",
        [FakeResponse(503), lambda req: FakeResponse(200, body={"q": req.query["q"]})],
    )
    assert client.get("/brave/res/v1/web/search", params={"q": "a"}).status_code == 503
    assert client.get("/brave/res/v1/web/search", params={"q": "b"}).json() == {"q": "b"}
    assert client.get("/brave/res/v1/web/search", params={"q": "c"}).json() == {"q": "c"}
    srv.use("ddgs", "rate_limited")
    assert client.post("/ddgs/html/", data={"q": "x"}).status_code == 202
    srv.reset()
    assert client.get("/brave/res/v1/web/search", params={"q": "x"}).status_code == 401
    assert client.post("/ddgs/html/", data={"q": "x"}).status_code == 200


# --------------------------------------------------------------------------- MCP


def test_parallel_mcp_stateful_handshake(srv: FakeServer, client: httpx.Client) -> None:
    init = {
        "jsonrpc": "2.0",
        "id": "a1",
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
    }
    reply = client.post("/parallel/mcp", json=init, headers=MCP_HEADERS)
    session = reply.headers["mcp-session-id"]
    assert sse_data(reply.content)[0]["result"]["protocolVersion"] == "2025-06-18"

    call = {
        "jsonrpc": "2.0",
        "id": "a2",
        "method": "tools/call",
        "params": {"name": "web_search", "arguments": {"objective": "asyncio", "search_queries": ["asyncio"]}},
    }
    assert client.post("/parallel/mcp", json=call, headers=MCP_HEADERS).status_code == 400
    with_session = {**MCP_HEADERS, "Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-06-18"}
    note = client.post(
        "/parallel/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=with_session
    )
    assert note.status_code == 202 and note.content == b""

    result = client.post("/parallel/mcp", json=call, headers=with_session)
    assert result.headers["content-type"].startswith("text/event-stream")
    notification, other, real = sse_data(result.content)
    assert "id" not in notification and other["id"] != "a2" and real["id"] == "a2"
    results = json.loads(real["result"]["content"][0]["text"])["results"]
    assert [r["url"] for r in results] == [r["url"] for r in data_json("parallel_search.json")["results"]]

    srv.handler("POST", "/parallel/mcp").expire_sessions()
    assert client.post("/parallel/mcp", json=call, headers=with_session).status_code == 404
    assert client.post("/parallel/mcp", json=init, headers={"Content-Type": "application/json"}).status_code == 406


def test_exa_mcp_stateless_text_blocks(srv: FakeServer, client: httpx.Client) -> None:
    call = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": "web_search_exa", "arguments": {"query": "asyncio", "numResults": 3}},
    }
    reply = client.post("/exa/mcp", json=call, headers=MCP_HEADERS)
    assert reply.headers["content-type"].startswith("text/event-stream") and b"event: message\n" in reply.content
    (message,) = sse_data(reply.content)
    text = message["result"]["content"][0]["text"]
    assert message["id"] == 7 and "\n\n---\n\n" in text and "Author: N/A" in text
    assert "URL: https://realpython.com/async-io-python/" in text
    srv.use("exa", "rate_limit")
    limited = client.post("/exa/mcp", json=call, headers=MCP_HEADERS)
    assert limited.status_code == 429 and limited.headers["retry-after"] == "60" and limited.json()["id"] is None


# --------------------------------------------------------------------------- streaming, async


async def test_perplexity_stream_drips_tokens_async() -> None:
    async with FakeServer(token_delay=0.005) as server:
        async with httpx.AsyncClient(base_url=server.base_url, timeout=10) as client:
            body = {**PPLX_BODY, "return_related_questions": True}
            async with client.stream(
                "POST", "/perplexity/chat/completions", json=body, headers={"Authorization": "Bearer k"}
            ) as response:
                assert response.headers["content-type"].startswith("text/event-stream")
                raw = b"".join([piece async for piece in response.aiter_raw()])
    chunks = sse_data(raw)
    assert 30 <= len(chunks) <= 60 and chunks[-1]["object"] == "chat.completion.done"
    assert "".join(c["choices"][0]["delta"]["content"] for c in chunks) == perplexity_answer()
    assert all(len(c["citations"]) == 4 and c["search_results"] for c in chunks)
    assert [c["usage"]["completion_tokens"] for c in chunks[:3]] == [1, 2, 3]
    assert chunks[-1]["related_questions"] and b"[DONE]" not in raw


def test_sync_client_from_plain_test_with_done_variant(srv: FakeServer, client: httpx.Client) -> None:
    srv.use("perplexity", "done")
    _, raw, _ = raw_body(
        client, "POST", "/perplexity/chat/completions", json=PPLX_BODY, headers={"Authorization": "Bearer k"}
    )
    assert raw.endswith(b"data: [DONE]\n\n")


# --------------------------------------------------------------------------- config and standalone


def test_config_toml_points_at_the_fake(srv: FakeServer, tmp_path: Path) -> None:
    config = tomlkit.parse(srv.write_config(tmp_path / "config.toml").read_text())
    assert config["search"]["providers"] == list(PROVIDERS) and config["search"]["mode"] == "compare"
    assert config["providers"]["brave"]["base_url"] == f"{srv.base_url}/brave"
    assert config["providers"]["parallel"]["mcp_url"] == f"{srv.base_url}/parallel/mcp"
    assert srv.env()["BRAVE_API_KEY"] == "fake-brave-key"


def test_standalone_mode_serves_until_interrupted(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    command = [sys.executable, "-m", "tests.fake_providers", "--quiet", "--write-config", str(config)]
    process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        base_url = process.stdout.readline().split()[-1]
        while "Ctrl+C" not in process.stdout.readline():
            pass
        reply = httpx.post(f"{base_url}/tavily/search", json={"query": "x"}, headers={"Authorization": "Bearer k"})
        assert reply.status_code == 200 and config.exists()
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(10) == 0


def _exercise(client: httpx.Client, provider: str) -> httpx.Response:
    """One typical request to a provider's variant route."""
    auth = {"Authorization": "Bearer k", "X-Subscription-Token": "k", "x-api-key": "k"}
    if provider == "ddgs":
        return client.post("/ddgs/html/", data={"q": "asyncio"})
    if provider == "brave":
        return client.get("/brave/res/v1/web/search", params={"q": "asyncio"}, headers=auth)
    if provider == "tavily":
        return client.post("/tavily/search", json={"query": "asyncio"}, headers=auth)
    if provider == "searxng":
        return client.get("/searxng/search", params={"q": "asyncio", "format": "json"})
    if provider == "perplexity":
        return client.post("/perplexity/chat/completions", json=PPLX_BODY, headers=auth)
    if provider == "exa":
        call = {"name": "web_search_exa", "arguments": {"query": "asyncio"}}
        return client.post(
            "/exa/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call}, headers=MCP_HEADERS
        )
    init = client.post("/parallel/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "initialize"}, headers=MCP_HEADERS)
    headers = {**MCP_HEADERS, "Mcp-Session-Id": init.headers.get("mcp-session-id", "")}
    call = {"name": "web_search", "arguments": {"objective": "asyncio"}}
    body = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call}
    return client.post("/parallel/mcp", json=body, headers={k: v for k, v in headers.items() if v})


@pytest.mark.parametrize(("provider", "variant"), [(p, v) for p, vs in VARIANTS.items() for v in vs])
def test_every_variant_answers(srv: FakeServer, client: httpx.Client, provider: str, variant: str) -> None:
    srv.use(provider, variant)
    response = _exercise(client, provider)
    assert response.status_code < 500 and not srv.errors
