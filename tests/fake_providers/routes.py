"""Default routes of the loopback fake: seven providers, each under its own path prefix.

Payloads live in ``data/`` (hand-written for the tests). Every handler validates what the real API
validates most visibly (credentials, required fields) and answers with the provider's own error
shape, so adapters see realistic failures. Named variants (``VARIANTS``) swap in edge cases.
"""

from __future__ import annotations

import base64
import functools
import html
import importlib
import itertools
import json
from pathlib import Path
from typing import Any

from .server import FakeRequest, FakeResponse, html_error_page, load_data, load_text, sse_response

DATA = Path(__file__).with_name("data")
CORE_PROVIDERS = ("ddgs", "exa", "parallel", "brave", "tavily", "searxng")
PLUGIN_PROVIDERS = (
    "openalex",
    "arxiv",
    "semantic_scholar",
    "wikipedia",
    "hackernews",
    "perplexity",
    "perplexity_search",
    "jina",
    "kimi",
    "kagi",
    "synthetic",
    "you",
    "zhipu_web_search",
    "zai",
    "codex_alpha",
    "anthropic",
    "deepseek",
    "gemini",
    "openai",
    "codex",
    "grok",
    "ark",
    "zhipu_chat_search",
    "linkup",
    "serper",
    "firecrawl",
    "ollama",
    "valyu",
)
"""Providers whose fakes live in their own module, ``tests/fake_providers/fake_<id>.py``.

Such a module defines ``FAKE_KEYS`` (env var -> fake key), ``routes() -> {(METHOD, path): handler}``
(paths under ``/<id>/``), ``config(base_url) -> {key: value}`` for its ``[providers.<id>]`` table,
``error_response(status, message) -> FakeResponse`` (its documented error body),
``SEARCH_ROUTE = (METHOD, path)`` (the request that runs a search) and optionally ``VARIANTS`` plus
``variant_routes(variant) -> {(METHOD, path): handler}``. A fake module imports from ``.server``
only (``.routes`` imports it) and reads its payload files from ``data/`` with ``load_data``."""


