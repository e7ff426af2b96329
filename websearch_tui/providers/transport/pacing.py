"""Client-side pacing: keep a minimum gap between searches of one provider within this process.

The engine keeps one :class:`Pacer` per provider (config ``min_interval``, else the provider's
default): Exa asks for requests at least 1 s apart (PROVIDERS.md §1.12, can1357/oh-my-pi#3271) and
Brave's free plan allows about one request per second. A pacer hands out start slots
``interval`` seconds apart; callers await their slot.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.providers.base import ProviderContext

NOTED_WAIT = 0.01
"""Seconds: a shorter wait for a slot is not worth a word."""


class Pacer:
    """Hands out request start times at least ``interval`` seconds apart (process-wide, per instance).

    Single-threaded asyncio needs no lock: the slot is reserved before the first ``await``.
    ``clock`` and ``sleep`` default to ``time.monotonic`` and ``asyncio.sleep`` (tests pass fakes).
    """

    def __init__(
        self,
        interval: float,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.interval = interval
        self._clock = clock
        self._sleep = sleep
        self._next = 0.0

    async def wait(self, ctx: ProviderContext, on_wait: Callable[[float], None] | None = None) -> None:
        """Sleep until this caller's slot (seconds from now, possibly 0); ``on_wait`` is told the
        delay (seconds) before a wait of :data:`NOTED_WAIT` or more begins, so the user learns why
        the search is held back.

        Raises:
            ProviderError: ``timeout`` when the slot lies beyond the provider deadline; no slot is
                taken then, so later callers are not pushed back.
        """
        now = self._clock()
        slot = max(now, self._next)
        delay = slot - now
        if delay > 0 and delay >= ctx.remaining():
            raise ProviderError(
                ctx.spec.id,
                ErrorKind.TIMEOUT,
                f"{ctx.spec.label}: no request slot before the deadline (paced {self.interval:g} s apart).",
            )
        self._next = slot + self.interval
        if delay >= NOTED_WAIT and on_wait is not None:
            on_wait(delay)
        if delay > 0:
            await self._sleep(delay)
