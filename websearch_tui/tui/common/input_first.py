"""Keys before streaming updates: a pane's next text waits for the echo of a key just typed.

While answers stream, the search screen shows every pane's new text at a shared tick (ten times a
second). A tick parses and draws the new text of every pane, and the frame that follows draws it:
together tens of milliseconds of one event loop. A key that arrives just before a tick waits for
both before the frame that shows it, so typing lags most exactly when the user is reading the
panes. :class:`InputFirst` lets the key go first: from the moment the App receives a key until the
screen has been drawn with it, work that can wait (the tick) is put off, and runs right after that
frame. A tick is put off at most :data:`HOLD_SECONDS`, however fast keys come (auto-repeat, a
paste of keystrokes), so streaming text still shows at least every ``HOLD_SECONDS`` plus a tick.

The App calls :meth:`InputFirst.key_received` when a key arrives and :meth:`InputFirst.echoed` once
the screen has been refreshed after the key's handler ran; a widget with work that can wait calls
:meth:`InputFirst.defer` and skips the work when it returns True: the work is then queued to that
widget when the hold ends (dropped if the widget has closed by then). :func:`input_first` finds the
App's gate (None in an App without one, as in tests of a widget alone).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from textual.message_pump import MessagePump

HOLD_SECONDS = 0.1
"""Longest a deferred callback waits for a key's echo (seconds): one flush period."""


class InputFirst:
    """Holds deferrable work while keys that arrived have not been drawn yet.

    Args:
        clock: monotonic seconds (tests pass a controlled one).
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._pending = 0
        """Keys received and not echoed yet."""
        self._until = 0.0
        """Clock time after which nothing is held, echoed or not."""
        self._waiting: list[tuple[MessagePump, Callable[[], object]]] = []
        self._expiry: asyncio.TimerHandle | None = None

    @property
    def holding(self) -> bool:
        """True while a received key waits for its echo (and :data:`HOLD_SECONDS` have not passed)."""
        return self._pending > 0 and self._clock() < self._until

    def key_received(self) -> None:
        """Note a key the App has just received: hold deferrable work until it is echoed."""
        if not self.holding:
            self._pending = 0
            self._until = self._clock() + HOLD_SECONDS
        self._pending += 1

    def echoed(self) -> None:
        """Note that the screen was drawn after one received key was handled; once every received
        key is echoed, queue what was deferred (in the order it was deferred)."""
        self._pending = max(0, self._pending - 1)
        if self._pending == 0:
            self._release()

    def defer(self, owner: MessagePump, callback: Callable[[], object]) -> bool:
        """Put ``callback`` off until the keys received are echoed (at most until the hold ends), if
        one is held: True when it was put off (the caller skips the work now), False otherwise.
        The hold's end queues it to ``owner`` (Textual's ``call_later``: it runs in the owner's
        turn, and not at all once the owner has closed). A callback already waiting is not added
        twice. Needs a running asyncio loop when holding."""
        if not self.holding:
            return False
        if (owner, callback) not in self._waiting:
            self._waiting.append((owner, callback))
        if self._expiry is None:
            delay = max(0.0, self._until - self._clock())
            self._expiry = asyncio.get_running_loop().call_later(delay, self._release)
        return True

    def _release(self) -> None:
        """End the hold and queue the deferred callbacks to their owners."""
        self._pending = 0
        self._until = 0.0
        if self._expiry is not None:
            self._expiry.cancel()
            self._expiry = None
        waiting, self._waiting = self._waiting, []
        for owner, callback in waiting:
            owner.call_later(callback)


def input_first(app: object) -> InputFirst | None:
    """The gate ``app`` keeps as ``input_first``, or None when it keeps none."""
    gate = getattr(app, "input_first", None)
    return gate if isinstance(gate, InputFirst) else None