@functools.cache
def plugins() -> dict[str, Any]:
    """The fake modules of :data:`PLUGIN_PROVIDERS` that exist, by provider id."""
    found = {}
    for provider in PLUGIN_PROVIDERS:
        try:
            found[provider] = importlib.import_module(f"{__package__}.fake_{provider}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__package__}.fake_{provider}":
                raise
    return found


PROVIDERS = CORE_PROVIDERS + tuple(plugins())
FAKE_KEYS = {
    "BRAVE_API_KEY": "fake-brave-key",
    "TAVILY_API_KEY": "fake-tavily-key",
    **{name: value for module in plugins().values() for name, value in module.FAKE_KEYS.items()},
}
OPTIONAL_FAKE_KEYS = {"EXA_API_KEY": "fake-exa-key", "PARALLEL_API_KEY": "fake-parallel-key"}
MCP_PROTOCOL_VERSION = "2025-06-18"
VARIANTS: dict[str, tuple[str, ...]] = {
    "ddgs": ("default", "no_results", "rate_limited", "challenge"),
    "exa": ("default", "json", "structured", "no_results", "is_error", "rate_limit"),
    "parallel": (
        "default",
        "json",
        "json_batch",
        "sse_array",
        "structured",
        "double_encoded",
        "error",
        "result_null",
        "result_list",
        "result_empty",
        "is_error",
        "wrong_id",
        "bad_protocol_version",
        "no_session",
        "rate_limit",
    ),
    "brave": ("default", "no_web"),
    "tavily": ("default", "empty"),
    "searxng": ("default", "no_results", "json_disabled", "html_200"),
}
HTML = "text/html; charset=utf-8"


# --------------------------------------------------------------------------- payload access


data_text = load_text
"""A data file as text (``data/<name>``); see :func:`.server.load_text`."""
data_json = load_data
"""A fresh copy of a JSON data file with ``{query}`` filled in; see :func:`.server.load_data`."""


def _json_body(request: FakeRequest) -> dict[str, Any] | None:
    try:
        body = request.json()
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


# --------------------------------------------------------------------------- error bodies

_MESSAGES = {
    ("brave", 401): "The provided subscription token is invalid.",
    ("brave", 422): "Unable to validate request parameter(s)",
    ("brave", 429): "Request rate limit exceeded for plan.",
    ("tavily", 400): "Invalid request.",
    ("tavily", 401): "Unauthorized: missing or invalid API key.",
    ("tavily", 429): "Your request has been blocked due to excessive requests. Please reduce rate of requests.",
    ("tavily", 432): "This request exceeds your plan's set usage limit. Please upgrade your plan.",
    ("tavily", 433): "This request exceeds the pay-as-you-go limit. You can increase your limit on the dashboard.",
    ("exa", 401): "Invalid API key",
    ("exa-mcp", 429): "You've hit Exa's free MCP rate limit. Please add an Exa API key to continue.",
    ("parallel", 422): "Request validation error",
}
_BRAVE_CODES = {401: "SUBSCRIPTION_TOKEN_INVALID", 402: "OPTION_NOT_IN_PLAN", 422: "VALIDATION", 429: "RATE_LIMITED"}


def _phrase(status: int) -> str:
    from http import HTTPStatus

    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def rpc_error(rid: Any, code: int, message: str) -> dict[str, Any]:
    """A JSON-RPC 2.0 error message."""
    return {"jsonrpc": "2.0", "error": {"code": code, "message": message}, "id": rid}


def error_response(
    path: str, status: int, *, retry_after: float | str | None = None, message: str | None = None, meta: Any = None
) -> FakeResponse:
    """The error response a provider sends at ``status``; ``path`` is a route path or a provider id."""
    provider = path.strip("/").split("/")[0]
    if provider in plugins():
        response = plugins()[provider].error_response(status, message or _phrase(status))
        if retry_after is not None:
            response.headers["Retry-After"] = (
                f"{retry_after:g}" if isinstance(retry_after, float | int) else str(retry_after)
            )
        return response
    is_mcp = path.endswith("/mcp")
    key = f"{provider}-mcp" if is_mcp else provider
    msg = message or _MESSAGES.get((key, status)) or _phrase(status)
    headers: dict[str, str] = {}
    if retry_after is not None:
        headers["Retry-After"] = f"{retry_after:g}" if isinstance(retry_after, float | int) else str(retry_after)
    if status == 429 and (is_mcp or provider == "brave"):
        headers.update({"X-RateLimit-Limit": "0" if is_mcp else "1, 15000", "X-RateLimit-Remaining": "0"})
        headers["X-RateLimit-Reset"] = headers.get("Retry-After", "1")
    if is_mcp:
        return FakeResponse(status, headers, rpc_error(None, -32000, msg))
    if provider in ("ddgs", "searxng"):
        return FakeResponse(status, {"Content-Type": HTML, **headers}, html_error_page(status, msg))
    if provider == "exa":
        tag = {401: "INVALID_API_KEY", 429: "RATE_LIMITED", 402: "NO_MORE_CREDITS"}.get(status, "ERROR")
        body: Any = {"requestId": "fake-exa-error-0001", "error": msg, "tag": tag}
    elif provider == "parallel":
        body = {"type": "error", "error": {"ref_id": "search_fakeerror", "message": msg}}
    elif provider == "brave":
        code = _BRAVE_CODES.get(status, "INTERNAL_ERROR")
        body = {
            "type": "ErrorResponse",
            "error": {"id": "fake-brave-error-0001", "status": status, "code": code, "detail": msg, "meta": meta or {}},
            "time": 1767225600,
        }
    elif provider == "tavily":
        body = {"detail": {"error": msg}}
    else:
        body = {"error": msg}
    return FakeResponse(status, headers, body)


# --------------------------------------------------------------------------- ddgs


def ddgs_html(variant: str = "default") -> Any:
    """``POST /ddgs/html/``: a results page (two results, one ad, one ``uddg`` redirect) or a variant."""

    def handler(request: FakeRequest) -> FakeResponse:
        query = request.form().get("q", "")
        if variant == "rate_limited":
            return FakeResponse(202, {"Content-Type": HTML}, b"")
        if variant == "challenge":
            return FakeResponse(200, {"Content-Type": HTML}, data_text("ddgs_challenge.html"))
        name = "ddgs_no_results.html" if variant == "no_results" or not query.strip() else "ddgs.html"
        return FakeResponse(200, {"Content-Type": HTML}, data_text(name).replace("{query}", html.escape(query)))

    return handler


# --------------------------------------------------------------------------- MCP plumbing


def _mcp_reply(
    messages: list[Any], fmt: str, *, headers: dict[str, str] | None = None, delay: float = 0.0
) -> FakeResponse:
    if fmt == "json":
        return FakeResponse(200, dict(headers or {}), messages[0] if len(messages) == 1 else messages)
    events = [("message", messages)] if fmt == "sse_array" else [("message", m) for m in messages]
    return sse_response(events, headers=headers, chunk_delay=delay)


def _mcp_check(request: FakeRequest) -> tuple[dict[str, Any] | None, FakeResponse | None]:
    """Validate Accept and parse one JSON-RPC message; returns (message, error_response)."""
    accept = request.header("accept") or ""
    if "application/json" not in accept or "text/event-stream" not in accept:
        msg = "Not Acceptable: Client must accept both application/json and text/event-stream"
        return None, FakeResponse(406, body=rpc_error(None, -32000, msg))
    message = _json_body(request)
    if message is None or message.get("jsonrpc") != "2.0":
        return None, FakeResponse(400, body=rpc_error(None, -32700, "Parse error: expected one JSON-RPC 2.0 message"))
    return message, None


def _tool_list(name: str, properties: dict[str, Any]) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties}
    return {"tools": [{"name": name, "description": f"fake {name}", "inputSchema": schema}]}


