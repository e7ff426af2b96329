"""The launcher: ``python -m websearch_tui`` and the ``websearch-tui`` command.

It sits above every layer: it runs the CLI (:mod:`websearch_tui.cli.main`) and hands it the two
front ends the CLI may start but never imports (:class:`~websearch_tui.cli.front_ends.FrontEnds`):
the terminal UI (:mod:`websearch_tui.tui.app`) and the MCP server (:mod:`websearch_tui.mcp.server`),
each imported only when its command runs. Everything else (parsing, checks, the config file, error
messages, exit codes) is the CLI's.
"""

from __future__ import annotations

import asyncio
import functools
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, NoReturn

from websearch_tui.cli import main as cli
from websearch_tui.cli.common import UsageError
from websearch_tui.cli.front_ends import FrontEnds, McpOptions

if TYPE_CHECKING:
    from websearch_tui.settings.config import Config


def check_keymap(config: Config) -> list[str]:
    """Refuse a ``[keymap]`` id that no binding of the terminal UI has; returns a note for each entry
    with a key that types a character (it does not act in a text field). Textual is imported only
    for a keymap that is not empty.

    Raises:
        ConfigError: naming the file, the id and the known ids
            (:func:`websearch_tui.tui.app.check_keymap`).
    """
    if not config.keymap:
        return []
    from websearch_tui.tui.app import check_keymap as check

    return check(config)


def start_tui(config: Config) -> int:
    """Run the terminal UI for ``config`` until it quits; returns its exit code. The garbage collector
    is paused before Textual is imported (:mod:`websearch_tui.tui.gc_tuning`; the app settles it after
    the first paint).

    Raises:
        ConfigError: a ``[keymap]`` id no binding has (:func:`check_keymap`), before the UI starts.
    """
    from websearch_tui.tui.gc_tuning import pause_gc

    pause_gc()
    check_keymap(config)
    from websearch_tui.tui.app import run_tui

    return run_tui(config)


def serve_mcp(config: Config, options: McpOptions) -> None:
    """Serve the MCP tools for ``config`` over stdio, or Streamable HTTP with ``options.http``, until
    the client closes stdin or the process gets SIGINT/SIGTERM; the server's log goes to stderr and
    the HTTP address is announced there.

    Raises:
        ModuleNotFoundError: the MCP SDK (or uvicorn, starlette) is not installed.
        UsageError: options the server refuses (the token, the address, the port).
    """
    from websearch_tui.mcp import server

    server.log_to_stderr()
    try:
        if not options.http:
            asyncio.run(server.serve_stdio(server.make_tools(config)))
            return
        http = server.http_options(
            options.host, options.port, token_file=options.token_file, allowed_hosts=options.allowed_hosts
        )
        announce = functools.partial(print, file=sys.stderr, flush=True)
        asyncio.run(server.serve_http(server.make_tools(config), http, announce))
    except server.ServeError as exc:
        raise UsageError(str(exc)) from None


FRONT_ENDS = FrontEnds(tui=start_tui, check_keymap=check_keymap, mcp=serve_mcp)
"""The terminal UI and the MCP server, as the CLI gets them from this launcher."""


def main(argv: Sequence[str] | None = None) -> int:
    """The CLI's :func:`~websearch_tui.cli.main.main` with both front ends; returns the exit code."""
    return cli.main(argv, front_ends=FRONT_ENDS)


def run() -> NoReturn:
    """The ``websearch-tui`` command: the CLI's :func:`~websearch_tui.cli.main.run` with both front
    ends (exits the process with the command's code)."""
    cli.run(front_ends=FRONT_ENDS)


if __name__ == "__main__":
    run()
