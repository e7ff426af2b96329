"""An :class:`Input` whose editing keys act in the order they were typed.

Textual inserts a printable key in the input's own message queue, but a bound key (Backspace,
Delete, Home, End, the arrows, Ctrl+U, ...) bubbles up through every ancestor's queue to the App,
which only then runs the input's action. Keys that arrive in one read of the terminal (fast typing,
a paste of keystrokes, a busy event loop) are therefore applied out of order: ``abc``, Backspace,
``d`` gives ``abc`` instead of ``abd``, and ``25``, Backspace, Backspace, ``5`` gives ``2`` instead
of ``5``. This is Textual issue #6605 (pull request #6631, still open, moves the same fix into
Textual); until it ships, :class:`OrderedInput` runs the input's own bindings where its printable
keys run: in its ``_on_key``, in arrival order.

A keystroke also repaints only the input: Textual's Input sets its virtual size (the width of its
text) on every change, and a widget's virtual size asks for a layout of the whole screen, so each
echoed key cost a layout frame (while six panes stream, three times a plain frame). The input's
size never depends on its text, so here the virtual size only moves the scroll limits.
"""

from __future__ import annotations

from textual import events
from textual.geometry import Size
from textual.reactive import Reactive
from textual.widgets import Input


class OrderedInput(Input):
    """A single-line input that applies typed characters and editing keys in arrival order.

    Priority bindings were already checked by the App before the key reached the input; keys the
    input has no binding for still bubble to its ancestors as usual.
    """

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False, repaint=False)
    """As Textual's, without the layout: the text's width sets how far the input scrolls, never its
    size on screen (the change of text repaints it)."""

    async def _on_key(self, event: events.Key) -> None:
        if not event.is_printable and await self._run_own_binding(event.key):
            event.stop()
            event.prevent_default()
            return
        await super()._on_key(event)

    async def _run_own_binding(self, key: str) -> bool:
        """Run this input's (non-priority) binding for ``key``; True if one ran."""
        for binding in self._bindings.key_to_bindings.get(key, ()):
            if not binding.priority and await self.app.run_action(binding.action, self):
                self._restart_blink()
                return True
        return False