def _initialize_result(message: dict[str, Any], name: str, version: str | None = None) -> dict[str, Any]:
    requested = (message.get("params") or {}).get("protocolVersion") or MCP_PROTOCOL_VERSION
    return {
        "protocolVersion": requested if version is None else version,
        "capabilities": {"tools": {"listChanged": False}},
        "serverInfo": {"name": name, "version": "0.0.0-fake"},
    }


# --------------------------------------------------------------------------- exa


def _exa_key(request: FakeRequest) -> bool:
    return bool(request.header("x-api-key") or request.bearer())


def exa_search(request: FakeRequest) -> FakeResponse:
    """``POST /exa/search`` (REST, needs ``x-api-key``): three results, sliced to ``numResults``."""
    if not _exa_key(request):
        return error_response("/exa", 401)
    body = _json_body(request)
    if body is None or not str(body.get("query") or "").strip():
        return error_response("/exa", 400, message="query is required")
    payload = data_json("exa_search.json")
    payload["results"] = payload["results"][: int(body.get("numResults") or 10)]
    return FakeResponse(200, body=payload)


def exa_answer(request: FakeRequest) -> FakeResponse:
    """``POST /exa/answer`` (REST, needs ``x-api-key``): an answer with one citation."""
    if not _exa_key(request):
        return error_response("/exa", 401)
    return FakeResponse(200, body=data_json("exa_answer.json"))


