"""Z.AI Web Search Prime over MCP (Streamable HTTP, JSON-RPC 2.0), for GLM Coding Plan keys.

API: the Web Search Prime MCP server at ``mcp_url`` (default
``https://api.z.ai/api/mcp/web_search_prime/mcp``; BigModel CN
``https://open.bigmodel.cn/api/mcp/web_search_prime/mcp``), header ``Authorization: Bearer <key>``,
``Accept: application/json, text/event-stream`` (both are required). Checked 2026-12-02 against
https://docs.z.ai/devpack/mcp/search-mcp-server, the BigModel CN docs, and a live probe of the
Z.AI server published with terrylica/cc-skills (``plugins/zai/references/CAPABILITIES.md``,
2026-07-21) (PROVIDERS.md §2.16, MCP rules §1.10).

Z.AI binds authentication to the MCP session, so every search runs the full handshake on one
session: ``initialize`` -> ``notifications/initialized`` -> ``tools/list`` (only the first time per
URL in an engine; the tool's name and ``inputSchema`` are remembered in the provider's state,
:class:`ZaiTools`) -> ``tools/call``. That is three POSTs per search (four the first time), all
inside the provider deadline.

The tool is ``web_search_prime`` on Z.AI (international, live) and ``webSearchPrime`` in BigModel's
CN docs: ``tools/list`` entries are matched by a normalised name (case and ``_`` ignored), so both
are found. When a server refuses ``tools/list``, the name is guessed from the host
(:func:`default_tool`: ``webSearchPrime`` on ``bigmodel.cn``, else ``web_search_prime``).

Arguments come from the tool's ``inputSchema`` (only declared properties; ``count``,
``search_recency_filter`` and ``content_size`` only when declared). Without a usable schema the
seed's three argument shapes are tried in order, moving on only after an argument error.

Results: a list of ``{title, content, link, media, publish_date, ...}`` rows, or an object holding
one (``search_result``, ``results``, ...). When that object also carries ``search_intent`` (as the
REST API's answer does), its keywords are the searches the server ran and are reported as
``SearchQueries``. Dates go through the shared date parser (ISO, and CJK forms like ``2024年12月5日``).

:class:`ZaiSession` wraps a generic ``families.mcp`` session (:func:`open_session` with ``cache=False``)
with what is Z.AI's, given to it as :class:`McpHooks`: the ``Z.AI`` name in messages, Z.AI's own
wording of HTTP errors (401/403 included), and its non-JSON-RPC ``{"success": false, "code",
"msg"}`` reply body as ``Z.AI API error (<code>): <msg>``; plus tool discovery, argument shapes and
payload decoding.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import field
from typing import Any

import httpx

from websearch_tui.core.errors import ErrorKind, ProviderError, excerpt
from websearch_tui.core.models import Metadata, Note, SearchEvent, SearchQueries, SearchRequest, SourcesFound
from websearch_tui.core.records import record
from websearch_tui.core.text import plain_text, sanitize, truncate
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.families.mcp import McpHooks, McpSession, open_session
from websearch_tui.providers.families.zhipu import (
    RECENCY_FILTERS,
    code_kind,
    error_envelope,
    intent_queries,
    parse_results,
)
from websearch_tui.providers.helpers.parse import as_dict, as_list, clamp_count, code_text, find_message, limit_sources
from websearch_tui.providers.transport.shape import ShapeSeen, unrecognised

DEFAULT_TOOL = "webSearchPrime"
"""The tool's name in BigModel's (CN) docs."""
INTERNATIONAL_TOOL = "web_search_prime"
"""The tool's name on the Z.AI (international) server."""
DEFAULT_COUNT = 10
DEFAULT_CONTENT_SIZE = "medium"
FALLBACK_ENGINE = "search-prime"
EMPTY_HINT = "Z.AI returned no results; this can mean the Coding Plan quota or balance is exhausted."
RECENCY_IGNORED = "Recency is not supported by Z.AI Web Search; results are not filtered by date."
_ARGUMENT_ERROR = re.compile(r"invalid|argument|query", re.IGNORECASE)
_NOT_ARGUMENT_KINDS = frozenset(
    {ErrorKind.AUTH, ErrorKind.QUOTA, ErrorKind.RATE_LIMIT, ErrorKind.TIMEOUT, ErrorKind.NETWORK, ErrorKind.CONFIG}
)


