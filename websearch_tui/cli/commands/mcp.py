"""``websearch-tui mcp``: the checks before the MCP server starts (options that go only with
``--http``, a usable config file), then the hand-over to the server the launcher gave the CLI
(:class:`~websearch_tui.cli.front_ends.FrontEnds`); when the MCP SDK is not installed, the command
that adds it to this installation."""

from __future__ import annotations

import argparse
import shlex
import sys

from websearch_tui.cli.common import PROG, UsageError, fail, load_config
from websearch_tui.cli.front_ends import McpOptions, ServeMcp, missing

MCP_PACKAGES = "mcp uvicorn starlette"
"""What the ``mcp`` extra adds (see pyproject.toml), for the install hints."""


def mcp_install_hint(prefix: str | None = None) -> str:
    """The command that adds the MCP server's packages to *this* installation (``prefix``: the
    environment's ``sys.prefix``, by default this one's): ``pipx inject websearch-tui ...`` for a
    pipx install, ``uv tool install --force --with ...`` for a uv tool, else ``<this python> -m pip
    install 'websearch-tui[mcp]'`` (with the checkout's form beside it)."""
    where = (prefix or sys.prefix).replace("\\", "/")
    if "/pipx/venvs/" in where:
        return f"pipx inject {PROG} {MCP_PACKAGES}"
    if "/uv/tools/" in where or "/uv/data/tools/" in where:  # Linux and macOS; Windows: %APPDATA%/uv/data/tools
        extras = " ".join(f"--with {name}" for name in MCP_PACKAGES.split())
        return f"uv tool install --force {extras} {PROG} (from a checkout: the checkout's path instead of {PROG})"
    python = shlex.quote(sys.executable or "python3")
    return f"{python} -m pip install '{PROG}[mcp]' (in a checkout: {python} -m pip install -e '.[mcp]')"


def run(args: argparse.Namespace, serve: ServeMcp | None) -> int:
    """``mcp``: serve over stdio, or Streamable HTTP with ``--http``, with ``serve`` (``None``: this
    program has no MCP server) until the client closes stdin or the process gets SIGINT/SIGTERM;
    0 then, 1 when the MCP SDK is missing (the message says how to install it).

    Raises:
        UsageError: ``--host``, ``--port``, ``--token-file`` or ``--allowed-host`` without ``--http``,
            an unusable config file, options the server refuses, or no MCP server handed over.
    """
    options = McpOptions(
        http=args.http,
        host=args.host,
        port=args.port,
        token_file=args.token_file,
        allowed_hosts=tuple(args.allowed_hosts),
    )
    _check_http_only(options)
    config = load_config(args)
    if serve is None:
        raise missing("MCP server")
    try:
        serve(config, options)
    except ModuleNotFoundError as exc:
        if (exc.name or "").startswith(PROG.replace("-", "_")):
            raise
        return fail(f"the MCP server needs the MCP SDK (module {exc.name!r} is missing): {mcp_install_hint()}", 1)
    return 0


def _check_http_only(options: McpOptions) -> None:
    """Refuse the options that only Streamable HTTP uses when ``--http`` is not given.

    Raises:
        UsageError: naming them (``--host``, ``--port`` and ``--token-file``; else ``--allowed-host``).
    """
    http_only = [
        flag
        for flag, value in (("--host", options.host), ("--port", options.port), ("--token-file", options.token_file))
        if value is not None
    ]
    if not options.http and (http_only or options.allowed_hosts):
        raise UsageError(f"only valid with --http: {', '.join(http_only or ['--allowed-host'])}")