def exa_mcp(variant: str = "default") -> Any:
    """``POST /exa/mcp``: stateless MCP; ``tools/call web_search_exa`` answers plain-text result blocks."""

    def handler(request: FakeRequest) -> FakeResponse:
        message, error = _mcp_check(request)
        if error:
            return error
        assert message is not None
        if "id" not in message:
            return FakeResponse(202, body=b"")
        rid, method = message["id"], message.get("method")
        fmt = "json" if variant == "json" else "sse"
        params = message.get("params") or {}
        if method == "initialize":
            return _mcp_reply([{"jsonrpc": "2.0", "id": rid, "result": _initialize_result(message, "exa-fake")}], fmt)
        if method == "tools/list":
            tools = _tool_list("web_search_exa", {"query": {"type": "string"}, "numResults": {"type": "number"}})
            return _mcp_reply([{"jsonrpc": "2.0", "id": rid, "result": tools}], fmt)
        if method != "tools/call":
            return _mcp_reply([rpc_error(rid, -32601, f"Method not found: {method}")], fmt)
        if params.get("name") != "web_search_exa":
            return _mcp_reply([rpc_error(rid, -32602, f"Tool {params.get('name')} not found")], fmt)
        if not str((params.get("arguments") or {}).get("query") or "").strip():
            return _mcp_reply([rpc_error(rid, -32602, "Invalid arguments: query is required")], fmt)
        if variant == "rate_limit":
            return error_response("/exa/mcp", 429, retry_after=60)
        result: dict[str, Any] = {"content": [{"type": "text", "text": data_text("exa_mcp.txt")}]}
        if variant == "no_results":
            result["content"][0]["text"] = "No search results found. Please try a different query."
        elif variant == "is_error":
            result = {
                "content": [{"type": "text", "text": "web_search_exa error (500): upstream failure"}],
                "isError": True,
            }
        elif variant == "structured":
            payload = {"results": data_json("exa_search.json")["results"]}
            result = {"content": [{"type": "text", "text": json.dumps(payload)}], "structuredContent": payload}
        return _mcp_reply([{"jsonrpc": "2.0", "id": rid, "result": result}], fmt)

    return handler


# --------------------------------------------------------------------------- parallel


def parallel_search(request: FakeRequest) -> FakeResponse:
    """``POST /parallel/v1/search`` and ``/v1beta/search`` (need ``x-api-key``): three results."""
    if not request.header("x-api-key"):
        return error_response("/parallel", 401, message="Missing or invalid API key")
    body = _json_body(request)
    if body is None or not (body.get("objective") or body.get("search_queries")):
        return error_response("/parallel", 422)
    payload = data_json("parallel_search.json")
    limit = body.get("max_results") or (body.get("advanced_settings") or {}).get("max_results")
    if limit:
        payload["results"] = payload["results"][: int(limit)]
    return FakeResponse(200, body=payload)


