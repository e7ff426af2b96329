"""An :class:`Input` whose editing keys act in the order they were typed.

Textual inserts a printable key in the input's own message queue, but a bound key (Backspace,
Delete, Home, End, the arrows, Ctrl+U, ...) bubbles up through every ancestor's queue to the App,
which only then runs the input's action. Keys that arrive in one read of the terminal (fast typing,
a paste of keystrokes, a busy event loop) are therefore applied out of order: ``abc``, Backspace,
``d`` gives ``abc`` instead of ``abd``, and ``25``, Backspace, Backspace, ``5`` gives ``2`` instead
of ``5``. This is Textual issue #6605 (pull request #6631, still open, moves the same fix into
Textual); until it ships, :class:`OrderedInput` runs the input's own bindings where its printable
keys run: in its key handler, in arrival order.

A keystroke also repaints only the input: its virtual size (the width of its text, which Textual's
Input sets on every change) asks for no layout of the screen (:class:`LayoutFreeVirtualSize`).

Internal relied on (Textual 8.2): a widget's ``_bindings`` (its own bindings, a ``BindingsMap``
whose ``key_to_bindings`` maps a key to its bindings), checked on every key. When it is gone the
key goes Textual's way (to the App) and a warning is logged once.
"""

from __future__ import annotations

import logging

from textual import events
from textual.binding import Binding
from textual.widgets import Input

from websearch_tui.core.internals import fall_back
from websearch_tui.tui.patches.virtual_size import LayoutFreeVirtualSize

log = logging.getLogger(__name__)

PATCH = "Running an input's editing keys in typing order"
BINDINGS = "_bindings"
"""Where a Textual widget keeps its own bindings (a ``BindingsMap``)."""


class OrderedInput(Input, LayoutFreeVirtualSize):
    """A single-line input that applies typed characters and editing keys in arrival order.

    Priority bindings were already checked by the App before the key reached the input; keys the
    input has no binding for still bubble to its ancestors as usual.
    """

    async def on_key(self, event: events.Key) -> None:
        """Run this input's own binding for a non-printable key at once and stop the key there
        (Textual's ``Input`` then restarts the cursor blink, as for any key)."""
        if not event.is_printable and await self._run_own_binding(event.key):
            event.stop()

    async def _run_own_binding(self, key: str) -> bool:
        """Run this input's (non-priority) binding for ``key``; True if one ran."""
        for binding in self._own_bindings(key):
            if not binding.priority and await self.app.run_action(binding.action, self):
                return True
        return False

    def _own_bindings(self, key: str) -> list[Binding]:
        """The bindings of this input for ``key`` (none, and the key left to Textual, when Textual no
        longer keeps them where this looks)."""
        key_to_bindings = getattr(getattr(self, BINDINGS, None), "key_to_bindings", None)
        if not isinstance(key_to_bindings, dict):
            fall_back(log, PATCH, f"a widget keeps no {BINDINGS}.key_to_bindings")
            return []
        return list(key_to_bindings.get(key, ()))
