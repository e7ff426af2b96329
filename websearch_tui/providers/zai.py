"""Z.AI Web Search Prime over MCP (Streamable HTTP, JSON-RPC 2.0), for GLM Coding Plan keys.

Endpoint: ``mcp_url`` (default ``https://api.z.ai/api/mcp/web_search_prime/mcp``; BigModel CN
``https://open.bigmodel.cn/api/mcp/web_search_prime/mcp``), header ``Authorization: Bearer <key>``.
Docs: https://docs.z.ai/devpack/mcp/search-mcp-server (PROVIDERS.md §2.16, MCP rules §1.10).

Z.AI binds authentication to the MCP session, so every search runs the full handshake on one
session: ``initialize`` -> ``notifications/initialized`` -> ``tools/list`` (only the first time per
client and URL; the tool's name and ``inputSchema`` are remembered) -> ``tools/call``. That is three
POSTs per search (four the first time), all inside the provider deadline.

Arguments come from the tool's ``inputSchema`` (only declared properties; ``count``,
``search_recency_filter`` and ``content_size`` only when declared). Without a usable schema the
seed's three argument shapes are tried in order, moving on only after an argument error.

``_mcp.call_tool`` cannot be used as is: it has no way to send ``tools/list`` on its session, and it
reports a ``{"success": false, ...}`` body as an id mismatch. This module therefore drives the
exchange itself with ``_mcp``'s public helpers (:func:`parse_messages`, :func:`pick_result`,
:func:`extract_payload`). 401/403 keep Z.AI's own message, so POSTs go through :func:`post_text`, a
LOCAL stand-in for ``_http.request_text`` (which replaces the body with the generic message).
"""

from __future__ import annotations

import asyncio
import json
import re
import uuid
import weakref
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

from websearch_tui.core.errors import ErrorKind, ProviderError, excerpt
from websearch_tui.core.models import Metadata, Note, SearchEvent, SearchRequest, SourcesFound
from websearch_tui.core.text import plain_text, sanitize, truncate
from websearch_tui.providers._http import (
    CONNECT_TIMEOUT,
    REQUEST_TIMEOUT,
    error_from_response,
    read_capped,
    retry_delay,
    transport_error,
)
from websearch_tui.providers._mcp import (
    ACCEPT,
    CLIENT_INFO,
    PROTOCOL_VERSION,
    extract_payload,
    parse_messages,
    pick_result,
)
from websearch_tui.providers._parse import as_dict, as_list, clamp_count, find_message, header, limit_sources
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.zhipu_web_search import RECENCY_FILTERS, code_kind, error_envelope, parse_results

DEFAULT_TOOL = "webSearchPrime"
DEFAULT_COUNT = 10
DEFAULT_CONTENT_SIZE = "medium"
FALLBACK_ENGINE = "search-prime"
EMPTY_HINT = "Z.AI returned no results; this can mean the Coding Plan quota or balance is exhausted."
RECENCY_IGNORED = "Recency is not supported by Z.AI Web Search; results are not filtered by date."
_ARGUMENT_ERROR = re.compile(r"invalid|argument|query", re.IGNORECASE)
_NOT_ARGUMENT_KINDS = frozenset(
    {ErrorKind.AUTH, ErrorKind.QUOTA, ErrorKind.RATE_LIMIT, ErrorKind.TIMEOUT, ErrorKind.NETWORK, ErrorKind.CONFIG}
)
_sleep = asyncio.sleep  # retry waits; tests replace it


@dataclass(frozen=True)
class SearchTool:
    """The search tool as ``tools/list`` describes it.

    ``properties`` is the set of argument names of its ``inputSchema``, or ``None`` when there is no
    usable schema (none declaring ``search_query`` or ``query``); ``count_max`` is the schema's
    ``count.maximum`` when it gives one.
    """

    name: str
    properties: frozenset[str] | None = None
    count_max: int | None = None


# Tool descriptions per shared client (dropped with it) and MCP URL.
_tools: weakref.WeakKeyDictionary[httpx.AsyncClient, dict[str, SearchTool]] = weakref.WeakKeyDictionary()


