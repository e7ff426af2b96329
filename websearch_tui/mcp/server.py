"""The MCP server: the tools of :mod:`websearch_tui.mcp.tools` served over stdio or Streamable HTTP (the
official MCP SDK), and its lifecycle.

``websearch-tui mcp`` serves stdio; ``websearch-tui mcp --http`` serves Streamable HTTP at ``/mcp``.
One process keeps one :class:`~websearch_tui.session.Session` (one engine) for every MCP session and
call, so connections, MCP sessions with providers and pacing are shared; each call has its own
search. The session is closed when serving ends.

HTTP security (:func:`http_options`, :func:`http_app`): loopback by default; any other address needs a
bearer token of at least :data:`MIN_TOKEN_CHARS` characters (``--token-file`` or
``$WEBSEARCH_TUI_MCP_TOKEN``), compared in constant time (:class:`~websearch_tui.mcp.gate.BearerGate`);
a request without it gets 401 and is logged without it. The SDK's Host and Origin checks refuse names
outside the allowed hosts (DNS rebinding). Nothing here writes to stdout: on stdio it belongs to the
protocol (the SDK points file descriptor 1 at stderr while serving); logs go to the log file and
stderr.

This module imports the SDK; only the ``mcp`` command imports this module.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import socket
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream
from mcp import types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.message import SessionMessage
from starlette.types import ASGIApp

from websearch_tui.core.errors import register_secret
from websearch_tui.core.version import __version__
from websearch_tui.mcp.gate import BearerGate
from websearch_tui.mcp.messages import MessageCheck
from websearch_tui.mcp.stdio import RequestLines, claimed_stdin, claimed_stdout
from websearch_tui.mcp.tools import SearchTools
from websearch_tui.session import Session
from websearch_tui.settings.config import Config

SERVER_NAME = "websearch-tui"
TOKEN_ENV = "WEBSEARCH_TUI_MCP_TOKEN"
MIN_TOKEN_CHARS = 32
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
MCP_PATH = "/mcp"
KEEP_ALIVE_SECONDS = 5
"""Seconds an idle HTTP connection stays open after a response (uvicorn's ``timeout_keep_alive``)."""
LIBRARY_LOGGERS = ("asyncio", "uvicorn", "mcp", "starlette", "anyio", "httpx")
"""The libraries whose log lines the server writes (their warnings quote request paths and headers,
e.g. the SDK's "Invalid Host header"), through :func:`log_to_stderr`'s handlers."""


class ServeError(Exception):
    """The server cannot start with these options; ``str()`` is one line naming the problem (no secret)."""


# --- the server -------------------------------------------------------------------------------


def build_server(tools: SearchTools) -> Server[Any]:
    """The SDK's low-level server serving ``tools`` (its schemas are ours, exactly as written)."""

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=await tools.listing())

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        return await tools.call(params.name, params.arguments or {}, ctx.session.report_progress)

    return Server(
        SERVER_NAME,
        version=__version__,
        instructions="web_search sends one query to many web search providers at once; list_providers "
        "shows which are ready.",
        get_tool_input_schema=tools.input_schema,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def make_tools(config: Config) -> SearchTools:
    """The tools over a new session for ``config`` (keys from the environment, keyring or key file)."""
    return SearchTools(Session.from_config(config))


async def serve_stdio(tools: SearchTools) -> None:
    """Serve ``tools`` over stdin/stdout until the client closes stdin; then close the engine.

    Standard input is read by :class:`~websearch_tui.mcp.stdio.RequestLines` (lines capped at
    :data:`~websearch_tui.mcp.stdio.MAX_LINE_BYTES`, every line the SDK cannot read answered with a
    JSON-RPC error); its replies join the SDK's on stdout, written by the event loop when stdout is a
    pipe (:func:`~websearch_tui.mcp.stdio.claimed_stdout`).
    """
    server = build_server(tools)
    replies, pending = anyio.create_memory_object_stream[SessionMessage](16)
    try:
        with claimed_stdin() as source:
            lines = cast("anyio.AsyncFile[str]", RequestLines(source, replies))  # the SDK only iterates it
            async with (
                claimed_stdout() as pipe,
                stdio_server(stdin=lines, stdout=cast("anyio.AsyncFile[str] | None", pipe)) as streams,
                anyio.create_task_group() as group,
            ):
                read_stream, write_stream = streams
                group.start_soon(_forward, pending, write_stream)
                await server.run(read_stream, write_stream, server.create_initialization_options())
                group.cancel_scope.cancel()
    finally:
        await tools.aclose()


async def _forward(pending: MemoryObjectReceiveStream[SessionMessage], write_stream: Any) -> None:
    """Send each reply of ``pending`` to the client through the SDK's ``write_stream``."""
    async with pending:
        async for message in pending:
            await write_stream.send(message)


# --- Streamable HTTP --------------------------------------------------------------------------


@dataclass(frozen=True)
class HttpOptions:
    """Where and how the HTTP server listens (see :func:`http_options`).

    ``token``: the bearer token every request must carry, or ``None`` (loopback only);
    ``allowed_hosts``: extra names clients may use in the ``Host`` header besides loopback and ``host``.
    """

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    token: str | None = field(default=None, repr=False)
    allowed_hosts: tuple[str, ...] = ()

    @property
    def url(self) -> str:
        """``http://host:port/mcp`` (an IPv6 host in brackets)."""
        return f"http://{_host_header(self.host)}:{self.port}{MCP_PATH}"


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (``127.0.0.0/8``, ``::1``)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _is_wildcard(host: str) -> bool:
    return host in ("", "0.0.0.0", "::")


def http_options(
    host: str | None = None,
    port: int | None = None,
    *,
    token_file: str | os.PathLike[str] | None = None,
    allowed_hosts: Sequence[str] = (),
    environ: Mapping[str, str] = os.environ,
) -> HttpOptions:
    """The HTTP options after the security rules: a token from ``token_file`` (its first line) or
    ``$WEBSEARCH_TUI_MCP_TOKEN``, registered for redaction; required for an address that is not
    loopback; a wildcard address (``0.0.0.0``, ``::``) also needs ``allowed_hosts``.

    Raises:
        ServeError: no token for a non-loopback address, a token shorter than
            :data:`MIN_TOKEN_CHARS` or with spaces or non-ASCII characters, an unreadable token file,
            a wildcard address without allowed hosts, a port outside 0-65535.
    """
    host = DEFAULT_HOST if host is None else host.strip().strip("[]")
    port = DEFAULT_PORT if port is None else port
    if not 0 <= port <= 65535:
        raise ServeError(f"--port must be from 0 to 65535, not {port}")
    token = _read_token(token_file) if token_file is not None else environ.get(TOKEN_ENV, "").strip() or None
    if token is not None:
        _check_token(token)
        register_secret(token)
    elif not is_loopback(host):
        raise ServeError(
            f"binding {host} (not a loopback address) needs a bearer token of at least {MIN_TOKEN_CHARS} "
            f"characters: --token-file PATH or ${TOKEN_ENV}"
        )
    if _is_wildcard(host) and not allowed_hosts:
        raise ServeError(
            f"binding {host or 'every address'} accepts any Host header; name the host names clients use "
            "with --allowed-host NAME (checked against DNS rebinding)"
        )
    return HttpOptions(host, port, token, tuple(name.strip().strip("[]") for name in allowed_hosts))


def _read_token(path: str | os.PathLike[str]) -> str:
    """The first line of the token file, stripped."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ServeError(f"cannot read the token file {path}: {getattr(exc, 'strerror', None) or exc}") from None
    token = lines[0].strip() if lines else ""
    if not token:
        raise ServeError(f"the token file {path} is empty")
    return token


def _check_token(token: str) -> None:
    """Raise :class:`ServeError` for a token that is too short or not printable ASCII without spaces."""
    if len(token) < MIN_TOKEN_CHARS:
        raise ServeError(f"the bearer token must be at least {MIN_TOKEN_CHARS} characters (it has {len(token)})")
    if not all("!" <= char <= "~" for char in token):
        raise ServeError("the bearer token must be printable ASCII without spaces")


def _host_header(name: str) -> str:
    """``name`` as it appears in a ``Host`` header (an IPv6 address in brackets)."""
    return f"[{name}]" if ":" in name else name


def transport_security(options: HttpOptions) -> TransportSecuritySettings:
    """The SDK's DNS-rebinding protection: ``Host`` must be a loopback name, the bound address or
    an allowed host (with any port); a browser's ``Origin`` must be one of them over http(s)."""
    names = ["127.0.0.1", "localhost", "::1", *([] if _is_wildcard(options.host) else [options.host])]
    hosts = [_host_header(name) for name in dict.fromkeys([*names, *options.allowed_hosts])]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[pattern for host in hosts for pattern in (host, f"{host}:*")],
        allowed_origins=[
            f"{scheme}://{host}{port}" for host in hosts for scheme in ("http", "https") for port in ("", ":*")
        ],
    )


