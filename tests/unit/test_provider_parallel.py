"""Parallel provider: REST with a key, keyless MCP with the handshake, warnings, errors, real payloads."""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timedelta, timezone
from typing import Any

import httpx
import pytest

from tests.helpers import Recorder, collect, json_response, make_ctx, shared_fixture
from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import Metadata, Note, SearchRequest, Usage
from websearch_tui.core.specs import ProviderSettings
from websearch_tui.providers import parallel

KEY = "par-test-key-1"
ROWS = [
    {"url": "https://a.example", "title": "A", "publish_date": None, "excerpts": ["one", "two", "one"]},
    {"url": "https://b.example", "title": None, "publish_date": "", "excerpts": []},
    {"url": "", "title": "dropped"},
]


def rows_reply(request: httpx.Request) -> httpx.Response:
    """A REST search returning ``ROWS`` (a fresh response per request)."""
    return json_response({"search_id": "search_1", "results": ROWS})


def rest_ctx(rec: Recorder, settings: ProviderSettings | None = None, timeout: float = 30.0) -> Any:
    return make_ctx("parallel", rec, settings=settings, credentials={"api_key": KEY}, timeout=timeout)


# --- REST ---------------------------------------------------------------------------------


async def test_rest_request_shape() -> None:
    rec = Recorder(rows_reply)
    await collect("parallel", SearchRequest("who founded parallel", max_results=5, recency="month"), rest_ctx(rec))
    (request,) = rec.requests
    assert request.method == "POST"
    assert str(request.url) == "https://api.parallel.ai/v1/search"
    assert request.headers["x-api-key"] == KEY
    assert KEY not in str(request.url)
    since = (datetime.now(timezone.utc) - timedelta(days=30)).strftime("%Y-%m-%d")
    assert rec.body() == {
        "objective": "who founded parallel",
        "search_queries": ["who founded parallel"],
        "advanced_settings": {"max_results": 5, "source_policy": {"after_date": since}},
    }
    assert "mode" not in rec.body(), "no mode: the retired 'fast' can never be sent; the API default applies"


async def test_rest_count_clamp_and_base_url() -> None:
    rec = Recorder(rows_reply)
    settings = ProviderSettings(base_url="http://127.0.0.1:3/v1")
    await collect("parallel", SearchRequest("q", num_search_results=50), rest_ctx(rec, settings))
    assert str(rec.requests[0].url) == "http://127.0.0.1:3/v1/search"
    assert rec.body()["advanced_settings"] == {"max_results": 40}


def test_long_query_is_cut_for_search_queries_only() -> None:
    query = ("word " * 80).strip()
    body = parallel.build_body(SearchRequest(query))
    assert body["objective"] == query
    (keywords,) = body["search_queries"]
    assert len(keywords) <= 200 and query.startswith(keywords) and not keywords.endswith(" ")
    assert parallel.search_query("x" * 300) == "x" * 200


async def test_rest_response_mapping() -> None:
    body = {
        "search_id": "search_9",
        "results": ROWS,
        "warnings": ["Query was long", {"message": "Some sources skipped"}, {"warning": "Date filter relaxed"}],
        "usage": [{"name": "sku_search", "count": 1}, {"name": "other", "count": 5}],
    }
    rec = Recorder(lambda _: json_response(body))
    events, response = await collect("parallel", SearchRequest("q", max_results=10), rest_ctx(rec))
    assert events[0] == Metadata(request_id="search_9", usage=Usage(search_requests=1), auth_mode="api_key")
    assert response.notes == [
        "Parallel: Query was long",
        "Parallel: Some sources skipped",
        "Parallel: Date filter relaxed",
    ]
    a, b = response.sources
    assert a.snippet == "one\n\ntwo" and a.published_text is None and a.age_seconds is None
    assert b.title == "https://b.example" and b.snippet is None and b.published_text is None


async def test_rest_local_slice() -> None:
    rows = [{"url": f"https://r.example/{i}", "title": str(i), "excerpts": ["e"]} for i in range(12)]
    rec = Recorder(lambda _: json_response({"search_id": "s", "results": rows}))
    _, response = await collect("parallel", SearchRequest("q", max_results=3), rest_ctx(rec))
    assert len(response.sources) == 3