class ParallelMcp:
    """``POST /parallel/mcp``: stateful MCP (``initialize`` → ``Mcp-Session-Id``, 202 on notifications).

    ``tools/call web_search`` answers an SSE batch: a notification, a reply with another id, then
    the real reply whose ``content[0].text`` is JSON ``{"results": [...]}``. Requests after
    ``initialize`` without the session header get 400; an unknown session gets 404 (call
    :meth:`expire_sessions` to simulate expiry). ``DELETE`` ends a session.
    """

    def __init__(self, variant: str = "default") -> None:
        self.variant = variant
        self.sessions: set[str] = set()
        self._ids = itertools.count(1)

    def expire_sessions(self) -> None:
        """Forget every session, so the next request with a session id gets 404."""
        self.sessions.clear()

    def __call__(self, request: FakeRequest) -> FakeResponse:
        """Answer one MCP POST (or DELETE)."""
        variant = self.variant
        sid = request.header("mcp-session-id")
        if request.method == "DELETE":
            self.sessions.discard(sid or "")
            return FakeResponse(200, body=b"")
        message, error = _mcp_check(request)
        if error:
            return error
        assert message is not None
        fmt = {"json": "json", "json_batch": "json", "sse_array": "sse_array"}.get(variant, "sse")
        rid, method = message.get("id"), message.get("method")
        if method == "initialize":
            headers = {}
            if variant != "no_session":
                sid = f"fake-parallel-session-{next(self._ids)}"
                self.sessions.add(sid)
                headers["Mcp-Session-Id"] = sid
            version = "" if variant == "bad_protocol_version" else MCP_PROTOCOL_VERSION
            result = _initialize_result(message, "parallel-search-fake", version)
            return _mcp_reply([{"jsonrpc": "2.0", "id": rid, "result": result}], fmt, headers=headers)
        if variant != "no_session":
            if not sid:
                return FakeResponse(400, body=rpc_error(None, -32000, "Bad Request: No valid session ID provided"))
            if sid not in self.sessions:
                return FakeResponse(404, body=rpc_error(None, -32001, "Session not found"))
        if "id" not in message:
            return FakeResponse(202, body=b"")
        if method == "tools/list":
            props = {
                "objective": {"type": "string"},
                "search_queries": {"type": "array"},
                "session_id": {"type": "string"},
            }
            return _mcp_reply([{"jsonrpc": "2.0", "id": rid, "result": _tool_list("web_search", props)}], fmt)
        if method != "tools/call":
            return _mcp_reply([rpc_error(rid, -32601, f"Method not found: {method}")], fmt)
        params = message.get("params") or {}
        arguments = params.get("arguments") or {}
        if params.get("name") != "web_search":
            return _mcp_reply([rpc_error(rid, -32602, f"Tool {params.get('name')} not found")], fmt)
        if not (arguments.get("objective") or arguments.get("search_queries")):
            return _mcp_reply([rpc_error(rid, -32602, "Invalid arguments: objective or search_queries required")], fmt)
        if variant == "rate_limit":
            return error_response("/parallel/mcp", 429, retry_after=30, message="Rate limit exceeded")
        return _mcp_reply(self._tool_messages(rid), fmt, delay=request.server.token_delay if request.server else 0.0)

    def _tool_messages(self, rid: Any) -> list[Any]:
        variant = self.variant
        full = data_json("parallel_search.json")
        payload = {"search_id": full["search_id"], "results": full["results"]}
        text = json.dumps(json.dumps(payload)) if variant == "double_encoded" else json.dumps(payload)
        result: Any = {"content": [{"type": "text", "text": text}], "isError": False}
        if variant == "structured":
            result["structuredContent"] = payload
        result = {"result_null": None, "result_list": [], "result_empty": {}}.get(variant, result)
        if variant == "is_error":
            result = {"isError": True, "content": []}
        reply = {"jsonrpc": "2.0", "id": rid, "result": result}
        if variant == "error":
            reply = rpc_error(rid, -32603, "Internal error: search backend unavailable")
        if variant == "wrong_id":
            reply["id"] = f"{rid}-mismatch"
        if variant == "json":
            return [reply]
        note = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "Searching…"}}
        other = {"jsonrpc": "2.0", "id": f"other-{rid}", "result": {"content": [{"type": "text", "text": "{}"}]}}
        return [note, other, reply]


# --------------------------------------------------------------------------- brave, tavily, searxng


def brave_web(variant: str = "default") -> Any:
    """``GET /brave/res/v1/web/search`` (needs ``X-Subscription-Token``); gzip when the client accepts it."""

    def handler(request: FakeRequest) -> FakeResponse:
        if not request.header("x-subscription-token"):
            return error_response("/brave", 401)
        query = request.query.get("q", "").strip()
        count = request.query.get("count", "20")
        if not query or not count.isdigit() or not 1 <= int(count) <= 20:
            loc, msg = (["query", "q"], "Field required") if not query else (["query", "count"], "must be 1..20")
            return error_response("/brave", 422, meta={"errors": [{"type": "value_error", "loc": loc, "msg": msg}]})
        payload = data_json("brave_web.json", query)
        if variant == "no_web":
            del payload["web"]
            payload["mixed"]["main"] = []
        else:
            payload["web"]["results"] = payload["web"]["results"][: int(count)]
        headers = {
            "X-Request-Id": "fake-brave-req-0001",
            "X-RateLimit-Limit": "1, 15000",
            "X-RateLimit-Remaining": "0, 14999",
            "X-RateLimit-Reset": "1, 2419200",
        }
        gzip = "gzip" in (request.header("accept-encoding") or "")
        return FakeResponse(200, headers, payload, gzip=gzip)

    return handler


