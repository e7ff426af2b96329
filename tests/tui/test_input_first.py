"""Keys before streaming updates: the panes' tick waits for the echo of a key just typed."""

from __future__ import annotations

import asyncio

from textual.app import App
from textual.screen import Screen

from tests.tui.conftest import submit, until
from tests.tui.test_search_screen import flood
from websearch_tui.tui.common.input_first import HOLD_SECONDS, InputFirst, input_first


class Owner:
    """Stands in for a widget: what the hold's end queues to it runs at once."""

    def call_later(self, callback) -> bool:
        callback()
        return True


OWNER = Owner()


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def test_nothing_is_deferred_without_a_key():
    gate = InputFirst(Clock())
    ran: list[str] = []
    assert not gate.defer(OWNER, lambda: ran.append("tick"))
    assert not gate.holding and ran == []


async def test_deferred_work_runs_once_every_key_received_is_echoed_in_the_order_it_was_deferred():
    gate = InputFirst(Clock())
    ran: list[str] = []
    gate.key_received()
    gate.key_received()
    first, second = (lambda: ran.append("first")), (lambda: ran.append("second"))
    assert gate.defer(OWNER, first) and gate.defer(OWNER, second) and gate.defer(OWNER, first)  # first: once
    gate.echoed()
    assert ran == [] and gate.holding  # one key still waits for its echo
    gate.echoed()
    assert ran == ["first", "second"] and not gate.holding
    assert not gate.defer(OWNER, first)


async def test_a_hold_ends_after_hold_seconds_without_an_echo_and_runs_what_waited():
    clock = Clock()
    gate = InputFirst(clock)
    ran: list[str] = []
    gate.key_received()
    assert gate.defer(OWNER, lambda: ran.append("tick"))
    await asyncio.sleep(HOLD_SECONDS * 2)  # the loop's timer for the hold's end fires first
    assert ran == ["tick"] and not gate.holding
    gate.echoed()  # the late echo changes nothing
    assert ran == ["tick"]


async def test_keys_that_keep_coming_do_not_push_the_hold_back():
    """Auto-repeat: each key arrives before the last is echoed; the hold still ends HOLD_SECONDS
    after the first key, so streaming text keeps showing while a key is held down."""
    clock = Clock()
    gate = InputFirst(clock)
    gate.key_received()
    assert gate.defer(OWNER, lambda: None)
    clock.now += HOLD_SECONDS * 0.9
    gate.key_received()
    assert gate.holding
    clock.now += HOLD_SECONDS * 0.2
    assert not gate.holding
    assert not gate.defer(OWNER, lambda: None)


async def test_a_typed_key_is_echoed_after_its_handler_ran_and_a_frame_was_drawn(make_app, fake_streams, monkeypatch):
    frames = 0
    real_display = App._display

    def display(app: App[object], screen: Screen[object], renderable: object) -> None:
        nonlocal frames
        frames += 1
        real_display(app, screen, renderable)

    monkeypatch.setattr(App, "_display", display)  # every update of the terminal goes through it
    fake_streams["ddgs"] = flood
    app = make_app(("ddgs",))
    async with app.run_test(size=(100, 30)) as pilot:
        gate = input_first(app)
        assert gate is app.input_first
        screen = app.screen
        seen: list[tuple[str, int, bool]] = []
        real_received, real_echoed = gate.key_received, gate.echoed

        def received() -> None:
            seen.append(("received", frames, gate.holding))
            real_received()

        def echoed() -> None:
            seen.append((screen.query_input.value, frames, gate.holding))
            real_echoed()

        gate.key_received, gate.echoed = received, echoed
        await submit(pilot, "q")
        await until(pilot, lambda: app.screen.pane_area._ticks > 3, "the panes tick")
        seen.clear()
        await pilot.press("x")
        await until(pilot, lambda: len(seen) == 2, "the key is received and echoed", detail=lambda: seen)
        (_, frames_at_key, _), (value, frames_at_echo, holding) = seen
        assert value == "qx" and holding  # the handler ran before the echo, which ended the hold
        assert frames_at_echo > frames_at_key
        assert not gate.holding


async def tick_put_off(app, pilot):
    """In ``app`` streaming a search, its pane area's timer paused (only the ticks a test asks for
    run): a key is received and a tick asked for, which is put off. Returns the area, the gate and
    the area's tick count before that tick."""
    await submit(pilot, "q")
    area = app.screen.pane_area
    await until(pilot, lambda: area._ticks > 3, "the panes tick")
    area._ticker.pause()
    gate = app.input_first
    ticks = area._ticks
    gate.key_received()
    area._tick()
    assert area._ticks == ticks  # put off
    return area, gate, ticks


async def test_a_tick_while_a_key_waits_for_its_echo_runs_right_after_the_echo(make_app, fake_streams):
    fake_streams["ddgs"] = flood
    app = make_app(("ddgs",))
    async with app.run_test(size=(100, 30)) as pilot:
        area, gate, ticks = await tick_put_off(app, pilot)
        gate.echoed()
        assert area._ticks == ticks  # queued to the area
        await pilot.pause()
        assert area._ticks == ticks + 1
        area._tick()
        assert area._ticks == ticks + 2  # no key waits: at once


async def test_a_tick_put_off_is_dropped_when_its_area_has_closed(make_app, fake_streams):
    fake_streams["ddgs"] = flood
    app = make_app(("ddgs",))
    async with app.run_test(size=(100, 30)) as pilot:
        area, gate, ticks = await tick_put_off(app, pilot)
        await area.remove()
        gate.echoed()
        await pilot.pause()
        assert area._ticks == ticks