async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[SearchEvent]:
    """Run one Z.AI Web Search Prime search; yield ``Metadata``, notes and sources (sliced locally).

    An empty list (``"\\"[]\\""``, what an account without balance gets) is an empty result with a
    ``Note`` naming the Coding Plan quota as a likely cause.

    Raises:
        ProviderError: ``config`` without a key or ``mcp_url``; ``auth`` with Z.AI's own message
            (401/403, or ``success: false`` with an auth code); ``Z.AI API error (<code>): <msg>``
            for a ``{"success": false}`` body (kind from the code); ``Z.AI MCP error (<code>): <msg>``
            for a JSON-RPC error; ``Z.AI MCP error: <text>`` for an ``isError`` result;
            ``rate_limit``, ``quota``, ``server``, ``timeout`` (also past the deadline between
            POSTs), ``network``; ``protocol`` for unparsable replies or a server without the tool.
    """
    key = ctx.require_api_key()
    url = ctx.mcp_url()
    if not url:
        raise ProviderError(ctx.spec.id, ErrorKind.CONFIG, "Z.AI Web Search: no mcp_url configured.")
    session = await McpSession.open(ctx, url, key)
    payload, arguments = await search(session, request, ctx)
    rows, container, text = result_rows(ctx, payload)
    request_id = next((v for k in ("request_id", "requestId", "id") if (v := plain_text(container.get(k)))), None)
    yield Metadata(request_id=request_id, auth_mode="api_key")
    if request.recency and "search_recency_filter" not in arguments:
        yield Note(RECENCY_IGNORED)
    if text:
        yield Note(f"Z.AI Web Search: {truncate(text, 300)}")
    elif not rows:
        yield Note(EMPTY_HINT)
    sources = parse_results(rows)
    if sources:
        yield SourcesFound(limit_sources(sources, request.max_results))


# --------------------------------------------------------------------------- the session


@dataclass
class McpSession:
    """One MCP session on ``url``: ``headers`` carry the key, then the session id and version.

    Build it with :meth:`open` (initialize + ``notifications/initialized``); every request checks
    the provider deadline first.
    """

    ctx: ProviderContext
    url: str
    headers: dict[str, str] = field(default_factory=dict)

    @classmethod
    async def open(cls, ctx: ProviderContext, url: str, key: str) -> McpSession:
        """Hand-shake and return the session.

        Raises:
            ProviderError: as :meth:`call`; ``protocol`` when the ``initialize`` reply has no
                ``protocolVersion``.
        """
        headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json", "Accept": ACCEPT}
        session = cls(ctx, url, headers)
        params = {"protocolVersion": PROTOCOL_VERSION, "capabilities": {}, "clientInfo": CLIENT_INFO}
        result, response = await session.call("initialize", params)
        version = as_dict(result).get("protocolVersion")
        if not isinstance(version, str) or not version.strip():
            raise ProviderError(
                ctx.spec.id,
                ErrorKind.PROTOCOL,
                "Z.AI MCP initialize reply has no protocolVersion; the server did not complete the handshake.",
                status=response.status_code,
            )
        session_id = header(response.headers, "mcp-session-id")
        if session_id:
            session.headers["Mcp-Session-Id"] = session_id
        session.headers["MCP-Protocol-Version"] = version.strip()
        await session.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return session

    async def send(self, message: Mapping[str, Any]) -> tuple[str, httpx.Response]:
        """POST one JSON-RPC message; returns the body text and the response (2xx only)."""
        if self.ctx.remaining() <= 0:
            raise ProviderError(
                self.ctx.spec.id, ErrorKind.TIMEOUT, "Z.AI MCP exchange ran past the provider deadline."
            )
        return await post_text(self.ctx, self.url, self.headers, message)

    async def call(self, method: str, params: Mapping[str, Any]) -> tuple[Any, httpx.Response]:
        """Send a request and return ``(result, response)`` of the reply carrying its id.

        Raises:
            ProviderError: ``Z.AI API error (<code>): <msg>`` for a ``{"success": false}`` body;
                ``Z.AI MCP error (<code>): <msg>`` for a JSON-RPC error; ``protocol`` when no
                reply carries the id or the body cannot be parsed; HTTP-mapped kinds.
        """
        request_id = uuid.uuid4().hex
        text, response = await self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        messages = parse_messages(self.ctx, text, response.headers.get("content-type", ""), response.status_code)
        for message in messages:
            failure = api_failure(message)
            if failure is not None:
                raise api_error(self.ctx, *failure)
        try:
            return pick_result(self.ctx, messages, request_id), response
        except ProviderError as exc:
            raise _named(exc) from None

    async def call_tool(self, name: str, arguments: Mapping[str, Any]) -> Any:
        """``tools/call`` and return the payload (see :func:`tool_payload`)."""
        result, _ = await self.call("tools/call", {"name": name, "arguments": dict(arguments)})
        return tool_payload(self.ctx, result)


