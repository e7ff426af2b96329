"""MCP over Streamable HTTP (providers/families/mcp.py): handshake, body shapes, id matching, failures."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.helpers import Recorder, make_ctx
from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.version import __version__
from websearch_tui.providers.base import ProviderContext, ProviderState
from websearch_tui.providers.families.mcp import (
    McpHooks,
    McpSessions,
    call_tool,
    decode_json_text,
    mcp_error_describer,
    open_session,
    sse_data,
)

URL = "https://mcp.test/mcp"

Reply = Callable[[dict[str, Any], httpx.Request], httpx.Response]


def ok(message_id: Any, result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": message_id, "result": result}


def sse(*payloads: Any, newline: str = "\n") -> str:
    parts = []
    for payload in payloads:
        parts.append(f"event: message{newline}data: {json.dumps(payload)}{newline}{newline}")
    return "".join(parts)


def tool_result(results: Any) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": json.dumps({"results": results})}], "isError": False}


class FakeMCP(Recorder):
    """A scripted MCP server: per-method reply functions, every request recorded."""

    def __init__(self, *, session_ids: tuple[str, ...] = ("s-1",), version: Any = "2025-06-18") -> None:
        super().__init__(self.route)
        self.session_ids = list(session_ids)
        self.version = version
        self.inits = 0
        self.tool_reply: Reply = lambda body, request: httpx.Response(200, json=ok(body["id"], tool_result([])))
        self.notify_reply: Reply = lambda body, request: httpx.Response(202)

    def route(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        if body.get("method") == "initialize":
            sid = self.session_ids[min(self.inits, len(self.session_ids) - 1)]
            self.inits += 1
            result = {"protocolVersion": self.version, "capabilities": {"tools": {}}, "serverInfo": {"name": "fake"}}
            headers = {"Mcp-Session-Id": sid} if sid else {}
            return httpx.Response(200, json=ok(body["id"], result), headers=headers)
        if body.get("method") == "notifications/initialized":
            return self.notify_reply(body, request)
        return self.tool_reply(body, request)

    def methods(self) -> list[str]:
        return [b.get("method", "") for b in self.bodies]


async def run(fake: FakeMCP, *, handshake: bool = True, ctx: Any = None, **kwargs: Any) -> Any:
    ctx = ctx or make_ctx("parallel", fake)
    return await call_tool(ctx, URL, "web_search", {"objective": "q"}, handshake=handshake, **kwargs)


async def test_stateful_handshake_builds_each_request() -> None:
    fake = FakeMCP(version="2025-03-26")
    fake.tool_reply = lambda body, request: httpx.Response(
        200, json=ok(body["id"], {"structuredContent": {"results": [{"url": "https://a.example"}]}, "content": []})
    )
    payload = await run(fake, headers={"X-Extra": "1"})
    assert payload == {"results": [{"url": "https://a.example"}]}
    assert fake.methods() == ["initialize", "notifications/initialized", "tools/call"]
    init, note, call = fake.bodies
    assert init["jsonrpc"] == "2.0" and init["id"]
    assert init["params"] == {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "websearch-tui", "version": __version__},
    }
    assert "id" not in note
    assert call["params"] == {"name": "web_search", "arguments": {"objective": "q"}}
    assert len({init["id"], call["id"]}) == 2
    for request in fake.requests:
        assert request.method == "POST" and str(request.url) == URL
        assert request.headers["content-type"] == "application/json"
        assert request.headers["accept"] == "application/json, text/event-stream"
        assert request.headers["x-extra"] == "1"
    assert "mcp-session-id" not in fake.requests[0].headers
    for request in fake.requests[1:]:
        assert request.headers["mcp-session-id"] == "s-1"
        assert request.headers["mcp-protocol-version"] == "2025-03-26"


async def test_stateless_call_is_a_single_post() -> None:
    fake = FakeMCP()
    fake.tool_reply = lambda body, request: httpx.Response(200, json=ok(body["id"], tool_result([{"url": "u"}])))
    payload = await run(fake, handshake=False, headers={"x-api-key": "k"})
    assert payload == {"results": [{"url": "u"}]}
    assert fake.methods() == ["tools/call"]
    assert "mcp-session-id" not in fake.requests[0].headers
    assert "mcp-protocol-version" not in fake.requests[0].headers


async def test_server_without_session_id_gets_no_session_header() -> None:
    fake = FakeMCP(session_ids=("",))
    await run(fake)
    assert all("mcp-session-id" not in r.headers for r in fake.requests)
    assert fake.requests[-1].headers["mcp-protocol-version"] == "2025-06-18"


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
async def test_sse_reply_with_notification_before_it(newline: str) -> None:
    fake = FakeMCP()

    def reply(body: dict[str, Any], request: httpx.Request) -> httpx.Response:
        text = (
            ": keep-alive"
            + newline
            + newline
            + sse(
                {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info"}},
                ok(body["id"], tool_result([{"url": "https://x.example"}])),
                newline=newline,
            )
        )
        return httpx.Response(200, text=text, headers={"Content-Type": "text/event-stream"})

    fake.tool_reply = reply
    assert await run(fake) == {"results": [{"url": "https://x.example"}]}


async def test_sse_body_sniffed_without_content_type() -> None:
    fake = FakeMCP()
    fake.tool_reply = lambda body, request: httpx.Response(
        200, content=sse(ok(body["id"], tool_result([]))).encode(), headers={"Content-Type": ""}
    )
    assert await run(fake, handshake=False) == {"results": []}


async def test_json_batch_skips_other_ids_notifications_and_null_ids() -> None:
    fake = FakeMCP()

    def reply(body: dict[str, Any], request: httpx.Request) -> httpx.Response:
        batch = [
            {"jsonrpc": "2.0", "method": "notifications/progress", "params": {}},
            ok("someone-else", tool_result([{"url": "https://wrong.example"}])),
            {"jsonrpc": "2.0", "id": None, "error": {"code": -32000, "message": "stray"}},
            ok(body["id"], tool_result([{"url": "https://right.example"}])),
        ]
        return httpx.Response(200, json=batch)

    fake.tool_reply = reply
    assert await run(fake) == {"results": [{"url": "https://right.example"}]}


async def test_sse_event_carrying_a_batch() -> None:
    fake = FakeMCP()
    fake.tool_reply = lambda body, request: httpx.Response(
        200,
        text=sse([ok("other", {}), ok(body["id"], tool_result([{"url": "https://b.example"}]))]),
        headers={"Content-Type": "text/event-stream"},
    )
    assert await run(fake) == {"results": [{"url": "https://b.example"}]}


async def test_notification_answered_200_with_a_body_is_ignored() -> None:
    fake = FakeMCP()
    fake.notify_reply = lambda body, request: httpx.Response(200, json={"jsonrpc": "2.0", "result": {}})
    assert await run(fake) == {"results": []}


@pytest.mark.parametrize("reply_id", ["wrong", None])
async def test_reply_with_wrong_or_null_id_is_a_protocol_error(reply_id: Any) -> None:
    fake = FakeMCP()
    fake.tool_reply = lambda body, request: httpx.Response(200, json=ok(reply_id, tool_result([])))
    with pytest.raises(ProviderError) as info:
        await run(fake)
    assert info.value.kind is ErrorKind.PROTOCOL
    assert "Failed to parse MCP response" in info.value.message


async def test_double_encoded_text_is_decoded_twice() -> None:
    fake = FakeMCP()
    fake.tool_reply = lambda body, request: httpx.Response(
        200, json=ok(body["id"], {"content": [{"type": "text", "text": json.dumps("[]")}], "isError": False})
    )
    assert await run(fake) == []
    assert decode_json_text('"[]"') == []
    assert decode_json_text('"{\\"results\\": []}"') == {"results": []}
    assert decode_json_text('"plain words"') == "plain words"


async def test_plain_text_content_is_returned_as_text() -> None:
    fake = FakeMCP()
    content = [{"type": "text", "text": "Title: A\nURL: https://a.example"}, {"type": "text", "text": "Title: B"}]
    fake.tool_reply = lambda body, request: httpx.Response(200, json=ok(body["id"], {"content": content}))
    assert await run(fake) == "Title: A\nURL: https://a.example\n\nTitle: B"


async def test_is_error_result_is_a_failure_with_its_text() -> None:
    fake = FakeMCP()
    fake.tool_reply = lambda body, request: httpx.Response(
        200,
        json=ok(body["id"], {"content": [{"type": "text", "text": "web_search_exa error (boom)"}], "isError": True}),
    )
    with pytest.raises(ProviderError) as info:
        await run(fake)
    assert info.value.message == "MCP error: web_search_exa error (boom)"
    assert info.value.kind is ErrorKind.SERVER


async def test_is_error_without_content_still_fails() -> None:
    fake = FakeMCP()
    fake.tool_reply = lambda body, request: httpx.Response(200, json=ok(body["id"], {"isError": True, "content": []}))
    with pytest.raises(ProviderError) as info:
        await run(fake)
    assert info.value.message.startswith("MCP error: ")


async def test_jsonrpc_error_is_mapped() -> None:
    fake = FakeMCP()
    fake.tool_reply = lambda body, request: httpx.Response(
        200, json={"jsonrpc": "2.0", "id": body["id"], "error": {"code": -32602, "message": "Invalid params"}}
    )
    with pytest.raises(ProviderError) as info:
        await run(fake)
    assert info.value.message == "MCP error (-32602): Invalid params"
    assert info.value.kind is ErrorKind.BAD_REQUEST


async def test_jsonrpc_error_mentioning_rate_limit_is_rate_limit() -> None:
    fake = FakeMCP()
    fake.tool_reply = lambda body, request: httpx.Response(
        200, json={"jsonrpc": "2.0", "id": body["id"], "error": {"code": -32000, "message": "Rate limit exceeded"}}
    )
    with pytest.raises(ProviderError) as info:
        await run(fake)
    assert info.value.kind is ErrorKind.RATE_LIMIT


@pytest.mark.parametrize("result", [None, [], {}])
async def test_empty_results_are_protocol_errors(result: Any) -> None:
    fake = FakeMCP()
    fake.tool_reply = lambda body, request: httpx.Response(200, json=ok(body["id"], result))
    with pytest.raises(ProviderError) as info:
        await run(fake)
    assert info.value.kind is ErrorKind.PROTOCOL


async def test_result_without_content_is_a_protocol_error() -> None:
    fake = FakeMCP()
    fake.tool_reply = lambda body, request: httpx.Response(200, json=ok(body["id"], {"isError": False, "content": []}))
    with pytest.raises(ProviderError) as info:
        await run(fake)
    assert info.value.kind is ErrorKind.PROTOCOL


@pytest.mark.parametrize("version", ["", "  ", 20250618, None])
async def test_bad_protocol_version_fails_the_handshake(version: Any) -> None:
    fake = FakeMCP(version=version)
    with pytest.raises(ProviderError) as info:
        await run(fake)
    assert info.value.kind is ErrorKind.PROTOCOL
    assert "protocolVersion" in info.value.message
    assert fake.methods() == ["initialize"]


RATE_LIMIT_BODY = {
    "jsonrpc": "2.0",
    "error": {"code": -32000, "message": "You've hit Exa's free MCP rate limit. Please try later."},
    "id": None,
}


async def test_429_with_null_id_jsonrpc_error_uses_the_provider_message() -> None:
    fake = FakeMCP()
    fake.tool_reply = lambda body, request: httpx.Response(
        429, json=RATE_LIMIT_BODY, headers={"Retry-After": "600", "X-RateLimit-Remaining": "0"}
    )
    with pytest.raises(ProviderError) as info:
        await run(
            fake, handshake=False, describe_error=mcp_error_describer("Exa", "Exa free MCP rate limit reached (429)")
        )
    assert info.value.kind is ErrorKind.RATE_LIMIT
    assert info.value.status == 429
    assert info.value.message == "Exa free MCP rate limit reached (429) (retry in 600 s)"
    assert info.value.retry_after == 600
    assert len(fake.requests) == 1  # the hint exceeds the deadline: no retry


async def test_429_default_message_names_the_jsonrpc_error() -> None:
    fake = FakeMCP()
    fake.tool_reply = lambda body, request: httpx.Response(429, json=RATE_LIMIT_BODY, headers={"Retry-After": "600"})
    with pytest.raises(ProviderError) as info:
        await run(fake, handshake=False)
    assert info.value.message.startswith("Parallel MCP request failed: 429 Too Many Requests")
    assert "MCP error (-32000): You've hit Exa's free MCP rate limit" in info.value.message


async def test_expired_session_404_reinitialises_once() -> None:
    fake = FakeMCP(session_ids=("s-1", "s-2"))

    def reply(body: dict[str, Any], request: httpx.Request) -> httpx.Response:
        if request.headers.get("mcp-session-id") == "s-1":
            return httpx.Response(
                404, json={"jsonrpc": "2.0", "id": None, "error": {"code": -32001, "message": "gone"}}
            )
        return httpx.Response(200, json=ok(body["id"], tool_result([{"url": "https://fresh.example"}])))

    fake.tool_reply = reply
    assert await run(fake) == {"results": [{"url": "https://fresh.example"}]}
    assert fake.methods() == [
        "initialize",
        "notifications/initialized",
        "tools/call",
        "initialize",
        "notifications/initialized",
        "tools/call",
    ]
    assert fake.requests[-1].headers["mcp-session-id"] == "s-2"


async def test_second_404_is_not_retried_again() -> None:
    fake = FakeMCP(session_ids=("s-1", "s-2", "s-3"))
    fake.tool_reply = lambda body, request: httpx.Response(404, text="no such session")
    with pytest.raises(ProviderError) as info:
        await run(fake)
    assert info.value.kind is ErrorKind.NOT_FOUND
    assert fake.inits == 2


async def test_404_without_session_id_is_not_retried() -> None:
    fake = FakeMCP(session_ids=("",))
    fake.tool_reply = lambda body, request: httpx.Response(404, text="not here")
    with pytest.raises(ProviderError) as info:
        await run(fake)
    assert info.value.kind is ErrorKind.NOT_FOUND
    assert fake.inits == 1


async def test_session_is_reused_and_renewed_when_it_expires() -> None:
    fake = FakeMCP(session_ids=("s-1", "s-2"))
    ctx = make_ctx("parallel", fake)
    await run(fake, ctx=ctx)
    await run(fake, ctx=ctx)
    assert fake.methods() == ["initialize", "notifications/initialized", "tools/call", "tools/call"]
    assert fake.requests[-1].headers["mcp-session-id"] == "s-1"

    expired = {"s-1"}

    def reply(body: dict[str, Any], request: httpx.Request) -> httpx.Response:
        if request.headers.get("mcp-session-id") in expired:
            return httpx.Response(404)
        return httpx.Response(200, json=ok(body["id"], tool_result([])))

    fake.tool_reply = reply
    assert await run(fake, ctx=ctx) == {"results": []}
    assert fake.methods()[4:] == ["tools/call", "initialize", "notifications/initialized", "tools/call"]
    assert fake.requests[-1].headers["mcp-session-id"] == "s-2"


async def test_other_http_errors_are_mapped_by_status() -> None:
    fake = FakeMCP()
    fake.tool_reply = lambda body, request: httpx.Response(401, json={"error": "nope"})
    with pytest.raises(ProviderError) as info:
        await run(fake)
    assert info.value.kind is ErrorKind.AUTH
    assert info.value.message == "Parallel authorization failed (401). Check API key or base URL."


async def test_html_body_is_a_protocol_error() -> None:
    fake = FakeMCP()
    fake.tool_reply = lambda body, request: httpx.Response(
        200, text="<html>Cloudflare</html>", headers={"Content-Type": "text/html"}
    )
    with pytest.raises(ProviderError) as info:
        await run(fake, handshake=False)
    assert info.value.kind is ErrorKind.PROTOCOL
    assert "text/html" in info.value.message


async def test_empty_body_and_malformed_json_are_protocol_errors() -> None:
    for response in (
        httpx.Response(200, text=""),
        httpx.Response(200, text="{nope", headers={"Content-Type": "application/json"}),
    ):
        fake = FakeMCP()
        fake.tool_reply = lambda body, request, r=response: r
        with pytest.raises(ProviderError) as info:
            await run(fake, handshake=False)
        assert info.value.kind is ErrorKind.PROTOCOL


async def test_an_integer_too_long_to_convert_is_a_protocol_error_not_a_crash() -> None:
    """json.loads raises a plain ValueError (not JSONDecodeError) for an integer of more than 4300
    digits; it used to escape as an AttributeError (no ``msg``) instead of a protocol error."""
    fake = FakeMCP()
    fake.tool_reply = lambda body, request: httpx.Response(
        200,
        text='{"jsonrpc": "2.0", "id": 1, "result": ' + "9" * 5000 + "}",
        headers={"Content-Type": "application/json"},
    )
    with pytest.raises(ProviderError) as info:
        await run(fake, handshake=False)
    assert info.value.kind is ErrorKind.PROTOCOL
    assert info.value.message.startswith(
        "Failed to parse MCP response from Parallel: malformed JSON (Exceeds the limit"
    )


async def test_missing_url_is_a_config_error() -> None:
    with pytest.raises(ProviderError) as info:
        await call_tool(make_ctx("parallel"), "", "web_search", {}, handshake=True)
    assert info.value.kind is ErrorKind.CONFIG


async def test_deadline_already_passed_is_a_timeout() -> None:
    fake = FakeMCP()
    ctx = make_ctx("parallel", fake, timeout=-1)
    with pytest.raises(ProviderError) as info:
        await run(fake, ctx=ctx)
    assert info.value.kind is ErrorKind.TIMEOUT
    assert fake.requests == []


def test_sse_data_parser_handles_framing_variants() -> None:
    text = ':comment\r\nevent: message\r\ndata:{"a":1}\r\n\r\ndata: line1\rdata: line2\r\rid: 7\n\ndata: tail'
    assert list(sse_data(text)) == ['{"a":1}', "line1\nline2", "tail"]


async def test_concurrent_calls_share_one_handshake() -> None:
    fake = FakeMCP()
    ctx = make_ctx("parallel", fake)
    await asyncio.gather(*(run(fake, ctx=ctx) for _ in range(3)))
    assert fake.methods().count("initialize") == 1
    assert fake.methods().count("notifications/initialized") == 1
    assert fake.methods().count("tools/call") == 3


async def test_runs_sharing_one_provider_state_share_its_sessions() -> None:
    """The engine hands every run of a provider the same state: a second run (a new context) reuses
    the session its first run opened; a run with another state (another engine) hand-shakes anew."""
    fake = FakeMCP(session_ids=("s-1", "s-2"))
    state = ProviderState()
    await run(fake, ctx=make_ctx("parallel", fake, state=state))
    await run(fake, ctx=make_ctx("parallel", fake, state=state))
    assert fake.methods() == ["initialize", "notifications/initialized", "tools/call", "tools/call"]
    assert list(state.get(McpSessions).established) == [(URL, ())]
    await run(fake, ctx=make_ctx("parallel", fake))
    assert fake.methods()[4:] == ["initialize", "notifications/initialized", "tools/call"]
    assert fake.requests[-1].headers["mcp-session-id"] == "s-2"


async def test_a_failed_notification_leaves_no_half_open_session() -> None:
    fake = FakeMCP(session_ids=("s-1", "s-2"))
    fake.notify_reply = lambda body, request: httpx.Response(500, text="boom")
    ctx = make_ctx("parallel", fake, timeout=2)
    with pytest.raises(ProviderError):
        await run(fake, ctx=ctx)
    fake.notify_reply = lambda body, request: httpx.Response(202)
    await run(fake, ctx=ctx)
    # the second call hand-shook again (initialize + notification) instead of reusing s-1
    assert fake.methods()[-3:] == ["initialize", "notifications/initialized", "tools/call"]
    assert fake.requests[-1].headers["mcp-session-id"] == "s-2"


# --------------------------------------------------------------------------- session API


async def test_open_session_request_and_call_tool_share_one_session() -> None:
    fake = FakeMCP()
    fake.tool_reply = lambda body, request: httpx.Response(
        200, json=ok(body["id"], {"tools": []} if body["method"] == "tools/list" else tool_result([]))
    )
    session = await open_session(make_ctx("parallel", fake), URL, {"X-Extra": "1"})
    assert await session.request("tools/list", {}) == {"tools": []}
    assert await session.call_tool("web_search", {"objective": "q"}) == {"results": []}
    assert fake.methods() == ["initialize", "notifications/initialized", "tools/list", "tools/call"]
    assert all(r.headers["x-extra"] == "1" for r in fake.requests)
    assert [r.headers.get("mcp-session-id") for r in fake.requests] == [None, "s-1", "s-1", "s-1"]


async def test_uncached_sessions_hand_shake_every_time_and_never_renew() -> None:
    fake = FakeMCP(session_ids=("s-1", "s-2", "s-3"))
    fake.tool_reply = lambda body, request: httpx.Response(404, text="gone")
    ctx = make_ctx("parallel", fake)
    first = await open_session(ctx, URL, cache=False)
    second = await open_session(ctx, URL, cache=False)
    assert fake.inits == 2 and second.state is not None and second.state.session_id == "s-2"
    with pytest.raises(ProviderError) as info:
        await first.request("tools/list", {})
    assert info.value.kind is ErrorKind.NOT_FOUND and fake.inits == 2  # no re-initialisation


async def test_named_session_prefixes_mcp_errors_and_handshake_messages() -> None:
    fake = FakeMCP()
    fake.tool_reply = lambda body, request: httpx.Response(
        200, json={"jsonrpc": "2.0", "id": body["id"], "error": {"code": -32603, "message": "down"}}
    )
    session = await open_session(make_ctx("parallel", fake), URL, hooks=McpHooks(name="Acme"), cache=False)
    with pytest.raises(ProviderError) as info:
        await session.request("tools/list", {})
    assert info.value.kind is ErrorKind.SERVER and info.value.message == "Acme MCP error (-32603): down"
    with pytest.raises(ProviderError) as info:
        session.payload(tool_error("backend broke"))
    assert info.value.message == "Acme MCP error: backend broke"

    bad = FakeMCP(version="")
    with pytest.raises(ProviderError) as info:
        await open_session(make_ctx("parallel", bad), URL, hooks=McpHooks(name="Acme"))
    assert info.value.message.startswith("Acme MCP initialize reply has no protocolVersion")


async def test_hooks_word_http_errors_including_auth_when_asked() -> None:
    fake = FakeMCP()
    fake.tool_reply = lambda body, request: httpx.Response(401, json={"msg": "expired"})
    hooks = McpHooks(
        describe_error=lambda status, text, parsed: f"Acme says {status}: {parsed['msg']}", describe_auth=True
    )
    session = await open_session(make_ctx("parallel", fake), URL, hooks=hooks)
    with pytest.raises(ProviderError) as info:
        await session.request("tools/list", {})
    assert info.value.kind is ErrorKind.AUTH and info.value.message == "Acme says 401: expired"


def tool_error(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": True}


def acme_failure(ctx: ProviderContext, message: Any) -> ProviderError | None:
    """A provider's reply check: its own ``{"acme_error": <text>}`` body is a quota failure."""
    if isinstance(message, dict) and "acme_error" in message:
        return ProviderError(ctx.spec.id, ErrorKind.QUOTA, f"Acme: {message['acme_error']}")
    return None


