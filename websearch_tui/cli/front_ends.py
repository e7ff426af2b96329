"""The front ends the CLI may start but never imports: the terminal UI (``websearch-tui``, ``tui``) and
the MCP server (``mcp``). The launcher, :mod:`websearch_tui.__main__`, hands them over as
:class:`FrontEnds`; the CLI parses and checks their commands, loads the config, and then calls them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from websearch_tui.cli.common import PROG, UsageError
from websearch_tui.core.records import record

if TYPE_CHECKING:
    from websearch_tui.settings.config import Config


@record(frozen=True)
class McpOptions:
    """The options of ``mcp``, as given (``None``: not given; the server applies its defaults).

    Attributes:
        http: serve Streamable HTTP instead of stdio.
        host: the address to listen on with ``http``.
        port: the TCP port with ``http`` (0: any free one).
        token_file: the file whose first line is the bearer token.
        allowed_hosts: host names clients may send in the ``Host`` header.
    """

    http: bool = False
    host: str | None = None
    port: int | None = None
    token_file: str | None = None
    allowed_hosts: tuple[str, ...] = ()


StartTui = Callable[["Config"], int]
"""``start(config)``: check the ``[keymap]``, then run the terminal UI until it quits; returns the exit
code. Raises ``ConfigError`` (:mod:`websearch_tui.settings.config`) for a keymap id no binding has,
before the UI starts."""

CheckKeymap = Callable[["Config"], list[str]]
"""``check(config)``: raises ``ConfigError`` for a ``[keymap]`` id that no binding of the terminal UI
has; returns notes on keys that act only outside text fields, one line each (``config validate``)."""

ServeMcp = Callable[["Config", McpOptions], None]
"""``serve(config, options)``: serve MCP until the client closes stdin or the process gets
SIGINT/SIGTERM. Raises :class:`~websearch_tui.cli.common.UsageError` for options the server refuses
(a token, an address, a port) and ``ModuleNotFoundError`` when the MCP SDK is not installed."""


@record(frozen=True)
class FrontEnds:
    """What the launcher hands the CLI; a front end left ``None`` is not part of this program (its
    command fails with a usage error, and ``config validate`` does not check the ``[keymap]``)."""

    tui: StartTui | None = None
    check_keymap: CheckKeymap | None = None
    mcp: ServeMcp | None = None


NO_FRONT_ENDS = FrontEnds()
"""The CLI alone (``websearch_tui.cli.main.main`` called without the launcher)."""


def missing(what: str) -> UsageError:
    """The error of a command whose front end (``what``: "terminal UI", "MCP server") was not handed over."""
    return UsageError(f"this program was started without the {what}; run {PROG} (or python -m websearch_tui)")