def _named(error: ProviderError) -> ProviderError:
    """``MCP error ...`` from ``_mcp`` reworded as ``Z.AI MCP error ...`` (same kind and status)."""
    if not error.message.startswith("MCP error"):
        return error
    return ProviderError(error.provider, error.kind, f"Z.AI {error.message}", status=error.status)


def tool_payload(ctx: ProviderContext, result: Any) -> Any:
    """The payload of a ``tools/call`` result: ``structuredContent``, then ``data`` / ``result``,
    then the ``content[]`` texts (decoded twice when double-encoded), as ``_mcp.extract_payload``.

    Raises:
        ProviderError: ``Z.AI MCP error: <text>`` for ``isError: true`` (``bad_request`` when the
            text reads like an argument error); ``protocol`` for an empty or content-less result.
    """
    body = as_dict(result)
    if body.get("isError") is not True and not isinstance(body.get("structuredContent"), dict):
        for key in ("data", "result"):
            if isinstance(body.get(key), (dict, list)):
                return body[key]
    try:
        return extract_payload(ctx, result)
    except ProviderError as exc:
        error = _named(exc)
        if error is exc or error.kind in _NOT_ARGUMENT_KINDS or not _ARGUMENT_ERROR.search(error.message):
            raise error from None
        raise ProviderError(error.provider, ErrorKind.BAD_REQUEST, error.message) from None


# --------------------------------------------------------------------------- tool and arguments


async def search(session: McpSession, request: SearchRequest, ctx: ProviderContext) -> tuple[Any, dict[str, Any]]:
    """Find the tool and call it (see :func:`run_search`). A remembered tool description that
    yields an argument error is forgotten and the tool listed and called once more (the server's
    schema may have changed)."""
    tool, cached = await find_tool(session)
    try:
        return await run_search(session, tool, request, ctx)
    except ProviderError as exc:
        if not cached or not is_argument_error(exc):
            raise
    _tools.get(ctx.client, {}).pop(session.url, None)
    tool, _ = await find_tool(session)
    return await run_search(session, tool, request, ctx)


async def find_tool(session: McpSession) -> tuple[SearchTool, bool]:
    """``(tool, from_cache)``: the search tool, remembered per client and URL, else from
    ``tools/list`` (a server that refuses ``tools/list`` with a request error gets
    :data:`DEFAULT_TOOL` without a schema, not remembered).

    Raises:
        ProviderError: ``protocol`` when the listed tools include no web search tool; others as
            :meth:`McpSession.call`.
    """
    ctx = session.ctx
    cached = _tools.get(ctx.client, {}).get(session.url)
    if cached is not None:
        return cached, True
    try:
        result, _ = await session.call("tools/list", {})
    except ProviderError as exc:
        if exc.kind is ErrorKind.BAD_REQUEST:
            return SearchTool(DEFAULT_TOOL), False
        raise
    tool = pick_tool(ctx, result)
    _tools.setdefault(ctx.client, {})[session.url] = tool
    return tool, False


def _tool_key(name: str) -> str:
    return name.replace("_", "").lower()


def pick_tool(ctx: ProviderContext, result: Any) -> SearchTool:
    """The ``webSearchPrime`` / ``web_search_prime`` entry of a ``tools/list`` result (names compared
    case-insensitively without ``_``), with its schema's property names and ``count.maximum``.

    Raises:
        ProviderError: ``protocol`` when no listed tool matches.
    """
    tools = [t for t in as_list(as_dict(result).get("tools")) if isinstance(t, dict) and isinstance(t.get("name"), str)]
    found = next((t for t in tools if _tool_key(t["name"]) == _tool_key(DEFAULT_TOOL)), None)
    if found is None:
        names = ", ".join(sanitize(t["name"])[:60] for t in tools[:10]) or "none"
        raise ProviderError(
            ctx.spec.id, ErrorKind.PROTOCOL, f"Z.AI MCP server does not offer {DEFAULT_TOOL} (tools: {names})."
        )
    properties = as_dict(as_dict(found.get("inputSchema")).get("properties"))
    if "search_query" not in properties and "query" not in properties:
        return SearchTool(found["name"])
    maximum = as_dict(properties.get("count")).get("maximum")
    count_max = maximum if isinstance(maximum, int) and not isinstance(maximum, bool) and maximum > 0 else None
    return SearchTool(found["name"], frozenset(properties), count_max)


