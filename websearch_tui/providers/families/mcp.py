"""MCP tool calls over Streamable HTTP (JSON-RPC 2.0), as PROVIDERS.md §1.10 describes.

Providers call one tool with :func:`call_tool` (the keyless Exa endpoint is stateless, Parallel's
stateful), or hold a conversation through the session API (:func:`open_session`,
:meth:`McpSession.request`). What a provider adds to the protocol for its server (its name in
messages, its HTTP error wording, a check of every reply message) comes in as :class:`McpHooks`.

- Every request is a ``POST`` with ``Content-Type: application/json`` and
  ``Accept: application/json, text/event-stream``; request ids are fresh uuid4 strings.
- Stateful servers get the handshake: ``initialize`` (protocol ``2025-06-18``; the reply must carry a
  ``result.protocolVersion`` string and may issue an ``Mcp-Session-Id``, both visible ASCII since they
  are sent back as headers), then the ``notifications/initialized`` notification (202 with an empty
  body or 200 are both fine), then ``tools/call`` carrying ``Mcp-Session-Id`` (when the server issued
  one) and ``MCP-Protocol-Version``. A session is remembered in the provider's state
  (:class:`McpSessions`, per URL and headers), so later searches skip the handshake; a 404 on a
  request that carried a session id means the session expired and the handshake is redone once.
- Reply bodies may be JSON (one message or a batch array) or SSE (one message or batch per event).
  The reply is picked by id; notifications, other ids and ``id: null`` are skipped.
- HTTP errors, retries and the per-request timeout come from :mod:`websearch_tui.providers.transport.http`;
  the provider deadline bounds the whole sequence.
"""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import field
from typing import Any

import httpx

from websearch_tui.core.errors import ErrorKind, ProviderError, excerpt, mentions_quota
from websearch_tui.core.records import record
from websearch_tui.core.version import __version__
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.helpers.parse import as_list
from websearch_tui.providers.transport.http import ErrorDescriber, HttpReply, HttpRequest, send
from websearch_tui.providers.transport.shape import Shape, check_all

PROTOCOL_VERSION = "2025-06-18"
ACCEPT = "application/json, text/event-stream"
CLIENT_INFO = {"name": "websearch-tui", "version": __version__}

_RATE_LIMIT_TEXT = re.compile(r"rate.?limit|too many requests", re.IGNORECASE)
_VISIBLE_ASCII = re.compile(r"[\x21-\x7e]+")
"""What the session id and protocol version may hold: they go back out as HTTP header values."""


SHAPE = Shape.of("jsonrpc", "result", "error", "method")
"""A JSON-RPC 2.0 message (a reply, an error or a notification): what every MCP reply is made of."""


@record(frozen=True)
class _Session:
    """What a completed handshake established: the server's session id (if it issued one) and the
    negotiated protocol version, both sent back as headers."""

    session_id: str | None
    protocol_version: str


SessionKey = tuple[Any, ...]
"""``(url, sorted lower-cased extra headers)``: which remembered session a request may use."""


@record
class McpSessions:
    """The sessions one provider keeps with stateful MCP servers, in its engine-owned state
    (``ctx.state.get(McpSessions)``), so every run of the provider in one engine shares them.

    Attributes:
        established: by :data:`SessionKey`, the sessions whose handshake completed.
        handshakes: by :data:`SessionKey`, the lock that lets one handshake run at a time (runs
            that start together wait for it and then use its session).
    """

    established: dict[SessionKey, _Session] = field(default_factory=dict)
    handshakes: dict[SessionKey, asyncio.Lock] = field(default_factory=dict)


ReplyCheck = Callable[[ProviderContext, Any], ProviderError | None]
"""``(ctx, message) -> error or None``: a provider's own failure found in one reply message (such as
a body that is not JSON-RPC at all); run on every message of a reply before it is picked by id."""


def no_reply_check(ctx: ProviderContext, message: Any) -> ProviderError | None:
    """The default :data:`ReplyCheck`: the JSON-RPC rules alone decide."""
    return None


@record(frozen=True)
class McpHooks:
    """What a provider adds to the protocol for its server.

    Attributes:
        name: how messages call the server: ``None`` keeps ``MCP error ...`` unprefixed and the spec
            label in handshake and deadline messages; a name such as ``"Acme"`` gives
            ``Acme MCP error ...``, ``Acme MCP initialize ...``.
        describe_error: words non-2xx replies (default :func:`mcp_error_describer` of the label).
        describe_auth: let ``describe_error`` word 401/403 too (else the seed auth message).
        check_reply: a :data:`ReplyCheck` (default :func:`no_reply_check`).
    """

    name: str | None = None
    describe_error: ErrorDescriber | None = None
    describe_auth: bool = False
    check_reply: ReplyCheck = no_reply_check


