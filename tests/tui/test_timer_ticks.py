"""A late timer tick is followed by the next tick on its schedule (tui/patches/timer_ticks.py)."""

from __future__ import annotations

import asyncio
import logging

import pytest
import textual._time
from textual._context import active_app
from textual.timer import Timer

from websearch_tui.core import internals
from websearch_tui.tui.patches import timer_ticks


class Target:
    """An event target the timer keeps a weak reference to (the callback path sends it nothing)."""


class AppStandIn:
    """What a timer's tick reads of the active app."""

    _exit = False
    features: frozenset[str] = frozenset()

    def _handle_exception(self, error: Exception) -> None:
        raise error


async def tick_times(monkeypatch: pytest.MonkeyPatch, long_first_tick: float, repeat: int | None = None) -> list[float]:
    """The clock at each of a 1-second timer's first three ticks (all of them, with ``repeat``), when
    its first tick takes ``long_first_tick`` seconds (a fake clock: sleeping moves it)."""
    clock = [0.0]

    async def sleep(seconds: float) -> None:
        clock[0] += seconds
        await asyncio.sleep(0)

    monkeypatch.setattr(textual._time, "get_time", lambda: clock[0])
    monkeypatch.setattr(textual._time, "sleep", sleep)
    monkeypatch.setattr("textual.timer.sleep", sleep)  # Textual's loop reads the name it imported
    times: list[float] = []
    done = asyncio.Event()

    def callback() -> None:
        times.append(clock[0])
        if len(times) == 1:
            clock[0] += long_first_tick
        if len(times) == 3:
            done.set()

    target = Target()
    timer = Timer(target, 1.0, callback=callback, repeat=repeat)
    token = active_app.set(AppStandIn())  # type: ignore[arg-type]
    try:
        timer._start()
        if repeat is None:
            await asyncio.wait_for(done.wait(), 5)
        else:
            await asyncio.wait_for(timer._task, 5)
    finally:
        timer.stop()
        active_app.reset(token)
    return times[:3]


@pytest.fixture
def patched(monkeypatch: pytest.MonkeyPatch) -> None:
    """The patch installed for one test (Textual's loop afterwards, whatever was there before)."""
    monkeypatch.setattr(Timer, "_run", timer_ticks.TEXTUAL_RUN)
    assert timer_ticks.keep_ticks_on_time()


async def test_a_late_tick_is_followed_by_the_first_tick_still_ahead(monkeypatch: pytest.MonkeyPatch, patched):
    assert await tick_times(monkeypatch, long_first_tick=1.5) == [1.0, 3.0, 4.0]  # Textual's own: 1, 4, 5


async def test_ticks_on_time_stay_on_their_schedule(monkeypatch: pytest.MonkeyPatch, patched):
    assert await tick_times(monkeypatch, long_first_tick=0.25) == [1.0, 2.0, 3.0]


async def test_a_timer_that_repeats_a_few_times_ends_even_when_late(monkeypatch: pytest.MonkeyPatch, patched):
    """Ten periods late after its first tick, a timer of two ticks has no tick left (Textual's loop
    ends too)."""
    assert await tick_times(monkeypatch, long_first_tick=10.5, repeat=2) == [1.0]


async def test_textual_s_own_loop_waits_a_period_more(monkeypatch: pytest.MonkeyPatch):
    """What the patch corrects, seen in the loop it replaces (fails once Textual fixes it: then the
    patch no longer installs, see the next test)."""
    textual_loop = timer_ticks.TEXTUAL_RUN
    monkeypatch.setattr(Timer, "_run", textual_loop)
    assert await tick_times(monkeypatch, long_first_tick=1.5) == [1.0, 4.0, 5.0]


def test_the_patch_stays_off_when_textual_has_fixed_the_arithmetic(monkeypatch: pytest.MonkeyPatch):
    textual_loop = timer_ticks.TEXTUAL_RUN
    monkeypatch.setattr(Timer, "_run", textual_loop)
    monkeypatch.setattr(timer_ticks, "LATE_TICK_ARITHMETIC", "count = int((now - start) / _interval)\n")
    assert not timer_ticks.keep_ticks_on_time()
    assert Timer._run is textual_loop


def test_the_patch_stays_off_and_says_so_when_what_it_relies_on_is_gone(monkeypatch, caplog):
    textual_loop = timer_ticks.TEXTUAL_RUN
    monkeypatch.setattr(Timer, "_run", textual_loop)
    monkeypatch.setattr(timer_ticks, "TIMER_ATTRIBUTES", (*timer_ticks.TIMER_ATTRIBUTES, "_gone"))
    monkeypatch.setattr(internals, "_reported", set())  # the warning is logged once per process
    with caplog.at_level(logging.WARNING, logger=timer_ticks.__name__):
        assert not timer_ticks.keep_ticks_on_time()
    assert Timer._run is textual_loop
    assert "Timer has no _gone" in caplog.text