@pytest.mark.parametrize("max_results", [1, 20])
async def test_rest_rows_without_an_http_url_are_dropped(max_results: int) -> None:
    rows = [
        {"title": "Script", "url": "javascript:alert(1)", "excerpts": ["x"]},
        {"title": "FTP", "url": "ftp://x", "excerpts": ["x"]},
        {"title": "No url at all", "excerpts": ["x"]},
        {"title": "Valid", "url": "https://ok.example/page", "excerpts": ["kept"]},
    ]
    rec = Recorder(lambda _: json_response({"search_id": "s", "results": rows}))
    _, response = await collect("parallel", SearchRequest("q", max_results=max_results), rest_ctx(rec))
    # dropped rows take no slot of max_results
    assert [(s.url, s.title) for s in response.sources] == [("https://ok.example/page", "Valid")]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"message": "top"}, "top"),
        ({"detail": "detailed"}, "detailed"),
        ({"detail": [{"loc": ["body", "x"], "msg": "field required"}]}, "field required"),
        ({"error": "plain"}, "plain"),
        ({"type": "error", "error": {"ref_id": "r", "message": "nested"}}, "nested"),
        ({"error": {"detail": "nested detail"}}, "nested detail"),
    ],
)
async def test_rest_error_message_extraction(body: dict[str, Any], message: str) -> None:
    rec = Recorder(lambda _: json_response(body, 400))
    with pytest.raises(ProviderError) as info:
        await collect("parallel", SearchRequest("q"), rest_ctx(rec))
    assert info.value.kind is ErrorKind.BAD_REQUEST
    assert info.value.message == f"Parallel API error (400): {message}"


async def test_rest_error_raw_text_and_auth() -> None:
    rec = Recorder(lambda _: httpx.Response(400, text="nope"))
    with pytest.raises(ProviderError) as info:
        await collect("parallel", SearchRequest("q"), rest_ctx(rec))
    assert info.value.message == "Parallel API error (400): nope"
    rec = Recorder(lambda _: json_response({"error": {"message": "bad key"}}, 401))
    with pytest.raises(ProviderError) as info:
        await collect("parallel", SearchRequest("q"), rest_ctx(rec))
    assert info.value.kind is ErrorKind.AUTH
    assert info.value.message == "Parallel authorization failed (401). Check API key or base URL."


async def test_rest_body_without_results_list_is_unrecognised() -> None:
    rec = Recorder(lambda _: json_response({"search_id": "s", "results": "nope"}))
    with pytest.raises(ProviderError) as info:
        await collect("parallel", SearchRequest("q"), rest_ctx(rec))
    assert info.value.kind is ErrorKind.UNRECOGNISED


# --- keyless MCP --------------------------------------------------------------------------