async def test_the_reply_check_sees_every_message_before_the_reply_is_picked() -> None:
    fake = FakeMCP()
    fake.tool_reply = lambda body, request: httpx.Response(
        200,
        text=sse({"acme_error": "no credit"}, ok(body["id"], tool_result([]))),
        headers={"Content-Type": "text/event-stream"},
    )
    session = await open_session(make_ctx("parallel", fake), URL, hooks=McpHooks(check_reply=acme_failure))
    with pytest.raises(ProviderError) as info:
        await session.call_tool("web_search", {})
    assert info.value.kind is ErrorKind.QUOTA and info.value.message == "Acme: no credit"


async def test_the_reply_check_runs_on_the_handshake_too() -> None:
    server = Recorder(httpx.Response(200, json={"acme_error": "bad key"}))
    with pytest.raises(ProviderError) as info:
        await open_session(make_ctx("parallel", server), URL, hooks=McpHooks(check_reply=acme_failure))
    assert info.value.message == "Acme: bad key" and len(server.requests) == 1  # the initialize reply


async def test_without_a_reply_check_a_body_that_is_not_json_rpc_is_an_unrecognised_response() -> None:
    fake = FakeMCP()
    fake.tool_reply = lambda b, request: httpx.Response(200, json={"success": False, "code": 429, "msg": "slow down"})
    with pytest.raises(ProviderError) as info:
        await run(fake, handshake=False)
    assert info.value.kind is ErrorKind.UNRECOGNISED
    assert info.value.message == (
        "Parallel answered in a shape this version does not read (application/json; keys: success, code, msg). "
        "Its API may have changed; websearch-tui doctor parallel checks it."
    )


async def test_a_json_rpc_reply_to_another_request_is_still_no_reply() -> None:
    fake = FakeMCP()
    fake.tool_reply = lambda b, request: httpx.Response(200, json={"jsonrpc": "2.0", "id": "other", "result": {}})
    with pytest.raises(ProviderError) as info:
        await run(fake, handshake=False)
    assert info.value.kind is ErrorKind.PROTOCOL
    assert info.value.message == "Failed to parse MCP response from Parallel: no reply with the request id"