@record(frozen=True)
class SearchTool:
    """The search tool as ``tools/list`` describes it.

    ``properties`` is the set of argument names of its ``inputSchema``, or ``None`` when there is no
    usable schema (none declaring ``search_query`` or ``query``); ``count_max`` is the schema's
    ``count.maximum`` when it gives one.
    """

    name: str
    properties: frozenset[str] | None = None
    count_max: int | None = None


@record
class ZaiTools:
    """The search tool as each MCP URL described it, kept in the provider's engine-owned state
    (``ctx.state.get(ZaiTools)``) so that later searches skip ``tools/list``."""

    by_url: dict[str, SearchTool] = field(default_factory=dict)


async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[SearchEvent]:
    """Run one Z.AI Web Search Prime search; yield ``Metadata``, the ``search_intent`` keywords as
    ``SearchQueries`` (when the result carries them), notes and sources (sliced locally).

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
    session = await ZaiSession.open(ctx, url, key)
    payload, arguments = await search(session, request)
    rows, container, text = result_rows(ctx, payload)
    request_id = next((v for k in ("request_id", "requestId", "id") if (v := plain_text(container.get(k)))), None)
    yield Metadata(request_id=request_id, auth_mode="api_key")
    queries = intent_queries(container)
    if queries:
        yield SearchQueries(tuple(queries))
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


class ZaiSession:
    """One search's MCP session with Z.AI (``mcp``), with what is Z.AI's on top: the remembered tool
    description (:class:`ZaiTools`) and the payload rules of its ``tools/call`` results."""

    def __init__(self, mcp: McpSession) -> None:
        self.mcp = mcp

    @classmethod
    async def open(cls, ctx: ProviderContext, url: str, key: str) -> ZaiSession:
        """Hand-shake a new session on ``url`` with the Coding Plan ``key`` (never a remembered
        one: Z.AI binds authentication to the session).

        Raises:
            ProviderError: as :func:`stream` (the handshake's own failures).
        """
        hooks = McpHooks(name="Z.AI", describe_error=describe_error, describe_auth=True, check_reply=reply_failure)
        return cls(await open_session(ctx, url, {"Authorization": f"Bearer {key}"}, hooks, cache=False))

    @property
    def ctx(self) -> ProviderContext:
        """The run's context."""
        return self.mcp.ctx

    async def find_tool(self) -> tuple[SearchTool, bool]:
        """``(tool, remembered)``: the search tool remembered for this URL, else from ``tools/list``
        (a server that refuses ``tools/list`` with a request error gets :func:`default_tool`'s name
        without a schema, not remembered).

        Raises:
            ProviderError: ``protocol`` when the listed tools include no web search tool; others as
                :meth:`McpSession.request`.
        """
        tools = self.ctx.state.get(ZaiTools).by_url
        known = tools.get(self.mcp.url)
        if known is not None:
            return known, True
        try:
            result = await self.mcp.request("tools/list", {})
        except ProviderError as exc:
            if exc.kind is ErrorKind.BAD_REQUEST:
                return SearchTool(default_tool(self.mcp.url)), False
            raise
        tool = tools[self.mcp.url] = pick_tool(self.ctx, result)
        return tool, False

    def forget_tool(self) -> None:
        """Forget the tool description remembered for this URL (its schema may have changed)."""
        self.ctx.state.get(ZaiTools).by_url.pop(self.mcp.url, None)

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        """``tools/call`` ``name`` with ``arguments``; returns :meth:`tool_payload` of the result."""
        result = await self.mcp.request("tools/call", {"name": name, "arguments": arguments})
        return self.tool_payload(result)

    def tool_payload(self, result: Any) -> Any:
        """The payload of a ``tools/call`` result: ``structuredContent``, then ``data`` / ``result``,
        then the ``content[]`` texts (decoded twice when double-encoded), as ``families.mcp.extract_payload``.

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
            return self.mcp.payload(result)
        except ProviderError as error:
            if error.kind is not ErrorKind.SERVER or not _ARGUMENT_ERROR.search(error.message):
                raise
            raise ProviderError(error.provider, ErrorKind.BAD_REQUEST, error.message) from None


# --------------------------------------------------------------------------- tool and arguments


async def search(session: ZaiSession, request: SearchRequest) -> tuple[Any, dict[str, Any]]:
    """Find the tool and call it (see :func:`run_search`). A remembered tool description that
    yields an argument error is forgotten and the tool listed and called once more (the server's
    schema may have changed)."""
    tool, remembered = await session.find_tool()
    try:
        return await run_search(session, tool, request)
    except ProviderError as exc:
        if not remembered or not is_argument_error(exc):
            raise
    session.forget_tool()
    tool, _ = await session.find_tool()
    return await run_search(session, tool, request)


def tool_key(name: str) -> str:
    """A tool name compared without case, ``_``, ``-`` or spaces: ``web_search_prime``,
    ``webSearchPrime`` and ``web-search-prime`` all give ``"websearchprime"``."""
    return re.sub(r"[_\-\s]", "", name).lower()


def default_tool(url: str) -> str:
    """The tool name to call when ``tools/list`` cannot tell: :data:`DEFAULT_TOOL` (``webSearchPrime``)
    on a ``bigmodel.cn`` host, :data:`INTERNATIONAL_TOOL` (``web_search_prime``) anywhere else."""
    try:
        host = (httpx.URL(url).host or "").lower()
    except (httpx.InvalidURL, TypeError):
        host = ""
    return DEFAULT_TOOL if host == "bigmodel.cn" or host.endswith(".bigmodel.cn") else INTERNATIONAL_TOOL


def pick_tool(ctx: ProviderContext, result: Any) -> SearchTool:
    """The ``web_search_prime`` / ``webSearchPrime`` entry of a ``tools/list`` result (names compared
    by :func:`tool_key`), with its schema's property names and ``count.maximum``.

    Raises:
        ProviderError: ``protocol`` when no listed tool matches.
    """
    tools = [t for t in as_list(as_dict(result).get("tools")) if isinstance(t, dict) and isinstance(t.get("name"), str)]
    found = next((t for t in tools if tool_key(t["name"]) == tool_key(DEFAULT_TOOL)), None)
    if found is None:
        names = ", ".join(sanitize(t["name"])[:60] for t in tools[:10]) or "none"
        message = f"Z.AI MCP server does not offer {INTERNATIONAL_TOOL} or {DEFAULT_TOOL} (tools: {names})."
        raise ProviderError(ctx.spec.id, ErrorKind.PROTOCOL, message)
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


async def run_search(session: ZaiSession, tool: SearchTool, request: SearchRequest) -> tuple[Any, dict[str, Any]]:
    """Call the tool; returns ``(payload, arguments that worked)``.

    With a usable schema one call; without, the fallback shapes in order, moving to the next only
    after an argument error (:func:`is_argument_error`); the last failure is raised.
    """
    if tool.properties is not None:
        arguments = schema_arguments(tool, request, session.ctx)
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
        ProviderError: for a ``{"success": false}`` or ``{"error": {...}}`` object;
            ``unrecognised_response`` for an object without a result list.
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
    seen = ShapeSeen(content_type="MCP tool result")
    seen.observe(None, "json", body)
    raise unrecognised(ctx.spec, seen)


def failure_body(message: Any) -> tuple[str, str] | None:
    """``(code, message)`` of Z.AI's non-JSON-RPC ``{"success": false, "code", "msg" | "message" |
    "error_message" | "error"}`` body (code ``""`` when absent), else ``None``."""
    if not isinstance(message, dict) or message.get("success") is not False or "jsonrpc" in message:
        return None
    text = find_message(message, ("msg", "message", "error_message", "error")) or "no message"
    return code_text(message.get("code")) or "", excerpt(text, 500)


def reply_failure(ctx: ProviderContext, message: Any) -> ProviderError | None:
    """The ``families.mcp`` reply check: :func:`api_error` for a ``{"success": false}`` reply message."""
    failure = failure_body(message)
    return api_error(ctx, *failure) if failure is not None else None


def rest_failure(body: Any) -> tuple[str, str] | None:
    """``(code, message)`` of a non-JSON-RPC error body: ``{"success": false, ...}`` or the
    Zhipu envelope ``{"error": {"code", "message"}}``; ``None`` otherwise (JSON-RPC errors included)."""
    if isinstance(body, dict) and "jsonrpc" in body:
        return None
    return failure_body(body) or error_envelope(body)


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
