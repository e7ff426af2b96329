"""Client-side pacing: request slots handed out at least ``interval`` seconds apart."""

from __future__ import annotations

import asyncio

import pytest

from tests.helpers import make_ctx
from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.providers.transport.pacing import Pacer


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0
        self.waits: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, delay: float) -> None:
        self.waits.append(round(delay, 6))


async def test_slots_are_spaced() -> None:
    clock = FakeClock()
    pacer = Pacer(0.2, clock=clock, sleep=clock.sleep)
    ctx = make_ctx("brave")
    await asyncio.gather(*(pacer.wait(ctx) for _ in range(3)))
    assert clock.waits == [0.2, 0.4]  # the first goes at once, then 0.2 s apart
    clock.now = 101.0  # long after: no wait
    await pacer.wait(ctx)
    assert clock.waits == [0.2, 0.4]


async def test_zero_interval_never_waits() -> None:
    clock = FakeClock()
    pacer = Pacer(0.0, clock=clock, sleep=clock.sleep)
    for _ in range(3):
        await pacer.wait(make_ctx("exa"))
    assert clock.waits == []


async def test_a_slot_past_the_deadline_is_a_timeout_and_takes_no_slot() -> None:
    clock = FakeClock()
    pacer = Pacer(60.0, clock=clock, sleep=clock.sleep)
    await pacer.wait(make_ctx("exa"))
    with pytest.raises(ProviderError) as info:
        await pacer.wait(make_ctx("exa", timeout=1))
    assert info.value.kind is ErrorKind.TIMEOUT
    assert "paced 60 s apart" in info.value.message
    await pacer.wait(make_ctx("exa", timeout=120))  # the refused call did not push this one back
    assert clock.waits == [60.0]