def schema_arguments(tool: SearchTool, request: SearchRequest, ctx: ProviderContext) -> dict[str, Any]:
    """Arguments from the tool's schema: the query under ``search_query`` (else ``query``), plus
    ``count`` (clamped to ``count.maximum``), ``search_recency_filter`` (``oneDay``..``oneYear``, only
    when recency is set) and ``content_size`` (option, default ``medium``), each only if declared."""
    declared = tool.properties or frozenset()
    arguments: dict[str, Any] = {"search_query" if "search_query" in declared else "query": request.query}
    if "count" in declared:
        arguments["count"] = clamp_count(request.upstream_count, DEFAULT_COUNT, tool.count_max)
    if "search_recency_filter" in declared and request.recency:
        arguments["search_recency_filter"] = RECENCY_FILTERS[request.recency]
    if "content_size" in declared:
        arguments["content_size"] = str(ctx.option("content_size") or DEFAULT_CONTENT_SIZE)
    return arguments


def fallback_shapes(request: SearchRequest) -> list[dict[str, Any]]:
    """The seed's argument shapes for a tool without a usable schema, in the order to try."""
    count = clamp_count(request.upstream_count, DEFAULT_COUNT, None)
    query = request.query
    return [
        {"query": query, "count": count},
        {"search_query": query, "count": count},
        {"search_query": query, "search_engine": FALLBACK_ENGINE, "count": count},
    ]


def is_argument_error(error: ProviderError) -> bool:
    """True for a failure that may be fixed by another argument shape: status 400, or a message
    mentioning ``invalid``, ``argument`` or ``query`` (never auth, quota, rate limits, timeouts)."""
    if error.kind in _NOT_ARGUMENT_KINDS:
        return False
    return error.status == 400 or bool(_ARGUMENT_ERROR.search(error.message))


async def run_search(
    session: McpSession, tool: SearchTool, request: SearchRequest, ctx: ProviderContext
) -> tuple[Any, dict[str, Any]]:
    """Call the tool; returns ``(payload, arguments that worked)``.

    With a usable schema one call; without, the fallback shapes in order, moving to the next only
    after an argument error (:func:`is_argument_error`); the last failure is raised.
    """
    if tool.properties is not None:
        arguments = schema_arguments(tool, request, ctx)
        return await session.call_tool(tool.name, arguments), arguments
    shapes = fallback_shapes(request)
    for arguments in shapes[:-1]:
        try:
            return await session.call_tool(tool.name, arguments), arguments
        except ProviderError as exc:
            if not is_argument_error(exc):
                raise
    return await session.call_tool(tool.name, shapes[-1]), shapes[-1]


# --------------------------------------------------------------------------- payloads and errors


def result_rows(ctx: ProviderContext, payload: Any) -> tuple[list[Any], dict[str, Any], str]:
    """``(rows, container, text)`` from a tool payload.

    A list is the rows itself; an object gives its ``search_result`` / ``results`` / ``items`` /
    ``data`` array (one level of nesting allowed) and is the container for the request id; a plain
    text (not JSON) gives no rows and the cleaned text (never the answer).

    Raises:
        ProviderError: for a ``{"success": false}`` or ``{"error": {...}}`` object; ``protocol``
            for an object without a result list.
    """
    if isinstance(payload, list):
        return payload, {}, ""
    if isinstance(payload, str):
        return [], {}, (plain_text(payload, collapse=True) or "")
    body = as_dict(payload)
    failure = rest_failure(body)
    if failure is not None:
        raise api_error(ctx, *failure)
    for candidate in (body, *(v for k in ("data", "result") if isinstance(v := body.get(k), dict))):
        for key in ("search_result", "results", "items", "data"):
            if isinstance(candidate.get(key), list):
                return candidate[key], candidate, ""
    raise ProviderError(
        ctx.spec.id, ErrorKind.PROTOCOL, f"Z.AI Web Search returned no result list: {excerpt(json.dumps(body), 200)}"
    )


