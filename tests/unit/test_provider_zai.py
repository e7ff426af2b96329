"""Z.AI Web Search Prime (MCP): handshake + tools/list + tools/call, schema-built arguments, fallback
shapes, double-encoded text, empty-result hint, Z.AI's own error wording, and an end-to-end run."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.fake_providers import FakeServer
from tests.fake_providers.fake_zai import FAKE_KEYS, PATH
from tests.helpers import Recorder, collect, fake_ctx, json_response, make_ctx, no_wait
from websearch_tui.core.errors import ErrorKind, ProviderError, register_secret
from websearch_tui.core.models import Metadata, SearchQueries, SearchRequest, SourcesFound
from websearch_tui.core.specs import ProviderSettings
from websearch_tui.providers import zai
from websearch_tui.providers.base import ProviderContext, ProviderState

PID = "zai"
KEY = "zai-test-key-abcdef"
URL = "https://api.z.ai/api/mcp/web_search_prime/mcp"
ROWS = [
    {
        "title": "asyncio &mdash; docs",
        "content": "Write <b>concurrent</b> code",
        "link": "https://docs.python.org/3/library/asyncio.html",
        "media": "Python.org",
        "publish_date": "2025-10-07",
        "refer": "ref_1",
    },
    {"title": "", "summary": "from summary", "url": "https://example.com/b", "date": "2024-07-25"},
    {"title": "no link", "content": "dropped", "link": ""},
    {"title": "ftp", "content": "dropped", "link": "ftp://example.com/x"},
]
SCHEMA = {
    "type": "object",
    "properties": {
        "search_query": {"type": "string"},
        "count": {"type": "integer", "maximum": 20},
        "search_recency_filter": {"type": "string"},
        "content_size": {"type": "string"},
        "location": {"type": "string"},
    },
    "required": ["search_query"],
}

ToolReply = Callable[[dict[str, Any]], httpx.Response]


def rpc(rid: Any, result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "result": result}


def text_result(text: str, is_error: bool = False) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": is_error}


def double(value: Any) -> str:
    return json.dumps(json.dumps(value))


def sse(message: Any) -> httpx.Response:
    """An SSE reply framed like Z.AI's: no space after the colons."""
    body = f"id:1\nevent:message\ndata:{json.dumps(message)}\n\n"
    return httpx.Response(200, text=body, headers={"content-type": "text/event-stream"})


