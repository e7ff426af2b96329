"""Loopback fake of Z.AI Web Search Prime (MCP): ``POST /zai/api/mcp/web_search_prime/mcp``, stateful.

Like the real server it needs ``Authorization: Bearer <key>`` on every POST, answers ``initialize``
with an ``Mcp-Session-Id``, rejects any other request without a known session, lists the tool
``webSearchPrime`` with an ``inputSchema``, validates ``tools/call`` arguments against it, and frames
replies as SSE without a space after the colon (``id:1`` / ``event:message`` / ``data:{...}``). The
default tool text is a JSON string holding the JSON result list (double-encoded), as Z.AI sends it.

The ``international`` variant is the Z.AI server as probed live: the tool is listed as
``web_search_prime``, and its result is an object ``{"search_intent": [...], "search_result": [...]}``
(the REST API's answer shape) instead of a bare list. One row carries a ``2025/07/30`` date.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from .server import FakeRequest, FakeResponse, load_data

KEY = "fake-zai-key"
FAKE_KEYS = {"ZAI_API_KEY": KEY}
PATH = "/zai/api/mcp/web_search_prime/mcp"
SEARCH_ROUTE = ("POST", PATH)
TOOL = "webSearchPrime"
INTERNATIONAL_TOOL = "web_search_prime"
VARIANTS = (
    "default",
    "single_encoded",
    "json",
    "empty",
    "is_error",
    "api_error",
    "rpc_error",
    "no_schema",
    "international",
)
RECENCY = ["oneDay", "oneWeek", "oneMonth", "oneYear", "noLimit"]
SCHEMA = {
    "type": "object",
    "properties": {
        "search_query": {"type": "string", "description": "Search content, ideally under 70 characters"},
        "count": {"type": "integer", "minimum": 1, "maximum": 50},
        "search_domain_filter": {"type": "string"},
        "search_recency_filter": {"type": "string", "enum": RECENCY},
        "content_size": {"type": "string", "enum": ["medium", "high"]},
        "location": {"type": "string", "enum": ["cn", "us"]},
    },
    "required": ["search_query"],
}
NO_SCHEMA_ARGUMENTS = ("search_query", "count", "search_engine")
"""What the ``no_schema`` variant's tool accepts (its ``tools/list`` entry declares nothing)."""
QUOTA_MESSAGE = "Insufficient balance or no resource package. Please recharge."


def error_response(status: int, message: str) -> FakeResponse:
    """Z.AI's non-JSON-RPC error body ``{"success": false, "code": <status>, "msg": ...}``."""
    return FakeResponse(status, body={"success": False, "code": status, "msg": message})


def config(base_url: str) -> dict[str, Any]:
    """The ``[providers.zai]`` table for a fake at ``base_url``."""
    return {"mcp_url": f"{base_url}{PATH}"}


def routes() -> dict[tuple[str, str], Any]:
    """The default stateful MCP route."""
    return {SEARCH_ROUTE: ZaiMcp()}