def api_failure(message: Any) -> tuple[str, str] | None:
    """``(code, message)`` of a non-JSON-RPC ``{"success": false, "code", "msg" | "message" |
    "error_message"}`` body, else ``None``."""
    if not isinstance(message, dict) or message.get("success") is not False or "jsonrpc" in message:
        return None
    code = message.get("code")
    code_text = plain_text(str(code), collapse=True) if code is not None and not isinstance(code, bool) else None
    text = find_message(message, ("msg", "message", "error_message", "error")) or "no message"
    return code_text or "", excerpt(text, 500)


def rest_failure(body: Any) -> tuple[str, str] | None:
    """``(code, message)`` of a non-JSON-RPC error body: ``{"success": false, ...}`` or the
    Zhipu envelope ``{"error": {"code", "message"}}``; ``None`` otherwise (JSON-RPC errors included)."""
    if isinstance(body, dict) and "jsonrpc" in body:
        return None
    return api_failure(body) or error_envelope(body)


def api_error(ctx: ProviderContext, code: str, message: str) -> ProviderError:
    """``Z.AI API error (<code>): <msg>`` with the kind of the business code."""
    return ProviderError(ctx.spec.id, code_kind(code, message), f"Z.AI API error ({code or '?'}): {message}")


def describe_error(status: int, text: str, parsed: Any) -> str:
    """Message for a non-2xx reply, Z.AI's own words first: ``Z.AI API error (<code>): <msg>`` for
    a ``success: false`` body, ``Z.AI MCP error (<code>): <message>`` for a JSON-RPC error,
    else ``Z.AI MCP error (<status>): <body excerpt or reason>``."""
    failure = rest_failure(parsed)
    if failure is not None:
        return f"Z.AI API error ({failure[0] or status}): {failure[1]}"
    for message in parsed if isinstance(parsed, list) else [parsed]:
        error = as_dict(as_dict(message).get("error"))
        if isinstance(error.get("message"), str) and error["message"].strip():
            return f"Z.AI MCP error ({error.get('code', status)}): {excerpt(error['message'], 500)}"
    detail = excerpt(plain_text(text, collapse=True) or "", 500) or httpx.codes.get_reason_phrase(status)
    return f"Z.AI MCP error ({status}): {detail}"


# --------------------------------------------------------------------------- LOCAL transport
# LOCAL until _http grows a hook: _http.request_text replaces a 401/403 body with the generic
# "authorization failed" message, but PROVIDERS.md §1.11 wants Z.AI's own words there. Same
# retries, caps and error mapping as _http, built from its public helpers.


async def post_text(
    ctx: ProviderContext, url: str, headers: Mapping[str, str], message: Mapping[str, Any]
) -> tuple[str, httpx.Response]:
    """POST ``message`` as JSON and return ``(body text, response)`` for a 2xx reply.

    Retries as ``_http`` does (408/429/5xx, timeouts, connection errors; at most 3, within the
    deadline).

    Raises:
        ProviderError: HTTP-mapped kinds worded by :func:`describe_error` (401/403 included),
            ``timeout``, ``network``, ``config`` (unusable URL), ``protocol`` (body too large).
    """
    attempt = 0
    while True:
        try:
            return await _post_once(ctx, url, headers, message)
        except (httpx.TransportError, httpx.InvalidURL, ProviderError) as exc:
            error = exc if isinstance(exc, ProviderError) else transport_error(ctx, exc)
            delay = retry_delay(ctx, error, attempt)
            if delay is None:
                raise error from None
            attempt += 1
            await _sleep(delay)


async def _post_once(
    ctx: ProviderContext, url: str, headers: Mapping[str, str], message: Mapping[str, Any]
) -> tuple[str, httpx.Response]:
    left = max(0.1, ctx.remaining())
    timeout = httpx.Timeout(min(REQUEST_TIMEOUT, left), connect=min(CONNECT_TIMEOUT, left))
    async with ctx.client.stream("POST", url, headers=dict(headers), json=dict(message), timeout=timeout) as response:
        body = await read_capped(ctx, response)
    text = body.decode(response.encoding or "utf-8", errors="replace")
    if response.status_code < 300:
        return text, response
    error = error_from_response(ctx, response, text, describe_error)
    if error.kind is ErrorKind.AUTH:
        wording = describe_error(response.status_code, text, _json_or_none(text))
        error = ProviderError(ctx.spec.id, ErrorKind.AUTH, wording, status=error.status)
    raise error


def _json_or_none(text: str) -> Any:
    try:
        return json.loads(text) if text.strip()[:1] in ("{", "[") else None
    except ValueError:
        return None
