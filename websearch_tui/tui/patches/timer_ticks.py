"""A late timer tick is followed by the next tick on its schedule, not one period later.

A Textual ``Timer`` ticks at ``start + n * interval``. With ``skip`` (the default), a tick that comes
late drops the ticks whose time has passed; Textual 8.2 computes the next one as one period after
the first tick still ahead, so it waits between one and two periods instead of at most one. The
screen's update timer (60 a second) runs late whenever a frame takes longer than 16.7 ms, as frames
do while several answers stream: the frame that shows a key typed just after such a frame waited
17-33 ms instead of at most 17, which was most of the slow keys' time (issue 28: key-to-echo with
six panes streaming, measured from the key reaching the input to the frame that shows it). No
Textual issue was found about it.

:func:`keep_ticks_on_time` replaces ``Timer._run`` with :func:`_run_on_time`, the same loop with the
next tick being the first one still ahead. Internals relied on (Textual 8.2): a timer's ``_active``
event (set while not paused), ``_interval``, ``_repeat``, ``_skip`` and ``_reset`` attributes, its
``_tick(next_timer=, count=)`` coroutine, ``EventTargetGone`` raised when its target is gone, and
``textual._time``'s ``get_time`` and ``sleep``. They are checked when the patch is installed, as is
the arithmetic it corrects (read from ``textual/timer.py``): when one is gone or the arithmetic has
changed, Textual's own loop stays (a warning is logged when something relied on is missing).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from pathlib import Path

import textual.timer as timer_module
from textual import _time
from textual.timer import EventTargetGone, Timer

from websearch_tui.core.internals import fall_back

log = logging.getLogger(__name__)

PATCH = "Keeping a late timer's next tick on its schedule"
LATE_TICK_ARITHMETIC = "count = int((now - start) / _interval + 1)"
"""The line of Textual's ``Timer._run`` that makes the next tick one period late."""
TIMER_ATTRIBUTES = ("_interval", "_repeat", "_skip", "_reset", "_active", "_tick")
"""What the loop uses of a timer (each must appear as ``self.<name>`` in Textual's timer module)."""
TEXTUAL_RUN = Timer._run
"""Textual's own loop, as imported (what :func:`keep_ticks_on_time` replaces)."""


def timer_ticks_problem(source: str) -> str:
    """What the patch relies on and does not find in ``source``, the text of Textual's timer module
    ("" when everything is there)."""
    missing = [name for name in TIMER_ATTRIBUTES if f"self.{name}" not in source]
    if missing:
        return f"Timer has no {', '.join(missing)}"
    if not all(callable(getattr(_time, name, None)) for name in ("get_time", "sleep")):
        return "textual._time has no get_time or sleep"
    if tuple(inspect.signature(Timer._tick).parameters) != ("self", "next_timer", "count"):
        return "Timer._tick takes other parameters"
    return ""


def _timer_source() -> str:
    """The text of Textual's timer module ("" when it cannot be read); read as text, since
    ``inspect.getsource`` tokenizes the module (4 ms at start-up)."""
    try:
        return Path(timer_module.__file__ or "").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def _active(timer: Timer) -> asyncio.Event:
    """The event set while ``timer`` is not paused (Textual's ``_active``: a cached property that
    type checkers read as ``Never``)."""
    event: asyncio.Event = getattr(timer, "_active")  # noqa: B009
    return event


async def _run_on_time(self: Timer) -> None:
    """Tick at ``start + n * interval`` (n = 1, 2, ...) while not paused, as Textual's loop does; a
    late tick with ``skip`` is followed by the first tick still ahead (at most one period away).

    Raises:
        CancelledError: when the timer is stopped (as Textual's loop).
    """
    interval = self._interval
    repeat = self._repeat
    count = 0
    await _active(self).wait()
    start = _time.get_time()
    while repeat is None or count <= repeat:
        due = start + (count + 1) * interval
        now = _time.get_time()
        if self._skip and due < now and interval > 0:
            count = int((now - start) / interval)  # the ticks whose time has passed
            if repeat is not None and count > repeat:
                break
            due = start + (count + 1) * interval
        await _time.sleep(max(0.0, due - now))
        count += 1
        await _active(self).wait()
        if self._reset:
            start = _time.get_time()
            count = 0
            self._reset = False
            continue
        try:
            await self._tick(next_timer=due, count=count)
        except EventTargetGone:
            break


def keep_ticks_on_time() -> bool:
    """Install :func:`_run_on_time` as every Textual timer's loop (process-wide, once); True when it
    is in place. Textual's loop stays when its arithmetic has been fixed upstream, or when something
    the patch relies on is missing (then a warning is logged once)."""
    if Timer._run is _run_on_time:
        return True
    source = _timer_source()
    if LATE_TICK_ARITHMETIC not in source:
        return False
    problem = timer_ticks_problem(source)
    if problem:
        fall_back(log, PATCH, problem)
        return False
    Timer._run = _run_on_time  # type: ignore[method-assign]
    return True