class Server(Recorder):
    """A scripted Z.AI MCP endpoint; ``tool`` answers tools/call, ``tools`` is the tools/list result."""

    def __init__(self, tool: ToolReply | None = None, tools: Any = None, schema: Any = SCHEMA) -> None:
        super().__init__(self.route)
        self.tool = tool or (lambda body: sse(rpc(body["id"], text_result(double(ROWS)))))
        self.tools = tools if tools is not None else {"tools": [{"name": "webSearchPrime", "inputSchema": schema}]}
        self.list_reply: ToolReply | None = None
        self.init_reply: ToolReply | None = None

    def route(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        method = body.get("method")
        if method == "initialize":
            if self.init_reply is not None:
                return self.init_reply(body)
            result = {"protocolVersion": "2025-03-26", "capabilities": {"tools": {}}, "serverInfo": {"name": "z"}}
            return httpx.Response(200, json=rpc(body["id"], result), headers={"Mcp-Session-Id": "sid-1"})
        if method == "notifications/initialized":
            return httpx.Response(202)
        if method == "tools/list":
            return self.list_reply(body) if self.list_reply else sse(rpc(body["id"], self.tools))
        return self.tool(body)

    def calls(self, method: str) -> list[dict[str, Any]]:
        return [b for b in self.bodies if b.get("method") == method]


def ctx_for(rec: Server, settings: ProviderSettings | None = None, timeout: float = 30.0) -> ProviderContext:
    return make_ctx(PID, rec, settings=settings, credentials={"api_key": KEY}, timeout=timeout, sleep=no_wait)


async def fails(rec: Server, request: SearchRequest | None = None, **kwargs: Any) -> ProviderError:
    with pytest.raises(ProviderError) as info:
        await collect(PID, request or SearchRequest("q"), ctx_for(rec, **kwargs))
    return info.value


# --------------------------------------------------------------------------- handshake and request


async def test_handshake_list_and_call_on_one_session() -> None:
    rec = Server()
    ctx = ctx_for(rec)
    events, response = await collect(PID, SearchRequest("python asyncio", max_results=5, recency="week"), ctx)
    assert [b.get("method") for b in rec.bodies] == [
        "initialize",
        "notifications/initialized",
        "tools/list",
        "tools/call",
    ]
    init, note, listing, call = rec.requests
    assert all(str(r.url) == URL and r.method == "POST" for r in rec.requests)
    for request in rec.requests:
        assert request.headers["authorization"] == f"Bearer {KEY}"
        assert request.headers["ACCEPT"] == "application/json, text/event-stream"
        assert request.headers["content-type"] == "application/json"
    assert "mcp-session-id" not in init.headers
    assert rec.body(0)["params"]["protocolVersion"] == "2025-06-18"
    assert rec.body(0)["params"]["clientInfo"]["name"] == "websearch-tui"
    assert "id" not in rec.body(1)
    for request in (note, listing, call):
        assert request.headers["mcp-session-id"] == "sid-1"
        assert request.headers["mcp-protocol-version"] == "2025-03-26"  # the negotiated version
    assert rec.body(3)["params"] == {
        "name": "webSearchPrime",
        "arguments": {
            "search_query": "python asyncio",
            "count": 5,
            "search_recency_filter": "oneWeek",
            "content_size": "medium",
        },
    }
    assert len({b["id"] for b in rec.bodies if "id" in b}) == 3
    assert [type(e) for e in events] == [Metadata, SourcesFound]
    assert response.auth_mode == "api_key" and not response.notes


async def test_second_search_skips_tools_list() -> None:
    rec = Server()
    ctx = ctx_for(rec)
    await collect(PID, SearchRequest("a"), ctx)
    await collect(PID, SearchRequest("b"), ctx)
    assert [b.get("method") for b in rec.bodies][4:] == ["initialize", "notifications/initialized", "tools/call"]


async def test_the_tool_is_remembered_in_the_provider_state_not_the_client() -> None:
    rec, state = Server(), ProviderState()
    for _ in range(2):  # two runs of one engine: new contexts, the same state
        await collect(PID, SearchRequest("q"), make_ctx(PID, rec, credentials={"api_key": KEY}, state=state))
    assert [b.get("method") for b in rec.bodies].count("tools/list") == 1
    assert list(state.get(zai.ZaiTools).by_url) == [URL]
    await collect(PID, SearchRequest("q"), ctx_for(rec))  # another engine's state lists the tools again
    assert [b.get("method") for b in rec.bodies].count("tools/list") == 2


async def test_only_declared_properties_are_sent() -> None:
    rec = Server(schema={"type": "object", "properties": {"search_query": {"type": "string"}}})
    _, response = await collect(PID, SearchRequest("q", recency="day", num_search_results=30), ctx_for(rec))
    assert rec.calls("tools/call")[0]["params"]["arguments"] == {"search_query": "q"}
    assert response.notes == [zai.RECENCY_IGNORED]


async def test_count_clamped_to_schema_maximum_and_content_size_option() -> None:
    rec = Server()
    settings = ProviderSettings(options={"content_size": "high"})
    await collect(PID, SearchRequest("q", num_search_results=50), ctx_for(rec, settings))
    arguments = rec.calls("tools/call")[0]["params"]["arguments"]
    assert arguments == {"search_query": "q", "count": 20, "content_size": "high"}


async def test_query_property_and_snake_case_tool_name() -> None:
    tools = {"tools": [{"name": "other"}, {"name": "web_search_prime", "inputSchema": {"properties": {"query": {}}}}]}
    rec = Server(tools=tools)
    await collect(PID, SearchRequest("q"), ctx_for(rec))
    assert rec.calls("tools/call")[0]["params"] == {"name": "web_search_prime", "arguments": {"query": "q"}}


async def test_server_without_the_tool_is_protocol() -> None:
    error = await fails(Server(tools={"tools": [{"name": "read_page"}]}))
    assert error.kind is ErrorKind.PROTOCOL and "read_page" in error.message


# --------------------------------------------------------------------------- fallback shapes


def invalid_unless(key: str) -> ToolReply:
    def reply(body: dict[str, Any]) -> httpx.Response:
        arguments = body["params"]["arguments"]
        if key not in arguments:
            return sse(rpc(body["id"], text_result("MCP error -32602: Invalid arguments: search_query required", True)))
        return sse(rpc(body["id"], text_result(double(ROWS))))

    return reply


async def test_fallback_shapes_move_on_after_argument_errors() -> None:
    rec = Server(tool=invalid_unless("search_engine"), schema={"type": "object"})
    _, response = await collect(PID, SearchRequest("q", max_results=3, recency="week"), ctx_for(rec))
    assert [c["params"]["arguments"] for c in rec.calls("tools/call")] == [
        {"query": "q", "count": 3},
        {"search_query": "q", "count": 3},
        {"search_query": "q", "search_engine": "search-prime", "count": 3},
    ]
    assert len(response.sources) == 2 and response.notes == [zai.RECENCY_IGNORED]


async def test_http_400_is_an_argument_error_too() -> None:
    def reply(body: dict[str, Any]) -> httpx.Response:
        if "query" in body["params"]["arguments"]:
            return json_response({"jsonrpc": "2.0", "id": None, "error": {"code": -32000, "message": "bad"}}, 400)
        return sse(rpc(body["id"], text_result(double(ROWS))))

    rec = Server(tool=reply, schema={})
    _, response = await collect(PID, SearchRequest("q"), ctx_for(rec))
    assert len(rec.calls("tools/call")) == 2 and response.sources


async def test_non_argument_error_stops_the_fallback() -> None:
    rec = Server(tool=lambda b: sse(rpc(b["id"], text_result("service unavailable", True))), schema={})
    error = await fails(rec)
    assert len(rec.calls("tools/call")) == 1
    assert error.kind is ErrorKind.SERVER and error.message == "Z.AI MCP error: service unavailable"


async def test_all_shapes_failing_raises_the_last_error() -> None:
    rec = Server(tool=invalid_unless("never"), schema={})
    error = await fails(rec)
    assert len(rec.calls("tools/call")) == 3 and error.kind is ErrorKind.BAD_REQUEST
    assert "Invalid arguments" in error.message


@pytest.mark.parametrize(
    ("url", "name"),
    [
        (URL, "web_search_prime"),  # Z.AI's live name
        ("https://open.bigmodel.cn/api/mcp/web_search_prime/mcp", "webSearchPrime"),  # BigModel's docs
    ],
)
async def test_tools_list_refused_falls_back_to_the_name_the_host_uses(url: str, name: str) -> None:
    rec = Server(tool=invalid_unless("search_query"))
    rec.list_reply = lambda b: sse({"jsonrpc": "2.0", "id": b["id"], "error": {"code": -32601, "message": "nope"}})
    await collect(PID, SearchRequest("q"), ctx_for(rec, ProviderSettings(mcp_url=url)))
    assert [c["params"]["name"] for c in rec.calls("tools/call")] == [name, name]


@pytest.mark.parametrize("name", ["web_search_prime", "webSearchPrime", "WebSearchPrime", "web-search-prime"])
async def test_both_documented_tool_names_are_found(name: str) -> None:
    rec = Server(tools={"tools": [{"name": "web_reader"}, {"name": name, "inputSchema": SCHEMA}]})
    _, response = await collect(PID, SearchRequest("q"), ctx_for(rec))
    assert rec.calls("tools/call")[0]["params"]["name"] == name and response.sources


async def test_a_server_without_the_tool_names_both_spellings() -> None:
    error = await fails(Server(tools={"tools": [{"name": "web_reader"}, {"name": "zread"}]}))
    assert error.kind is ErrorKind.PROTOCOL
    assert error.message == (
        "Z.AI MCP server does not offer web_search_prime or webSearchPrime (tools: web_reader, zread)."
    )


# --------------------------------------------------------------------------- payload shapes


@pytest.mark.parametrize(
    "reply",
    [
        lambda b: sse(rpc(b["id"], text_result(double(ROWS)))),
        lambda b: sse(rpc(b["id"], text_result(json.dumps(ROWS)))),
        lambda b: json_response(rpc(b["id"], text_result(double(ROWS)))),
        lambda b: json_response(rpc(b["id"], {"structuredContent": {"results": ROWS}, "content": []})),
        lambda b: json_response(rpc(b["id"], {"data": ROWS})),
        lambda b: sse(rpc(b["id"], text_result(json.dumps({"data": {"search_result": ROWS}})))),
    ],
    ids=["double", "single", "json", "structured", "data", "nested"],
)
async def test_payload_shapes(reply: ToolReply) -> None:
    _, response = await collect(PID, SearchRequest("q"), ctx_for(Server(tool=reply)))
    first, second = response.sources
    assert first.title == "asyncio — docs" and first.snippet == "Write concurrent code"
    assert first.author == "Python.org" and first.published_text == "2025-10-07"
    assert second.url == "https://example.com/b" and second.title == "https://example.com/b"
    assert second.snippet == "from summary" and second.published_text == "2024-07-25"
    assert response.answer is None


async def test_sources_sliced_and_request_id_read() -> None:
    payload = {
        "request_id": "zai-req-1",
        "search_result": [dict(ROWS[0], link=f"https://e.com/{n}") for n in range(15)],
    }
    rec = Server(tool=lambda b: sse(rpc(b["id"], text_result(json.dumps(payload)))))
    _, response = await collect(PID, SearchRequest("q", max_results=4), ctx_for(rec))
    assert len(response.sources) == 4 and response.request_id == "zai-req-1"


@pytest.mark.parametrize("text", [double([]), "[]", '""', " "])
async def test_empty_result_gets_the_quota_hint(text: str) -> None:
    rec = Server(tool=lambda b: sse(rpc(b["id"], text_result(text))))
    _, response = await collect(PID, SearchRequest("q"), ctx_for(rec))
    assert not response.is_renderable() and response.notes == [zai.EMPTY_HINT]


async def test_plain_text_becomes_a_note_not_an_answer() -> None:
    rec = Server(tool=lambda b: sse(rpc(b["id"], text_result("No results found for q"))))
    _, response = await collect(PID, SearchRequest("q"), ctx_for(rec))
    assert response.answer is None and response.notes == ["Z.AI Web Search: No results found for q"]


async def test_object_without_result_list_is_unrecognised() -> None:
    rec = Server(tool=lambda b: sse(rpc(b["id"], text_result(json.dumps({"foo": 1})))))
    assert (await fails(rec)).kind is ErrorKind.UNRECOGNISED


@pytest.mark.parametrize(
    "payload",
    [
        {
            "search_intent": [{"query": "q", "intent": "SEARCH_ALL", "keywords": "python asyncio 教程"}],
            "search_result": ROWS,
        },
        {"data": {"search_intent": [{"query": "python asyncio 教程"}], "results": ROWS}},
        {"search_intent": {"keywords": "python asyncio 教程"}, "items": ROWS},
    ],
)
async def test_search_intent_in_the_result_is_reported_as_search_queries(payload: dict[str, Any]) -> None:
    rec = Server(tool=lambda b: sse(rpc(b["id"], text_result(double(payload)))))
    events, response = await collect(PID, SearchRequest("q"), ctx_for(rec))
    assert response.search_queries == ["python asyncio 教程"]
    assert [type(e) for e in events][:2] == [Metadata, SearchQueries]
    assert len(response.sources) == 2


async def test_a_bare_result_list_has_no_search_queries() -> None:
    _, response = await collect(PID, SearchRequest("q"), ctx_for(Server()))
    assert response.search_queries == [] and len(response.sources) == 2


# --------------------------------------------------------------------------- errors


async def test_success_false_body_with_200() -> None:
    body = {"success": False, "code": 1113, "msg": "Insufficient balance or no resource package."}
    error = await fails(Server(tool=lambda b: json_response(body)))
    assert error.kind is ErrorKind.QUOTA
    assert error.message == "Z.AI API error (1113): Insufficient balance or no resource package."


@pytest.mark.parametrize(
    ("body", "kind", "message"),
    [
        ({"success": False, "code": 429, "msg": "slow down"}, ErrorKind.RATE_LIMIT, "Z.AI API error (429): slow down"),
        (
            {"success": False, "code": "E1", "message": "quota exceeded"},
            ErrorKind.QUOTA,
            "Z.AI API error (E1): quota exceeded",
        ),
        ({"success": False, "error_message": "broken"}, ErrorKind.SERVER, "Z.AI API error (?): broken"),
    ],
)
async def test_success_false_body_kind_comes_from_its_code_or_wording(
    body: dict[str, Any], kind: ErrorKind, message: str
) -> None:
    error = await fails(Server(tool=lambda b: json_response(body)))
    assert error.kind is kind and error.message == message


def test_failure_body_ignores_json_rpc_and_successful_bodies() -> None:
    assert zai.failure_body({"jsonrpc": "2.0", "success": False, "id": 1}) is None
    assert zai.failure_body({"success": True}) is None
    assert zai.failure_body([{"success": False}]) is None
    assert zai.failure_body({"success": False, "code": True}) == ("", "no message")


async def test_success_false_inside_the_tool_text() -> None:
    body = {"success": False, "code": 1302, "message": "rate limited"}
    error = await fails(Server(tool=lambda b: sse(rpc(b["id"], text_result(json.dumps(body))))))
    assert error.kind is ErrorKind.RATE_LIMIT and error.message == "Z.AI API error (1302): rate limited"


async def test_success_false_on_initialize_is_auth() -> None:
    rec = Server()
    rec.init_reply = lambda b: json_response({"success": False, "code": 1001, "error_message": "no Authorization"})
    error = await fails(rec)
    assert error.kind is ErrorKind.AUTH and error.message == "Z.AI API error (1001): no Authorization"
    assert len(rec.requests) == 1


async def test_json_rpc_error() -> None:
    reply = lambda b: sse({"jsonrpc": "2.0", "id": b["id"], "error": {"code": -32603, "message": "backend down"}})  # noqa: E731
    error = await fails(Server(tool=reply))
    assert error.kind is ErrorKind.SERVER and error.message == "Z.AI MCP error (-32603): backend down"


async def test_is_error_result() -> None:
    reply = lambda b: sse(rpc(b["id"], text_result("MCP error -429: quota exceeded for today", True)))  # noqa: E731
    error = await fails(Server(tool=reply))
    assert error.kind is ErrorKind.QUOTA
    assert error.message == "Z.AI MCP error: MCP error -429: quota exceeded for today"


@pytest.mark.parametrize(
    ("status", "body", "message"),
    [
        (401, {"success": False, "code": 1001, "msg": "Token expired"}, "Z.AI API error (1001): Token expired"),
        (
            403,
            {"jsonrpc": "2.0", "id": None, "error": {"code": -32001, "message": "plan"}},
            "Z.AI MCP error (-32001): plan",
        ),
        (
            401,
            {"error": {"code": "1000", "message": "Authentication failed"}},
            "Z.AI API error (1000): Authentication failed",
        ),
        (401, None, "Z.AI MCP error (401): Unauthorized"),
    ],
)
async def test_auth_errors_keep_zai_wording(status: int, body: Any, message: str) -> None:
    rec = Server()
    reply = json_response(body, status) if body is not None else httpx.Response(status)
    rec.init_reply = lambda b: reply
    error = await fails(rec)
    assert error.kind is ErrorKind.AUTH and error.status == status and error.message == message
    assert len(rec.requests) == 1


async def test_rate_limit_is_retried_then_reported() -> None:
    rec = Server()
    rec.init_reply = lambda b: json_response({"success": False, "code": 429, "msg": "Too many requests"}, 429)
    error = await fails(rec)
    assert error.kind is ErrorKind.RATE_LIMIT and error.message == "Z.AI API error (429): Too many requests"
    assert len(rec.requests) == 4


async def test_server_error_then_success_on_retry() -> None:
    rec = Server()
    attempts: list[int] = []

    def flaky(body: dict[str, Any]) -> httpx.Response:
        attempts.append(1)
        if len(attempts) == 1:
            return httpx.Response(502, text="bad gateway")
        return sse(rpc(body["id"], text_result(double(ROWS))))

    rec.tool = flaky
    _, response = await collect(PID, SearchRequest("q"), ctx_for(rec))
    assert len(attempts) == 2 and response.sources


async def test_initialize_without_protocol_version_is_protocol() -> None:
    rec = Server()
    rec.init_reply = lambda b: json_response(rpc(b["id"], {"capabilities": {}}))
    error = await fails(rec)
    assert error.kind is ErrorKind.PROTOCOL and "protocolVersion" in error.message


async def test_html_reply_is_protocol() -> None:
    rec = Server()
    rec.init_reply = lambda b: httpx.Response(200, text="<html>gateway</html>", headers={"content-type": "text/html"})
    assert (await fails(rec)).kind is ErrorKind.PROTOCOL


async def test_deadline_covers_the_whole_sequence() -> None:
    rec = Server()
    error = await fails(rec, timeout=-1)
    assert error.kind is ErrorKind.TIMEOUT and not rec.requests


async def test_secret_never_in_messages() -> None:
    register_secret(KEY)
    rec = Server()
    rec.init_reply = lambda b: json_response({"success": False, "code": 1002, "msg": f"bad token {KEY}"}, 401)
    error = await fails(rec)
    assert KEY not in error.message and "***" in error.message
    rec = Server(tool=lambda b: sse(rpc(b["id"], text_result(f"invalid key {KEY}", True))))
    assert KEY not in (await fails(rec)).message


# --------------------------------------------------------------------------- end to end


async def test_end_to_end_against_the_fake() -> None:
    request = SearchRequest("python asyncio", max_results=3, recency="year")
    with FakeServer() as srv:
        async with httpx.AsyncClient() as client:
            ctx = fake_ctx(PID, srv, client, sleep=no_wait)
            _, response = await collect(PID, request, ctx)
            assert [s.url for s in response.sources] == [
                "https://docs.python.org/3/library/asyncio.html",
                "https://docs.python.org/3/library/asyncio-task.html",
                "https://realpython.com/async-io-python/",
            ]
            assert response.sources[2].title == "Python's asyncio: A Hands-On Walkthrough – Real Python"
            call = [r.json() for r in srv.requests_to(PATH) if r.json().get("method") == "tools/call"][-1]
            assert call["params"]["arguments"]["search_recency_filter"] == "oneYear"
            assert call["params"]["arguments"]["count"] == 3 and not response.notes

            for variant in ("single_encoded", "json", "no_schema"):
                srv.use(PID, variant)
                _, response = await collect(PID, request, ctx)
                assert len(response.sources) == 3, variant
            # the remembered schema was wrong for no_schema: listed again, then the fallback shapes
            assert response.notes == [zai.RECENCY_IGNORED]

        async with httpx.AsyncClient() as client:  # a new context (another engine): no remembered tool
            ctx = fake_ctx(PID, srv, client, sleep=no_wait)
            srv.use(PID, "empty")
            _, response = await collect(PID, request, ctx)
            assert not response.sources and response.notes == [zai.EMPTY_HINT]

            for variant, kind, text in (
                ("api_error", ErrorKind.QUOTA, "Z.AI API error (1113): Insufficient balance"),
                ("is_error", ErrorKind.SERVER, "Z.AI MCP error: MCP error -500"),
                ("rpc_error", ErrorKind.SERVER, "Z.AI MCP error (-32603): Internal error"),
            ):
                srv.use(PID, variant)
                with pytest.raises(ProviderError) as info:
                    await collect(PID, request, ctx)
                assert info.value.kind is kind and info.value.message.startswith(text), variant

            srv.use(PID)
            with pytest.raises(ProviderError) as info:
                await collect(PID, request, fake_ctx(PID, srv, client, key="wrong-key", sleep=no_wait))
            assert info.value.kind is ErrorKind.AUTH
            assert (
                info.value.message
                == "Z.AI API error (401): Authentication failed: the API key is invalid or has expired."
            )


async def test_end_to_end_international_tool_name_search_intent_and_dates() -> None:
    with FakeServer() as srv:
        srv.use(PID, "international")
        async with httpx.AsyncClient() as client:
            _, response = await collect(PID, SearchRequest("python asyncio"), fake_ctx(PID, srv, client, sleep=no_wait))
    calls = [r.json() for r in srv.requests_to(PATH) if r.json().get("method") == "tools/call"]
    assert [c["params"]["name"] for c in calls] == ["web_search_prime"]
    assert response.search_queries == ["python asyncio guide"]
    realpython = next(s for s in response.sources if "realpython" in s.url)
    assert realpython.published_text == "2025/07/30" and realpython.published_date == "2025-07-30T00:00:00Z"


def test_fake_rejects_a_call_without_a_session() -> None:
    headers = {"Authorization": f"Bearer {FAKE_KEYS['ZAI_API_KEY']}", "Accept": "application/json, text/event-stream"}
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "webSearchPrime", "arguments": {}}}
    with FakeServer() as srv, httpx.Client(base_url=srv.base_url) as client:
        bare = client.post(PATH, json=call, headers=headers)
        assert bare.status_code == 400 and bare.json()["error"]["code"] == -32000
        stale = client.post(PATH, json=call, headers={**headers, "Mcp-Session-Id": "nope"})
        assert stale.status_code == 404
        init = client.post(PATH, json={"jsonrpc": "2.0", "id": 0, "method": "initialize"}, headers=headers)
        assert init.text.startswith("id:1\nevent:message\ndata:{")
        session = {**headers, "Mcp-Session-Id": init.headers["mcp-session-id"]}
        listing = client.post(PATH, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, headers=session)
        tool = json.loads(listing.text.split("data:", 1)[1])["result"]["tools"][0]
        assert tool["name"] == "webSearchPrime" and "search_query" in tool["inputSchema"]["properties"]