_TIME_RANGES = ("day", "week", "month", "year", "d", "w", "m", "y")
_SEARCH_DEPTHS = ("basic", "advanced", "fast", "ultra-fast")


def tavily_search(variant: str = "default") -> Any:
    """``POST /tavily/search`` (needs Bearer): answer (when ``include_answer``), results, follow-ups."""

    def handler(request: FakeRequest) -> FakeResponse:
        if not request.bearer():
            return error_response("/tavily", 401)
        body = _json_body(request)
        if body is None or not str(body.get("query") or "").strip():
            return error_response("/tavily", 400, message="Query is missing.")
        time_range = body.get("time_range")
        if time_range and (body.get("start_date") or body.get("end_date")):
            return error_response(
                "/tavily", 400, message="When time_range is set, start_date or end_date cannot be set"
            )
        if time_range and time_range not in _TIME_RANGES:
            return error_response(
                "/tavily", 400, message=f"Invalid time range. Must be one of: {', '.join(_TIME_RANGES)}"
            )
        if body.get("search_depth", "basic") not in _SEARCH_DEPTHS:
            return error_response(
                "/tavily", 400, message=f"Invalid search depth. Must be one of: {', '.join(_SEARCH_DEPTHS)}"
            )
        payload = data_json("tavily_search.json", body["query"])
        payload["results"] = payload["results"][: int(body.get("max_results") or 5)]
        if body.get("include_answer") in (None, False, "false", "none"):
            payload["answer"] = None
        if variant == "empty":
            payload.update(results=[], answer=None, follow_up_questions=None)
        return FakeResponse(200, body=payload)

    return handler


def searxng_search(
    variant: str = "default", *, basic_auth: tuple[str, str] | None = None, token: str | None = None
) -> Any:
    """``GET /searxng/search?format=json``: three results, suggestions, one unresponsive engine.

    Without ``format=json`` it answers an HTML page (as SearXNG does). ``basic_auth``/``token``
    make it demand that credential (401 otherwise).
    """

    def handler(request: FakeRequest) -> FakeResponse:
        if basic_auth is not None or token is not None:
            if basic_auth is not None:
                expected = "Basic " + base64.b64encode(":".join(basic_auth).encode("utf-8")).decode("ascii")
            else:
                expected = f"Bearer {token}"
            if request.header("authorization") != expected:
                headers = {"Content-Type": HTML, "WWW-Authenticate": 'Basic realm="searxng"'}
                return FakeResponse(401, headers, html_error_page(401))
        query = request.query.get("q", "").strip()
        if not query:
            return error_response("/searxng", 400, message="q is required")
        is_json = request.query.get("format") == "json"
        if variant == "json_disabled" and is_json:
            return error_response("/searxng", 403)
        if variant == "html_200" or not is_json:
            page = (
                f"<!DOCTYPE html><html><head><title>{html.escape(query)} - SearXNG</title></head><body></body></html>"
            )
            return FakeResponse(200, {"Content-Type": HTML}, page)
        payload = data_json("searxng_search.json", query)
        if variant == "no_results":
            payload.update(results=[], suggestions=[])
            payload["unresponsive_engines"] = [["brave", "timeout"], ["startpage", "Suspended: timeout"]]
        return FakeResponse(200, body=payload)

    return handler


# --------------------------------------------------------------------------- tables

CORE_SEARCH_ROUTES = {
    "ddgs": ("POST", "/ddgs/html/"),
    "exa": ("POST", "/exa/mcp"),
    "parallel": ("POST", "/parallel/mcp"),
    "brave": ("GET", "/brave/res/v1/web/search"),
    "tavily": ("POST", "/tavily/search"),
    "searxng": ("GET", "/searxng/search"),
}
"""``(METHOD, path)`` of the request that runs a core provider's search (keyless Exa and Parallel: MCP)."""