def http_app(tools: SearchTools, options: HttpOptions) -> ASGIApp:
    """The ASGI app: the SDK's Streamable HTTP endpoint at :data:`MCP_PATH` with the Host/Origin checks,
    each message checked first (:class:`~websearch_tui.mcp.messages.MessageCheck`: a body the SDK would
    refuse gets the standard JSON-RPC error), behind :class:`BearerGate` when a token is set. Its
    lifespan runs the SDK's session manager."""
    sdk_app = build_server(tools).streamable_http_app(
        streamable_http_path=MCP_PATH, transport_security=transport_security(options), host=options.host
    )
    app: ASGIApp = MessageCheck(sdk_app, MCP_PATH)
    return BearerGate(app, options.token) if options.token is not None else app


async def serve_http(tools: SearchTools, options: HttpOptions, announce: Callable[[str], None]) -> None:
    """Serve :func:`http_app` with uvicorn until SIGINT/SIGTERM; then close the engine.

    The socket is bound first, so ``announce`` receives the real URL (``--port 0`` picks a free port).
    Before any token is checked, a connection has :data:`~websearch_tui.mcp.http_limits.REQUEST_TIMEOUT`
    seconds to send each whole request, a head of at most
    :data:`~websearch_tui.mcp.http_limits.MAX_HEAD_BYTES`, and at most
    :data:`~websearch_tui.mcp.http_limits.MAX_CONNECTIONS` are open at once
    (:class:`~websearch_tui.mcp.http_limits.LimitedH11Protocol`); an idle one closes after
    :data:`KEEP_ALIVE_SECONDS`.

    Raises:
        ServeError: the address cannot be bound.
    """
    import uvicorn

    from websearch_tui.mcp.http_limits import MAX_HEAD_BYTES, LimitedH11Protocol, raise_open_file_limit

    raise_open_file_limit()  # before the connection cap is read from it
    sock = _bind(options.host, options.port)
    bound = HttpOptions(options.host, sock.getsockname()[1], options.token, options.allowed_hosts)
    config = uvicorn.Config(
        http_app(tools, bound),
        http=LimitedH11Protocol,
        h11_max_incomplete_event_size=MAX_HEAD_BYTES,
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
        log_config=None,  # its lines go through log_to_stderr's handlers, not uvicorn's raw formatter
        log_level="warning",
        access_log=False,
        server_header=False,
    )
    guard = "bearer token required" if options.token else "no token: loopback only"
    announce(f"websearch-tui MCP server (Streamable HTTP) on {bound.url} ({guard})")
    try:
        await uvicorn.Server(config).serve(sockets=[sock])
    finally:
        sock.close()
        await tools.aclose()


def _bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port``.

    Raises:
        ServeError: the address is in use or cannot be bound.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        return socket.create_server((host, port), family=family)
    except OSError as exc:
        raise ServeError(f"cannot listen on {_host_header(host)}:{port}: {exc.strerror or exc}") from None


def log_to_stderr() -> None:
    """Also send the MCP front end's log lines (refused requests, tool failures: the loggers of
    ``websearch_tui.mcp`` and its modules) to stderr from WARNING up, and the warnings of the libraries
    it runs on (:data:`LIBRARY_LOGGERS`) to stderr and the log file, all through the one sanitising,
    redacting, rate-limited formatter (:mod:`websearch_tui.core.logs`)."""
    from websearch_tui.core.logs import route, stderr_handler

    handler = stderr_handler("websearch-tui mcp: %(levelname)s %(message)s")
    logging.getLogger("websearch_tui.mcp").addHandler(handler)
    route(LIBRARY_LOGGERS, handler)