def ok(message_id: Any, result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": message_id, "result": result}


class FakeMCP(Recorder):
    """Stateful MCP route: session id on initialize, 202 on the notification, scripted tools/call.

    ``tool`` gets the parsed JSON-RPC body of each ``tools/call`` request.
    """

    def __init__(self, tool: Any = None, *, version: Any = "2025-06-18") -> None:
        super().__init__(self.route)
        self.version = version
        self.tool = tool or (lambda body: json_response(ok(body["id"], {"structuredContent": {"results": ROWS}})))

    def route(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        if body.get("method") == "initialize":
            result = {"protocolVersion": self.version, "capabilities": {}, "serverInfo": {"name": "fake"}}
            return json_response(ok(body["id"], result), headers={"Mcp-Session-Id": "sess-1"})
        if body.get("method") == "notifications/initialized":
            return httpx.Response(202)
        return self.tool(body)


async def test_mcp_handshake_and_tool_arguments() -> None:
    fake = FakeMCP()
    events, response = await collect(
        "parallel", SearchRequest("parallel funding", max_results=1), make_ctx("parallel", fake)
    )
    assert [b.get("method") for b in fake.bodies] == [
        "initialize",
        "notifications/initialized",
        "tools/call",
    ]
    assert all(str(r.url) == "https://search.parallel.ai/mcp" for r in fake.requests)
    assert all("x-api-key" not in r.headers for r in fake.requests)
    call = fake.requests[2]
    assert call.headers["mcp-session-id"] == "sess-1"
    assert call.headers["mcp-protocol-version"] == "2025-06-18"
    params = fake.body(2)["params"]
    assert params["name"] == "web_search"
    arguments = params["arguments"]
    assert arguments["objective"] == "parallel funding"
    assert arguments["search_queries"] == ["parallel funding"]
    assert str(uuid.UUID(arguments["session_id"])) == arguments["session_id"]
    assert set(arguments) == {"objective", "search_queries", "session_id"}
    assert events[0] == Metadata(request_id=None, auth_mode="keyless")
    assert [s.url for s in response.sources] == ["https://a.example"]


async def test_mcp_recency_note_and_custom_url() -> None:
    fake = FakeMCP()
    ctx = make_ctx("parallel", fake, settings=ProviderSettings(mcp_url="http://127.0.0.1:4/mcp"))
    events, _ = await collect("parallel", SearchRequest("q", recency="week"), ctx)
    assert str(fake.requests[0].url) == "http://127.0.0.1:4/mcp"
    assert Note("Parallel keyless MCP ignores recency; add a Parallel API key") in events


async def test_mcp_text_content_in_a_batch_sse_reply() -> None:
    def tool(body: dict[str, Any]) -> httpx.Response:
        batch = [
            ok("other", {"content": [{"type": "text", "text": "{}"}]}),
            {"jsonrpc": "2.0", "method": "notifications/message", "params": {}},
            ok(body["id"], {"content": [{"type": "text", "text": json.dumps({"search_id": "s-7", "results": ROWS})}]}),
        ]
        return httpx.Response(200, text=f"data: {json.dumps(batch)}\n\n", headers={"Content-Type": "text/event-stream"})

    _, response = await collect("parallel", SearchRequest("q"), make_ctx("parallel", FakeMCP(tool)))
    assert response.request_id == "s-7"
    assert len(response.sources) == 2


EMPTY_RESULT = "Parallel MCP tool returned an empty result"
NO_REPLY = "Failed to parse MCP response from Parallel: no reply with the request id"


@pytest.mark.parametrize(
    ("reply", "kind", "message"),
    [
        (
            lambda body: json_response({"jsonrpc": "2.0", "id": body["id"], "error": {"code": -32603, "message": "x"}}),
            ErrorKind.SERVER,
            "MCP error (-32603): x",
        ),
        (lambda body: json_response(ok(body["id"], None)), ErrorKind.PROTOCOL, EMPTY_RESULT),
        (lambda body: json_response(ok(body["id"], [])), ErrorKind.PROTOCOL, EMPTY_RESULT),
        (lambda body: json_response(ok(body["id"], {})), ErrorKind.PROTOCOL, EMPTY_RESULT),
        (
            lambda body: json_response(ok("mismatch", {"structuredContent": {"results": ROWS}})),
            ErrorKind.PROTOCOL,
            NO_REPLY,
        ),
        (lambda body: json_response(ok(None, {"structuredContent": {"results": ROWS}})), ErrorKind.PROTOCOL, NO_REPLY),
        (
            lambda body: json_response(ok(body["id"], {"isError": True, "content": []})),
            ErrorKind.SERVER,
            "MCP error: the tool reported an error without a message",
        ),
    ],
    ids=["rpc-error", "null", "list", "empty", "mismatched-id", "null-id", "is-error"],
)
async def test_mcp_failure_cases(reply: Any, kind: ErrorKind, message: str) -> None:
    with pytest.raises(ProviderError) as info:
        await collect("parallel", SearchRequest("q"), make_ctx("parallel", FakeMCP(reply)))
    assert info.value.kind is kind
    assert info.value.message.startswith(message)


@pytest.mark.parametrize("version", ["", 1])
async def test_mcp_bad_protocol_version(version: Any) -> None:
    fake = FakeMCP(version=version)
    with pytest.raises(ProviderError) as info:
        await collect("parallel", SearchRequest("q"), make_ctx("parallel", fake))
    assert info.value.kind is ErrorKind.PROTOCOL
    assert len(fake.requests) == 1


async def test_mcp_429() -> None:
    fake = FakeMCP(lambda body: json_response({"error": "too many"}, 429, headers={"Retry-After": "900"}))
    with pytest.raises(ProviderError) as info:
        await collect("parallel", SearchRequest("q"), make_ctx("parallel", fake))
    assert info.value.kind is ErrorKind.RATE_LIMIT
    assert info.value.message == "Parallel MCP rate limit reached (429); configure a Parallel API key (retry in 900 s)"


# --- conformance: real payloads -----------------------------------------------------------


async def test_replays_real_search_sample() -> None:
    body = json.loads(shared_fixture("parallel/search_sample_real.json").read_text(encoding="utf-8"))
    rec = Recorder(lambda _: json_response(body))
    events, response = await collect("parallel", SearchRequest("parallel web systems", max_results=20), rest_ctx(rec))
    assert [s.url for s in response.sources] == [r["url"] for r in body["results"]]
    assert response.request_id == "search_8a911eb27c7a4afaa20d0d9dc98d07c0"
    assert response.usage == Usage(search_requests=1)
    assert response.notes == []  # warnings: null
    dated = [s for s in response.sources if s.published_text]
    assert [s.published_text for s in dated] == ["2025-11-19"]
    assert all(s.snippet for s in response.sources)
    assert response.sources[0].snippet.startswith("Parallel Web Systems raises $100M for AI web access - LinkedIn\n")


async def test_replays_v1beta_example_and_422() -> None:
    body = json.loads(shared_fixture("parallel/search_v1beta_openapi_example.json").read_text(encoding="utf-8"))
    _, response = await collect("parallel", SearchRequest("q"), rest_ctx(Recorder(lambda _: json_response(body))))
    (source,) = response.sources
    assert source.snippet == "Sample excerpt 1\n\nSample excerpt 2"
    assert source.published_text == "2024-01-15"

    error = json.loads(shared_fixture("parallel/error_422_validation.json").read_text(encoding="utf-8"))
    with pytest.raises(ProviderError) as info:
        await collect("parallel", SearchRequest("q"), rest_ctx(Recorder(lambda _: json_response(error, 422))))
    assert info.value.kind is ErrorKind.BAD_REQUEST
    assert info.value.status == 422
    assert info.value.message == "Parallel API error (422): Request validation error"