def mcp_error_describer(label: str, rate_limit_message: str | None = None) -> ErrorDescriber:
    """An ``transport.http`` error describer for MCP endpoints.

    A 429 gives ``rate_limit_message`` when one is set (e.g. "Exa free MCP rate limit reached
    (429); add an Exa API key for higher limits"); otherwise ``"<Label> MCP request failed:
    <status> <reason>: <message>"`` where the message comes from a JSON-RPC ``error`` in the body
    (servers send one with ``id: null``) or a redacted body excerpt.
    """

    def describe(status: int, text: str, parsed: Any) -> str:
        if status == 429 and rate_limit_message:
            return rate_limit_message
        message = _rpc_error_text(parsed) or text.strip()
        head = f"{label} MCP request failed: {status} {httpx.codes.get_reason_phrase(status)}".rstrip()
        return f"{head}: {excerpt(message, 500)}" if message else head

    return describe


async def call_tool(
    ctx: ProviderContext,
    url: str,
    tool_name: str,
    arguments: Mapping[str, Any],
    *,
    handshake: bool,
    headers: Mapping[str, str] | None = None,
    describe_error: ErrorDescriber | None = None,
) -> Any:
    """Call MCP tool ``tool_name`` with ``arguments`` at ``url`` and return its extracted payload.

    ``handshake`` selects the stateful flow (a remembered :func:`open_session`); without it one
    ``tools/call`` POST is sent with no session. ``headers`` are added to every POST (never put
    secrets in ``url``). ``describe_error`` words non-2xx replies (default :func:`mcp_error_describer`).

    Returns:
        ``result.structuredContent`` (a dict) when present; else the first ``content[]`` text that
        parses as a JSON object or array (decoded twice when the text is a JSON string holding
        JSON, e.g. ``"\\"[]\\""``); else the text items joined with blank lines, for the provider's
        plain-text parser.

    Raises:
        ProviderError: ``config`` without a URL; HTTP-mapped kinds (auth, rate_limit, quota,
            server, ...) from ``transport.http``; ``MCP error (<code>): <message>`` for a JSON-RPC error;
            ``MCP error: <text>`` for ``result.isError``; ``protocol`` for a reply that cannot be parsed, has no
            message with the request id, a bad ``initialize`` reply, or an empty
            (``null``/``[]``/``{}``) or content-less result; ``timeout`` past the deadline.
    """
    hooks = McpHooks(describe_error=describe_error)
    if handshake:
        session = await open_session(ctx, url, headers, hooks)
    else:
        session = McpSession(ctx, _require_url(ctx, url), _base_headers(headers), hooks)
    return await session.call_tool(tool_name, arguments)


_NO_HOOKS = McpHooks()
"""The hooks of a provider that adds nothing to the protocol (the default)."""