def variant_routes(variant: str) -> dict[tuple[str, str], Any]:
    """The MCP route answering one of :data:`VARIANTS`."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown zai variant {variant!r}")
    return {SEARCH_ROUTE: ZaiMcp(variant)}


def rpc_error(rid: Any, code: int, message: str) -> dict[str, Any]:
    """A JSON-RPC 2.0 error message."""
    return {"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}}


def sse_body(message: Any, event_id: int = 1) -> bytes:
    """One SSE event framed as Z.AI does: no space after the colons."""
    return f"id:{event_id}\nevent:message\ndata:{json.dumps(message, ensure_ascii=False)}\n\n".encode()


class ZaiMcp:
    """The stateful handler; ``sessions`` holds the ids it issued."""

    def __init__(self, variant: str = "default") -> None:
        self.variant = variant
        self.tool = INTERNATIONAL_TOOL if variant == "international" else TOOL
        self.sessions: set[str] = set()
        self._ids = itertools.count(1)

    def __call__(self, request: FakeRequest) -> FakeResponse:
        if request.bearer() != KEY:
            return error_response(401, "Authentication failed: the API key is invalid or has expired.")
        accept = request.header("accept") or ""
        if "application/json" not in accept or "text/event-stream" not in accept:
            msg = "Not Acceptable: Client must accept both application/json and text/event-stream"
            return FakeResponse(406, body=rpc_error(None, -32000, msg))
        try:
            message = request.json()
        except ValueError:
            message = None
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            return FakeResponse(400, body=rpc_error(None, -32700, "Parse error"))
        if message.get("method") == "initialize":
            return self._initialize(message)
        sid = request.header("mcp-session-id")
        if not sid:
            return FakeResponse(400, body=rpc_error(None, -32000, "Bad Request: No valid session ID provided"))
        if sid not in self.sessions:
            return FakeResponse(404, body=rpc_error(None, -32001, "Session not found"))
        if "id" not in message:
            return FakeResponse(202, body=b"")
        return self._reply(self._answer(message))

    def _initialize(self, message: dict[str, Any]) -> FakeResponse:
        sid = f"zai-fake-session-{next(self._ids)}"
        self.sessions.add(sid)
        version = (message.get("params") or {}).get("protocolVersion") or "2025-06-18"
        result = {
            "protocolVersion": version,
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": "web-search-prime-fake", "version": "0.0.0-fake"},
        }
        response = self._reply({"jsonrpc": "2.0", "id": message.get("id"), "result": result})
        response.headers["Mcp-Session-Id"] = sid
        return response

    def _reply(self, message: Any) -> FakeResponse:
        if self.variant == "json" or (isinstance(message, dict) and "jsonrpc" not in message):
            return FakeResponse(200, body=message)
        return FakeResponse(200, {"Content-Type": "text/event-stream"}, sse_body(message))

    def _answer(self, message: dict[str, Any]) -> Any:
        rid, method = message.get("id"), message.get("method")
        if method == "tools/list":
            schema = {"type": "object"} if self.variant == "no_schema" else SCHEMA
            tool = {"name": self.tool, "description": "Search the web (fake)", "inputSchema": schema}
            return {"jsonrpc": "2.0", "id": rid, "result": {"tools": [tool]}}
        if method != "tools/call":
            return rpc_error(rid, -32601, f"Method not found: {method}")
        params = message.get("params") or {}
        if params.get("name") != self.tool:
            return rpc_error(rid, -32602, f"Tool {params.get('name')} not found")
        if self.variant == "api_error":
            return {"success": False, "code": 1113, "msg": QUOTA_MESSAGE}
        if self.variant == "rpc_error":
            return rpc_error(rid, -32603, "Internal error: search backend unavailable")
        arguments = params.get("arguments") or {}
        problem = self._invalid(arguments)
        if problem or self.variant == "is_error":
            text = f"MCP error -32602: Invalid arguments for tool {self.tool}: {problem}" if problem else None
            text = text or "MCP error -500: web search service is temporarily unavailable"
            return {
                "jsonrpc": "2.0",
                "id": rid,
                "result": {"content": [{"type": "text", "text": text}], "isError": True},
            }
        result = {"content": [{"type": "text", "text": self._text(arguments)}], "isError": False}
        return {"jsonrpc": "2.0", "id": rid, "result": result}

    def _invalid(self, arguments: dict[str, Any]) -> str | None:
        allowed = NO_SCHEMA_ARGUMENTS if self.variant == "no_schema" else tuple(SCHEMA["properties"])
        unknown = sorted(set(arguments) - set(allowed))
        if unknown:
            return f"unexpected property {unknown[0]!r}"
        if not str(arguments.get("search_query") or "").strip():
            return "search_query is required"
        if arguments.get("search_recency_filter", "noLimit") not in RECENCY:
            return "search_recency_filter must be one of " + ", ".join(RECENCY)
        count = arguments.get("count", 10)
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 50:
            return "count must be an integer from 1 to 50"
        return None

    def _text(self, arguments: dict[str, Any]) -> str:
        rows = [] if self.variant == "empty" else load_data("zai_search.json")
        rows = rows[: arguments.get("count", 10)]
        if self.variant == "international":
            query = arguments.get("search_query", "")
            intent = [{"query": query, "intent": "SEARCH_ALL", "keywords": f"{query} guide"}]
            text = json.dumps({"search_intent": intent, "search_result": rows}, ensure_ascii=False)
            return json.dumps(text, ensure_ascii=False)
        text = json.dumps(rows, ensure_ascii=False)
        return text if self.variant == "single_encoded" else json.dumps(text, ensure_ascii=False)