def search_route(provider: str) -> tuple[str, str]:
    """``(METHOD, path)`` of the request that runs ``provider``'s search on the fake (plugins: ``SEARCH_ROUTE``)."""
    if provider in CORE_SEARCH_ROUTES:
        return CORE_SEARCH_ROUTES[provider]
    return plugins()[provider].SEARCH_ROUTE


def is_search_call(request: FakeRequest) -> bool:
    """True for the request that runs a search: any request to a REST route, ``tools/call`` on an MCP one."""
    if not request.path.endswith("/mcp"):
        return True
    message = _json_body(request)
    return message is not None and message.get("method") == "tools/call"


def default_routes() -> dict[tuple[str, str], Any]:
    """Fresh default handlers for every route, keyed by ``(METHOD, path)``."""
    parallel_mcp = ParallelMcp()
    return {
        ("POST", "/ddgs/html/"): ddgs_html(),
        ("POST", "/exa/search"): exa_search,
        ("POST", "/exa/answer"): exa_answer,
        ("POST", "/exa/mcp"): exa_mcp(),
        ("POST", "/parallel/v1/search"): parallel_search,
        ("POST", "/parallel/v1beta/search"): parallel_search,
        ("POST", "/parallel/mcp"): parallel_mcp,
        ("DELETE", "/parallel/mcp"): parallel_mcp,
        ("GET", "/brave/res/v1/web/search"): brave_web(),
        ("POST", "/tavily/search"): tavily_search(),
        ("GET", "/searxng/search"): searxng_search(),
        **{key: handler for module in plugins().values() for key, handler in module.routes().items()},
    }


def variant_routes(provider: str, variant: str = "default", **options: Any) -> dict[tuple[str, str], Any]:
    """Routes that implement a named variant of a provider (``VARIANTS[provider]`` lists them)."""
    if provider in plugins():
        module = plugins()[provider]
        if variant not in getattr(module, "VARIANTS", ("default",)):
            raise ValueError(f"unknown variant {variant!r} for {provider!r}")
        return module.variant_routes(variant, **options) if variant != "default" else module.routes()
    if variant not in VARIANTS.get(provider, ()):
        raise ValueError(f"unknown variant {variant!r} for {provider!r}; known: {VARIANTS.get(provider)}")
    if provider == "parallel":
        handler = ParallelMcp(variant)
        return {("POST", "/parallel/mcp"): handler, ("DELETE", "/parallel/mcp"): handler}
    factories = {
        "ddgs": ("POST", "/ddgs/html/", ddgs_html),
        "exa": ("POST", "/exa/mcp", exa_mcp),
        "brave": ("GET", "/brave/res/v1/web/search", brave_web),
        "tavily": ("POST", "/tavily/search", tavily_search),
        "searxng": ("GET", "/searxng/search", searxng_search),
    }
    method, path, factory = factories[provider]
    return {(method, path): factory(variant, **options)}


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return json.dumps(str(value))


def config_toml(base_url: str, **search: Any) -> str:
    """A websearch-tui ``config.toml`` pointing all seven providers at the fake at ``base_url``.

    ``search`` overrides keys of the ``[search]`` table (``providers``, ``mode``, ``timeout``, ...).
    """
    table = {"providers": list(PROVIDERS), "mode": "compare", "max_results": 10, "recency": "", "timeout": 60}
    table.update(search)
    lines = [f"# websearch-tui config for the loopback fake at {base_url}", "", "[search]"]
    lines += [f"{key} = {_toml_value(value)}" for key, value in table.items()]
    for provider in PROVIDERS:
        lines += ["", f"[providers.{provider}]", "enabled = true"]
        if provider in plugins():
            lines += [f"{key} = {_toml_value(value)}" for key, value in plugins()[provider].config(base_url).items()]
            continue
        lines.append(f"base_url = {_toml_value(f'{base_url}/{provider}')}")
        if provider in ("exa", "parallel"):
            lines.append(f"mcp_url = {_toml_value(f'{base_url}/{provider}/mcp')}")
    return "\n".join(lines) + "\n"