@record
class McpSession:
    """One MCP conversation with ``url``; build it with :func:`open_session`.

    Without ``state`` (a stateless server) requests carry no session headers. ``hooks`` are the
    provider's additions (:class:`McpHooks`). ``cache_key`` is set for a session remembered in
    :class:`McpSessions`, which is hand-shaken again once when the server reports it expired.
    """

    ctx: ProviderContext
    url: str
    headers: dict[str, str]
    hooks: McpHooks = McpHooks()
    cache_key: SessionKey | None = None
    state: _Session | None = None
    fresh: bool = False

    async def request(self, method: str, params: Mapping[str, Any]) -> Any:
        """Send one JSON-RPC request on the session and return the ``result`` answering it.

        A remembered session that the server reports expired (404 with a session id, or 400 on a
        session that was not just created) is hand-shaken again and the request sent once more.

        Raises:
            ProviderError: as :func:`call_tool` (JSON-RPC errors named after ``hooks.name``), or
                what ``hooks.check_reply`` found.
        """
        for attempt in range(2):
            try:
                result, _ = await self._rpc(method, params)
                return result
            except ProviderError as exc:
                if attempt or not self._expired(exc):
                    raise
            _forget(self.ctx, self.cache_key, self.state)  # the server dropped the session
            await self._join()
        raise AssertionError("unreachable")  # pragma: no cover

    async def call_tool(self, name: str, arguments: Mapping[str, Any]) -> Any:
        """``tools/call`` ``name`` with ``arguments``; returns :meth:`payload` of the result."""
        return self.payload(await self.request("tools/call", {"name": name, "arguments": dict(arguments)}))

    def payload(self, result: Any) -> Any:
        """:func:`extract_payload` of a ``tools/call`` result, ``isError`` named after ``hooks.name``."""
        try:
            return extract_payload(self.ctx, result)
        except ProviderError as exc:
            raise self._named(exc) from None

    @property
    def _who(self) -> str:
        return self.hooks.name or self.ctx.spec.label

    def _named(self, error: ProviderError) -> ProviderError:
        name = self.hooks.name
        if not name or not error.message.startswith("MCP error"):
            return error
        return ProviderError(error.provider, error.kind, f"{name} {error.message}", status=error.status)

    def _expired(self, error: ProviderError) -> bool:
        if self.cache_key is None or self.state is None or not self.state.session_id:
            return False
        return error.status == 404 or (error.status == 400 and not self.fresh)

    def _session_headers(self) -> dict[str, str]:
        headers = dict(self.headers)
        if self.state is not None:
            if self.state.session_id:
                headers["Mcp-Session-Id"] = self.state.session_id
            headers["MCP-Protocol-Version"] = self.state.protocol_version
        return headers

    async def _join(self) -> None:
        """Take the remembered session for :attr:`cache_key`, or hand-shake (one at a time per
        key; a session is remembered only once its handshake has completed)."""
        if self.cache_key is None:
            await self._handshake()
            return
        sessions = self.ctx.state.get(McpSessions)
        async with sessions.handshakes.setdefault(self.cache_key, asyncio.Lock()):
            known = sessions.established.get(self.cache_key)
            if known is not None:
                self.state, self.fresh = known, False
                return
            state = await self._handshake()
            sessions.established[self.cache_key] = state

    async def _handshake(self) -> _Session:
        """``initialize`` then ``notifications/initialized``; sets and returns :attr:`state`."""
        self.state = None
        params = {"protocolVersion": PROTOCOL_VERSION, "capabilities": {}, "clientInfo": CLIENT_INFO}
        result, reply = await self._rpc("initialize", params)
        version = result.get("protocolVersion") if isinstance(result, dict) else None
        if not isinstance(version, str) or not _VISIBLE_ASCII.fullmatch(version.strip()):
            raise ProviderError(
                self.ctx.spec.id,
                ErrorKind.PROTOCOL,
                f"{self._who} MCP initialize reply has no protocolVersion; the server did not complete the handshake.",
                status=reply.status_code,
            )
        session_id = (reply.headers.get("mcp-session-id") or "").strip() or None
        if session_id is not None and not _VISIBLE_ASCII.fullmatch(session_id):
            raise ProviderError(
                self.ctx.spec.id,
                ErrorKind.PROTOCOL,
                f"{self._who} MCP session id is not visible ASCII; the server did not complete the handshake.",
                status=reply.status_code,
            )
        state = self.state = _Session(session_id=session_id, protocol_version=version.strip())
        await self._post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        self.fresh = True
        return state

    async def _post(self, message: dict[str, Any]) -> HttpReply:
        if self.ctx.remaining() <= 0:
            raise ProviderError(
                self.ctx.spec.id, ErrorKind.TIMEOUT, f"{self._who} MCP exchange ran past the provider deadline."
            )
        post = HttpRequest(
            "POST",
            self.url,
            headers=self._session_headers(),
            json_body=message,
            describe_error=self.hooks.describe_error or mcp_error_describer(self.ctx.spec.label),
            describe_auth=self.hooks.describe_auth,
        )
        return await send(self.ctx, post)

    async def _rpc(self, method: str, params: Mapping[str, Any]) -> tuple[Any, HttpReply]:
        request_id = uuid.uuid4().hex
        reply = await self._post({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        content_type = reply.headers.get("content-type", "")
        messages = parse_messages(self.ctx, reply.text, content_type, reply.status_code)
        for message in messages:
            failure = self.hooks.check_reply(self.ctx, message)
            if failure is not None:
                raise failure
        check_all(self.ctx.spec, SHAPE, messages, content_type.split(";")[0], reply.status_code)
        try:
            return pick_result(self.ctx, messages, request_id), reply
        except ProviderError as exc:
            raise self._named(exc) from None


async def open_session(
    ctx: ProviderContext,
    url: str,
    headers: Mapping[str, str] | None = None,
    hooks: McpHooks = _NO_HOOKS,
    *,
    cache: bool = True,
) -> McpSession:
    """An initialised :class:`McpSession` on ``url`` (``headers`` added to every POST).

    With ``cache`` the session is remembered in the provider's :class:`McpSessions` per URL and
    headers: the handshake (``initialize`` + ``notifications/initialized``) runs once per key,
    runs that start together wait for it, and an expired session is renewed. Without ``cache``
    every call hand-shakes afresh (servers that bind authentication to a new session). ``hooks``
    are the provider's additions (:class:`McpHooks`).

    Raises:
        ProviderError: ``config`` without a URL; ``protocol`` when the ``initialize`` reply has no
            ``protocolVersion``; otherwise as :func:`call_tool`.
    """
    key = (url, tuple(sorted((k.lower(), v) for k, v in (headers or {}).items()))) if cache else None
    session = McpSession(ctx, _require_url(ctx, url), _base_headers(headers), hooks, cache_key=key)
    await session._join()
    return session


def _require_url(ctx: ProviderContext, url: str) -> str:
    if not url:
        raise ProviderError(
            ctx.spec.id,
            ErrorKind.CONFIG,
            f"{ctx.spec.label}: no mcp_url configured (set [providers.{ctx.spec.id}] mcp_url).",
        )
    return url


def _base_headers(headers: Mapping[str, str] | None) -> dict[str, str]:
    return {"Content-Type": "application/json", "Accept": ACCEPT, **(headers or {})}


def _forget(ctx: ProviderContext, key: SessionKey | None, session: _Session | None) -> None:
    """Drop the remembered session for ``key`` if it is still ``session`` (another run may have
    renewed it already)."""
    established = ctx.state.get(McpSessions).established
    if key is not None and established.get(key) is session:
        del established[key]


def parse_messages(ctx: ProviderContext, text: str, content_type: str, status: int = 200) -> list[Any]:
    """All JSON-RPC messages in a reply body, batches flattened, in order.

    The body is SSE when ``content_type`` says ``text/event-stream`` (or, without a JSON content
    type, when it does not start with ``{``/``[`` but has ``data:`` lines); otherwise JSON. SSE
    events whose data is not JSON are skipped.

    Raises:
        ProviderError: ``protocol`` for an empty body, malformed JSON, or SSE without any JSON event.
    """
    body = text.strip()
    lowered = content_type.lower()

    def fail(why: str) -> ProviderError:
        return ProviderError(
            ctx.spec.id,
            ErrorKind.PROTOCOL,
            f"Failed to parse MCP response from {ctx.spec.label}: {why} (HTTP {status})",
            status=status,
        )

    if not body:
        raise fail("empty body")
    sse = "text/event-stream" in lowered or (
        "json" not in lowered
        and body[0] not in "{["
        and re.search(r"^(data|event)\s*:", body, re.MULTILINE) is not None
    )
    messages: list[Any] = []
    if sse:
        for data in sse_data(text):
            try:
                payload = json.loads(data)
            except (ValueError, RecursionError):  # RecursionError: nested deeper than the decoder goes
                continue
            messages.extend(payload if isinstance(payload, list) else [payload])
        if not messages:
            raise fail(f"no JSON message in the event stream: {excerpt(body, 200)}")
        return messages
    if body[0] not in "{[":
        shown = lowered.split(";")[0] or "no content type"
        raise fail(f"{shown} body: {excerpt(body, 200)}")
    try:
        payload = json.loads(body)
    except RecursionError:
        raise fail("JSON nested too deeply") from None
    except json.JSONDecodeError as exc:
        raise fail(f"malformed JSON ({exc.msg} at position {exc.pos})") from None
    except ValueError as exc:  # not a JSONDecodeError: an integer with more digits than Python converts
        raise fail(f"malformed JSON ({exc})") from None
    return payload if isinstance(payload, list) else [payload]


def sse_data(text: str) -> Iterator[str]:
    """The ``data`` of each event in a complete SSE body (CRLF, CR and LF line ends accepted).

    Several ``data:`` lines of one event are joined with ``\\n``; comments and events without data
    are skipped; a final event without a trailing blank line is still delivered.
    """
    data: list[str] = []
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if not line:
            if data:
                yield "\n".join(data)
            data = []
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        if name == "data":
            data.append(value[1:] if value.startswith(" ") else value)
    if data:
        yield "\n".join(data)


def pick_result(ctx: ProviderContext, messages: list[Any], request_id: str) -> Any:
    """The ``result`` of the first message answering ``request_id``.

    Raises:
        ProviderError: ``MCP error (<code>): <message>`` when that message carries ``error``;
            ``protocol`` when no message answers the request (notifications, other ids and
            ``id: null`` never do).
    """
    stray_error: str | None = None
    for message in messages:
        if not isinstance(message, dict):
            continue
        if message.get("id") is None or message.get("id") != request_id:
            if message.get("error") is not None and stray_error is None:
                stray_error = _rpc_error_text(message)
            continue
        if message.get("error") is not None:
            raise rpc_error(ctx, message["error"])
        if "result" in message:
            return message["result"]
    detail = f"; unmatched error: {stray_error}" if stray_error else ""
    raise ProviderError(
        ctx.spec.id,
        ErrorKind.PROTOCOL,
        f"Failed to parse MCP response from {ctx.spec.label}: no reply with the request id{detail}",
    )


def rpc_error(ctx: ProviderContext, error: Any) -> ProviderError:
    """``MCP error (<code>): <message>`` for a JSON-RPC ``error`` object, with a fitting kind.

    Quota wording gives ``quota``, rate-limit wording ``rate_limit``, the JSON-RPC request errors
    (-32700, -32600..-32602) ``bad_request``, anything else ``server``.
    """
    error = error if isinstance(error, dict) else {"message": str(error)}
    code = error.get("code")
    message = error.get("message") if isinstance(error.get("message"), str) else ""
    if not message and error.get("data") is not None:
        message = json.dumps(error["data"])[:500]
    kind = _kind_for_text(message)
    if kind is None:
        kind = ErrorKind.BAD_REQUEST if code in (-32700, -32600, -32601, -32602) else ErrorKind.SERVER
    return ProviderError(ctx.spec.id, kind, f"MCP error ({code}): {message or 'no message'}")


def extract_payload(ctx: ProviderContext, result: Any) -> Any:
    """The payload of a ``tools/call`` result (see :func:`call_tool` for the order).

    Raises:
        ProviderError: ``MCP error: <text>`` for ``isError: true`` (kind from the text, else
            ``server``); ``protocol`` for a ``null``/``[]``/``{}`` result or one without content.
    """
    if not isinstance(result, dict) or not result:
        raise ProviderError(
            ctx.spec.id,
            ErrorKind.PROTOCOL,
            f"{ctx.spec.label} MCP tool returned an empty result ({json.dumps(result)[:40]}).",
        )
    texts = [
        item["text"]
        for item in as_list(result.get("content"))
        if isinstance(item, dict) and item.get("type", "text") == "text" and isinstance(item.get("text"), str)
    ]
    if result.get("isError") is True:
        message = "\n".join(t.strip() for t in texts if t.strip()) or "the tool reported an error without a message"
        raise ProviderError(ctx.spec.id, _kind_for_text(message) or ErrorKind.SERVER, f"MCP error: {message}")
    structured = result.get("structuredContent")
    if isinstance(structured, dict) and structured:
        return structured
    if not texts:
        raise ProviderError(ctx.spec.id, ErrorKind.PROTOCOL, f"{ctx.spec.label} MCP tool result has no content.")
    plain: list[str] = []
    for text in texts:
        value = decode_json_text(text)
        if isinstance(value, (dict, list)):
            return value
        plain.append(value if isinstance(value, str) else text)
    return "\n\n".join(plain)


def decode_json_text(text: str) -> Any:
    """``json.loads(text)``, decoded again when that yields a string; ``text`` itself if not JSON.

    A JSON string whose content is not JSON gives that string (``"\\"hi\\""`` -> ``"hi"``).
    """
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return text
    if isinstance(value, str):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            return value
    return value if isinstance(value, (dict, list)) else text


def _rpc_error_text(parsed: Any) -> str | None:
    messages = parsed if isinstance(parsed, list) else [parsed]
    for message in messages:
        error = message.get("error") if isinstance(message, dict) else None
        if isinstance(error, dict) and isinstance(error.get("message"), str) and error["message"].strip():
            code = error.get("code")
            return f"MCP error ({code}): {error['message'].strip()}" if code is not None else error["message"].strip()
    return None


def _kind_for_text(text: str) -> ErrorKind | None:
    if mentions_quota(text):
        return ErrorKind.QUOTA
    if _RATE_LIMIT_TEXT.search(text):
        return ErrorKind.RATE_LIMIT
    return None
