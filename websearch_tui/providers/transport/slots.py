"""Each provider's share of the shared connection pool: at most :data:`MAX_PROVIDER_CONNECTIONS`
requests of one provider are on the wire at once, across every search of one engine (the TUI's, or
the MCP server's, whose clients all share one engine).

Without it one provider that stops answering takes the whole pool (48 connections,
:func:`~websearch_tui.providers.transport.http.build_client`) once enough searches wait on it, and every
other provider's request, whoever asked for it, waits for a connection until its deadline. A request
past the limit waits for a slot (within its provider's deadline); it holds no connection meanwhile.
"""

from __future__ import annotations

import asyncio

from websearch_tui.providers.base import ProviderContext

MAX_PROVIDER_CONNECTIONS = 12
"""Requests of one provider at once: a quarter of the pool, so a stuck provider leaves 36 connections
to the rest (a provider's search is one request at a time; a few more in flight are concurrent searches)."""


class ConnectionSlots:
    """A provider's :class:`~websearch_tui.providers.base.ProviderState` record: the semaphore its
    requests take (one per event loop, made on first use in that loop: an engine may outlive one)."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._gate = asyncio.Semaphore(MAX_PROVIDER_CONNECTIONS)

    def gate(self) -> asyncio.Semaphore:
        """The semaphore for the running event loop."""
        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            self._loop, self._gate = loop, asyncio.Semaphore(MAX_PROVIDER_CONNECTIONS)
        return self._gate


def connection_slot(ctx: ProviderContext) -> asyncio.Semaphore:
    """The semaphore one request of ``ctx``'s provider holds while it is on the wire (``async with``)."""
    return ctx.state.get(ConnectionSlots).gate()
