"""Request pacing: keep a minimum gap between requests to one upstream within this process.

Exa asks for requests at least 1 s apart (PROVIDERS.md §1.12, can1357/oh-my-pi#3271). A
:class:`Pacer` hands out start slots ``interval`` seconds apart; callers await their slot.
"""

from __future__ import annotations

import asyncio
import time

from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.providers.base import ProviderContext


class Pacer:
    """Hands out request start times at least ``interval`` seconds apart (process-wide, per instance).

    Single-threaded asyncio needs no lock: the slot is reserved before the first ``await``.
    """

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self._next = 0.0

    async def wait(self, ctx: ProviderContext) -> None:
        """Sleep until this caller's slot.

        Raises:
            ProviderError: ``timeout`` when the slot lies beyond the provider deadline.
        """
        now = time.monotonic()
        slot = max(now, self._next)
        self._next = slot + self.interval
        delay = slot - now
        if delay <= 0:
            return
        if delay >= ctx.remaining():
            raise ProviderError(
                ctx.spec.id,
                ErrorKind.TIMEOUT,
                f"{ctx.spec.label}: no request slot before the deadline (paced {self.interval:g} s apart).",
            )
        await asyncio.sleep(delay)
